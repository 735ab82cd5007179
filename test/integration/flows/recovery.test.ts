import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { learningText, makeRepo } from '../../helpers/repo.js'
import type { TestRepo } from '../../helpers/repo.js'

/** A process id that no process holds any more. */
const deadPid = () => spawnSync('true').pid as number

/**
 * The journal a transition writes before it moves the branch, as if its process had been killed right then: the
 * commit exists as an object, the branch has not moved yet. Returns the journal's path.
 */
function leaveJournal(repo: TestRepo, startedMsAgo: number): string {
  const old = repo.git('rev-parse', 'HEAD').trim()
  const git = (...a: string[]) => execFileSync('git', a, { cwd: repo.root, encoding: 'utf8' }).trim()
  const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
    cwd: repo.root,
    input: learningText('late-landing'),
    encoding: 'utf8',
  }).trim()
  const index = join(repo.root, '.git', 'tmp-index')
  const env = { ...process.env, GIT_INDEX_FILE: index }
  execFileSync('git', ['read-tree', 'HEAD'], { cwd: repo.root, env })
  execFileSync('git', ['update-index', '--add', '--cacheinfo', `100644,${blob},.learnings/pending/late-landing.md`], {
    cwd: repo.root,
    env,
  })
  const tree = execFileSync('git', ['write-tree'], { cwd: repo.root, env, encoding: 'utf8' }).trim()
  const commit = git('commit-tree', tree, '-p', old, '-m', 'learn: add late-landing')
  const dir = join(repo.root, '.git', 'learn', 'transitions')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `1-${Date.now()}-abcdef.json`)
  const journal = {
    version: 1,
    pid: deadPid(),
    started: new Date(Date.now() - startedMsAgo).toISOString(),
    subject: 'learn: add late-landing',
    ref: 'refs/heads/main',
    old,
    commit,
    paths: [{ path: '.learnings/pending/late-landing.md', entry: { mode: '100644', oid: blob } }],
    gitDir: git('rev-parse', '--path-format=absolute', '--git-dir'),
  }
  writeFileSync(file, JSON.stringify(journal))
  return file
}

test('a young journal whose commit may still land (the ref is where it was) is kept by a read-only command', async () => {
  const repo = makeRepo()
  const file = leaveJournal(repo, 0)
  expect((await repo.cli(['status'])).code).toBe(0)
  expect(existsSync(file)).toBe(true)
})

test('a journal whose commit can no longer land is dropped: too old, or the branch moved elsewhere', async () => {
  const old = makeRepo()
  const stale = leaveJournal(old, 60_000)
  await old.cli(['status'])
  expect(existsSync(stale)).toBe(false)

  const moved = makeRepo()
  const young = leaveJournal(moved, 0)
  moved.write('other.txt', 'x\n')
  moved.git('add', 'other.txt')
  moved.git('commit', '-qm', 'someone else committed')
  await moved.cli(['status'])
  expect(existsSync(young)).toBe(false)
})
