/**
 * Terms as the search index sees them, kept apart from minisearch so the recall hook can match an error against
 * triggers without loading the index library.
 *
 * A text becomes terms in three steps: matchableError (src/core/normalize-error.ts) removes what varies between runs
 * and adds the words of addresses and equivalent phrases; `splitTerms` cuts at punctuation and white space, keeping an
 * identifier whole beside its parts, less the generic ones (`ERR_REQUIRE_ESM` → err_require_esm, require, esm;
 * `ModuleNotFoundError` → modulenotfounderror, module, not, found; other mixed-case names stay whole); `processTerm`
 * lower-cases, drops stop words and pure numbers, and stems (Porter2: "connecting", "connection" and "connect" are one
 * term).
 */
import { porter2 } from '../vendor/stemmer.js'
import { boundQuery, matchableError } from './normalize-error.js'
import { owned } from './owned.js'

// Not shared with dedupe.ts or evolve.ts on purpose: index terms drop pure numbers and split paths at punctuation, and
// search ranking and recall's trigger matching are tuned on them.
const STOP_WORDS = new Set(
  'a an and are as at be but by for from has have in is it its of on or that the this to was were will with when use run not no if then than into via you your we our after before while'.split(
    ' ',
  ),
)

// Punctuation and symbols split words, except the underscore and the hyphen (an identifier is split afterwards).
// Built with `new RegExp` because the v flag's set difference is newer than the compile target's regex syntax.
export const SPLIT = new RegExp('[[\\t\\n\\r\\p{Z}\\p{S}\\p{P}]--[_\\-]]+', 'v')
// An error or exception class name (`ModuleNotFoundError`, `HTTPError`): split at its case changes too. Other mixed-case
// words (ESLint, TypeScript, esModuleInterop) are names, kept whole.
const CLASS_NAME =
  /^[A-Z]?[A-Za-z]*[a-z][A-Z][A-Za-z]*(?:Error|Exception|Warning|Fault)$|^[A-Z]{2,}(?:Error|Exception)$/
const GENERIC_PARTS = new Set(['error', 'errors', 'err', 'exception', 'warning', 'fault', 'e'])
const IDENTIFIER_PART = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g

// SPLIT's characters among ASCII, for a text that is all ASCII (most are): the same split, two to three times faster
// than the Unicode property classes. test/unit/core/terms.test.ts holds the two classes equal on every ASCII character.
export const ASCII_SPLIT = /[\t\n\r !-,./:-@[-^`{-~]+/
const NON_ASCII = /[^\x00-\x7f]/
const JOINER = /[_-]/

/** The words of a text: split at punctuation; an identifier with `_` or a case change is kept whole and in parts. */
export function splitTerms(text: string): string[] {
  const out: string[] = []
  for (const raw of text.split(NON_ASCII.test(text) ? SPLIT : ASCII_SPLIT)) {
    if (!raw) continue
    const first = raw.charCodeAt(0)
    const last = raw.charCodeAt(raw.length - 1)
    // 95 `_`, 45 `-`: only a word that starts or ends with one needs trimming.
    const w = first === 95 || first === 45 || last === 95 || last === 45 ? raw.replace(/^[_-]+|[_-]+$/g, '') : raw
    if (!w) continue
    out.push(w)
    if (w.length > 64 || !(JOINER.test(w) || CLASS_NAME.test(w))) continue
    // The parts that say something: "Error" of ReferenceError or "ERR" of ERR_REQUIRE_ESM would add a term that most
    // learnings hold (a long list of postings to load and score on every pasted failure) and tell nothing apart.
    for (const part of w.match(IDENTIFIER_PART) ?? [])
      if (part.length !== w.length && !GENERIC_PARTS.has(part.toLowerCase())) out.push(part)
  }
  return out
}

// Stems of the words seen in this process: an index of 10,000 learnings stems the same few thousand words many times.
const stems = new Map<string, string>()
const MAX_STEMS = 100_000

function stemOf(t: string): string {
  let s = stems.get(t)
  if (s === undefined) {
    s = t.length > 3 && /^[a-z]+$/.test(t) ? porter2(t) : t
    if (stems.size >= MAX_STEMS) stems.clear()
    stems.set(t, s)
  }
  return s
}

// processTerm's answer per word as written (case included): the same words come back in every document of an index.
// A word is kept as a copy of its own (core/owned.ts: a slice would keep its whole text alive); one longer
// than MAX_TERM_CHARS (no term, unless lower case makes it shorter) is not kept.
const processed = new Map<string, string | null>()
const MAX_PROCESSED = 16_384
const MAX_TERM_CHARS = 40

function processOnce(term: string): string | null {
  const t = term.toLowerCase()
  return t.length < 2 || t.length > MAX_TERM_CHARS || STOP_WORDS.has(t) || /^\d+$/.test(t) ? null : stemOf(t)
}

/** Terms of a text as the index sees them: lower case, no stop words, no pure numbers, at least 2 characters, stemmed. */
export function processTerm(term: string): string | null {
  if (term.length > MAX_TERM_CHARS) return processOnce(term)
  let out = processed.get(term)
  if (out === undefined) {
    out = processOnce(term)
    if (processed.size >= MAX_PROCESSED) processed.clear()
    processed.set(owned(term), (out = out === null ? null : owned(out)))
  }
  return out
}

/** The distinct index terms of a text (after error normalization). */
export function termsOf(text: string): Set<string> {
  const out = new Set<string>()
  for (const raw of splitTerms(matchableError(text))) {
    const t = processTerm(raw)
    if (t) out.add(t)
  }
  return out
}

/** The query as index terms: bounded (long logs), normalized, at most 64 terms; empty when nothing is left. */
export function buildQueryTerms(query: string): string[] {
  return termsOfBounded(boundQuery(query))
}

/** The index terms of a query already bounded (normalize-error.ts boundQuery), at most 64. */
export function termsOfBounded(bounded: string): string[] {
  return [...termsOf(bounded)].slice(0, 64)
}
