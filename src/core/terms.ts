/**
 * Terms as the search index sees them, kept apart from minisearch so the recall hook can match an error against
 * triggers without loading the index library.
 */
import { boundQuery, normalizeError } from './normalize-error.js'

// Not shared with dedupe.ts or evolve.ts on purpose: index terms drop pure numbers and split paths at punctuation, and
// search ranking and recall's trigger matching are tuned on them.
const STOP_WORDS = new Set(
  'a an and are as at be but by for from has have in is it its of on or that the this to was were will with when use run not no if then than into via you your we our after before while'.split(' '),
)

export const SPLIT = /[\n\r\p{Z}\p{P}\p{S}]+/u

/** Terms of a text as the index sees them: lower case, no stop words, no pure numbers, at least 2 characters. */
export function processTerm(term: string): string | null {
  const t = term.toLowerCase()
  if (t.length < 2 || t.length > 40 || STOP_WORDS.has(t) || /^\d+$/.test(t)) return null
  return t
}

/** The distinct index terms of a text (after error normalization). */
export function termsOf(text: string): Set<string> {
  const out = new Set<string>()
  for (const raw of normalizeError(text).split(SPLIT)) {
    const t = processTerm(raw)
    if (t) out.add(t)
  }
  return out
}

/** The query as index terms: bounded (long logs), normalized, at most 64 terms; empty when nothing is left. */
export function buildQueryTerms(query: string): string[] {
  return [...termsOf(boundQuery(query))].slice(0, 64)
}
