/**
 * One learning of a tier as the tier's index needs it (rebuild.ts): its catalog entry (its tier left empty: a tier's
 * name and weight come from config.yaml, not from its commit), index document as term counts, recall terms and content
 * hash; or, as its problem, the warning that skips it. A pure function of the path, the text and the schema, so that
 * the parse worker (parse-worker.ts) gives what this thread would: a tier's first read parses on both cores.
 */
import { entryRecallTerms } from '../../core/recall-rank.js'
import { buildCatalogEntry, buildSearchDoc } from '../../core/search.js'
import { countDoc } from '../../core/search-parts.js'
import type { SchemaValidator } from '../../core/validate.js'
import { contentHash } from '../store/sources.js'
import { tierSkipReason } from './tier-screen.js'
import { TRIGGER_FIELD } from './parse-file.js'
import type { ParsedFile } from './parse-file.js'

/** A tier learning's entry, index document, recall terms and hash, or its warning as `problem`. */
export function parseTierFile(path: string, text: string, validator: SchemaValidator): ParsedFile {
  const l = tierSkipReason(text, path, validator)
  if (typeof l === 'string') return { problem: l }
  const { id: _id, ...doc } = buildSearchDoc(0, l)
  const counted = countDoc(doc)
  const entry = { ...buildCatalogEntry(l, '', 1), path: l.path }
  // [] when recall does not look it up: computed once per pinned commit, not at every rebuild after a project edit.
  const recall = entryRecallTerms(entry, counted[TRIGGER_FIELD]?.terms) ?? []
  return { entry, counted, recall, hash: contentHash(l) }
}
