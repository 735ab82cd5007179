// The search index's roads held to each other on random stores of words that test the edges the hand-picked stores of
// search-score.test.ts and search-merge.test.ts do not reach: case folding that changes a word's length (İ, ß, ǅ),
// astral characters, terms at the 40-character limit and past it, words one edit apart (fuzzy reach) and prefixes of
// each other (prefix reach), identifiers split in parts. minisearch is the reference; the merged index must rank as
// one index over the documents kept; an index written to its cache files and opened again must score as built.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import type { SearchDoc } from '../../../src/core/search.js'
import { buildIndexParts, partsIndex } from '../../../src/core/search-parts.js'
import { mergeIndexes } from '../../../src/core/search-merge.js'
import { openIndex, readIndexTerms, tierIndexFiles, writeIndexFiles } from '../../../src/adapters/feed/index-files.js'
import { propertyRuns, seeded } from '../../helpers/random.js'
import {
  buildMiniSearch,
  loadSorted,
  miniSearchResults,
  ourRanking,
  splitMiniSearch,
} from '../../helpers/minisearch-oracle.js'

const BASE = [
  'connect',
  'connection',
  'postgres',
  'postgresql',
  'Éclair',
  'éclair',
  'naïve',
  'café',
  'cafe',
  '東京',
  'テスト',
  'İstanbul',
  'ǅemal',
  'straße',
  'STRASSE',
  'ﬁle',
  'Ωmega',
  '🚀rocket',
  'a🚀b',
  'x'.repeat(39),
  'y'.repeat(40),
  'z'.repeat(41),
  `${'İ'.repeat(20)}i`,
  'ERR_REQUIRE_ESM',
  'ModuleNotFoundError',
  'a_b-c',
  'k8s',
  '123',
  'αβγδεζ',
  'αβγδεη',
  'kafka',
  'kafkaa',
  'kafkaesque',
  'abcdef',
  'abcdeg',
  'abcxef',
  'ab',
  'abc',
  'abcd',
  'ΣΑΣ',
  'σας',
]

/** A random store and its queries: words of BASE and edits of them, in every field, joined by varied separators. */
function world(seed: number) {
  const { next, pick } = seeded(seed)
  const edit = (w: string) => {
    const r = next()
    const i = Math.floor(next() * (w.length + 1))
    if (r < 0.25) return w.slice(0, i) + pick(['a', 'e', 'é', 'x', '🚀']) + w.slice(i)
    if (r < 0.5) return w.slice(0, i) + w.slice(i + 1)
    if (r < 0.75) return w.slice(0, i) + pick(['a', 'e', 'q']) + w.slice(i + 1)
    return w.slice(0, Math.max(2, i))
  }
  const vocab = [...BASE, ...Array.from({ length: 20 }, () => edit(pick(BASE)))]
  const text = (min: number, max: number) =>
    Array.from({ length: min + Math.floor(next() * (max - min + 1)) }, () => pick(vocab)).join(
      pick([' ', ', ', '/', '\n', '.', '-', '_']),
    )
  const fields = () => ({
    name: text(1, 3),
    description: text(0, 8),
    trigger: text(0, 5),
    tags: text(0, 3),
    body: text(0, 30),
  })
  const queries = Array.from({ length: 20 }, () =>
    Array.from({ length: 1 + Math.floor(next() * (next() < 0.2 ? 12 : 4)) }, () =>
      next() < 0.5 ? edit(pick(vocab)) : pick(vocab),
    ).join(pick([' ', ' ', '\n'])),
  )
  return { next, fields, queries }
}

const RUNS = propertyRuns(12)

describe(`search roads agree on ${RUNS} random stores`, () => {
  test('our scoring gives minisearch’s results, scores and order', () => {
    for (let seed = 1; seed <= RUNS; seed++) {
      const w = world(seed * 7919)
      const docs: SearchDoc[] = Array.from({ length: 5 + Math.floor(w.next() * 50) }, (_, i) => ({
        id: i * 3 + (i % 2),
        ...w.fields(),
      }))
      const index = partsIndex(buildIndexParts(docs))
      const sorted = loadSorted(splitMiniSearch(buildMiniSearch(docs)))
      for (const query of w.queries)
        expect(ourRanking(index, query), `seed ${seed}: ${JSON.stringify(query)}`).toEqual(
          miniSearchResults(sorted, query).map((r) => ({
            id: r.id as number,
            score: r.score,
            queryTerms: [...new Set(r.queryTerms)],
          })),
        )
    }
  })

  test('a project and tiers merged, some tier documents hidden, rank as one index over the documents kept', () => {
    for (let seed = 1; seed <= RUNS; seed++) {
      const w = world(seed * 104729)
      const parts = Array.from({ length: 1 + Math.floor(w.next() * 3) }, () =>
        Array.from({ length: Math.floor(w.next() * 30) }, () => w.fields()),
      )
      const kept = parts.map((p, pi) => p.map(() => pi === 0 || w.next() < 0.7))
      let id = 0
      const ids = parts.map((p, pi) => p.map((_d, i) => (kept[pi]?.[i] ? id++ : undefined)))
      const single = partsIndex(
        buildIndexParts(parts.flatMap((p, pi) => p.filter((_d, i) => kept[pi]?.[i])).map((d, i) => ({ id: i, ...d }))),
      )
      const merged = mergeIndexes(
        parts.map((p, pi) => ({
          index: partsIndex(buildIndexParts(p.map((d, i) => ({ id: i, ...d })))),
          idOf: (s: number) => ids[pi]?.[s],
        })),
      )
      expect(merged.documentCount).toBe(single.documentCount)
      for (const query of w.queries) {
        const a = ourRanking(merged, query)
        const b = ourRanking(single, query)
        expect(
          a.map((x) => [x.id, x.queryTerms]),
          `seed ${seed}: ${JSON.stringify(query)}`,
        ).toEqual(b.map((x) => [x.id, x.queryTerms]))
        a.forEach((x, i) => expect(Math.abs(x.score - (b[i]?.score as number))).toBeLessThan(1e-9))
      }
    }
  })

  const dir = mkdtempSync(join(tmpdir(), 'gl-index-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('an index written to its cache files and opened again scores as the one built in memory', () => {
    for (let seed = 1; seed <= RUNS; seed++) {
      const w = world(seed * 31)
      const docs: SearchDoc[] = Array.from({ length: Math.floor(w.next() * 40) }, (_, id) => ({ id, ...w.fields() }))
      const parts = buildIndexParts(docs)
      const files = tierIndexFiles(join(dir, `s${seed}`))
      writeIndexFiles(files, parts)
      const cached = openIndex(
        files,
        readIndexTerms(files.terms) as NonNullable<ReturnType<typeof readIndexTerms>>,
        docs.length,
        true,
      )
      const fresh = partsIndex(parts)
      for (const query of w.queries)
        expect(ourRanking(cached, query), `seed ${seed}: ${JSON.stringify(query)}`).toEqual(ourRanking(fresh, query))
    }
  })
})
