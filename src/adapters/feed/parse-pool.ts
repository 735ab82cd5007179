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
import type { CountedDoc } from '../../core/search-parts.js'

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

/**
 * The most terms the worker numbers before it begins its table again (a store of unique tokens would otherwise grow
 * it, and the pool's copy, without bound): ~5 MB of strings and map in the worker's heap.
 */
export const MAX_WIRE_TERMS = 65_536

/**
 * A parsed file as the worker sends it: its index terms and recall terms as numbers, each term's string sent once (in
 * the batch that first uses it) instead of in every file that holds it. At 100,000 learnings the structured copy of
 * the files' term strings, and the garbage of their copies here, were ~1 s of the worker's and this thread's CPU.
 */
export type WireFile = Omit<ParsedFile, 'counted' | 'recall'> & {
  counted?: ({ length: number; terms: number[]; counts: number[] } | undefined)[]
  recall?: number[][]
}

/** `f` with its terms as the numbers `idOf` gives them (in the worker). */
export function encodeTerms(f: ParsedFile, idOf: (term: string) => number): WireFile {
  const { counted, recall, ...rest } = f
  const out: WireFile = rest
  if (counted) out.counted = counted.map((c) => c && { length: c.length, terms: c.terms.map(idOf), counts: c.counts })
  if (recall) out.recall = recall.map((r) => r.map(idOf))
  return out
}

/** A file of the worker's with its terms as strings again, from the pool's copy of the worker's table. */
function decodeTerms(f: WireFile, terms: readonly string[]): ParsedFile {
  const { counted, recall, ...rest } = f
  const out: ParsedFile = rest
  const term = (id: number) => terms[id] as string
  if (counted)
    out.counted = counted.map(
      (c) => c && { length: c.length, terms: c.terms.map(term), counts: c.counts },
    ) as CountedDoc
  if (recall) out.recall = recall.map((r) => r.map(term))
  return out
}

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
  /** The worker's terms by number, as its answers add them (in order: one worker answers its batches in turn). */
  let terms: string[] = []
  worker.on('message', (m: { id: number; files?: WireFile[]; terms?: string[]; reset?: boolean }) => {
    if (m.reset) terms = []
    for (const t of m.terms ?? []) terms.push(t)
    const answer = pending.get(m.id)
    pending.delete(m.id)
    if (!pending.size) worker.unref()
    answer?.(m.files?.map((f) => decodeTerms(f, terms)))
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
