import { describe, expect, test } from 'vitest'
import { buildSupersededBy, planPrune, tallyUsageEvent } from '../../../src/core/prune.js'
import type { PruneFacts, UsageTally } from '../../../src/core/prune.js'

const NOW = new Date('2026-11-20T12:00:00Z')
const settings = { after_days: 90, min_matches: 2 }
const fact = (over: Partial<PruneFacts>): PruneFacts => ({
  name: 'x',
  activeSince: '2026-01-01',
  activeSinceFrom: 'approval',
  lastUsed: null,
  matches: 0,
  supersededBy: [],
  ...over,
})

describe('planPrune', () => {
  test.each([
    ['approved long ago, never used', fact({}), ['unused', 'rarely-matched']],
    ['approved long ago, used recently and often', fact({ lastUsed: '2026-11-01T00:00:00Z', matches: 5 }), []],
    ['used recently but matched once', fact({ lastUsed: '2026-11-01T00:00:00Z', matches: 1 }), ['rarely-matched']],
    ['last used 100 days ago, matched often', fact({ lastUsed: '2026-08-12T00:00:00Z', matches: 9 }), ['unused']],
    ['approved 10 days ago, never used', fact({ activeSince: '2026-11-10T00:00:00Z' }), []],
    ['young but superseded', fact({ activeSince: '2026-11-10', supersededBy: ['skill-b', 'skill-a'] }), ['superseded']],
    ['no date at all', fact({ activeSince: null, activeSinceFrom: 'unknown' }), []],
    ['exactly after_days old, unused', fact({ activeSince: '2026-08-22T12:00:00Z' }), ['unused', 'rarely-matched']],
    ['89 days old, unused', fact({ activeSince: '2026-08-23T12:00:00Z' }), []],
  ])('%s', (_label, f, kinds) => {
    const out = planPrune([f], settings, NOW)
    expect(out.flatMap((c) => c.reasons.map((r) => r.kind))).toEqual(kinds)
  })

  test('reasons read as one line, superseders sorted, candidates sorted by name', () => {
    const out = planPrune(
      [
        fact({ name: 'b', activeSince: '2026-11-10', supersededBy: ['z', 'a'] }),
        fact({ name: 'a', activeSinceFrom: 'created' }),
      ],
      settings,
      NOW,
    )
    expect(out.map((c) => c.name)).toEqual(['a', 'b'])
    expect(out[1]?.reason).toBe('superseded by a, z')
    expect(out[0]?.reason).toMatch(
      /^unused for 323 days \(last created 2026-01-01\); matched 0 times in 323 days \(fewer than 2\)$/,
    )
  })

  test('buildSupersededBy counts only active superseders of active names', () => {
    const m = buildSupersededBy([
      { name: 's', supersedes: ['a', 'gone', 's'] },
      { name: 'a', supersedes: [] },
      { name: 't', supersedes: 'a' },
    ])
    expect([...m.entries()]).toEqual([['a', ['s']]])
  })

  test('tallyUsageEvent counts matches after activation and keeps the latest use', () => {
    const tallies = new Map<string, UsageTally>()
    const since = new Map([['a', Date.parse('2026-06-01T00:00:00Z')]])
    for (const e of [
      { ts: '2026-05-01T00:00:00Z', kind: 'match', name: 'a' },
      { ts: '2026-07-01T00:00:00Z', kind: 'match', name: 'a' },
      { ts: '2026-09-01T00:00:00Z', kind: 'helpful', name: 'a' },
      { ts: '2026-10-01T00:00:00Z', kind: 'harmful', name: 'a' },
      { ts: '2026-10-01T00:00:00Z', kind: 'match', name: 'unknown' },
    ])
      tallyUsageEvent(tallies, since, e)
    expect(tallies.get('a')).toMatchObject({ matches: 1, lastUsed: '2026-09-01T00:00:00Z' })
    expect(tallies.has('unknown')).toBe(false)
  })
})
