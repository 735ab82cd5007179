import { describe, expect, test } from 'vitest'
import { parseLearning } from '../../../src/core/learning.js'
import { buildCatalogEntry, buildSearchDoc, rankLearnings, summarizeFix } from '../../../src/core/search.js'
import { buildIndexParts, partsIndex } from '../../../src/core/search-parts.js'
import { SEEDS, VITEST_FAILURE, seedText } from '../../helpers/feed-store.js'

describe('ranking', () => {
  const learnings = SEEDS.map((s) => parseLearning(seedText(s), `.learnings/${s.state ?? 'active'}/${s.name}.md`))
  const catalog = learnings.map((l) => buildCatalogEntry(l, 'project', 1))
  const index = partsIndex(buildIndexParts(learnings.map((l, i) => buildSearchDoc(i, l))))
  test('a pasted vitest failure ranks its error-solution first among active ones', () => {
    expect(rankLearnings(index, catalog, VITEST_FAILURE, { states: ['active'] })[0]?.entry.name).toBe(
      'vitest-esm-mock-hoisting',
    )
  })
  test('a tier weight below 1 lets the project copy win over an equal tier copy', () => {
    const tierCatalog = [...catalog, { ...catalog[0]!, tier: 'org', weight: 0.9, path: 'org:x' }]
    const tierIndex = partsIndex(
      buildIndexParts([
        ...learnings.map((l, i) => buildSearchDoc(i, l)),
        buildSearchDoc(learnings.length, learnings[0]!),
      ]),
    )
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
