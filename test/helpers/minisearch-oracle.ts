/**
 * minisearch as the reference our own index and scoring must reproduce (src/core/search-parts.ts,
 * src/core/search-score.ts): an index over the same documents with the same options, its serialized parts, an index
 * loaded from parts in sorted term order (as the cache reader loaded them before), and the ranking search did with it.
 */
import MiniSearch from 'minisearch'
import type { AsPlainObject } from 'minisearch'
import type {
  CatalogEntry,
  DocMeta,
  IndexDoc,
  IndexHeader,
  SearchDoc,
  SearchFilter,
  SearchHit,
} from '../../src/core/search.js'
import {
  FIELD_BOOSTS,
  HELD_TRIGGER,
  buildQueryTerms,
  indexOptions,
  isTypedQuery,
  querySpecs,
} from '../../src/core/search.js'
import { scoreQuery } from '../../src/core/search-score.js'
import type { ScoringIndex } from '../../src/core/search-score.js'
import { termsOf } from '../../src/core/terms.js'
import { compareCodeUnits } from '../../src/core/compare.js'

const options = () => ({ idField: 'id', storeFields: [], ...indexOptions() })

/** minisearch's own index over documents (added in order). */
export function buildMiniSearch(docs: readonly SearchDoc[]): MiniSearch<SearchDoc> {
  const ms = new MiniSearch<SearchDoc>(options())
  ms.addAll(docs as SearchDoc[])
  return ms
}

/** minisearch's serialized index cut in parts: header, sorted terms, each term's postings, documents by short id. */
export interface OracleParts {
  header: IndexHeader
  terms: string[]
  postings: AsPlainObject['index'][number][1][]
  docs: (IndexDoc | undefined)[]
}

export function splitMiniSearch(index: MiniSearch<SearchDoc>): OracleParts {
  const { index: entries, documentIds, fieldLength, storedFields: _stored, ...header } = index.toJSON()
  entries.sort((a, b) => compareCodeUnits(a[0], b[0]))
  const docs: (IndexDoc | undefined)[] = Array.from({ length: header.nextId }, () => undefined)
  for (const [short, id] of Object.entries(documentIds)) docs[Number(short)] = [id as number, fieldLength[short] ?? []]
  return {
    header: { ...header, dirtCount: header.dirtCount ?? 0 },
    terms: entries.map((e) => e[0]),
    postings: entries.map((e) => e[1]),
    docs,
  }
}

/** The index loaded back from its parts, terms in sorted order. */
export function loadSorted(parts: OracleParts): MiniSearch<SearchDoc> {
  const documentIds: Record<string, number> = {}
  const fieldLength: Record<string, number[]> = {}
  parts.docs.forEach((d, short) => {
    if (!d) return
    documentIds[short] = d[0]
    fieldLength[short] = d[1] as number[]
  })
  return MiniSearch.loadJS<SearchDoc>(
    {
      ...parts.header,
      documentIds,
      fieldLength,
      storedFields: {},
      index: parts.terms.map((t, i) => [t, parts.postings[i] as AsPlainObject['index'][number][1]]),
    },
    options(),
  )
}

const FEW_TERMS = 4

/** minisearch's results for a query as search asked for them. */
export function miniSearchResults(index: MiniSearch<SearchDoc>, query: string) {
  const terms = buildQueryTerms(query)
  if (!terms.length) return []
  const few = terms.length <= FEW_TERMS
  // A typed query (one line) of more terms gets prefixes for its terms of five letters or more.
  const typed = !query.trim().includes('\n')
  return index.search(terms.join(' '), {
    boost: { ...FIELD_BOOSTS },
    combineWith: 'OR',
    prefix: (t: string) => (few && t.length >= 4) || (typed && t.length >= 5),
    fuzzy: few ? (t: string) => (t.length >= 6 ? 0.2 : false) : false,
  })
}

/** The ranking search made with minisearch (src/core/search.ts before it scored on its own). */
export function miniSearchRank(
  index: MiniSearch<SearchDoc>,
  catalog: readonly CatalogEntry[],
  query: string,
  filter: SearchFilter = {},
  limit = 10,
): SearchHit[] {
  const keep = (e: CatalogEntry | undefined) =>
    !!e && (!filter.states || filter.states.includes(e.state)) && (!filter.types || filter.types.includes(e.type))
  type Ranked = { id: number; meta: DocMeta; score: number; queryTerms: string[] }
  const cmp = (a: Ranked, b: Ranked) =>
    b.score - a.score || compareCodeUnits(a.meta.name, b.meta.name) || compareCodeUnits(a.meta.tier, b.meta.tier)
  const top: Ranked[] = []
  for (const r of miniSearchResults(index, query)) {
    const meta = catalog[r.id as number]
    if (!keep(meta)) continue
    // search.ts HELD_TRIGGER: one of its triggers has every term among the index terms the query matched in it.
    const held = (meta as CatalogEntry).triggers.some((t) => {
      const terms = [...termsOf(t)]
      return terms.length > 0 && terms.every((term) => term in r.match)
    })
    const c: Ranked = {
      id: r.id as number,
      meta: meta as DocMeta,
      score: Math.round(r.score * (held ? HELD_TRIGGER : 1) * (meta as DocMeta).weight * 1000) / 1000,
      queryTerms: r.queryTerms,
    }
    if (top.length >= limit && (limit <= 0 || cmp(top[top.length - 1] as Ranked, c) <= 0)) continue
    let at = top.length
    while (at > 0 && cmp(top[at - 1] as Ranked, c) > 0) at--
    top.splice(at, 0, c)
    if (top.length > limit) top.pop()
  }
  return top.map((h) => ({ entry: catalog[h.id] as CatalogEntry, score: h.score, matched: [...new Set(h.queryTerms)] }))
}

const BOOSTS = indexOptions().fields.map((f) => FIELD_BOOSTS[f])

/** Our scoring's results in minisearch's shape: ids and scores in its order (score, then the order documents were met). */
export function ourRanking(index: ScoringIndex, query: string) {
  const terms = buildQueryTerms(query)
  if (!terms.length) return []
  const s = scoreQuery(index, querySpecs(terms, isTypedQuery(query)), BOOSTS)
  return [...s.order]
    .map((short, seen) => ({ short, seen, score: s.score[short] as number }))
    .sort((a, b) => b.score - a.score || a.seen - b.seen)
    .map(({ short, score }) => ({ id: index.docId(short), score, queryTerms: s.matched(short) }))
}
