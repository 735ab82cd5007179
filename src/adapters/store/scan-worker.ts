/**
 * The worker thread of text-scans.ts: loads the scanners once, then answers each batch of texts with their scans
 * (core/agent-safety.ts scanForAgents), in order. An error is sent back as such; the caller then scans the batch
 * itself, so it surfaces exactly as it would have without the worker.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { scanForAgents } from '../../core/agent-safety.js'

const allow: readonly string[] = Array.isArray((workerData as { allow?: unknown })?.allow)
  ? (workerData as { allow: string[] }).allow
  : []

parentPort?.on('message', (batch: { id: number; texts: string[] }) => {
  try {
    parentPort?.postMessage({ id: batch.id, scans: batch.texts.map((text) => scanForAgents(text, allow)) })
  } catch (err) {
    parentPort?.postMessage({ id: batch.id, error: String(err) })
  }
})
