/**
 * Ranked full-text search over learnings (minisearch: BM25 with field boosts). The catalog is the small, plain
 * record of each learning that search, recall, context and status need; the index is built from the catalog plus
 * the normalized bodies, and both are cached by the adapter (src/adapters/search-index.ts).
 */
import { sectionText } from './sections.js'
import MiniSearch from 'minisearch'
import type { AsPlainObject, Options } from 'minisearch'
import type { LearningState } from './errors.js'
import type { Learning } from './learning.js'
import { isCommitId } from './git-args.js'
import { triggersOf } from './learning.js'
import { matchableError } from './normalize-error.js'
import { buildQueryTerms, processTerm, splitTerms } from './terms.js'
import { compareCodeUnits, lowerBound } from './compare.js'

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

/** The index's options (the same for building and loading). */
export function indexOptions(): Options<SearchDoc> {
  return {
    idField: 'id',
    fields: ['name', 'description', 'trigger', 'tags', 'body'],
    storeFields: [],
    tokenize: splitTerms,
    processTerm,
  }
}

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
    confidence: typeof d['confidence'] === 'number' ? (d['confidence'] as number) : null,
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

/** A fresh index over documents. */
export function buildIndex(docs: readonly SearchDoc[]): MiniSearch<SearchDoc> {
  const ms = new MiniSearch<SearchDoc>(indexOptions())
  ms.addAll(docs as SearchDoc[])
  return ms
}

/** The serialized index without its postings and without its per-document tables. */
export type IndexHeader = Omit<AsPlainObject, 'index' | 'documentIds' | 'fieldLength' | 'storedFields'>

/** One document of the index by its short id: its id (catalog position) and its field lengths. */
export type IndexDoc = readonly [id: number, lengths: readonly number[]]

/**
 * A serialized index cut in pieces: the header, the sorted terms, each term's postings as JSON, and the documents by
 * short id (undefined: no such document). The index stores no fields (storeFields: []).
 */
export interface IndexParts {
  header: IndexHeader
  terms: string[]
  postings: string[]
  docs: (IndexDoc | undefined)[]
}

/** Cut an index in parts, terms sorted, so a reader can load just the postings of the terms a query reaches. */
export function splitIndex(index: MiniSearch<SearchDoc>): IndexParts {
  const { index: entries, documentIds, fieldLength, storedFields: _stored, ...header } = index.toJSON()
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  const docs: (IndexDoc | undefined)[] = Array.from({ length: header.nextId }, () => undefined)
  for (const [short, id] of Object.entries(documentIds)) docs[Number(short)] = [id as number, fieldLength[short] ?? []]
  return { header, terms: entries.map((e) => e[0]), postings: entries.map((e) => JSON.stringify(e[1])), docs }
}

/**
 * An index of some terms only (their postings parsed), over the header of the whole index. Only the documents these
 * postings hold get a document id and field lengths (`doc` reads them by short id): scoring reads nothing of the
 * others (document count and average field lengths come from the header), and loading 30,000 of them would cost
 * more than the query.
 */
export function joinIndex(
  header: IndexHeader,
  entries: AsPlainObject['index'],
  doc: (short: number) => IndexDoc | undefined,
): MiniSearch<SearchDoc> {
  const documentIds: Record<string, number> = {}
  const fieldLength: Record<string, number[]> = {}
  for (const [, fields] of entries)
    for (const field of Object.values(fields))
      for (const short of Object.keys(field)) {
        if (Object.hasOwn(documentIds, short)) continue
        const d = doc(Number(short))
        if (!d) continue
        documentIds[short] = d[0]
        fieldLength[short] = d[1] as number[]
      }
  return MiniSearch.loadJS<SearchDoc>(
    { ...header, documentIds, fieldLength, storedFields: {}, index: entries },
    indexOptions(),
  )
}

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
  entry(id: number): CatalogEntry | undefined
}

/** A catalog held in memory as a view. */
export function catalogView(catalog: readonly CatalogEntry[]): CatalogView {
  return { meta: (id) => catalog[id], entry: (id) => catalog[id] }
}

// Typed queries (a few terms) get prefixes and typo tolerance; pasted logs (many terms) match exactly, which is faster.
const FEW_TERMS = 4
const MAX_FUZZY = 6 // minisearch's default maxFuzzy
const prefixOf = (few: boolean) => (few ? (t: string) => t.length >= 4 : false)
const fuzzyOf = (few: boolean) => (few ? (t: string) => (t.length >= 6 ? 0.2 : false) : false)

/** Whether the edit distance (insertions, deletions, substitutions) between a and b is at most max. */
export function withinEditDistance(a: string, b: string, max: number): boolean {
  if (Math.abs(a.length - b.length) > max) return false
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
    if (rowMin > max) return false
    prev = cur
  }
  return (prev[b.length] as number) <= max
}

/**
 * The index terms a query can reach, as positions in `sorted` (every term of the index, sorted): each query term
 * itself, and for a typed query (≤ 4 terms) the terms it prefixes (4+ characters) and those within minisearch's
 * fuzzy distance (6+ characters: round(0.2 × length)). An index holding only these terms ranks the query exactly as
 * the whole index does, so the adapter loads only their postings.
 */
export function selectIndexTerms(sorted: readonly string[], queryTerms: readonly string[]): number[] {
  const few = queryTerms.length <= FEW_TERMS
  const prefix = prefixOf(few)
  const fuzzy = fuzzyOf(few)
  const out = new Set<number>()
  for (const q of queryTerms) {
    let i = lowerBound(sorted, q)
    if (sorted[i] === q) out.add(i)
    if (prefix && prefix(q)) for (; i < sorted.length && (sorted[i] as string).startsWith(q); i++) out.add(i)
    const f = fuzzy ? fuzzy(q) : false
    if (f) {
      const max = Math.min(MAX_FUZZY, Math.round(q.length * f))
      sorted.forEach((t, j) => {
        if (!out.has(j) && withinEditDistance(q, t, max)) out.add(j)
      })
    }
  }
  return [...out].sort((a, b) => a - b)
}

/** Rank catalog entries for a query: BM25 with field boosts, times the tier weight; best first. */
export function rankLearnings(
  index: MiniSearch<SearchDoc>,
  catalog: readonly CatalogEntry[] | CatalogView,
  query: string,
  filter: SearchFilter = {},
  limit = 10,
): SearchHit[] {
  const view = Array.isArray(catalog) ? catalogView(catalog) : (catalog as CatalogView)
  const terms = buildQueryTerms(query)
  if (!terms.length) return []
  const few = terms.length <= FEW_TERMS
  const keep = (id: number) => {
    const e = view.meta(id)
    return (
      !!e && (!filter.states || filter.states.includes(e.state)) && (!filter.types || filter.types.includes(e.type))
    )
  }
  const results = index.search(terms.join(' '), {
    boost: { ...FIELD_BOOSTS },
    combineWith: 'OR',
    prefix: prefixOf(few),
    fuzzy: fuzzyOf(few),
    filter: (r) => keep(r['id'] as number),
  })
  // The best `limit` by score, then name, then tier, as a stable sort of all results would keep them, in one pass:
  // most results lose to the current last place with a single comparison (a pasted log can match thousands).
  type Ranked = { id: number; meta: DocMeta; score: number; queryTerms: string[] }
  const cmp = (a: Ranked, b: Ranked) =>
    b.score - a.score || compareCodeUnits(a.meta.name, b.meta.name) || compareCodeUnits(a.meta.tier, b.meta.tier)
  const top: Ranked[] = []
  for (const r of results) {
    const meta = view.meta(r.id as number) as DocMeta
    const c: Ranked = {
      id: r.id as number,
      meta,
      score: Math.round(r.score * meta.weight * 1000) / 1000,
      queryTerms: r.queryTerms,
    }
    if (top.length >= limit && (limit <= 0 || cmp(top[top.length - 1] as Ranked, c) <= 0)) continue
    let at = top.length
    while (at > 0 && cmp(top[at - 1] as Ranked, c) > 0) at--
    top.splice(at, 0, c)
    if (top.length > limit) top.pop()
  }
  return top.map((h) => ({
    entry: view.entry(h.id) as CatalogEntry,
    score: h.score,
    matched: [...new Set(h.queryTerms)],
  }))
}

/** Catalog and index of learnings held in memory (`git learn eval --learnings <dir>`), every one in the project tier. */
export function buildFeed(learnings: readonly Learning[]): { catalog: CatalogEntry[]; index: MiniSearch<SearchDoc> } {
  const catalog = learnings.map((l) => buildCatalogEntry(l, 'project', 1))
  return { catalog, index: buildIndex(learnings.map((l, id) => buildSearchDoc(id, l))) }
}
