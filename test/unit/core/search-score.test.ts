import { describe, expect, test } from 'vitest'
import { parseLearning } from '../../../src/core/learning.js'
import { buildCatalogEntry, buildSearchDoc, rankLearnings } from '../../../src/core/search.js'
import type { CatalogEntry, SearchDoc } from '../../../src/core/search.js'
import { buildIndexParts, partsIndex } from '../../../src/core/search-parts.js'
import { boundedEditDistance } from '../../../src/core/search-score.js'
import { SEEDS, VITEST_FAILURE, seedText } from '../../helpers/feed-store.js'
import { seeded } from '../../helpers/random.js'
import {
  buildMiniSearch,
  loadSorted,
  miniSearchRank,
  miniSearchResults,
  ourRanking,
  splitMiniSearch,
} from '../../helpers/minisearch-oracle.js'

// Our scoring must give minisearch's scores and order (it was the ranking before, and `git learn eval` holds search
// to it): minisearch stays the reference here, over random stores and queries.

const random = seeded

const WORDS = [
  'vitest',
  'vitests',
  'esm',
  'docker',
  'dockerfile',
  'ECONNREFUSED',
  'postgres',
  'postgresql',
  'postgre',
  'module',
  'modules',
  'fails',
  'failing',
  'cache',
  'cached',
  'caching',
  'node',
  'jest',
  'configuration',
  'configuraton',
  'ERR_REQUIRE_ESM',
  'ModuleNotFoundError',
  'connect',
  'connection',
  'timeout',
  'kafka',
  'kafkaa',
  'hook',
  'hooks',
  'import',
  'importer',
  'generalization',
  'general',
  'TypeError',
  'undefined',
  'webpack',
  'react',
  'redis',
  'x1',
]

function store(seed: number, n: number): SearchDoc[] {
  const r = random(seed)
  const text = (min: number, max: number) =>
    Array.from({ length: min + Math.floor(r.next() * (max - min + 1)) }, () => r.pick(WORDS)).join(
      r.pick([' ', ', ', '/', '\n']),
    )
  return Array.from({ length: n }, (_, id) => ({
    id,
    name: text(1, 4),
    description: text(0, 12),
    trigger: text(0, 8),
    tags: text(0, 3),
    body: text(0, 60),
  }))
}

function queries(seed: number): string[] {
  const r = random(seed)
  const q = (n: number) => Array.from({ length: n }, () => r.pick(WORDS)).join(' ')
  return [
    ...Array.from({ length: 12 }, (_, i) => q(1 + (i % 4))),
    ...Array.from({ length: 4 }, () => q(12)),
    'postg hook',
    'kafkaa configuraton',
    'err_require_esm esm',
    'generalization generalizations',
    'flux capacitor',
    VITEST_FAILURE,
  ]
}

describe('scoring reproduces minisearch', () => {
  test.each([1, 2, 3, 4, 5, 6])('store %i: the same results, scores and order as minisearch', (seed) => {
    const docs = store(seed, 40 + seed * 30)
    const whole = buildMiniSearch(docs)
    const sorted = loadSorted(splitMiniSearch(whole))
    const index = partsIndex(buildIndexParts(docs))
    for (const query of queries(seed)) {
      const mine = ourRanking(index, query)
      // Loaded in sorted term order (as the cache held it), minisearch adds in our order: the very same numbers.
      const reference = miniSearchResults(sorted, query).map((r) => ({
        id: r.id as number,
        score: r.score,
        queryTerms: [...new Set(r.queryTerms)],
      }))
      expect(mine, query).toEqual(reference)
      // minisearch's own index (terms added as met) sums a document's terms in another order: equal within 1e-9.
      const direct = new Map(miniSearchResults(whole, query).map((r) => [r.id as number, r.score]))
      expect(mine.length).toBe(direct.size)
      for (const m of mine) expect(Math.abs((direct.get(m.id as number) ?? Infinity) - m.score)).toBeLessThan(1e-9)
    }
  })

  test.each([1, 3, 7, 50])(
    'rankLearnings keeps minisearch ranking with tiers, weights and filters (limit %i)',
    (limit) => {
      // The last nine copy the first nine under the same name and tier, every other one with a longer body: only
      // minisearch's score before rounding, or the order it met them, tells them apart.
      const docs = store(42, 291)
      for (let i = 0; i < 9; i++) docs.push({ ...docs[i]!, id: 291 + i, body: docs[i]!.body + ' zzqq'.repeat(i % 2) })
      const states = ['active', 'pending', 'archived'] as const
      const catalog = docs.map((_d, i): CatalogEntry => ({
        ...buildCatalogEntry(
          parseLearning(seedText(SEEDS[i % SEEDS.length]!), `.learnings/active/x${i}.md`),
          'project',
          1,
        ),
        // Names repeat across tiers so that the tie-breaks on name and tier are reached.
        name: `n${i % 97}`,
        tier: i % 3 === 0 ? 'project' : `t${i % 3}`,
        weight: i % 3 === 0 ? 1 : i % 3 === 1 ? 0.9 : 0.5,
        state: states[i % 3]!,
        type: i % 2 ? 'error-solution' : 'pattern',
      }))
      const sorted = loadSorted(splitMiniSearch(buildMiniSearch(docs)))
      const index = partsIndex(buildIndexParts(docs))
      for (const query of queries(7))
        for (const filter of [{}, { states: ['active' as const] }, { types: ['pattern'] }])
          expect(rankLearnings(index, catalog, query, filter, limit), query).toEqual(
            miniSearchRank(sorted, catalog, query, filter, limit),
          )
    },
  )

  test("a trigger is held in the learning's own document: a term the query reaches only in another one does not count", () => {
    // Two triggers of both address families: their joined field drops `ipv6` (one family is no marker), so this
    // learning's document does not hold it while another learning's does. As the reference ranks: not held.
    const mk = (name: string, triggers: string[]) =>
      parseLearning(
        `---\nname: ${name}\ntype: gotcha\ndescription: d\ntrigger:\n${triggers.map((t) => `  - "${t}"`).join('\n')}\n---\nFix it.\n`,
        `.learnings/active/${name}.md`,
      )
    const learnings = [
      mk('mongo-both', [
        'connect ECONNREFUSED ::1:27017',
        'MongoServerSelectionError: connect ECONNREFUSED 127.0.0.1:27017',
      ]),
      mk('other-ipv6', ['listen EADDRINUSE ::1:9999']),
    ]
    const catalog = learnings.map((l) => buildCatalogEntry(l, 'project', 1))
    const docs = learnings.map((l, i) => buildSearchDoc(i, l))
    const sorted = loadSorted(splitMiniSearch(buildMiniSearch(docs)))
    const index = partsIndex(buildIndexParts(docs))
    const query = 'connect ECONNREFUSED ::1:27017'
    expect(rankLearnings(index, catalog, query)).toEqual(miniSearchRank(sorted, catalog, query))
    expect(rankLearnings(index, catalog, query)[0]?.entry.name).toBe('mongo-both')
  })

  test('the seed learnings and a pasted failure', () => {
    const learnings = SEEDS.map((s) => parseLearning(seedText(s), `.learnings/${s.state ?? 'active'}/${s.name}.md`))
    const catalog = learnings.map((l) => buildCatalogEntry(l, 'project', 1))
    const docs = learnings.map((l, i) => buildSearchDoc(i, l))
    const sorted = loadSorted(splitMiniSearch(buildMiniSearch(docs)))
    const index = partsIndex(buildIndexParts(docs))
    for (const query of [VITEST_FAILURE, 'postg hook', 'vitest mock', 'esm'])
      expect(rankLearnings(index, catalog, query, {}, 50)).toEqual(miniSearchRank(sorted, catalog, query, {}, 50))
  })

  test.each([
    ['kitten', 'sitting', 3, 3],
    ['kitten', 'sitting', 2, 3],
    ['postgres', 'postgre', 1, 1],
    ['abc', 'abc', 0, 0],
    ['abc', 'abd', 0, 1],
    ['short', 'muchlonger', 2, 3],
  ])('edit distance %s → %s within %i: %i', (a, b, max, d) => expect(boundedEditDistance(a, b, max)).toBe(d))
})
