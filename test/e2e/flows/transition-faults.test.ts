/**
 * The fault-injection suite (issue 17): every committing command, killed (SIGKILL) or failed at each of its git
 * calls, leaves the repository before or after (HEAD, index, work tree; no lock), and so do 100 random kills. A kill
 * after the branch moved and before the user's index followed leaves the commit made and a journal: the repository is
 * then "after" once `git learn doctor --continue` has run (counted apart, as "finished by doctor").
 * FAULT_BIN runs it against another build (main's, for the figures before); FAULT_REPORT=1 prints instead of asserting.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { describe, expect, test } from 'vitest'
import {
  BUILT_BIN,
  committingScenarios,
  copyOf,
  hasJournal,
  judge,
  pool,
  prepare,
  repoState,
  runAndKill,
  runWithFaultAsync,
} from '../../helpers/fault.js'
import { tempDir } from '../../helpers/repo.js'
import type { Prepared } from '../../helpers/fault.js'

const BIN = process.env['FAULT_BIN'] ?? BUILT_BIN
const REPORT = process.env['FAULT_REPORT'] === '1'

type Outcome = 'before' | 'after' | 'doctor' | 'neither'

/**
 * Judge a repository after a fault. A kill while the transition held git's index lock leaves that lock, naming our
 * process: the next command of ours (here `status`) removes it, so the repository is judged again after one. A left
 * journal then gets `git learn doctor --continue`, when that command named it.
 */
function settle(p: Prepared, copy: string): Outcome {
  const v = judge(repoState(copy), p.before, p.after)
  if (v !== 'neither') return v
  const told = spawnSync(process.execPath, [BIN, 'status'], { cwd: copy, encoding: 'utf8' })
  const next = judge(repoState(copy), p.before, p.after)
  if (next !== 'neither') return next
  if (!hasJournal(copy)) return 'neither'
  if (!/git learn doctor/.test(told.stderr)) return 'neither'
  spawnSync(process.execPath, [BIN, 'doctor', '--continue'], { cwd: copy, encoding: 'utf8' })
  return judge(repoState(copy), p.before, p.after) === 'after' && !hasJournal(copy) ? 'doctor' : 'neither'
}

describe('fault injection', () => {
  // A SIGKILL ends our process, not the git it started: that git runs on and releases its lock itself. Judged before
  // it ends, a repository showed git's index.lock (a `git status` refreshing the index) as "neither" under load.
  test('a random kill is judged only once every process the command started has ended', async () => {
    const dir = tempDir('gl-fault-orphan-')
    const bin = join(dir, 'bin.mjs')
    writeFileSync(
      bin,
      "import { spawn } from 'node:child_process'\n" +
        "spawn('sh', ['-c', 'sleep 2; echo done > ended'], { stdio: 'ignore' })\n" +
        'setInterval(() => {}, 1000)\n',
    )
    const r = await runAndKill(bin, dir, [], 1000)
    expect(r.killed).toBe(true)
    expect(existsSync(join(dir, 'ended'))).toBe(true)
    rmSync(dir, { recursive: true, force: true })
  }, 30_000)

  test.each(committingScenarios().map((s) => [s.name, s] as const))(
    '%s: killed or failed at each git call, before or after',
    async (_name, scenario) => {
      const p = prepare(BIN, scenario)
      const tally: Record<Outcome, number> = { before: 0, after: 0, doctor: 0, neither: 0 }
      const bad: string[] = []
      const points = (['kill', 'fail'] as const).flatMap((mode) =>
        Array.from({ length: p.calls }, (_, i) => ({ mode, at: i + 1 })),
      )
      await pool(
        points.map(({ mode, at }) => async () => {
          const copy = copyOf(p.template)
          const r = await runWithFaultAsync(BIN, copy, p.scenario.argv, { at, mode }, scenario.env)
          const o = settle(p, copy)
          tally[o]++
          if (o === 'neither') bad.push(`${mode}@${at}: ${r.stderr.split('\n')[0]}`)
          // A failure that changed nothing is reported as one (never exit 0 as if it had worked).
          if (mode === 'fail' && o === 'before' && r.code === 0) bad.push(`${mode}@${at}: exit 0 but nothing changed`)
          rmSync(copy, { recursive: true, force: true })
        }),
        3,
      )
      const line = `${scenario.name}: ${p.calls} git calls × 2 modes: ${tally.before} before, ${tally.after} after, ${tally.doctor} finished by doctor, ${tally.neither} neither`
      if (REPORT) console.log(`${line}\n${bad.join('\n')}`)
      else expect(bad, line).toEqual([])
    },
    600_000,
  )

  test('100 SIGKILLs at random moments leave 100 repositories before or after, with no lock', async () => {
    const prepared = committingScenarios().map((s) => prepare(BIN, s))
    const tally: Record<Outcome, number> = { before: 0, after: 0, doctor: 0, neither: 0 }
    const bad: string[] = []
    // The same "random" moments every run (a linear congruential sequence), spread over a clean run's length.
    let seed = 17
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (let i = 0; i < 100; i++) {
      const p = prepared[i % prepared.length] as Prepared
      const copy = copyOf(p.template)
      const delay = Math.floor(next() * p.duration * 1.1)
      await runAndKill(BIN, copy, p.scenario.argv, delay, p.scenario.env)
      const o = settle(p, copy)
      tally[o]++
      if (o === 'neither') bad.push(`${p.scenario.name} killed at ${delay} ms`)
      rmSync(copy, { recursive: true, force: true })
    }
    const line = `random kills: ${tally.before} before, ${tally.after} after, ${tally.doctor} finished by doctor, ${tally.neither} neither`
    if (REPORT) console.log(`${line}\n${bad.join('\n')}`)
    else expect(bad, line).toEqual([])
  }, 600_000)
})
