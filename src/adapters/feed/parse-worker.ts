/**
 * The worker thread of parse-pool.ts: loads the parser and scanners once, then answers each batch of project files
 * with parseProjectFile's results, in order, as parse-pool.ts encodeFile sends them. An error is sent back
 * as such; the caller then parses the batch itself, so it surfaces exactly as it would have without the worker.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { parseProjectFile } from './parse-file.js'
import { MAX_WIRE_TERMS, encodeFile } from './parse-pool.js'

const allow: readonly string[] = Array.isArray((workerData as { allow?: unknown })?.allow)
  ? (workerData as { allow: string[] }).allow
  : []
/** The id of each term sent so far (the pool keeps their strings by id); begun again when it outgrows MAX_WIRE_TERMS. */
const table = new Map<string, number>()

parentPort?.on('message', (batch: { id: number; paths: string[]; texts: string[] }) => {
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
})
