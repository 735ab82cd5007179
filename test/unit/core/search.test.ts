import { describe, expect, test } from 'vitest'
import { parseLearning } from '../../../src/core/learning.js'
import { buildCatalogEntry, buildSearchDoc, rankLearnings, summarizeFix } from '../../../src/core/search.js'
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

// Search scores a learning by its summed BM25 times the number of query terms it holds: a sentence's function words
// ("so", "do", "doing") must not count towards that number in the learning that happens to say them.
describe('a typed query', () => {
  const seeds: Seed[] = [
    {
      name: 'docker-daemon-not-running',
      trigger: 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?',
      description: 'The Docker daemon is not started. Use when every docker command fails to connect.',
      tags: ['docker'],
      solution: 'Start Docker Desktop, or the docker service.',
    },
    {
      name: 'docker-socket-permission-denied',
      trigger: 'permission denied while trying to connect to the Docker daemon socket',
      description:
        'Your user is not in the docker group, so you do not have access to its socket. Use when a docker command works only with sudo.',
      tags: ['docker'],
      solution:
        'Add yourself to the docker group so that you do not need sudo; log out and in again, then do it once more.',
    },
  ]
  const learnings = seeds.map((s) => parseLearning(seedText(s), `.learnings/active/${s.name}.md`))
  const catalog = learnings.map((l) => buildCatalogEntry(l, 'project', 1))
  const index = partsIndex(buildIndexParts(learnings.map((l, i) => buildSearchDoc(i, l))))
  const typed = 'the docker engine is not started so every command I type fails before doing anything'

  test('its function words are not terms, and the learning it describes comes first', () => {
    const hits = rankLearnings(index, catalog, typed)
    expect(hits.map((h) => h.entry.name)).toEqual(['docker-daemon-not-running', 'docker-socket-permission-denied'])
    expect(hits.flatMap((h) => h.matched)).not.toContain('so')
  })

  test('pasted output (more than one line) keeps them', () => {
    expect(rankLearnings(index, catalog, `${typed}\n$ docker ps`)[1]?.matched).toContain('so')
  })
})
