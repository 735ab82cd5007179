/**
 * The user's index while a lifecycle commit moves the branch. `git commit` holds git's index.lock while it moves
 * HEAD; so does a transition, from just before its compare-and-swap until the index has followed the commit. Without
 * that, a `git commit` of the user's right after our branch move committed an index that still lacked our commit's
 * change (undoing the approve), and a `git checkout` of another branch just before it had our change staged on that
 * other branch. A git wrapper first on PATH runs the other party at those moments.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, rmSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { BUILT_BIN, racePath } from '../../helpers/fault.js'
import { binPath, learningText, makeRepo, tempDir } from '../../helpers/repo.js'
import type { TestRepo } from '../../helpers/repo.js'

const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()

const REVIEWER = {
  GIT_COMMITTER_NAME: 'Rita Reviewer',
  GIT_COMMITTER_EMAIL: 'rita@example.com',
  GIT_AUTHOR_NAME: 'Rita Reviewer',
  GIT_AUTHOR_EMAIL: 'rita@example.com',
}

function seeded(): TestRepo {
  const repo = makeRepo()
  repo.write('.learnings/config.yaml', 'gates: {min_contexts: 1}\n')
  repo.write('.learnings/pending/pend-one.md', learningText('pend-one'))
  repo.git('add', '.learnings')
  repo.git('commit', '-qm', 'seed')
  return repo
}

/**
 * `git learn approve pend-one` with `cmd` run at git's `at` call; `inNamespace`: in a PID namespace of its own, as a dev
 * container runs it (`sh` first there: pid 1 ignores a SIGKILL sent from inside, so git learn is its child).
 */
function approveWithRace(repo: TestRepo, at: string, when: 'before' | 'after', cmd: string, inNamespace = false) {
  const scratch = tempDir('gl-index-race-')
  const mark = join(scratch, 'mark')
  const approve = `${process.execPath} ${BUILT_BIN} approve pend-one`
  const [command, args] = inNamespace
    ? ['unshare', ['--pid', '--fork', '--mount-proc', 'sh', '-c', `${approve}; exit $?`]]
    : [process.execPath, [BUILT_BIN, 'approve', 'pend-one']]
  const r = spawnSync(command, args, {
    cwd: repo.root,
    encoding: 'utf8',
    env: {
      ...process.env,
      ...REVIEWER,
      PATH: `${racePath()}:${process.env['PATH']}`,
      RACE_AT: at,
      RACE_WHEN: when,
      RACE_MARK: mark,
      RACE_CMD: `${cmd} > ${join(scratch, 'other.out')} 2>&1; echo $? > ${join(scratch, 'other.code')}`,
    },
  })
  expect(existsSync(mark), r.stderr).toBe(true)
  if (!existsSync(join(scratch, 'other.code'))) return { r, other: { code: NaN, out: '' } }
  const other = {
    code: Number(readFileSync(join(scratch, 'other.code'), 'utf8').trim()),
    out: readFileSync(join(scratch, 'other.out'), 'utf8'),
  }
  return { r, other }
}

describe("the user's index is locked while the branch moves", () => {
  test("a user's `git commit` right after our branch moved is refused by git: it never undoes the approve", () => {
    const repo = seeded()
    repo.write('mine.txt', "the user's work\n")
    repo.git('add', 'mine.txt')
    const { r, other } = approveWithRace(repo, 'update-ref', 'after', `${REAL_GIT} commit -qm "user commit"`)
    expect(r.status, r.stderr).toBe(0)
    // git refused the user's commit (its index was locked), which they can simply run again.
    expect(other.code, other.out).not.toBe(0)
    expect(other.out).toMatch(/index\.lock/)
    expect(repo.git('log', '-1', '--format=%s').trim()).toBe('learn: approve pend-one')
    expect(repo.git('ls-tree', '-r', '--name-only', 'HEAD', '.learnings').split('\n')).toContain(
      '.learnings/active/pend-one.md',
    )
    // The user's staged work is still staged, and nothing else differs from HEAD.
    expect(repo.git('status', '--porcelain')).toBe('A  mine.txt\n')
    expect(existsSync(join(repo.root, '.git/index.lock'))).toBe(false)
    // Run again, the user's commit holds their file and keeps the approve.
    repo.git('commit', '-qm', 'user commit')
    expect(repo.git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('mine.txt')
    expect(repo.exists('.learnings/active/pend-one.md')).toBe(true)
  }, 60_000)

  test('a `git checkout` of another branch before our branch moved: refused, nothing staged on the other branch', () => {
    const repo = seeded()
    repo.git('branch', 'other')
    const { r, other } = approveWithRace(repo, 'commit-tree', 'before', `${REAL_GIT} checkout -q other`)
    expect(other.code, other.out).toBe(0)
    expect(r.status, r.stderr).toBe(1)
    expect(r.stderr).toMatch(/HEAD moved to refs\/heads\/other[\s\S]*Nothing changed/)
    expect(repo.git('rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('other')
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(repo.git('log', '-1', '--format=%s', 'main').trim()).toBe('seed')
    expect(existsSync(join(repo.root, '.git/index.lock'))).toBe(false)
  }, 60_000)

  test('a `git checkout` at the moment the branch moves is refused by git; the approve lands on the branch it read', () => {
    const repo = seeded()
    repo.git('branch', 'other')
    const { r, other } = approveWithRace(repo, 'update-ref', 'before', `${REAL_GIT} checkout -q other`)
    expect(r.status, r.stderr).toBe(0)
    expect(other.code).not.toBe(0)
    expect(other.out).toMatch(/index\.lock/)
    expect(repo.git('rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main')
    expect(repo.git('log', '-1', '--format=%s').trim()).toBe('learn: approve pend-one')
    expect(repo.git('status', '--porcelain')).toBe('')
  }, 60_000)

  test('killed holding the lock before the branch moved: the lock names us, and the next command removes it and works', () => {
    const repo = seeded()
    const head = repo.git('rev-parse', 'HEAD').trim()
    // Our process and the wrapper that would have run update-ref: the branch never moves.
    const { r } = approveWithRace(repo, 'update-ref', 'before', 'kill -9 $GL_PARENT $PPID')
    expect(r.signal).toBe('SIGKILL')
    expect(readFileSync(join(repo.root, '.git/index.lock'), 'utf8')).toMatch(/^git-learn \d+ [0-9a-f]{8}\n$/)
    expect(repo.git('rev-parse', 'HEAD').trim()).toBe(head)
    expect(repo.git('status', '--porcelain')).toBe('')
    const again = spawnSync(process.execPath, [BUILT_BIN, 'approve', 'pend-one'], {
      cwd: repo.root,
      encoding: 'utf8',
      env: { ...process.env, ...REVIEWER },
    })
    expect(again.status, again.stderr).toBe(0)
    expect(existsSync(join(repo.root, '.git/index.lock'))).toBe(false)
    expect(repo.git('status', '--porcelain')).toBe('')
  }, 60_000)

  test('killed holding the lock after the branch moved: status names doctor --continue, which finishes it', () => {
    const repo = seeded()
    const { r } = approveWithRace(repo, 'update-ref', 'after', 'kill -9 $GL_PARENT')
    expect(r.signal).toBe('SIGKILL')
    expect(repo.git('log', '-1', '--format=%s').trim()).toBe('learn: approve pend-one')
    expect(readFileSync(join(repo.root, '.git/index.lock'), 'utf8')).toMatch(/^git-learn \d+ [0-9a-f]{8}\n$/)
    const bin = (args: string[]) =>
      spawnSync(process.execPath, [BUILT_BIN, ...args], { cwd: repo.root, encoding: 'utf8', env: process.env })
    const told = bin(['status'])
    expect(told.stderr).toMatch(/learn: approve pend-one[\s\S]*git learn doctor --continue/)
    expect(told.stderr).not.toMatch(/index\.lock/)
    expect(existsSync(join(repo.root, '.git/index.lock'))).toBe(false)
    const fixed = bin(['doctor', '--continue'])
    expect(fixed.status, fixed.stdout + fixed.stderr).toBe(0)
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(repo.exists('.learnings/active/pend-one.md')).toBe(true)
  }, 60_000)
  // git's own advice for a lock it meets is to remove it by hand. Then the index lags the approve commit, and what
  // `git commit` would record is the approve's move reversed: the commit-msg hook refuses it, and says why and how on.
  test('killed after the branch moved, its lock removed by hand: the hook refuses the commit, naming doctor --continue', () => {
    const repo = seeded()
    const bin = binPath()
    const env = { ...process.env, PATH: `${bin}:${process.env['PATH']}` }
    const hooked = spawnSync('git', ['learn', 'hook', 'install'], { cwd: repo.root, encoding: 'utf8', env })
    expect(hooked.status, hooked.stderr).toBe(0)
    repo.write('mine.txt', 'my own work\n')
    repo.git('add', 'mine.txt')
    const { r } = approveWithRace(repo, 'update-ref', 'after', 'kill -9 $GL_PARENT')
    expect(r.signal).toBe('SIGKILL')
    rmSync(join(repo.root, '.git/index.lock'))
    const commit = () => spawnSync('git', ['commit', '-qm', 'my work'], { cwd: repo.root, encoding: 'utf8', env })
    const refused = commit()
    expect(refused.status).not.toBe(0)
    expect(refused.stderr).toMatch(/interrupted after its commit[\s\S]*learn: approve pend-one[\s\S]*doctor --continue/)
    expect(repo.git('log', '-1', '--format=%s').trim()).toBe('learn: approve pend-one')
    const fixed = spawnSync(process.execPath, [BUILT_BIN, 'doctor', '--continue'], { cwd: repo.root, encoding: 'utf8' })
    expect(fixed.status, fixed.stdout + fixed.stderr).toBe(0)
    const done = commit()
    expect(done.status, done.stderr).toBe(0)
    expect(repo.git('show', '--name-status', '--format=', 'HEAD')).toBe('A\tmine.txt\n')
    expect(repo.git('ls-tree', '--name-only', 'HEAD', '.learnings/active/')).toBe('.learnings/active/pend-one.md\n')
  }, 60_000)
})

describe('a lock held a moment by a git beside us', () => {
  // An editor's `git status` or the user's `git add` holds index.lock for milliseconds, many times a minute: a
  // committing command that meets it waits for it to go (a few seconds at most) rather than refusing at once with
  // "remove the lock", which would be wrong advice while that git runs.
  test.each([['.git/index.lock'], ['.git/refs/heads/main.lock']])(
    '%s held when the command starts and released a moment later: the command waits and works',
    (lock) => {
      const repo = seeded()
      const { r } = approveWithRace(repo, 'rev-parse', 'after', `touch ${lock}; (sleep 1; rm -f ${lock}) &`)
      expect(r.status, r.stderr).toBe(0)
      expect(repo.git('log', '-1', '--format=%s').trim()).toBe('learn: approve pend-one')
      expect(repo.git('status', '--porcelain')).toBe('')
    },
    60_000,
  )
})

/** Whether this machine lets a test run a process in a PID namespace of its own (root, or user namespaces allowed). */
const CAN_UNSHARE = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status === 0

// A dev container and its host share the work tree: the person approves on the host while the agent's hooks and
// commands run in the container, where the host's process ids are not seen. git-learn's marks name their process by
// id and side (src/adapters/state/process-tag.ts), so the container does not take the host's approval in flight for a
// killed one. Before, `git learn doctor` (and every command's check for half-done work) run in the container found
// the index lock's pid gone there and removed the lock, leaving the host's approval without it.
describe.skipIf(!CAN_UNSHARE)('another PID namespace sharing the work tree (a dev container and its host)', () => {
  test("a command in the container leaves the host's approval in flight alone, and says it runs elsewhere", () => {
    const repo = seeded()
    // The container's command, then whether the lock is still there (the exit code is ls's).
    const container = `{ unshare --pid --fork --mount-proc ${process.execPath} ${BUILT_BIN} doctor --json; ls .git/index.lock; }`
    const { r, other } = approveWithRace(repo, 'update-ref', 'before', container)
    expect(r.status, r.stderr).toBe(0)
    // The lock was still there after the container's doctor: it was not the container's to remove.
    expect(other.code, other.out).toBe(0)
    const report = JSON.parse(other.out.slice(0, other.out.lastIndexOf('}') + 1)) as {
      problems: { kind: string; elsewhere?: boolean; subject?: string }[]
    }
    expect(report.problems).toContainEqual(
      expect.objectContaining({ kind: 'running', elsewhere: true, subject: 'learn: approve pend-one' }),
    )
    expect(repo.git('log', '-1', '--format=%s').trim()).toBe('learn: approve pend-one')
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(existsSync(join(repo.root, '.git/index.lock'))).toBe(false)
  }, 60_000)
})

// The other way round: a transition killed in a container that is gone since (stopped, restarted, rebuilt: each run
// is a new PID namespace, most often a new host name). No process of its side is left to finish or clear what it
// left, so its marks cannot wait for that side for ever: once older than any transition runs, they are judged here.
describe.skipIf(!CAN_UNSHARE)('a PID namespace that is gone (a dev container stopped since)', () => {
  test('its transition killed after the branch moved: doctor here finishes it once its marks are old', () => {
    const repo = seeded()
    const { r } = approveWithRace(repo, 'update-ref', 'after', 'kill -9 $GL_PARENT', true)
    expect(r.status).toBe(137)
    expect(repo.git('log', '-1', '--format=%s').trim()).toBe('learn: approve pend-one')
    const lock = join(repo.root, '.git/index.lock')
    expect(readFileSync(lock, 'utf8')).toMatch(/^git-learn \d+ [0-9a-f]{8}\n$/)
    const journals = join(repo.root, '.git/learn/transitions')
    const bin = (args: string[]) =>
      spawnSync(process.execPath, [BUILT_BIN, ...args], { cwd: repo.root, encoding: 'utf8', env: process.env })
    // Young, it may still be running over there: left alone, and said so.
    const young = bin(['doctor', '--json'])
    expect(young.stdout).toMatch(/"elsewhere":\s*true/)
    expect(existsSync(lock)).toBe(true)
    // An hour later nothing can still be running it: what it left is this side's to finish.
    const hourAgo = new Date(Date.now() - 3_600_000)
    for (const f of [lock, ...readdirSync(journals).map((n) => join(journals, n))]) utimesSync(f, hourAgo, hourAgo)
    const fixed = bin(['doctor', '--continue'])
    expect(fixed.status, fixed.stdout + fixed.stderr).toBe(0)
    expect(existsSync(lock)).toBe(false)
    expect(readdirSync(journals)).toEqual([])
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(repo.exists('.learnings/active/pend-one.md')).toBe(true)
  }, 60_000)
})
