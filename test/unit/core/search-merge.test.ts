import { describe, expect, test } from 'vitest'
import { FIELD_BOOSTS, buildQueryTerms, indexOptions, querySpecs, rankLearnings } from '../../../src/core/search.js'
import type { CatalogEntry, SearchDoc } from '../../../src/core/search.js'
import { buildIndexParts, partsIndex } from '../../../src/core/search-parts.js'
import { mergeIndexes } from '../../../src/core/search-merge.js'
import { scoreQuery } from '../../../src/core/search-score.js'
import type { ScoringIndex } from '../../../src/core/search-score.js'
import { seeded } from '../../helpers/random.js'

// A project's index and tiers' indexes merged at query time must rank as one index over every document kept.

const random = seeded

const WORDS = [
  'vitest',
  'esm',
  'docker',
  'dockerfile',
  'ECONNREFUSED',
  'postgres',
  'postgresql',
  'module',
  'fails',
  'cache',
  'caching',
  'node',
  'jest',
  'configuration',
  'ERR_REQUIRE_ESM',
  'connect',
  'timeout',
  'kafka',
  'hook',
  'import',
  'TypeError',
  'webpack',
  'redis',
  'tierword',
  'projectword',
]

function docs(seed: number, n: number, extra: string): Omit<SearchDoc, 'id'>[] {
  const r = random(seed)
  const text = (min: number, max: number) =>
    Array.from({ length: min + Math.floor(r.next() * (max - min + 1)) }, () => r.pick([...WORDS, extra])).join(' ')
  return Array.from({ length: n }, () => ({
    name: text(1, 3),
    description: text(0, 10),
    trigger: text(0, 6),
    tags: text(0, 3),
    body: text(0, 40),
  }))
}

const BOOSTS = indexOptions().fields.map((f) => FIELD_BOOSTS[f])
const QUERIES = [
  'postg hook',
  'kafka configuraton',
  'tierword',
  'projectword vitest',
  'docker esm module fails cache node jest redis',
]

describe('merged indexes rank as one index over every document kept', () => {
  test.each([1, 2, 3])('a project and two tiers, some tier documents hidden by the fold (seed %i)', (seed) => {
    const project = docs(seed, 60, 'projectword')
    const tiers = [docs(seed + 10, 80, 'tierword'), docs(seed + 20, 50, 'tierword')]
    const r = random(seed + 99)
    // Which tier documents the fold keeps, and the catalog: the project's, then each tier's kept ones in order.
    const kept = tiers.map((t) => t.map(() => r.next() > 0.2))
    const catalog: CatalogEntry[] = []
    const entry = (tier: string, weight: number, i: number): CatalogEntry =>
      ({ name: `${tier}-${i % 7}`, tier, weight, state: 'active', type: 'pattern' }) as CatalogEntry
    project.forEach((_d, i) => catalog.push(entry('project', 1, i)))
    const maps = tiers.map((t, ti) =>
      t.map((_d, i) => (kept[ti]?.[i] ? catalog.push(entry(`t${ti}`, ti ? 0.5 : 0.9, i)) - 1 : undefined)),
    )
    const single = partsIndex(
      buildIndexParts(
        [...project, ...tiers.flatMap((t, ti) => t.filter((_d, i) => kept[ti]?.[i]))].map((d, id) => ({ id, ...d })),
      ),
    )
    const projectIndex = partsIndex(buildIndexParts(project.map((d, id) => ({ id, ...d }))))
    const merged = mergeIndexes([
      { index: projectIndex, idOf: (s) => projectIndex.docId(s) },
      ...tiers.map((t, ti) => {
        const index = partsIndex(buildIndexParts(t.map((d, id) => ({ id, ...d }))))
        return { index, idOf: (s: number) => maps[ti]?.[s] }
      }),
    ])
    expect(merged.documentCount).toBe(single.documentCount)
    merged.averageFieldLength.forEach((a, f) => expect(a).toBeCloseTo(single.averageFieldLength[f] as number, 9))
    const raw = (index: ScoringIndex, query: string) => {
      const s = scoreQuery(index, querySpecs(buildQueryTerms(query)), BOOSTS)
      return [...s.order].map((short) => ({
        id: index.docId(short),
        score: s.score[short] as number,
        terms: s.matched(short),
      }))
    }
    for (const query of QUERIES) {
      const a = raw(merged, query)
      const b = raw(single, query)
      expect(a.map((x) => [x.id, x.terms])).toEqual(b.map((x) => [x.id, x.terms]))
      a.forEach((x, i) => expect(Math.abs(x.score - (b[i]?.score as number))).toBeLessThan(1e-9))
      for (const limit of [3, 10, 100])
        expect(rankLearnings(merged, catalog, query, {}, limit)).toEqual(
          rankLearnings(single, catalog, query, {}, limit),
        )
    }
  })
})
