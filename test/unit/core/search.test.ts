import { describe, expect, test } from 'vitest'
import { parseLearning } from '../../../src/core/learning.js'
import {
  buildCatalogEntry,
  buildSearchDoc,
  isTypedQuery,
  querySpecs,
  rankLearnings,
  summarizeFix,
} from '../../../src/core/search.js'
import { buildIndexParts, partsIndex } from '../../../src/core/search-parts.js'
import { SEEDS, VITEST_FAILURE, seedText } from '../../helpers/feed-store.js'
import type { Seed } from '../../helpers/feed-store.js'

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

// A sentence a person types reaches the learning's longer form of its words (`local` → `localhost`), as a query of a
// few terms does; pasted output matches exactly.
describe('a typed query', () => {
  test('one line is typed, several are pasted', () => {
    expect(isTypedQuery('  the cache server refuses every connection\n')).toBe(true)
    expect(isTypedQuery('Error: connect ECONNREFUSED 127.0.0.1:6379\n    at TCPConnectWrap')).toBe(false)
  })

  test('its terms of five letters or more are prefixes, shorter ones exact', () => {
    const specs = querySpecs(['node', 'app', 'refus', 'connect', 'local', 'machin'], true)
    expect(specs.filter((s) => s.prefix).map((s) => s.term)).toEqual(['refus', 'connect', 'local', 'machin'])
    expect(querySpecs(['node', 'app', 'refus', 'connect', 'local', 'machin']).some((s) => s.prefix)).toBe(false)
  })

  test('a word reaches the longer form the learning uses', () => {
    const seeds: Seed[] = [
      {
        name: 'redis-server-down',
        trigger: 'Error: connect ECONNREFUSED 127.0.0.1:6379',
        description: 'Redis is not running on localhost. Use when the app cannot reach its cache at startup.',
        tags: ['redis'],
        solution: 'Start the redis server.',
      },
      {
        name: 'python-ssl-local-issuer',
        trigger: 'certificate verify failed: unable to get local issuer certificate',
        description: 'Python has no CA bundle. Use when every HTTPS request fails verification.',
        tags: ['python', 'ssl'],
        solution: 'Run the Install Certificates command of the python.org installer.',
      },
    ]
    const learnings = seeds.map((s) => parseLearning(seedText(s), `.learnings/active/${s.name}.md`))
    const catalog = learnings.map((l) => buildCatalogEntry(l, 'project', 1))
    const index = partsIndex(buildIndexParts(learnings.map((l, i) => buildSearchDoc(i, l))))
    const typed = 'the app cannot reach its server, every request fails on my local machine'
    const hits = rankLearnings(index, catalog, typed)
    expect(hits[0]?.entry.name).toBe('redis-server-down')
    expect(hits[0]?.matched).toContain('local')
    // The same words pasted as output (two lines) match exactly: `local` is not `localhost`.
    expect(rankLearnings(index, catalog, `${typed}\n$ npm start`)[0]?.entry.name).toBe('python-ssl-local-issuer')
  })
})
