import { describe, expect, test } from 'vitest'
import { parseLearning } from '../../../src/core/learning.js'
import {
  buildCatalogEntry,
  buildIndex,
  buildQueryTerms,
  buildSearchDoc,
  joinIndex,
  rankLearnings,
  selectIndexTerms,
  splitIndex,
  summarizeFix,
  withinEditDistance,
} from '../../../src/core/search.js'
import { SEEDS, VITEST_FAILURE, seedText } from '../../helpers/feed-store.js'

describe('ranking', () => {
  const learnings = SEEDS.map((s) => parseLearning(seedText(s), `.learnings/${s.state ?? 'active'}/${s.name}.md`))
  const catalog = learnings.map((l) => buildCatalogEntry(l, 'project', 1))
  const index = buildIndex(learnings.map((l, i) => buildSearchDoc(i, l)))
  test('a pasted vitest failure ranks its error-solution first among active ones', () => {
    expect(rankLearnings(index, catalog, VITEST_FAILURE, { states: ['active'] })[0]?.entry.name).toBe(
      'vitest-esm-mock-hoisting',
    )
  })
  test('a tier weight below 1 lets the project copy win over an equal tier copy', () => {
    const tierCatalog = [...catalog, { ...catalog[0]!, tier: 'org', weight: 0.9, path: 'org:x' }]
    const tierIndex = buildIndex([
      ...learnings.map((l, i) => buildSearchDoc(i, l)),
      buildSearchDoc(learnings.length, learnings[0]!),
    ])
    const hits = rankLearnings(tierIndex, tierCatalog, 'vi_import before initialization', { states: ['active'] })
    expect(hits.slice(0, 2).map((h) => h.entry.tier)).toEqual(['project', 'org'])
    expect(hits[1]!.score).toBeLessThan(hits[0]!.score)
  })
  test('the fix summary is the first paragraph of Solution', () => {
    expect(summarizeFix('## Solution\n\n- Do this\n  and that.\n\nMore.\n## Verification\nok')).toBe(
      'Do this and that.',
    )
  })
})

describe('an index of the terms a query reaches ranks as the whole index', () => {
  const learnings = SEEDS.map((s) => parseLearning(seedText(s), `.learnings/${s.state ?? 'active'}/${s.name}.md`))
  const catalog = learnings.map((l) => buildCatalogEntry(l, 'project', 1))
  const whole = buildIndex(learnings.map((l, i) => buildSearchDoc(i, l)))
  const parts = splitIndex(whole)
  const partial = (query: string) =>
    joinIndex(
      parts.header,
      selectIndexTerms(parts.terms, buildQueryTerms(query)).map((i) => [
        parts.terms[i]!,
        JSON.parse(parts.postings[i]!),
      ]),
      (short) => parts.docs[short],
    )
  test.each([
    ['a pasted failure (exact terms)', VITEST_FAILURE],
    ['prefixes', 'postg hook'],
    ['a typo within the fuzzy distance', 'kafkaa configuraton'],
    ['words', 'vitest mock'],
    ['nothing known', 'flux capacitor'],
  ])('%s', (_what, query) => {
    const a = rankLearnings(whole, catalog, query, {}, 50)
    const b = rankLearnings(partial(query), catalog, query, {}, 50)
    expect(b).toEqual(a)
    expect(selectIndexTerms(parts.terms, buildQueryTerms(query)).length).toBeLessThan(parts.terms.length)
  })
  test.each([1, 3, 7])(
    'with tiers of other weights, the best %i are the first of a longer ranking, partial or whole',
    (limit) => {
      const tiered = learnings.map((l, i) =>
        buildCatalogEntry(l, i % 3 === 0 ? 'project' : `t${i % 3}`, i % 3 === 0 ? 1 : 0.9),
      )
      for (const query of ['error test config module fix', 'test error', VITEST_FAILURE]) {
        const all = rankLearnings(whole, tiered, query, {}, 1000)
        expect(all.length).toBeGreaterThan(limit + 1)
        expect(rankLearnings(whole, tiered, query, {}, limit)).toEqual(all.slice(0, limit))
        expect(rankLearnings(partial(query), tiered, query, {}, limit)).toEqual(all.slice(0, limit))
      }
    },
  )
  test('the terms are sorted and every term has its postings', () => {
    expect([...parts.terms].sort()).toEqual(parts.terms)
    expect(parts.postings).toHaveLength(parts.terms.length)
  })
  test.each([
    ['kitten', 'sitting', 3, true],
    ['kitten', 'sitting', 2, false],
    ['postgres', 'postgre', 1, true],
    ['abc', 'abc', 0, true],
    ['abc', 'abd', 0, false],
    ['short', 'muchlonger', 2, false],
  ])('edit distance %s → %s within %i: %s', (a, b, max, ok) => expect(withinEditDistance(a, b, max)).toBe(ok))
})
