/**
 * Lifecycle commits in linked worktrees (`git worktree add`: one per agent). Journals live in the common git dir,
 * shared by every worktree, each naming the git dir of the worktree it ran in: recovery in one worktree never touches
 * another's, and a journal whose worktree was removed, or whose work tree is on another branch now, is nothing to
 * finish there (git rebuilt that index from the branch checked out now).
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { BUILT_BIN, racePath } from '../../helpers/fault.js'
import { learningText, makeRepo, tempDir } from '../../helpers/repo.js'
import type { TestRepo } from '../../helpers/repo.js'

const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()

function seeded(): { repo: TestRepo; wt: string } {
  const repo = makeRepo()
  repo.write('.learnings/config.yaml', 'gates: {min_contexts: 1}\napproval: {distinct_approver: false}\n')
  repo.write('.learnings/pending/pend-one.md', learningText('pend-one'))
  repo.git('add', '.learnings')
  repo.git('commit', '-qm', 'seed')
  const wt = join(tempDir('gl-wt-'), 'agent')
  repo.git('worktree', 'add', '-q', '-b', 'agent', wt)
  return { repo, wt }
}

const bin = (cwd: string, args: string[]) =>
  spawnSync(process.execPath, [BUILT_BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })

const git = (cwd: string, ...args: string[]) => execFileSync(REAL_GIT, args, { cwd, encoding: 'utf8' })

/** `approve pend-one` in `cwd`, SIGKILLed right after its branch moved: the commit landed, the index did not follow. */
function killedAfterSwap(cwd: string): void {
  const mark = join(tempDir('gl-wt-race-'), 'mark')
  const r = spawnSync(process.execPath, [BUILT_BIN, 'approve', 'pend-one'], {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      PATH: `${racePath()}:${process.env['PATH']}`,
      RACE_AT: 'update-ref',
      RACE_WHEN: 'after',
      RACE_MARK: mark,
      RACE_CMD: 'kill -9 $GL_PARENT',
    },
  })
  expect(r.signal, r.stderr).toBe('SIGKILL')
}

const journals = (repo: TestRepo) => {
  const dir = join(repo.root, '.git', 'learn', 'transitions')
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.json')) : []
}

describe('an interrupted transition in a linked worktree', () => {
  test("is that worktree's: doctor in the main one leaves it; a worktree re-added under its name does not inherit it", () => {
    const { repo, wt } = seeded()
    killedAfterSwap(wt)
    expect(git(wt, 'log', '-1', '--format=%s', 'agent').trim()).toBe('learn: approve pend-one')
    // The main worktree has nothing half done, and its doctor leaves the other worktree's journal alone.
    const main = bin(repo.root, ['doctor'])
    expect(main.status, main.stdout + main.stderr).toBe(0)
    expect(journals(repo)).toHaveLength(1)
    expect(bin(wt, ['status']).stderr).toMatch(/learn: approve pend-one[\s\S]*git learn doctor --continue/)

    // The agent's worktree is thrown away (git refuses without --force: its index lags), and a new one is added at the
    // same place on another branch: git gives it the freed git dir (.git/worktrees/agent).
    git(repo.root, 'worktree', 'remove', '--force', wt)
    git(repo.root, 'worktree', 'add', '-q', '-b', 'other', wt, 'main')
    const told = bin(wt, ['status'])
    expect(told.stderr).not.toMatch(/doctor/)
    const doctor = bin(wt, ['doctor', '--continue'])
    expect(doctor.status, doctor.stdout + doctor.stderr).toBe(0)
    // Nothing of branch agent's approve is staged on branch other, and branch agent keeps its commit.
    expect(git(wt, 'status', '--porcelain')).toBe('')
    expect(existsSync(join(wt, '.learnings/active/pend-one.md'))).toBe(false)
    expect(git(repo.root, 'log', '-1', '--format=%s', 'agent').trim()).toBe('learn: approve pend-one')
    expect(journals(repo)).toEqual([])
  }, 60_000)

  test('a worktree removed for good: its journal goes at the next command anywhere, the approve kept on its branch', () => {
    const { repo, wt } = seeded()
    killedAfterSwap(wt)
    git(repo.root, 'worktree', 'remove', '--force', wt)
    const r = bin(repo.root, ['status'])
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).not.toMatch(/doctor/)
    expect(journals(repo)).toEqual([])
    expect(git(repo.root, 'log', '-1', '--format=%s', 'agent').trim()).toBe('learn: approve pend-one')
  }, 60_000)

  test('a `git switch` after the kill: git rebuilt the index from the new branch; nothing is finished there', () => {
    const { repo, wt } = seeded()
    killedAfterSwap(wt)
    // The next command of ours removes the lock the kill left (it names a process that is gone).
    expect(bin(wt, ['status']).stderr).toMatch(/doctor --continue/)
    git(wt, 'switch', '-q', '-c', 'elsewhere', 'main')
    const doctor = bin(wt, ['doctor', '--continue'])
    expect(doctor.status, doctor.stdout + doctor.stderr).toBe(0)
    expect(git(wt, 'status', '--porcelain')).toBe('')
    expect(existsSync(join(wt, '.learnings/active/pend-one.md'))).toBe(false)
    expect(journals(repo)).toEqual([])
    // Back on the branch, git checks the approve out whole.
    git(wt, 'switch', '-q', 'agent')
    expect(git(wt, 'status', '--porcelain')).toBe('')
    expect(existsSync(join(wt, '.learnings/active/pend-one.md'))).toBe(true)
    expect(existsSync(join(wt, '.learnings/pending/pend-one.md'))).toBe(false)
  }, 60_000)
})
