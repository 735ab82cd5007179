import { describe, expect, test } from 'vitest'
import { DEFAULT_CONFIG } from '../../src/core/config-schema.js'
import { baseConfidence, effectiveConfidence } from '../../src/core/confidence.js'
import { buildContext, estimateTokens } from '../../src/core/context.js'
import { parseLearning } from '../../src/core/learning.js'
import { planRender, removeAgentsSection, spliceAgentsSection } from '../../src/core/render.js'
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
  termsOf,
  withinEditDistance,
} from '../../src/core/search.js'
import { detectToolFailure } from '../../src/core/search-recall.js'
import { processTerm } from '../../src/core/terms.js'
import { NAME_TERM_FACTOR, invertRecall, passesRecall, rankRecall, termWeight } from '../../src/core/recall-rank.js'
import type { RecallIndex } from '../../src/core/recall-rank.js'
import { EMPTY_USAGE, parseUsageEvent, summarizeUsage } from '../../src/core/usage.js'
import { SEEDS, VITEST_FAILURE, seedText } from '../helpers/feed-store.js'

const cfg = DEFAULT_CONFIG.confidence
const now = new Date('2026-11-20T00:00:00Z')
const u = (o: Partial<typeof EMPTY_USAGE>) => ({ ...EMPTY_USAGE, ...o })

describe('effectiveConfidence', () => {
  test.each([
    ['base only, created today', 0.6, u({}), '2026-11-20', 0.6],
    ['one helpful', 0.6, u({ helpful: 1, lastConfirmed: '2026-11-20T00:00:00Z' }), '2026-01-01', 0.65],
    ['helpful + applied', 0.6, u({ helpful: 1, applied: 1, lastConfirmed: '2026-11-19T00:00:00Z' }), null, 0.7],
    ['one harmful', 0.6, u({ harmful: 1 }), '2026-11-20', 0.5],
    ['3 whole weeks since created, never confirmed', 0.6, u({}), '2026-10-29', 0.54],
    ['6 days is not a week', 0.6, u({}), '2026-11-14', 0.6],
    [
      'decay counts from the last confirmation',
      0.6,
      u({ helpful: 1, lastConfirmed: '2026-11-06T00:00:00Z' }),
      '2025-01-01',
      0.61,
    ],
    ['clamped at 1', 0.98, u({ helpful: 3, lastConfirmed: '2026-11-20T00:00:00Z' }), null, 1],
    ['clamped at 0', 0.1, u({ harmful: 5 }), null, 0],
    ['no created and no confirmation: no decay', 0.5, u({}), null, 0.5],
  ])('%s', (_what, base, usage, created, expected) => {
    expect(effectiveConfidence(base, usage, now, cfg, created)).toBe(expected)
  })
  test.each([
    [0.8, 0.8],
    [undefined, 0.5],
    ['high', 0.5],
    [7, 1],
  ])('base confidence of %s is %s', (v, expected) => expect(baseConfidence(v)).toBe(expected))
})

describe('usage events', () => {
  test('summarize counts kinds and keeps the latest use and confirmation', () => {
    const events = [
      { ts: '2026-11-01T00:00:00Z', kind: 'match', name: 'a' },
      { ts: '2026-11-03T00:00:00Z', kind: 'helpful', name: 'a' },
      { ts: '2026-11-05T00:00:00Z', kind: 'match', name: 'a' },
      { ts: '2026-11-02T00:00:00Z', kind: 'harmful', name: 'b' },
    ] as const
    const s = summarizeUsage(events)
    expect(s.get('a')).toEqual({
      matches: 2,
      helpful: 1,
      harmful: 0,
      applied: 0,
      successes: 0,
      failures: 0,
      lastUsed: '2026-11-05T00:00:00Z',
      lastConfirmed: '2026-11-03T00:00:00Z',
    })
    expect(s.get('b')).toMatchObject({ harmful: 1, lastConfirmed: null })
  })
  test.each([
    '',
    'not json',
    '{"ts":"x","kind":"match","name":"a"}',
    '{"ts":"2026-11-01","kind":"liked","name":"a"}',
    '[]',
    '{"{',
  ])('rejects line %j', (line) => {
    expect(parseUsageEvent(line)).toBeUndefined()
  })
})

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

describe('recall decisions', () => {
  test.each([
    ['PostToolUseFailure', { hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', error: 'Command failed' }, true],
    ['error field', { hook_event_name: 'PostToolUse', error: 'boom' }, true],
    [
      'non-zero exit',
      { hook_event_name: 'PostToolUse', tool_response: { stdout: 'x', stderr: 'bad', exit_code: 2 } },
      true,
    ],
    ['interrupted', { hook_event_name: 'PostToolUse', tool_response: { stdout: 'partial', interrupted: true } }, true],
    [
      'failing test run with exit 0',
      {
        hook_event_name: 'PostToolUse',
        tool_response: { stdout: ' FAIL  test/a.test.ts\n Tests  1 failed | 3 passed', stderr: '' },
      },
      true,
    ],
    [
      'passing run',
      {
        hook_event_name: 'PostToolUse',
        tool_response: { stdout: ' ✓ test/a.test.ts (3 tests)\n Tests  3 passed', stderr: '' },
      },
      false,
    ],
    [
      'an edit',
      { hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_response: { filePath: '/x', success: true } },
      false,
    ],
    ['not an object', 'hello', false],
  ])('%s', (_what, payload, failed) => {
    expect(Boolean(detectToolFailure(payload))).toBe(failed)
  })
  test.each([
    [1, 1, true],
    [0.6, 2, true],
    [0.59, 3, false],
    [1, 0, false],
  ])('weighted coverage %s with %s specific terms matched passes: %s', (cov, specific, ok) =>
    expect(passesRecall(cov, specific)).toBe(ok),
  )
})

describe('render', () => {
  const learnings = SEEDS.filter((s) => (s.state ?? 'active') === 'active').map((s) =>
    parseLearning(seedText(s), `.learnings/active/${s.name}.md`),
  )
  test('the same learnings in any order give the same bytes', () => {
    const a = planRender(learnings, ['claude', 'cursor', 'copilot', 'agents'])
    const b = planRender([...learnings].reverse(), ['agents', 'copilot', 'cursor', 'claude'])
    expect(JSON.stringify(b)).toBe(JSON.stringify(a))
    expect(a.files.every((f) => !/\d{4}-\d{2}-\d{2}T/.test(f.content))).toBe(true)
  })
  test('skill names and descriptions follow the Agent Skills limits', () => {
    for (const f of planRender(learnings, ['claude']).files) {
      const name = /^name: (.+)$/m.exec(f.content)?.[1]
      expect(f.path).toBe(`.claude/skills/${name}/SKILL.md`)
      expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
      expect((/^description: (.+)$/m.exec(f.content)?.[1] ?? '').length).toBeLessThanOrEqual(1026)
    }
  })
  test('the AGENTS.md section is spliced and removed without touching the rest', () => {
    const section = '<!-- git-learn:begin -->\nX\n<!-- git-learn:end -->'
    expect(spliceAgentsSection(null, section)).toBe(`${section}\n`)
    const mine = '# Mine\n\ntext\n'
    const once = spliceAgentsSection(mine, section)
    expect(once).toBe(`# Mine\n\ntext\n\n${section}\n`)
    expect(spliceAgentsSection(once, section.replace('X', 'Y'))).toBe(
      `# Mine\n\ntext\n\n${section.replace('X', 'Y')}\n`,
    )
    expect(removeAgentsSection(once)).toBe('# Mine\n\ntext\n')
  })
})

describe('context budget', () => {
  test('stays within max_tokens however many learnings there are', () => {
    const l = parseLearning(seedText(SEEDS[0]!), '.learnings/active/x.md')
    const entries = Array.from({ length: 2000 }, (_, i) => ({
      ...buildCatalogEntry(l, 'project', 1),
      name: `learning-${i}`,
      confidence: i % 3 ? 0.9 : 0.2,
    }))
    for (const max of [100, 500, 1500]) {
      const c = buildContext({
        entries,
        usage: new Map(),
        changedFiles: [],
        now,
        config: { confidence: cfg, context: { max_tokens: max } },
      })
      expect(c.tokens).toBeLessThanOrEqual(max)
      expect(estimateTokens(c.text)).toBe(c.tokens)
    }
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

describe('rankRecall', () => {
  const index = {
    names: ['pg-refused', 'vitest-hoist', 'one-word', 'pg-refused-tier'],
    weights: [1, 1, 1, 0.9],
    triggers: [
      [...termsOf('ECONNREFUSED postgres')],
      [...termsOf("ReferenceError: Cannot access '__vi_import_0__' before initialization")],
      [...termsOf('ENOSPC')],
      [...termsOf('ECONNREFUSED postgres')],
    ],
  }
  test('only triggers the error holds pass; the project beats an equal tier copy', () => {
    const got = rankRecall(index, new Set(buildQueryTerms('Error: connect ECONNREFUSED 127.0.0.1:5432 (postgres)')))
    expect(got.map((c) => index.names[c.doc])).toEqual(['pg-refused', 'pg-refused-tier'])
    expect(got[0]!.coverage).toBe(1)
    expect(got[1]!.score).toBeLessThan(got[0]!.score)
  })
  test('a partial trigger below the coverage threshold is not recalled', () => {
    expect(rankRecall(index, new Set(buildQueryTerms('ReferenceError: something else')))).toEqual([])
  })
  test('a one-term trigger is enough when it is there', () => {
    expect(
      rankRecall(index, new Set(buildQueryTerms('write failed: ENOSPC no space left'))).map((c) => index.names[c.doc]),
    ).toEqual(['one-word'])
  })
  test('only the common words of a trigger are not enough', () => {
    const twins = {
      names: ['redis-refused', 'mongo-ipv6'],
      weights: [1, 1],
      triggers: [
        [...termsOf('Error: connect ECONNREFUSED 127.0.0.1:6379')],
        [...termsOf('MongooseServerSelectionError: connect ECONNREFUSED ::1:27017')],
      ],
    }
    expect(rankRecall(twins, new Set(buildQueryTerms('Error: connect ETIMEDOUT 10.0.0.3:443')))).toEqual([])
    const python = 'redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379. Connection refused.'
    expect(rankRecall(twins, new Set(buildQueryTerms(python))).map((c) => twins.names[c.doc])).toEqual([
      'redis-refused',
    ])
    expect(
      rankRecall(twins, new Set(buildQueryTerms('MongooseServerSelectionError: connect ECONNREFUSED ::1:27017'))).map(
        (c) => twins.names[c.doc],
      ),
    ).toEqual(['mongo-ipv6'])
  })
  test('a generic trigger met in share stays silent when another learning holds more of the failure', () => {
    const ix = {
      names: ['eslint-flat-config-not-found', 'ts7016-missing-declaration-file'],
      weights: [1, 1],
      triggers: [
        [...termsOf('Error: Could not find config file.')],
        [...termsOf("error TS7016: Could not find a declaration file for module 'crypto-js'")],
      ],
    }
    const failure = "src/run.ts(9,24): error TS7016: Could not find a declaration file for module 'node-config-ts'."
    expect(rankRecall(ix, new Set(buildQueryTerms(failure)))).toEqual([])
    // The generic trigger alone, with nothing that outweighs it, is still recalled.
    const alone = { names: ix.names.slice(0, 1), weights: [1], triggers: ix.triggers.slice(0, 1) }
    expect(rankRecall(alone, new Set(buildQueryTerms(failure))).map((c) => alone.names[c.doc])).toEqual([
      'eslint-flat-config-not-found',
    ])
  })
  test('a learning with several triggers is recalled once, by its best trigger', () => {
    const ix = {
      names: ['pg', 'pg', 'other'],
      weights: [1, 1, 1],
      triggers: [
        [...termsOf('ECONNREFUSED 127.0.0.1:5432')],
        [...termsOf('psql: could not connect to server: Connection refused')],
        [...termsOf('ENOSPC')],
      ],
    }
    const got = rankRecall(
      ix,
      new Set(
        buildQueryTerms('psql: could not connect to server: Connection refused. Is the server running on port 5432?'),
      ),
    )
    expect(got.map((c) => ix.names[c.doc])).toEqual(['pg'])
  })

  // The hook ranks from the inverted form read from the cache; this is the scan over every trigger it replaced.
  const scanEveryTrigger = (ix: RecallIndex, q: ReadonlySet<string>) => {
    const n = ix.triggers.length
    const df = (x: string) => ix.triggers.filter((t) => t.includes(x)).length
    const best = new Map<string, { doc: number; coverage: number; score: number }>()
    const sums: number[] = []
    ix.triggers.forEach((t, doc) => {
      const terms = [...new Set(t)].sort()
      const hit = terms.filter((x) => q.has(x))
      const total = Math.round(terms.reduce((s, x) => s + termWeight(x, df(x), n), 0) * 1000) / 1000
      const sum = hit.reduce((s, x) => s + termWeight(x, df(x), n), 0)
      const coverage = Math.min(1, sum / total)
      if (hit.length) sums[doc] = sum
      if (!hit.length || !passesRecall(coverage, hit.length)) return
      const c = {
        doc,
        coverage: Math.round(coverage * 1000) / 1000,
        score: Math.round(sum * coverage * (ix.weights[doc] ?? 1) * 1000) / 1000,
      }
      const prev = best.get(ix.names[doc] as string)
      if (!prev || c.score > prev.score || (c.score === prev.score && c.coverage > prev.coverage))
        best.set(ix.names[doc] as string, c)
    })
    const ranked = [...best.values()].sort(
      (a, b) =>
        b.score - a.score ||
        b.coverage - a.coverage ||
        ((ix.names[a.doc] as string) < (ix.names[b.doc] as string) ? -1 : 1),
    )
    // Silent unless the pick leads every learning the failure touches, its matched trigger weight plus its name's words.
    const nameWeight = (name: string) =>
      NAME_TERM_FACTOR *
      [...new Set(name.split('-').map((w) => processTerm(w)))]
        .filter((x): x is string => !!x && q.has(x))
        .reduce((s, x) => s + termWeight(x, df(x), n), 0)
    const pick = ranked[0]
    if (!pick) return ranked
    const lead = (sums[pick.doc] as number) + nameWeight(ix.names[pick.doc] as string)
    return sums.some(
      (sum, doc) => ix.names[doc] !== ix.names[pick.doc] && sum + nameWeight(ix.names[doc] as string) > lead,
    )
      ? []
      : ranked
  }

  test('ranking from the inverted triggers (what the cache holds) equals a scan of every trigger, on 300 random stores', () => {
    let seed = 5
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    const vocab = Array.from({ length: 40 }, (_, i) => `term${i}`)
    for (let round = 0; round < 300; round++) {
      const n = 1 + Math.floor(rand() * 60)
      const ix: RecallIndex = {
        // Names of vocabulary words, so a name's words weigh in whether the pick leads.
        names: Array.from(
          { length: n },
          (_, i) => `${vocab[Math.floor(rand() * 14)]}-${vocab[Math.floor(rand() * 14)]}-${i}`,
        ),
        weights: Array.from({ length: n }, () => (rand() < 0.3 ? 0.9 : 1)),
        triggers: Array.from({ length: n }, () => [
          ...new Set(
            Array.from({ length: 1 + Math.floor(rand() * 6) }, () => vocab[Math.floor(rand() * 12)] as string),
          ),
        ]),
      }
      const q = new Set(Array.from({ length: Math.floor(rand() * 10) }, () => vocab[Math.floor(rand() * 14)] as string))
      const inverted = invertRecall(ix)
      expect(rankRecall(inverted, q)).toEqual(scanEveryTrigger(ix, q))
    }
  })
})
