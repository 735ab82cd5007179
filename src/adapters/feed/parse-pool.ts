/**
 * The rebuild's per-file work (parse-file.ts: parsing, the index document, the content hash, the trust boundary's
 * scans) on a second core: a worker thread takes batches of files while this thread parses others and indexes them
 * all in store order. On one core, for a few files, or when the worker cannot start or fails, `parse` answers
 * undefined and the caller parses the batch itself: the results, and any error, are the same either way.
 */
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import type { ParsedFile } from './parse-file.js'

/**
 * Below this many files a worker's start (~50 ms of loading the parser and scanners) costs more than it saves: at
 * 1,000 a rebuild took 569 ms on one thread and 614 ms with the worker (BENCHMARKS.md).
 */
export const MIN_WORKER_FILES = 2000

/**
 * The worker's heap (old generation), which bounds its memory: a batch holds 500 files and the normalization memos are
 * bounded, so it lives in ~30 MB; past the limit the worker stops and its batches are parsed here. At 100,000 files
 * a rebuild peaked at 922 MB without a limit and 841 MB with one, against 794 MB on one thread.
 */
export const WORKER_HEAP_MB = 64

export interface ParseWorker {
  /** parseProjectFile of each file, in order; undefined when the worker failed (parse them in this thread). */
  parse(paths: readonly string[], texts: readonly string[]): Promise<ParsedFile[] | undefined>
  /** Batches asked for and not yet answered. */
  readonly waiting: number
  /** Stops the worker; pending batches answer undefined. */
  close(): void
}

/**
 * A worker thread parsing with the reviewed fingerprints `allow`, started at once so that it loads its modules while
 * this thread reads; undefined on a single core or when `expected` files are too few to pay for it.
 */
export function startParseWorker(
  allow: readonly string[],
  expected: number,
  min = MIN_WORKER_FILES,
  heapMb = WORKER_HEAP_MB,
): ParseWorker | undefined {
  if (expected < min || availableParallelism() < 2) return undefined
  let worker: Worker
  try {
    worker = new Worker(join(__dirname, 'parse-worker.js'), {
      workerData: { allow: [...allow] },
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
    })
  } catch {
    return undefined
  }
  // Never what keeps the process alive: an unfinished batch is answered undefined when the worker goes.
  worker.unref()
  const pending = new Map<number, (files: ParsedFile[] | undefined) => void>()
  let failed = false
  const failAll = () => {
    failed = true
    for (const answer of pending.values()) answer(undefined)
    pending.clear()
  }
  worker.on('message', (m: { id: number; files?: ParsedFile[] }) => {
    const answer = pending.get(m.id)
    pending.delete(m.id)
    if (!pending.size) worker.unref()
    answer?.(m.files)
  })
  worker.on('error', failAll)
  worker.on('exit', failAll)
  let next = 0
  return {
    parse(paths, texts) {
      if (failed) return Promise.resolve(undefined)
      const id = next++
      return new Promise((resolve) => {
        pending.set(id, resolve)
        worker.ref()
        worker.postMessage({ id, paths, texts })
      })
    },
    get waiting() {
      return pending.size
    },
    close() {
      failAll()
      void worker.terminate()
    },
  }
}
