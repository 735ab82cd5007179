/**
 * The worker thread of parse-pool.ts: loads the parser and scanners once, then answers each batch of project files
 * with parseProjectFile's results, in order, as parse-pool.ts encodeFile sends them, and each list of files with their
 * sizes (the rebuild's lstat of a chunk's files). An error is sent back as such; the caller then parses the batch
 * itself, so it surfaces exactly as it would have without the worker.
 */
import { lstatSync } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import { parseProjectFile } from './parse-file.js'
import { MAX_WIRE_TERMS, encodeFile } from './parse-pool.js'

const allow: readonly string[] = Array.isArray((workerData as { allow?: unknown })?.allow)
  ? (workerData as { allow: string[] }).allow
  : []
/** The id of each term sent so far (the pool keeps their strings by id); begun again when it outgrows MAX_WIRE_TERMS. */
const table = new Map<string, number>()

/** Each file's size, -1 when it is missing or cannot be stat'ed (EACCES, ENAMETOOLONG…: its read says why). */
function sizesOf(files: readonly string[]): Float64Array {
  const out = new Float64Array(files.length)
  files.forEach((f, i) => {
    try {
      out[i] = lstatSync(f, { throwIfNoEntry: false })?.size ?? -1
    } catch {
      out[i] = -1
    }
  })
  return out
}

parentPort?.on(
  'message',
  (batch: { id: number; paths: string[]; texts: string[] } | { id: number; sizes: string[] }) => {
    if ('sizes' in batch) {
      const sizes = sizesOf(batch.sizes)
      parentPort?.postMessage({ id: batch.id, sizes }, [sizes.buffer as ArrayBuffer])
      return
    }
    const reset = table.size === 0 || table.size > MAX_WIRE_TERMS
    if (reset) table.clear()
    const terms: string[] = []
    const idOf = (term: string) => {
      let id = table.get(term)
      if (id === undefined) {
        table.set(term, (id = table.size))
        terms.push(term)
      }
      return id
    }
    try {
      const files = batch.texts.map((text, i) => {
        const path = batch.paths[i] ?? ''
        return encodeFile(parseProjectFile(path, text, allow), path, idOf)
      })
      parentPort?.postMessage({ id: batch.id, files, terms, reset })
    } catch (err) {
      // The pool drops its table with this answer: both begin again at the next batch.
      table.clear()
      parentPort?.postMessage({ id: batch.id, error: String(err), reset: true })
    }
  },
)
