import { describe, expect, test } from 'vitest'
import { parseLearning } from '../../../src/core/learning.js'
import {
  buildCatalogEntry,
  buildSearchDoc,
  holdsTrigger,
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

// A trigger is the error line the tool prints: a paste that holds one in full is that failure, whatever else of it a
// near-twin's text shares.
describe('a trigger held in full', () => {
  const reachesOf = (words: string) => (term: string) => words.split(' ').includes(term)
  test.each([
    ['every term of one trigger', ['Host key verification failed.'], 'host key verif fail fatal', true],
    [
      'one of several triggers',
      ['Permission denied (publickey).', 'Host key verification failed.'],
      'host key verif fail',
      true,
    ],
    [
      'all but one term',
      ["ModuleNotFoundError: No module named 'imp'"],
      'modulenotfounderror modulenotfound modul name distutil',
      false,
    ],
    ['a trigger with no terms', ['...'], 'host key', false],
  ])('%s', (_, triggers, reached, held) => {
    expect(holdsTrigger(triggers, reachesOf(reached))).toBe(held)
  })

  test('ranks the learning whose trigger a paste holds above a twin that shares more of its words', () => {
    const seeds: Seed[] = [
      {
        name: 'ssh-host-key-verification-failed',
        trigger: 'Host key verification failed.',
        description: 'The server is not in known_hosts yet. Use when git over ssh stops at the host check.',
        tags: ['ssh', 'known-hosts'],
        solution: 'Add the host with ssh-keyscan.',
      },
      {
        name: 'git-ssh-publickey-denied',
        trigger: 'git@github.com: Permission denied (publickey).',
        description:
          'The server refused your key. Use when git over ssh fails with: fatal: Could not read from remote repository.',
        tags: ['git', 'ssh', 'github'],
        solution: 'Add your public key to the account.',
      },
    ]
    const learnings = seeds.map((s) => parseLearning(seedText(s), `.learnings/active/${s.name}.md`))
    const catalog = learnings.map((l) => buildCatalogEntry(l, 'project', 1))
    const index = partsIndex(buildIndexParts(learnings.map((l, i) => buildSearchDoc(i, l))))
    const paste = [
      '$ git fetch origin master',
      'Host key verification failed.',
      'fatal: Could not read from remote repository.',
      '',
      'Please make sure you have the correct access rights',
      'and the repository exists.',
    ].join('\n')
    expect(rankLearnings(index, catalog, paste).map((h) => h.entry.name)).toEqual([
      'ssh-host-key-verification-failed',
      'git-ssh-publickey-denied',
    ])
  })

  test('a candidate the first pass left out enters the top when it holds its trigger', () => {
    const seeds: Seed[] = ['a', 'b', 'c'].map((x) => ({
      name: `generic-${x}`,
      trigger: `Something else ${x} happened`,
      description: 'fatal: Could not read from remote repository. Please make sure you have the correct access rights.',
      tags: ['git'],
      solution: 'Retry.',
    }))
    seeds.push({
      name: 'ssh-host-key-verification-failed',
      trigger: 'Host key verification failed.',
      description: 'The server is not in known_hosts yet.',
      tags: ['ssh'],
      solution: 'Add the host with ssh-keyscan.',
    })
    const learnings = seeds.map((s) => parseLearning(seedText(s), `.learnings/active/${s.name}.md`))
    const catalog = learnings.map((l) => buildCatalogEntry(l, 'project', 1))
    const index = partsIndex(buildIndexParts(learnings.map((l, i) => buildSearchDoc(i, l))))
    const paste =
      'Host key verification failed.\nfatal: Could not read from remote repository.\nPlease make sure you have the correct access rights'
    expect(rankLearnings(index, catalog, paste, {}, 1).map((h) => h.entry.name)).toEqual([
      'ssh-host-key-verification-failed',
    ])
  })
})
