/**
 * One project learning as the rebuild of the feed cache needs it: its catalog entry, listing row, index document as
 * term counts (the tokenizing and stemming done here, so a worker does them and hands over no normalized text),
 * content hash and the trust boundary's scans of its text. A pure function of the path and text, so that a worker
 * thread (parse-worker.ts) gives what this thread would.
 */
import { scanForAgents } from '../../core/agent-safety.js'
import { reasonOf } from '../../core/errors.js'
import type { TextScan } from '../../core/agent-safety.js'
import { parseLearning } from '../../core/learning.js'
import { owned } from '../../core/owned.js'
import { entryRecallTerms } from '../../core/recall-rank.js'
import { summarize } from '../../core/query.js'
import type { LearningSummary } from '../../core/query.js'
import { buildCatalogEntry, buildSearchDoc, indexOptions } from '../../core/search.js'
import type { CatalogEntry } from '../../core/search.js'
import { countDoc } from '../../core/search-parts.js'
import type { CountedDoc } from '../../core/search-parts.js'
import { PROJECT_TIER, contentHash } from '../store/sources.js'

/** One project file, parsed and scanned, or why it could not be. */
export interface ParsedFile {
  entry?: CatalogEntry
  /** The file as a listing row (src/core/query.ts summarize). */
  row?: LearningSummary
  /** Its index document's term counts (src/core/search-parts.ts countDoc). */
  counted?: CountedDoc
  /** The recall terms of each of its triggers (src/core/recall-rank.ts entryRecallTerms), when recall reads it. */
  recall?: string[][]
  hash?: string
  /** The learning's name (what an accepted directive is recorded under). */
  name?: string
  /** Secrets (without the reviewed fingerprints) and directives in its text. */
  scan?: TextScan
  problem?: string
  /** Why it is kept from agents (a credential, a directive: core/agent-safety.ts); listed, never fed. */
  withheld?: string
}

/** Strings shorter than this are kept once per rebuild: tags, types, states and domains say the same few words. */
const SHARED_CHARS = 20
/** Bounds the table of those strings (a store of unique tags would otherwise fill it). */
const MAX_SHARED = 65_536

/**
 * Makes parsed files compact for the rebuild to hold (each file changed in place): strings that hold none of its
 * text, short ones kept once per rebuild, and the row sharing the strings it has in common with the entry and the
 * file's path. V8 keeps a piece of 13 characters or more cut from a string as a view into it: the name, description
 * or fix of a file parsed on this thread kept the whole file alive until the rebuild's end (at 100,000 learnings
 * ~50 MB of texts); the worker's results (`copy` false) arrive as copies, each string as many times as it is used.
 */
export function compactor(): (f: ParsedFile, path: string, copy: boolean) => ParsedFile {
  const shared = new Map<string, string>()
  return (f, path, copy) => {
    const { entry, row } = f
    if (!entry) return f
    const own = (s: string) => (copy ? owned(s) : s)
    const one = new Map<string, string>([[path, path]])
    const str = (s: string): string => {
      const table = s.length < SHARED_CHARS ? shared : one
      let kept = table.get(s)
      if (kept === undefined) {
        if (table.size >= MAX_SHARED) table.clear()
        table.set(s, (kept = own(s)))
      }
      return kept
    }
    const each = (v: unknown): unknown =>
      typeof v === 'string'
        ? str(v)
        : Array.isArray(v)
          ? v.map((x: unknown) => (typeof x === 'string' ? str(x) : x))
          : v
    // Every field, whatever it holds: a field added to the entry later is covered too.
    const fields = entry as unknown as Record<string, unknown>
    for (const k of Object.keys(fields)) fields[k] = each(fields[k])
    if (row) {
      const { name, state, type, domain, tags, description } = row
      Object.assign(row, {
        name: str(name),
        state: str(state),
        type: str(type),
        domain: domain === null ? null : str(domain),
        tags: tags.length === entry.tags.length && tags.every((t, i) => t === entry.tags[i]) ? entry.tags : each(tags),
        description: str(description),
        path: str(row.path),
      })
    }
    return f
  }
}

/** The trigger field's position in a counted document. */
export const TRIGGER_FIELD = indexOptions().fields.indexOf('trigger')

/** Parses, describes and scans one learning's text; an error is the file's problem. */
export function parseProjectFile(path: string, text: string, allow: readonly string[]): ParsedFile {
  try {
    const l = parseLearning(text, path)
    const { id: _id, ...doc } = buildSearchDoc(0, l)
    const entry = buildCatalogEntry(l, PROJECT_TIER, 1)
    const counted = countDoc(doc)
    const recall = entryRecallTerms(entry, counted[TRIGGER_FIELD]?.terms)
    return {
      entry,
      ...(recall ? { recall } : {}),
      row: summarize(l),
      counted,
      hash: contentHash(l),
      name: l.name,
      scan: scanForAgents(text, allow, l.data),
    }
  } catch (err) {
    return { problem: reasonOf(err) }
  }
}
