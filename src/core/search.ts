/**
 * Ranked full-text search over learnings: BM25 with field boosts, minisearch's scores computed over our own postings
 * (src/core/search-score.ts). The catalog is the small, plain record of each learning that search, recall, context
 * and status need; the index is built from the catalog plus the normalized bodies (src/core/search-parts.ts), and
 * both are cached by the adapter (src/adapters/feed/search-index.ts).
 *
 * Why over 300 lines: the catalog, the document built for the index and the ranking must change together (the
 * cache keys on their code).
 */
import { sectionText } from './sections.js'
import type { LearningState } from './errors.js'
import type { Learning } from './learning.js'
import { isCommitId } from './git-args.js'
import { triggersOf } from './triggers.js'
import { matchableError } from './normalize-error.js'
import { buildQueryTerms, processTerm, splitTerms, termsOf } from './terms.js'
import { compareCodeUnits } from './compare.js'
import { scoreQuery } from './search-score.js'
import { bestFirst } from './search-top.js'
import type { QuerySpec, ScoringIndex } from './search-score.js'

export interface CatalogEntry {
  name: string
  tier: string
  /** The tier's weight: multiplies search scores (project 1.0). */
  weight: number
  state: LearningState
  type: string
  domain: string | null
  tags: string[]
  description: string
  /** The first trigger (for one-line displays), or null. */
  trigger: string | null
  /** Every trigger (`trigger` may be a list). */
  triggers: string[]
  /** Frontmatter confidence, or null when absent. */
  confidence: number | null
  created: string | null
  evidencePaths: string[]
  evidenceCommit: string | null
  supersedes: string[]
  /** One line out of the Solution (or Correct pattern, Decision, Action) section. */
  fix: string
  /** Repository-relative path (project) or `<tier>:<path>` for a tier. */
  path: string
}

/** What the index holds of one learning; `id` is the entry's position in the catalog. */
export interface SearchDoc {
  id: number
  name: string
  description: string
  trigger: string
  tags: string
  body: string
}

/**
 * Field boosts: a learning tagged, triggered or described like the query outranks one that mentions it in passing.
 * Tuned on test/fixtures/eval/real-world/queries.yaml: tags hold the tool names a person types in a symptom, and a
 * name repeats words of its description (name 2, trigger 3, tags 1.5 before: symptom top-1 0.92 → 0.93, pasted same).
 */
export const FIELD_BOOSTS = { name: 1, trigger: 2, description: 2, tags: 3, body: 1 } as const

export { SPLIT, buildQueryTerms, processTerm, splitTerms, termsOf } from './terms.js'

/** The index's fields (their position is their field id), tokenizer and term processing (minisearch's options). */
export function indexOptions() {
  return {
    fields: ['name', 'description', 'trigger', 'tags', 'body'] as (keyof typeof FIELD_BOOSTS)[],
    tokenize: splitTerms,
    processTerm,
  }
}

/** FIELD_BOOSTS by field id. */
const BOOSTS = indexOptions().fields.map((f) => FIELD_BOOSTS[f])

const FIX_SECTIONS = ['Solution', 'Correct pattern', 'Decision', 'Action']

const MAX_FIX = 240

/** One line summarising the fix: the first paragraph of the Solution (or its equivalent), code fences dropped. */
export function summarizeFix(body: string): string {
  for (const heading of FIX_SECTIONS) {
    const text = sectionText(body, heading)
    if (!text) continue
    const para = text
      .replace(/```[\s\S]*?(```|$)/g, ' ')
      .split(/\n\s*\n/)
      .map((p) =>
        p
          .replace(/^\s*[-*]\s+/gm, '')
          .replace(/\s+/g, ' ')
          .trim(),
      )
      .find(Boolean)
    if (para) return para.length > MAX_FIX ? `${para.slice(0, MAX_FIX - 1)}…` : para
  }
  return ''
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [])

/** The catalog entry of a learning read from a source. */
export function buildCatalogEntry(l: Learning, tier: string, weight: number): CatalogEntry {
  const d = l.data
  const evidence = (d['evidence'] && typeof d['evidence'] === 'object' ? d['evidence'] : {}) as Record<string, unknown>
  return {
    name: l.name,
    tier,
    weight,
    state: l.state,
    type: str(d.type) ?? '?',
    domain: str(d['domain']),
    tags: strs(d.tags),
    description: (str(d.description) ?? '').replace(/\s+/g, ' ').trim(),
    trigger: triggersOf(d)[0] ?? null,
    triggers: triggersOf(d),
    // A number that is not finite (`.nan`, `.inf` in YAML) is none: core/confidence.ts reads it so, JSON writes it so.
    confidence: typeof d['confidence'] === 'number' && Number.isFinite(d['confidence']) ? d['confidence'] : null,
    created: str(d['created']),
    evidencePaths: strs(evidence['paths']),
    // Only a hex object id: status passes it to git (a learning file could hold "--output=…").
    evidenceCommit: isCommitId(evidence['commit']) ? evidence['commit'] : null,
    supersedes: strs(d['supersedes']),
    fix: summarizeFix(l.body),
    path: tier === 'project' ? l.path : `${tier}:${l.path}`,
  }
}

/** The index document of a learning (text fields normalized like error output). */
export function buildSearchDoc(id: number, l: Learning): SearchDoc {
  const d = l.data
  return {
    id,
    name: l.name.replace(/-/g, ' '),
    description: str(d.description) ?? '',
    trigger: matchableError(triggersOf(d).join('\n')),
    tags: strs(d.tags).join(' '),
    body: matchableError(l.body.slice(0, 64 * 1024)),
  }
}

/**
 * The index's header (minisearch's serialized fields of the same names): the document count BM25 uses, the next short
 * id, the field ids, and each field's average length.
 */
export interface IndexHeader {
  documentCount: number
  nextId: number
  fieldIds: Record<string, number>
  averageFieldLength: number[]
  dirtCount: number
  serializationVersion: number
}

/** One document of the index by its short id: its id (catalog position) and its field lengths. */
export type IndexDoc = readonly [id: number, lengths: readonly number[]]

export interface SearchFilter {
  /** States to keep; undefined keeps every state. */
  states?: readonly LearningState[]
  types?: readonly string[]
}

export interface SearchHit {
  entry: CatalogEntry
  score: number
  /** Index terms of the query that this learning matched. */
  matched: string[]
}

/** What ranking needs of every candidate: filter, weight and tie-break fields. */
export interface DocMeta {
  name: string
  tier: string
  weight: number
  state: LearningState
  type: string
}

/**
 * The catalog as ranking reads it: the small record of any document, the full entry only for the hits returned
 * (the adapter reads those few rows from its cache instead of parsing all of them).
 */
export interface CatalogView {
  meta(id: number): DocMeta | undefined
  /** The tier weight of a document (1 when there is no such document): ranking reads it of every candidate. */
  weight(id: number): number
  entry(id: number): CatalogEntry | undefined
}

/** A catalog held in memory as a view. */
export function catalogView(catalog: readonly CatalogEntry[]): CatalogView {
  return { meta: (id) => catalog[id], weight: (id) => catalog[id]?.weight ?? 1, entry: (id) => catalog[id] }
}

// A query of a few terms gets prefixes and typo tolerance; pasted logs (many terms) match exactly, which is faster.
const FEW_TERMS = 4
// A typed query of more terms (a sentence: "the cache server refuses every connection when my app boots") gets
// prefixes for its terms of five letters or more: a person's word reaches the learning's longer form of it (`local` →
// `localhost`, `credenti` → `credentials`). Four-letter ones stay exact: `node`, `type`, `post` and `java` begin
// other tools' names (`nodemon`, `typescript`, `postgres`, `javascript`). Cross-validated on the tuning queries
// (docs/matching.md, "Typed queries").
const TYPED_PREFIX = 5

/** Whether a query was typed rather than pasted: one line (a log, a trace or a test run has several). */
export function isTypedQuery(query: string): boolean {
  return !query.trim().includes('\n')
}

/**
 * The query as minisearch saw it when we passed it the query's terms joined by spaces: split and processed again
 * (an identifier's parts become terms of their own, a stem may be stemmed again), each with the prefix and fuzzy
 * options of a query of a few terms, a typed one or a pasted one.
 */
export function querySpecs(terms: readonly string[], typed = false): QuerySpec[] {
  const few = terms.length <= FEW_TERMS
  const out: QuerySpec[] = []
  for (const raw of splitTerms(terms.join(' '))) {
    const term = processTerm(raw)
    if (!term) continue
    const prefix = (few && term.length >= 4) || (typed && term.length >= TYPED_PREFIX)
    out.push({ term, prefix, fuzzy: few && term.length >= 6 ? 0.2 : false })
  }
  return out
}

/**
 * A learning one of whose triggers the query holds in full (it reaches every term of it) scores this many times its
 * BM25 sum. A trigger is the error line the tool prints, so a paste that holds one is that failure, where a near-twin
 * that shares the paste's generic words (`Could not read from remote repository`, a traceback's frames) does not hold
 * its own (`Permission denied (publickey)`): the paste's volume of shared words outweighed the line that tells them
 * apart. Chosen by cross-validation on the tuning queries (docs/matching.md, "A trigger held in full").
 */
export const HELD_TRIGGER = 3

/** Whether a query holds one of these triggers in full: it reaches every index term of one (at least one term). */
export function holdsTrigger(triggers: readonly string[], reaches: (term: string) => boolean): boolean {
  return triggers.some((t) => {
    const terms = termsOf(t)
    if (!terms.size) return false
    for (const term of terms) if (!reaches(term)) return false
    return true
  })
}

/**
 * Rank catalog entries for a query: BM25 with field boosts, times HELD_TRIGGER when the query holds one of the
 * learning's triggers in full, times the tier weight; best first.
 */
export function rankLearnings(
  index: ScoringIndex,
  catalog: readonly CatalogEntry[] | CatalogView,
  query: string,
  filter: SearchFilter = {},
  limit = 10,
): SearchHit[] {
  const view = Array.isArray(catalog) ? catalogView(catalog) : (catalog as CatalogView)
  const terms = buildQueryTerms(query)
  if (!terms.length) return []
  const scores = scoreQuery(index, querySpecs(terms, isTypedQuery(query)), BOOSTS)
  // The best `limit` by score, then name, then tier, then as minisearch returned them (its score before the tier
  // weight and rounding, then the order it met them): most candidates lose to the current last place with a single
  // comparison (a pasted log can match thousands).
  type Ranked = { id: number; short: number; meta: DocMeta; score: number; raw: number; seen: number }
  const cmp = (a: Ranked, b: Ranked) =>
    b.score - a.score ||
    compareCodeUnits(a.meta.name, b.meta.name) ||
    compareCodeUnits(a.meta.tier, b.meta.tier) ||
    b.raw - a.raw ||
    a.seen - b.seen
  const keep = (m: DocMeta | undefined): m is DocMeta =>
    !!m && (!filter.states || filter.states.includes(m.state)) && (!filter.types || filter.types.includes(m.type))
  // The tier weight of each candidate (by the order met), read once: both passes and the candidates' order use it.
  const weights = new Float64Array(scores.order.length)
  scores.order.forEach((short, seen) => (weights[seen] = view.weight(index.docId(short) as number)))
  // Two passes. The first keeps the best `limit` by BM25 alone, as minisearch ranks them: the last of them is a floor
  // under the final last place (a held trigger only raises a score). The second scores, with their held triggers,
  // the candidates that reach that floor when held, best first, so that most of them fall below the last place before
  // their triggers are read (a pasted log's matches are many; the order they are met in does not change the result).
  const select = (
    seens: Iterable<number>,
    most: number,
    floor: number,
    factor: (id: number, short: number) => number,
  ) => {
    const top: Ranked[] = []
    for (const seen of seens) {
      const short = scores.order[seen] as number
      const id = index.docId(short) as number
      const base = scores.score[short] as number
      const weight = weights[seen] as number
      // Most candidates score below the last place even when held: they are left before their record is read.
      const last = top.length >= limit ? top[top.length - 1] : undefined
      // Multiplied in the score's order ((base × factor) × weight): a float on a rounding edge is not pruned.
      const bound = Math.round(base * most * weight * 1000) / 1000
      if (limit <= 0 || bound < floor || (last && bound < last.score)) continue
      const meta = view.meta(id)
      if (!keep(meta)) continue
      // A candidate that loses to the last place at the most it can score (a tie lost on its name) loses at any.
      if (last && cmp(last, { id, short, meta, score: bound, raw: base * most, seen }) <= 0) continue
      const raw = most === 1 ? base : base * factor(id, short)
      const score = Math.round(raw * weight * 1000) / 1000
      if (last && score < last.score) continue
      const c: Ranked = { id, short, meta, score, raw, seen }
      if (last && cmp(last, c) <= 0) continue
      let at = top.length
      while (at > 0 && cmp(top[at - 1] as Ranked, c) > 0) at--
      top.splice(at, 0, c)
      if (top.length > limit) top.pop()
    }
    return top
  }
  // The first pass sets only the floor of the second: one below the true floor would cost time, never a result.
  const bm25 = (seen: number) =>
    Math.round((scores.score[scores.order[seen] as number] as number) * (weights[seen] as number) * 1000) / 1000
  const first = bestFirst(scores.order.length, bm25, limit, (seens) => select(seens, 1, -Infinity, () => 1))
  const floor = first.length >= limit ? (first[first.length - 1] as Ranked).score : -Infinity
  const weighted = new Float64Array(scores.order.length)
  const candidates: number[] = []
  scores.order.forEach((short, seen) => {
    const base = scores.score[short] as number
    const weight = weights[seen] as number
    weighted[seen] = base * weight
    if (Math.round(base * HELD_TRIGGER * weight * 1000) / 1000 >= floor) candidates.push(seen)
  })
  candidates.sort((a, b) => (weighted[b] as number) - (weighted[a] as number) || a - b)
  // Held in this learning: every term of the trigger is one the query reaches in its own index document (a term the
  // query reaches only in others, `ipv6` of a trigger field that dropped it, does not make it held).
  const held = (id: number, short: number) =>
    holdsTrigger(view.entry(id)?.triggers ?? [], (term) => scores.reaches(short, term)) ? HELD_TRIGGER : 1
  const top = select(candidates, HELD_TRIGGER, floor, held)
  return top.map((h) => ({ entry: view.entry(h.id) as CatalogEntry, score: h.score, matched: scores.matched(h.short) }))
}
