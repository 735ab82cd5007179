/**
 * The worker thread of parse-pool.ts: loads the parser and scanners once, then answers each batch of project files
 * with parseProjectFile's results, in order. An error is sent back as such; the caller then parses the batch itself,
 * so it surfaces exactly as it would have without the worker.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { parseProjectFile } from './parse-file.js'

const allow: readonly string[] = Array.isArray((workerData as { allow?: unknown })?.allow)
  ? (workerData as { allow: string[] }).allow
  : []

parentPort?.on('message', (batch: { id: number; paths: string[]; texts: string[] }) => {
  try {
    const files = batch.texts.map((text, i) => parseProjectFile(batch.paths[i] ?? '', text, allow))
    parentPort?.postMessage({ id: batch.id, files })
  } catch (err) {
    parentPort?.postMessage({ id: batch.id, error: String(err) })
  }
})
