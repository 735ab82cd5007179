/**
 * One project learning as the rebuild of the feed cache needs it: its catalog entry, listing row, index document as
 * term counts (the tokenizing and stemming done here, so a worker does them and hands over no normalized text),
 * content hash and the trust boundary's scans of its text. A pure function of the path and text, so that a worker
 * thread (parse-worker.ts) gives what this thread would.
 */
import { scanForAgents } from '../../core/agent-safety.js'
import type { TextScan } from '../../core/agent-safety.js'
import { parseLearning } from '../../core/learning.js'
import { entryRecallTerms } from '../../core/recall-rank.js'
import { summarize } from '../../core/query.js'
import type { LearningSummary } from '../../core/query.js'
import { buildCatalogEntry, buildSearchDoc } from '../../core/search.js'
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

/** What an error says, as a file's problem. */
export function problemOf(err: unknown): string {
  const e = err as { reason?: string; message?: string }
  return e.reason ?? e.message ?? String(err)
}

/** Parses, describes and scans one learning's text; an error is the file's problem. */
export function parseProjectFile(path: string, text: string, allow: readonly string[]): ParsedFile {
  try {
    const l = parseLearning(text, path)
    const { id: _id, ...doc } = buildSearchDoc(0, l)
    const entry = buildCatalogEntry(l, PROJECT_TIER, 1)
    const recall = entryRecallTerms(entry)
    return {
      entry,
      ...(recall ? { recall } : {}),
      row: summarize(l),
      counted: countDoc(doc),
      hash: contentHash(l),
      name: l.name,
      scan: scanForAgents(text, allow),
    }
  } catch (err) {
    return { problem: problemOf(err) }
  }
}
