/**
 * The worker thread of parse-pool.ts: loads the parser and scanners once, then answers each batch of project files
 * with parseProjectFile's results (of a tier's files, parseTierFile's), in order, as parse-pool.ts encodeFile sends
 * them, and each list of files with their sizes (the rebuild's lstat of a chunk's files). An error is sent back as such; the caller then parses the batch
 * itself, so it surfaces exactly as it would have without the worker.
 */
import { lstatSync } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import type { SchemaValidator } from '../../core/validate.js'
import { loadLearningValidator } from '../store/validators.js'
import { parseProjectFile } from './parse-file.js'
import type { ParsedFile } from './parse-file.js'
import { MAX_WIRE_TERMS, TermNumbers, encodeFile } from './parse-pool.js'
import { parseTierFile } from './tier-file.js'

const allow: readonly string[] = Array.isArray((workerData as { allow?: unknown })?.allow)
  ? (workerData as { allow: string[] }).allow
  : []
const utf8 = new TextEncoder()

/** The id of each term sent so far (the pool keeps their strings by id); begun again when it outgrows MAX_WIRE_TERMS. */
const numbers = new TermNumbers()

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

type Batch = { id: number; paths: string[]; texts: string[]; tier?: boolean } | { id: number; sizes: string[] }

/** The schema validator, loaded at the first batch of a tier's files (a project's files are validated by check). */
let validator: Promise<SchemaValidator> | undefined
/** Each batch is answered after the one before it (a tier's batch may wait for the validator): in order. */
let answered: Promise<void> = Promise.resolve()

function answer(batch: Batch, validate: SchemaValidator | undefined): void {
  if ('sizes' in batch) {
    const sizes = sizesOf(batch.sizes)
    parentPort?.postMessage({ id: batch.id, sizes }, [sizes.buffer as ArrayBuffer])
    return
  }
  const reset = numbers.table.size === 0 || numbers.table.size > MAX_WIRE_TERMS
  if (reset) numbers.clear()
  try {
    const parse = (path: string, text: string): ParsedFile =>
      validate ? parseTierFile(path, text, validate) : parseProjectFile(path, text, allow)
    const files = batch.texts.map((text, i) => {
      const path = batch.paths[i] ?? ''
      return encodeFile(parse(path, text), path, numbers.idOf)
    })
    // As one JSON text in UTF-8, its buffer moved, not copied: V8's structured copy of a batch's objects cost this
    // thread ~7 ms and the pool's ~9 ms per 500 files, JSON ~4 and ~3 (parse-pool.ts WireFile says what it may hold).
    const json = utf8.encode(JSON.stringify({ files, terms: numbers.take() }))
    parentPort?.postMessage({ id: batch.id, json, reset }, [json.buffer as ArrayBuffer])
  } catch (err) {
    // The pool drops its table with this answer: both begin again at the next batch.
    numbers.clear()
    parentPort?.postMessage({ id: batch.id, error: String(err), reset: true })
  }
}

/** Ends the worker with `err` (its 'error' event): the pool answers what is left undefined and parses it itself. */
function fail(err: unknown): void {
  setImmediate(() => {
    throw err
  })
}

parentPort?.on('message', (batch: Batch) => {
  const tier = 'tier' in batch && batch.tier === true
  if (tier) validator ??= loadLearningValidator()
  const loaded = tier ? validator : undefined
  answered = answered.then(async () => answer(batch, loaded && (await loaded))).catch(fail)
})
