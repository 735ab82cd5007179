import { execFileSync, spawnSync } from 'node:child_process'
import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import {
  MAX_EVENT_LINE,
  appendEvent,
  eventsPath,
  readEventsSync,
  readUsageLog,
  readUsageSummary,
  usageSummaryPath,
} from '../../src/adapters/state/events.js'
import { summarizeUsage } from '../../src/core/usage.js'
import type { UsageEvent } from '../../src/core/usage.js'
import { PROJECT_ROOT, makeRepo, learningText } from '../helpers/repo.js'

const ev = (day: number, name: string, kind: UsageEvent['kind'] = 'match'): UsageEvent => ({
  ts: new Date(Date.UTC(2026, 0, day)).toISOString(),
  kind,
  name,
})
const line = (e: UsageEvent) => `${JSON.stringify(e)}\n`

function setup() {
  const repo = makeRepo()
  const common = join(repo.root, '.git')
  mkdirSync(join(common, 'learn'), { recursive: true })
  return { repo, common, file: eventsPath(common) }
}

describe('the usage-summary cache', () => {
  test.each([
    ['a directory', (file: string) => mkdirSync(file)],
    ['a FIFO', (file: string) => execFileSync('mkfifo', [file])],
  ])(
    'a usage log that is %s costs status its usage counts, with a warning, and never blocks it',
    async (_what, make) => {
      const { repo, file } = setup()
      expect((await repo.cli(['init'])).code).toBe(0)
      make(file)
      // Through the built binary, bounded: an open that blocked on the FIFO would hold this process, not the test's.
      const status = spawnSync(process.execPath, [join(PROJECT_ROOT, 'dist', 'bin.js'), 'status', '--json'], {
        cwd: repo.root,
        encoding: 'utf8',
        timeout: 20_000,
      })
      expect(status.stderr).toMatch(
        /^warning: the usage counts are left out: learn\/events\.jsonl could not be read \((EISDIR|not a regular file)/,
      )
      expect(status.status).toBe(0)
      expect(JSON.parse(status.stdout).counts).toEqual({ pending: 0, active: 0, archived: 0 })
    },
  )

  test('counts events appended after the cache was written, reading only the new bytes', () => {
    const { common } = setup()
    for (let d = 1; d <= 5; d++) appendEvent(common, ev(d, 'a'))
    const first = readUsageLog(common)
    expect(first.rebuilt).toBe(true)
    expect(first.totals.get('a')?.matches).toBe(5)
    const again = readUsageLog(common)
    expect(again).toMatchObject({ rebuilt: false, readBytes: 0 })
    appendEvent(common, ev(9, 'a', 'helpful'))
    appendEvent(common, ev(10, 'b'))
    const next = readUsageLog(common)
    expect(next.rebuilt).toBe(false)
    expect(next.readBytes).toBe(line(ev(9, 'a', 'helpful')).length + line(ev(10, 'b')).length)
    expect(readUsageSummary(common)).toEqual(summarizeUsage(readEventsSync(common)))
    expect(readUsageSummary(common).get('a')).toMatchObject({ matches: 5, helpful: 1, lastConfirmed: ev(9, 'a').ts })
  })

  test('a truncated or rewritten log is folded again from the start', () => {
    const { common, file } = setup()
    writeFileSync(file, [1, 2, 3, 4].map((d) => line(ev(d, 'a'))).join(''))
    expect(readUsageLog(common).totals.get('a')?.matches).toBe(4)
    writeFileSync(file, line(ev(1, 'b')))
    const shrunk = readUsageLog(common)
    expect(shrunk.rebuilt).toBe(true)
    expect(shrunk.totals.has('a')).toBe(false)
    expect(shrunk.totals.get('b')?.matches).toBe(1)
    // Same inode, at least as long, other bytes before the cached offset: rewritten, not appended to.
    writeFileSync(file, line(ev(1, 'c')) + line(ev(2, 'c')))
    const rewritten = readUsageLog(common)
    expect(rewritten.rebuilt).toBe(true)
    expect([...rewritten.totals.keys()]).toEqual(['c'])
    // Replaced by another file (another inode) of the same bytes plus more.
    writeFileSync(`${file}.new`, line(ev(1, 'c')) + line(ev(2, 'c')) + line(ev(3, 'd')))
    renameSync(`${file}.new`, file)
    const replaced = readUsageLog(common)
    expect(replaced.rebuilt).toBe(true)
    expect(replaced.totals.get('c')?.matches).toBe(2)
    expect(replaced.totals.get('d')?.matches).toBe(1)
  })

  test.each([
    ['not JSON', '{"format":1,'],
    ['another format', JSON.stringify({ format: 99 })],
    ['a wrong row', null],
  ])('a corrupt cache (%s) is folded again, never an error', (_what, text) => {
    const { common, file } = setup()
    writeFileSync(file, line(ev(1, 'a')) + line(ev(2, 'a')))
    readUsageLog(common)
    const cache = usageSummaryPath(common)
    if (text === null) {
      const c = JSON.parse(readFileSync(cache, 'utf8'))
      c.totals.a = ['many', 0]
      writeFileSync(cache, JSON.stringify(c))
    } else writeFileSync(cache, text)
    const r = readUsageLog(common)
    expect(r.rebuilt).toBe(true)
    expect(r.totals.get('a')?.matches).toBe(2)
    expect(readUsageLog(common).rebuilt).toBe(false)
  })

  test('corrupt lines are skipped and counted, over-long ones included; the count survives the cache', () => {
    const { common, file } = setup()
    writeFileSync(
      file,
      `${line(ev(1, 'a'))}not json\n{"ts":"x","kind":"match","name":"a"}\n\n${'z'.repeat(MAX_EVENT_LINE + 10)}\n${line(ev(2, 'a'))}`,
    )
    const r = readUsageLog(common)
    expect(r.skipped).toBe(3)
    expect(r.totals.get('a')?.matches).toBe(2)
    appendFileSync(file, `{"torn":\n${line(ev(3, 'a'))}`)
    const next = readUsageLog(common)
    expect(next).toMatchObject({ rebuilt: false, skipped: 4 })
    expect(next.totals.get('a')?.matches).toBe(3)
  })

  test('a last line without its newline counts, and is not counted twice once completed', () => {
    const { common, file } = setup()
    writeFileSync(file, line(ev(1, 'a')) + JSON.stringify(ev(2, 'a')))
    expect(readUsageLog(common).totals.get('a')?.matches).toBe(2)
    expect(readUsageLog(common).totals.get('a')?.matches).toBe(2)
    appendFileSync(file, `\n${line(ev(3, 'a'))}`)
    const r = readUsageLog(common)
    expect(r.rebuilt).toBe(false)
    expect(r.totals.get('a')?.matches).toBe(3)
    expect(readUsageSummary(common)).toEqual(summarizeUsage(readEventsSync(common)))
  })

  test('status counts events appended since the last status', async () => {
    const { repo, common } = setup()
    repo.write('.learnings/active/used-one.md', learningText('used-one'))
    repo.git('add', '.')
    repo.git('commit', '-q', '-m', 'seed')
    appendEvent(common, { ts: '2026-11-01T00:00:00Z', kind: 'match', name: 'used-one' })
    const before = await repo.cli(['status', '--json'])
    expect(before.code).toBe(0)
    appendEvent(common, { ts: '2026-11-02T00:00:00Z', kind: 'match', name: 'used-one' })
    const after = await repo.cli(['status', '--json'])
    expect(JSON.stringify(after.json())).toContain('2026-11-02T00:00:00Z')
    expect(JSON.stringify(before.json())).not.toContain('2026-11-02T00:00:00Z')
  })
})
