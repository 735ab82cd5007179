/**
 * BM25 scoring over our own postings, giving minisearch 7's scores for our options: its BM25+ (k 1.2, b 0.7,
 * d 0.5), a term's document frequency per field, the field boosts, prefix terms weighted 0.375·len/(len + 0.3·extra)
 * and fuzzy ones 0.45·len/(len + distance), a query's terms combined with OR (each term's sum added to the running
 * total), the total multiplied by the number of distinct query terms matched, and the results in the order
 * minisearch returns them (score descending, then the order it first met each document). The floating-point
 * operations are minisearch's, in its order, so the scores are its scores to the last bit on a cached index.
 *
 * Why not minisearch itself: it scores through Maps built from JSON objects, one key per document. At 100,000
 * learnings a pasted failure reaches tens of thousands of documents, and loading and scoring them cost seconds;
 * here the postings are typed arrays read only for the query's terms (CONTRIBUTING.md, "Ranking without
 * minisearch", has the figures). test/unit/core/search-score.test.ts keeps minisearch as the reference.
 */
import type { TermPostings } from './search-postings.js'
import { lowerBound } from './compare.js'

/** What scoring reads of an index. Short ids run from 0 to nextId - 1. */
export interface ScoringIndex {
  /** The number of documents BM25 counts (minisearch's documentCount). */
  documentCount: number
  nextId: number
  /** Average length of each field, by field id. */
  averageFieldLength: readonly number[]
  /** Every term of the index, sorted by code unit. */
  terms: readonly string[]
  /** The postings of terms[i]; read only for the terms a query reaches. */
  postings(i: number): TermPostings
  /** The catalog id of a short id, or undefined when the index holds no such document. */
  docId(short: number): number | undefined
  /** The length of a document's field (distinct tokens). */
  fieldLength(short: number, fieldId: number): number
}

/** One term of a query as minisearch's query spec: prefix and fuzzy as its options give them for this term. */
export interface QuerySpec {
  term: string
  prefix: boolean
  /** The fraction of the term's length allowed as edit distance, or false. */
  fuzzy: number | false
}

const BM25 = { k: 1.2, b: 0.7, d: 0.5 }
const PREFIX_WEIGHT = 0.375
const FUZZY_WEIGHT = 0.45
const MAX_FUZZY = 6

/** The edit distance (insertions, deletions, substitutions) between a and b when at most max, else max + 1. */
export function boundedEditDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(
        (prev[j] as number) + 1,
        (cur[j - 1] as number) + 1,
        (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      )
      cur.push(v)
      if (v < rowMin) rowMin = v
    }
    if (rowMin > max) return max + 1
    prev = cur
  }
  return Math.min(prev[b.length] as number, max + 1)
}

/** A term of the index a query term reaches, and its weight. */
interface Derived {
  at: number
  weight: number
}

/**
 * The index terms one query term reaches, in minisearch's order: the term itself (weight 1); for a prefix query the
 * longer terms it starts, in descending order (minisearch's radix tree, loaded in sorted order, iterates them so);
 * for a fuzzy one the other terms within its distance that are not prefix matches, ascending.
 */
export function derivedTerms(terms: readonly string[], spec: QuerySpec): Derived[] {
  const q = spec.term
  const out: Derived[] = []
  const first = lowerBound(terms, q)
  if (terms[first] === q) out.push({ at: first, weight: 1 })
  let end = first
  if (spec.prefix) {
    while (end < terms.length && (terms[end] as string).startsWith(q)) end++
    for (let i = end - 1; i >= first; i--) {
      const t = terms[i] as string
      const distance = t.length - q.length
      if (distance) out.push({ at: i, weight: (PREFIX_WEIGHT * t.length) / (t.length + 0.3 * distance) })
    }
  }
  if (spec.fuzzy !== false) {
    const f = spec.fuzzy
    const max = f < 1 ? Math.min(MAX_FUZZY, Math.round(q.length * f)) : f
    if (max)
      terms.forEach((t, i) => {
        if (spec.prefix && i >= first && i < end) return
        const distance = boundedEditDistance(q, t, max)
        if (distance > 0 && distance <= max)
          out.push({ at: i, weight: (FUZZY_WEIGHT * t.length) / (t.length + distance) })
      })
  }
  return out
}

/** The scores of one query: minisearch's `search` results, as arrays by short id. */
export interface Scores {
  /** The documents matched, in the order minisearch first meets them (its order on equal scores). */
  order: Int32Array
  /** minisearch's score by short id (its BM25 sum times the number of distinct query terms matched). */
  score: Float64Array
  /** The distinct query terms a document matched, in query order (minisearch's `queryTerms`). */
  matched(short: number): string[]
  /** Whether the query reaches this index term (itself, or as a prefix or a typo of it) in the document `short`. */
  reaches(short: number, term: string): boolean
}

/** Score every document the query's terms reach. */
export function scoreQuery(index: ScoringIndex, specs: readonly QuerySpec[], boosts: readonly number[]): Scores {
  const n = index.nextId
  const total = new Float64Array(n)
  const spec = new Float64Array(n)
  const quality = new Uint16Array(n)
  const seen = new Uint8Array(n)
  /** 1 + the last spec that touched a document; 0: none yet. */
  const touchedIn = new Int32Array(n)
  let order: Int32Array<ArrayBuffer> = new Int32Array(64)
  let count = 0
  let touched: Int32Array<ArrayBuffer> = new Int32Array(64)
  const { k, b, d } = BM25
  const reached: { term: string; postings: TermPostings[] }[] = []
  const seenTerms = new Set<string>()
  /** The postings of each index term the query reaches (already read for its scores). */
  const reachedTerms = new Map<string, TermPostings>()
  specs.forEach((s, si) => {
    const mark = si + 1
    let inSpec = 0
    const postings: TermPostings[] = []
    for (const { at, weight } of derivedTerms(index.terms, s)) {
      const p = index.postings(at)
      reachedTerms.set(index.terms[at] as string, p)
      postings.push(p)
      p.forEach((list, fieldId) => {
        if (!list) return
        const boost = weight * (boosts[fieldId] ?? 1)
        const avg = index.averageFieldLength[fieldId] as number
        let matching = list.shorts.length
        let idf = Math.log(1 + (index.documentCount - matching + 0.5) / (matching + 0.5))
        for (let j = 0; j < list.shorts.length; j++) {
          const short = list.shorts[j] as number
          if (index.docId(short) === undefined) {
            // minisearch drops a posting of a document it does not hold, and counts the field's documents one less.
            matching -= 1
            idf = Math.log(1 + (index.documentCount - matching + 0.5) / (matching + 0.5))
            continue
          }
          const tf = list.counts[j] as number
          const len = index.fieldLength(short, fieldId)
          const raw = idf * (d + (tf * (k + 1)) / (tf + k * (1 - b + (b * len) / avg)))
          const w = boost * raw
          if (touchedIn[short] !== mark) {
            touchedIn[short] = mark
            spec[short] = w
            if (inSpec === touched.length) touched = grow(touched)
            touched[inSpec++] = short
          } else spec[short] = (spec[short] as number) + w
        }
      })
    }
    reached.push({ term: s.term, postings })
    const newTerm = !seenTerms.has(s.term)
    seenTerms.add(s.term)
    for (let i = 0; i < inSpec; i++) {
      const short = touched[i] as number
      if (!seen[short]) {
        seen[short] = 1
        if (count === order.length) order = grow(order)
        order[count++] = short
      }
      total[short] = (total[short] as number) + (spec[short] as number)
      if (newTerm) quality[short] = (quality[short] as number) + 1
    }
  })
  const score = new Float64Array(n)
  for (let i = 0; i < count; i++) {
    const short = order[i] as number
    score[short] = (total[short] as number) * (quality[short] as number)
  }
  return {
    order: order.subarray(0, count),
    score,
    matched(short) {
      const out: string[] = []
      for (const { term, postings } of reached)
        if (!out.includes(term) && postings.some((p) => p.some((list) => !!list && holds(list.shorts, short))))
          out.push(term)
      return out
    },
    reaches: (short, term) => !!reachedTerms.get(term)?.some((list) => !!list && holds(list.shorts, short)),
  }
}

function grow(a: Int32Array): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(a.length * 2)
  bigger.set(a)
  return bigger
}

/** Whether a sorted array holds a value. */
function holds(sorted: Int32Array, value: number): boolean {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((sorted[mid] as number) < value) lo = mid + 1
    else hi = mid
  }
  return sorted[lo] === value
}
