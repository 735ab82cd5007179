/**
 * The trust boundary's scans (secrets and directives, core/agent-safety.ts) of many texts on a second core: a
 * rebuild of the feed cache scans every learning, a fifth of its work, and the scans return little (most texts have
 * no finding), so a worker thread does them while this one parses. On one core, for a few texts, or when the worker
 * cannot start or fails, `scan` answers undefined and the caller scans the texts itself: the results, and any
 * error, are the same either way. (The full check does not use it: there the scans are most of the work left once
 * the files are read, and under a loaded host the worker's start and copies cost more than it saved; BENCHMARKS.md.)
 */
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import type { TextScan } from '../../core/agent-safety.js'

/** Below this many texts a worker's start (~30 ms, loading the scanners) costs more than it saves. */
export const MIN_WORKER_TEXTS = 1000

export interface ScanWorker {
  /** The scans of `texts`, in order; undefined when the worker failed (scan them in this thread). */
  scan(texts: readonly string[]): Promise<TextScan[] | undefined>
  /** Stops the worker; pending scans answer undefined. */
  close(): void
}

/**
 * A worker thread scanning with the reviewed fingerprints `allow`, started at once so that it loads the scanners
 * while this thread reads; undefined on a single core or when `expected` texts are too few to pay for it.
 */
export function startScanWorker(
  allow: readonly string[],
  expected: number,
  min = MIN_WORKER_TEXTS,
): ScanWorker | undefined {
  if (expected < min || availableParallelism() < 2) return undefined
  const file = join(__dirname, 'scan-worker.js')
  let worker: Worker
  try {
    worker = new Worker(file, { workerData: { allow: [...allow] } })
  } catch {
    return undefined
  }
  // Never what keeps the process alive: an unfinished scan is answered undefined when the worker goes.
  worker.unref()
  const pending = new Map<number, (scans: TextScan[] | undefined) => void>()
  let failed = false
  const failAll = () => {
    failed = true
    for (const answer of pending.values()) answer(undefined)
    pending.clear()
  }
  worker.on('message', (m: { id: number; scans?: TextScan[] }) => {
    pending.get(m.id)?.(m.scans)
    pending.delete(m.id)
  })
  worker.on('error', failAll)
  worker.on('exit', failAll)
  let next = 0
  return {
    scan(texts) {
      if (failed) return Promise.resolve(undefined)
      const id = next++
      return new Promise((resolve) => {
        pending.set(id, resolve)
        worker.ref()
        worker.postMessage({ id, texts })
      }).then((scans) => {
        if (!pending.size) worker.unref()
        return scans as TextScan[] | undefined
      })
    },
    close() {
      failAll()
      void worker.terminate()
    },
  }
}
