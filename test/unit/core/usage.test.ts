import { describe, expect, test } from 'vitest'
import { tallyFromTotals, tallyUsageEvent, totalsSuffice } from '../../../src/core/prune.js'
import type { UsageTally } from '../../../src/core/prune.js'
import { RECENT_MATCHES, foldUsageEvent, summarizeTotals, summarizeUsage } from '../../../src/core/usage.js'
import type { UsageEvent, UsageTotals } from '../../../src/core/usage.js'
import { parseUsageEvent } from '../../../src/core/usage.js'

const day = (d: number, h = 0) => new Date(Date.UTC(2026, 0, 1 + d, h)).toISOString()

/** A mixed log: matches spread over a year, some helpful/harmful/applied, out-of-order times, ties. */
function log(): UsageEvent[] {
  const out: UsageEvent[] = []
  const kinds = ['match', 'match', 'helpful', 'harmful', 'applied', 'match'] as const
  for (let i = 0; i < 400; i++)
    out.push({ ts: day((i * 37) % 300, i % 3), kind: kinds[i % kinds.length] as UsageEvent['kind'], name: `l${i % 7}` })
  out.push(
    { ts: day(5), kind: 'match', name: 'rare' },
    { ts: day(200), kind: 'harmful', name: 'rare' },
    { ts: day(250), kind: 'match', name: 'rare' },
  )
  out.push({ ts: day(10), kind: 'harmful', name: 'only-harmful' })
  return out
}

function fold(events: readonly UsageEvent[]): Map<string, UsageTotals> {
  const totals = new Map<string, UsageTotals>()
  for (const e of events) foldUsageEvent(totals, e)
  return totals
}

describe('usage totals', () => {
  test('summarize the same as summarizeUsage over the events', () => {
    expect(summarizeTotals(fold(log()))).toEqual(summarizeUsage(log()))
  })

  test.each([
    ['before every event', Date.parse(day(-1))],
    ['mid-year', Date.parse(day(120))],
    ['the day of the rare learning’s last match', Date.parse(day(250))],
    ['late: only a few matches remain', Date.parse(day(290))],
    ['after every event', Date.parse(day(400))],
  ])('prune tallies since a start date equal folding every event (%s)', (_what, start) => {
    const names = ['l0', 'l1', 'l2', 'l3', 'l4', 'l5', 'l6', 'rare', 'only-harmful', 'never']
    const since = new Map(names.map((n) => [n, start]))
    const expected = new Map<string, UsageTally>()
    for (const e of log()) tallyUsageEvent(expected, since, e)
    const totals = fold(log())
    for (const n of names) {
      const want = expected.get(n)
      const got = tallyFromTotals(totals.get(n), start)
      if (!want) expect(got).toBeUndefined()
      else {
        expect(got?.lastUsed).toBe(want.lastUsed)
        // Exact below RECENT_MATCHES; at or above, a lower bound that still decides min_matches ≤ RECENT_MATCHES.
        if (want.matches < RECENT_MATCHES) expect(got?.matches).toBe(want.matches)
        else expect(got?.matches).toBeGreaterThanOrEqual(RECENT_MATCHES)
        expect(got?.matches).toBeLessThanOrEqual(want.matches)
      }
    }
  })

  test('a harmful event is not a use for prune, but is the last use for status', () => {
    const totals = fold([
      { ts: day(1), kind: 'match', name: 'x' },
      { ts: day(9), kind: 'harmful', name: 'x' },
    ])
    expect(tallyFromTotals(totals.get('x'), Date.parse(day(0)))).toMatchObject({ matches: 1, lastUsed: day(1) })
    expect(tallyFromTotals(totals.get('x'), Date.parse(day(2)))).toBeUndefined()
    expect(summarizeTotals(totals).get('x')?.lastUsed).toBe(day(9))
  })

  test('totals decide exactly only up to RECENT_MATCHES for min_matches', () => {
    expect(totalsSuffice(2)).toBe(true)
    expect(totalsSuffice(RECENT_MATCHES)).toBe(true)
    expect(totalsSuffice(RECENT_MATCHES + 1)).toBe(false)
  })
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
    // Not ISO 8601 instants: text Date.parse happens to take, and a time without a zone (read in the local zone).
    '{"ts":"Dec 25 2026","kind":"match","name":"a"}',
    '{"ts":"1","kind":"match","name":"a"}',
    '{"ts":"2026-11-01T10:00:00","kind":"helpful","name":"a"}',
  ])('rejects line %j', (line) => {
    expect(parseUsageEvent(line)).toBeUndefined()
  })
  test.each([
    ['2026-11-01T10:00:00Z', '2026-11-01T10:00:00Z'],
    ['2026-11-01', '2026-11-01'],
    ['2026-11-01T23:30:00-11:00', '2026-11-02T10:30:00.000Z'],
    ['2026-11-02T09:00:00.5+14:00', '2026-11-01T19:00:00.500Z'],
  ])('reads the time %j as %j (in UTC)', (ts, want) => {
    expect(parseUsageEvent(JSON.stringify({ ts, kind: 'match', name: 'a' }))?.ts).toBe(want)
  })
})
