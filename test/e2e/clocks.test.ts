import { describe, expect, test } from 'vitest'
import { learningText, makeRepo, sh } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

// Time zones and teammates' clocks, through the built binary with TZ set (Node honours it): the same store and log
// give the same answers in every zone, and no date that a machine got wrong turns into a wrong figure.

const ZONES = ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/Adak', 'UTC'] as const

/** `git learn …` in `zone`, with the built binary on PATH. */
const learnIn = (repo: TestRepo, zone: string, ...args: string[]) =>
  sh(repo.root, 'git', ['learn', ...args], { env: { TZ: zone } })

/** A repository with these learnings committed in active/ (approved by hand, for status and context). */
function activeStore(names: string[]): TestRepo {
  const repo = makeRepo()
  for (const n of names) repo.write(`.learnings/active/${n}.md`, learningText(n))
  repo.git('add', '.learnings')
  repo.git('commit', '-q', '-m', 'store')
  return repo
}

describe('usage events and their times', () => {
  test('a time that is not an ISO 8601 instant is no event; one with an offset is read in UTC, in every zone', () => {
    const repo = activeStore(['odd-times', 'far-zone'])
    const lines = [
      // Text Date.parse takes but no ISO time, and a time without a zone (a different instant in every zone).
      { ts: 'Dec 25 2026', kind: 'helpful', name: 'odd-times' },
      { ts: '2026-11-10T10:00:00', kind: 'helpful', name: 'odd-times' },
      // Written on a machine at UTC−11 late in the evening: the 11th in UTC.
      { ts: '2026-11-10T23:30:00-11:00', kind: 'match', name: 'far-zone' },
    ]
    repo.write('.git/learn/events.jsonl', lines.map((l) => `${JSON.stringify(l)}\n`).join(''))
    const outs = ZONES.map((zone) => {
      const r = learnIn(repo, zone, 'status', '--json')
      expect(r.code, r.stderr).toBe(0)
      return r.stdout
    })
    for (const o of outs) expect(o).toBe(outs[0])
    const rows = JSON.parse(outs[0] as string).domains.flatMap((d: { learnings: unknown[] }) => d.learnings)
    const row = (name: string) => rows.find((r: { name: string }) => r.name === name)
    expect(row('odd-times')).toMatchObject({ matches: 0, lastUsed: null })
    expect(row('far-zone')).toMatchObject({ matches: 1, lastUsed: '2026-11-11T10:30:00.000Z' })
    const text = learnIn(repo, 'Pacific/Kiritimati', 'status')
    expect(text.stdout).toMatch(/far-zone .* last 2026-11-11/)
    expect(text.stdout).not.toMatch(/last Dec/)
  })
})
