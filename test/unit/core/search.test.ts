import { describe, expect, test } from 'vitest'
import { parseLearning } from '../../../src/core/learning.js'
import {
  buildCatalogEntry,
  buildSearchDoc,
  HELD_TRIGGER,
  FIELD_BOOSTS,
  buildQueryTerms,
  holdsTrigger,
  indexOptions,
  isTypedQuery,
  querySpecs,
  rankLearnings,
  summarizeFix,
} from '../../../src/core/search.js'
import { buildIndexParts, partsIndex } from '../../../src/core/search-parts.js'
import { scoreQuery } from '../../../src/core/search-score.js'
import { bestFirst, kthLargest } from '../../../src/core/search-top.js'
import { compareCodeUnits } from '../../../src/core/compare.js'
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

describe('the best few of many candidates', () => {
  test('kthLargest is the k-th value of the values sorted descending, by insertion and by a sort alike', () => {
    const values = Float64Array.from({ length: 500 }, (_, i) => ((i * 7919) % 101) / 7)
    const sorted = [...values].sort((a, b) => b - a)
    for (const k of [1, 2, 10, 64, 65, 200, 500]) expect(kthLargest(values, k)).toBe(sorted[k - 1])
    expect(kthLargest(values, 501)).toBe(-Infinity)
    expect(kthLargest(Float64Array.from([3, 3, 3]), 2)).toBe(3)
  })

  // What bestFirst hands its selector: the candidates at or above the limit-th best bound, best first (ties in their
  // own order), and every candidate only when the selector keeps too few of those or the last it keeps scores below.
  test('bestFirst gives the selector its best candidates first, and all of them only when it keeps too few', () => {
    const bounds = [5, 1, 9, 5, 3, 9, 0, 5]
    const given: number[][] = []
    const keepAll = (limit: number) => (candidates: Iterable<number>) => {
      const list = [...candidates]
      given.push(list)
      return list.slice(0, limit).map((i) => ({ i, score: bounds[i] as number }))
    }
    expect(bestFirst(bounds.length, (i) => bounds[i] as number, 3, keepAll(3)).map((r) => r.i)).toEqual([2, 5, 0])
    // The third best bound is 5, held by three candidates: all of them come, and nothing below.
    expect(given).toEqual([[2, 5, 0, 3, 7]])
    given.length = 0
    // A selector whose filter keeps only the odd candidates keeps too few of those: it is given every candidate.
    const odd = (candidates: Iterable<number>) => {
      const list = [...candidates]
      given.push(list)
      return list
        .filter((i) => i % 2 === 1)
        .map((i) => ({ i, score: bounds[i] as number }))
        .sort((a, b) => b.score - a.score || a.i - b.i)
        .slice(0, 2)
    }
    expect(bestFirst(bounds.length, (i) => bounds[i] as number, 2, odd).map((r) => r.i)).toEqual([5, 3])
    expect(given).toEqual([
      [2, 5],
      [0, 1, 2, 3, 4, 5, 6, 7],
    ])
    given.length = 0
    // More asked for than there are candidates: every one, at once.
    bestFirst(bounds.length, (i) => bounds[i] as number, 20, keepAll(20))
    expect(given).toEqual([[0, 1, 2, 3, 4, 5, 6, 7]])
  })

  // rankLearnings selects the best `limit` while reading as few records as it can (its first pass takes the
  // candidates at or above the limit-th best score first). Whatever the order it reads them in, its answer is every
  // candidate scored, filtered and sorted in full, cut to `limit`: ties on the score broken by name, tier, raw score,
  // then the order BM25 met them (the last two decide only between copies of one name in one tier, which no store
  // holds: the cases reach name and tier).
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel']
  const seeds: Seed[] = Array.from({ length: 240 }, (_, i) => ({
    name: `twin-${String(i % 80).padStart(2, '0')}-${['a', 'b', 'c'][i % 3]}`,
    // Many identical texts: ties on the score, broken by name.
    trigger: `Error: ${words[i % 8]} ${words[(i >> 3) % 8]} failed`,
    // Scores of many sizes: each word said a different number of times in a description of a different length.
    description: `When ${`${words[i % 5]} `.repeat(1 + (i % 4))}meets ${words[i % 7]}${' and more'.repeat(i % 5)}.`,
    tags: [words[i % 3] as string],
    solution: 'Retry.',
    state: (['active', 'pending', 'archived'] as const)[i % 4 === 3 ? 1 : i % 9 === 0 ? 2 : 0],
    ...(i % 6 === 0 ? { type: 'pattern' } : {}),
  }))
  const learnings = seeds.map((s) => parseLearning(seedText(s), `.learnings/${s.state ?? 'active'}/${s.name}.md`))
  // A third of them again in two tiers, the same names and texts: ties on the score broken by tier and by the raw
  // score (a weight of 0.5 against 1), and weights that round scores differently.
  const tiers = learnings.flatMap((l, i) =>
    i % 3 ? [] : [{ l, tier: i % 2 ? 'org' : 'team', weight: i % 2 ? 1 : 0.5 }],
  )
  const catalog = [
    ...learnings.map((l) => buildCatalogEntry(l, 'project', 1)),
    ...tiers.map((t) => buildCatalogEntry(t.l, t.tier, t.weight)),
  ]
  const index = partsIndex(
    buildIndexParts([...learnings, ...tiers.map((t) => t.l)].map((l, i) => buildSearchDoc(i, l))),
  )
  const boosts = indexOptions().fields.map((f) => FIELD_BOOSTS[f])
  const everyCandidate = (query: string, states?: string[], types?: string[]) => {
    const scores = scoreQuery(index, querySpecs(buildQueryTerms(query), isTypedQuery(query)), boosts)
    return [...scores.order]
      .map((short, seen) => {
        const id = index.docId(short) as number
        const e = catalog[id] as (typeof catalog)[number]
        const base = scores.score[short] as number
        const held = holdsTrigger(e.triggers, (t) => scores.reaches(short, t)) ? HELD_TRIGGER : 1
        const raw = held === 1 ? base : base * held
        return { e, score: Math.round(raw * e.weight * 1000) / 1000, raw, seen }
      })
      .filter((c) => (!states || states.includes(c.e.state)) && (!types || types.includes(c.e.type)))
      .sort(
        (a, b) =>
          b.score - a.score ||
          compareCodeUnits(a.e.name, b.e.name) ||
          compareCodeUnits(a.e.tier, b.e.tier) ||
          b.raw - a.raw ||
          a.seen - b.seen,
      )
  }
  test.each([
    ['alpha failed', undefined, undefined, 1],
    ['alpha failed', undefined, undefined, 10],
    ['Error: bravo delta failed\nWhen echo meets golf.', undefined, undefined, 10],
    ['Error: bravo delta failed\nWhen echo meets golf.', ['active'], undefined, 3],
    ['Error: charlie failed', ['pending'], undefined, 10],
    ['Error: charlie failed', ['archived'], ['pattern'], 5],
    ['hotel golf failed', undefined, ['pattern'], 100],
    ['failed', undefined, undefined, 200],
    ['failed', ['active', 'pending'], undefined, 70],
  ] as const)('%j (states %j, types %j, limit %i) ranks as a full sort does', (query, states, types, limit) => {
    const filter = { ...(states ? { states: [...states] } : {}), ...(types ? { types: [...types] } : {}) }
    const got = rankLearnings(index, catalog, query, filter, limit).map((h) => [h.entry.name, h.entry.tier, h.score])
    const want = everyCandidate(query, states && [...states], types && [...types])
      .slice(0, limit)
      .map((c) => [c.e.name, c.e.tier, c.score])
    expect(want.length).toBeGreaterThan(0)
    expect(got).toEqual(want)
  })
})
