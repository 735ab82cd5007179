import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { learningText, makeRepo, repoWithConfig, tierRemote } from '../../helpers/repo.js'
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

/**
 * The index that cannot follow a commit that landed: a reference-transaction hook that, once the branch ref is
 * committed, puts a directory where the index file is (the transition holds git's index lock then, so no other git can
 * be what stops it; a file system refusing the write can). The window `git learn doctor` settles; `clearRace` puts the
 * index back.
 */
function raceAfterBranchMoves(repo: TestRepo): void {
  repo.write(
    '.git/hooks/reference-transaction',
    '#!/bin/sh\nif [ "$1" = committed ] && grep -q "refs/heads/"; then d="$(git rev-parse --git-dir)"; mv "$d/index" "$d/index.saved" && mkdir "$d/index"; fi\nexit 0\n',
  )
  chmodSync(join(repo.root, '.git/hooks/reference-transaction'), 0o755)
}

function clearRace(repo: TestRepo): void {
  rmSync(join(repo.root, '.git/hooks/reference-transaction'))
  rmSync(join(repo.root, '.git/index'), { recursive: true, force: true })
  renameSync(join(repo.root, '.git/index.saved'), join(repo.root, '.git/index'))
}

/** A bare tier repository with one active learning. */
const tierRepo = (): string => tierRemote({ 'org-note': learningText('org-note') }).bare

describe('the window between the branch move and the index', () => {
  test('doctor --abort puts a replaced file back as it was (content and index), not deleted', async () => {
    const repo = repoWithConfig()
    const before = repo.read('.learnings/config.yaml')
    const head = repo.git('rev-parse', 'HEAD').trim()
    raceAfterBranchMoves(repo)
    const r = await repo.cli(['tier', 'add', 'org', tierRepo()])
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toMatch(/was committed[\s\S]*doctor --continue/)
    clearRace(repo)
    const undo = await repo.cli(['doctor', '--abort'])
    expect(undo.code, undo.stdout + undo.stderr).toBe(0)
    expect(repo.git('rev-parse', 'HEAD').trim()).toBe(head)
    expect(repo.read('.learnings/config.yaml')).toBe(before)
    expect(repo.git('status', '--porcelain')).toBe('')
    // The undone tier add's fetch, pinned nowhere now, goes with it.
    expect(undo.stdout).toContain('deleted refs/learn/tiers/org')
    expect(repo.git('for-each-ref', 'refs/learn/')).toBe('')
    expect((await repo.cli(['doctor'])).code).toBe(0)
  }, 30_000)

  test('tier add keeps refs/learn/tiers/<name> when its pin commit landed; doctor --continue leaves a tier that verifies', async () => {
    const repo = repoWithConfig()
    raceAfterBranchMoves(repo)
    const r = await repo.cli(['tier', 'add', 'org', tierRepo()])
    expect(r.code, r.stderr).toBe(3)
    expect(repo.git('for-each-ref', '--format=%(refname)', 'refs/learn/')).toBe('refs/learn/tiers/org\n')
    clearRace(repo)
    const fixed = await repo.cli(['doctor', '--continue'])
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0)
    expect(repo.git('status', '--porcelain')).toBe('')
    const verify = await repo.cli(['tier', 'verify'])
    expect(verify.code, verify.stdout + verify.stderr).toBe(0)
  }, 30_000)
})

describe('read-only commands beside an unfinished transition', () => {
  test('list and status name it as the unfinished commit it is, never as a staged move not committed', async () => {
    const repo = repoWithConfig()
    repo.write('.learnings/pending/win-note.md', learningText('win-note'))
    repo.git('add', '-A')
    repo.git('commit', '-qm', 'pending')
    raceAfterBranchMoves(repo)
    expect((await repo.cli(['approve', 'win-note'])).code).toBe(3)
    clearRace(repo)
    const list = await repo.cli(['list'])
    expect(list.stderr).toMatch(/"learn: approve win-note" was committed[\s\S]*doctor --continue/)
    expect(list.stderr + list.stdout).not.toMatch(/staged move|never committed|not committed/)
    const status = await repo.cli(['status', '--json'])
    expect(status.stderr).toMatch(/doctor --continue/)
    expect(status.stderr).not.toMatch(/never committed/)
    expect(status.json().uncommitted).toBeUndefined()
  }, 30_000)
})

describe('recovery when git converts line endings', () => {
  /** A pending learning committed and checked out as git writes it under `setup` (CRLF in the work tree). */
  async function pendingWith(setup: (repo: TestRepo) => void): Promise<TestRepo> {
    const repo = makeRepo()
    setup(repo)
    repo.write('.learnings/config.yaml', 'approval:\n  distinct_approver: false\n')
    repo.write('.learnings/pending/crlf-note.md', learningText('crlf-note'))
    repo.git('add', '-A')
    repo.git('commit', '-qm', 'store')
    rmSync(join(repo.root, '.learnings/pending/crlf-note.md'))
    repo.git('checkout', '--', '.learnings/pending/crlf-note.md')
    expect(repo.read('.learnings/pending/crlf-note.md')).toMatch(/\r\n/)
    expect(repo.git('status', '--porcelain')).toBe('')
    return repo
  }
  const setups: [string, (repo: TestRepo) => void][] = [
    ['.gitattributes eol=crlf', (repo) => repo.write('.gitattributes', '*.md text eol=crlf\n')],
    ['core.autocrlf=true', (repo) => void repo.git('config', 'core.autocrlf', 'true')],
  ]

  test.each(setups)(
    '%s: doctor --continue finishes an interrupted approve',
    async (_name, setup) => {
      const repo = await pendingWith(setup)
      raceAfterBranchMoves(repo)
      const r = await repo.cli(['approve', 'crlf-note'])
      expect(r.code, r.stderr).toBe(3)
      clearRace(repo)
      const fixed = await repo.cli(['doctor', '--continue'])
      expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0)
      expect(repo.git('status', '--porcelain')).toBe('')
      expect(repo.exists('.learnings/active/crlf-note.md')).toBe(true)
      expect((await repo.cli(['doctor'])).code).toBe(0)
    },
    30_000,
  )

  test.each(setups)(
    '%s: doctor --abort moves the file back and leaves nothing staged',
    async (_name, setup) => {
      const repo = await pendingWith(setup)
      const head = repo.git('rev-parse', 'HEAD').trim()
      const bytes = repo.read('.learnings/pending/crlf-note.md')
      raceAfterBranchMoves(repo)
      const r = await repo.cli(['approve', 'crlf-note'])
      expect(r.code, r.stderr).toBe(3)
      clearRace(repo)
      const undo = await repo.cli(['doctor', '--abort'])
      expect(undo.code, undo.stdout + undo.stderr).toBe(0)
      expect(repo.git('rev-parse', 'HEAD').trim()).toBe(head)
      expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
      expect(repo.read('.learnings/pending/crlf-note.md')).toBe(bytes)
      expect((await repo.cli(['doctor'])).code).toBe(0)
    },
    30_000,
  )
})

describe('a tier ref that no config.yaml names (a `tier add` killed between its fetch and its commit)', () => {
  /** What the kill leaves: the tier fetched into its ref, config.yaml as it was. */
  function orphan(repo: TestRepo, name = 'org'): string {
    repo.git('fetch', '-q', '--no-tags', tierRepo(), `+main:refs/learn/tiers/${name}`)
    return repo.git('rev-parse', `refs/learn/tiers/${name}`).trim()
  }
  const tierRefs = (repo: TestRepo) => repo.git('for-each-ref', '--format=%(refname)', 'refs/learn/')

  test('doctor reports it; --continue leaves it; --abort deletes it and nothing else', async () => {
    const repo = repoWithConfig()
    const commit = orphan(repo)
    const head = repo.git('rev-parse', 'HEAD').trim()
    const report = await repo.cli(['doctor', '--json'])
    expect(report.code).toBe(1)
    expect(report.json().problems).toEqual([{ kind: 'orphan-tier-ref', ref: 'refs/learn/tiers/org', commit }])
    const text = await repo.cli(['doctor'])
    expect(text.stdout).toContain('refs/learn/tiers/org')
    expect(text.stdout).toContain('git learn tier add org <git-url>')
    expect(text.stdout).toContain('git learn doctor --abort')
    const cont = await repo.cli(['doctor', '--continue'])
    expect(cont.code).toBe(1)
    expect(cont.stdout).toMatch(/left as is: refs\/learn\/tiers\/org/)
    expect(tierRefs(repo)).toBe('refs/learn/tiers/org\n')
    const abort = await repo.cli(['doctor', '--abort'])
    expect(abort.code, abort.stdout + abort.stderr).toBe(0)
    expect(abort.stdout).toContain('deleted refs/learn/tiers/org')
    expect(tierRefs(repo)).toBe('')
    expect(repo.git('rev-parse', 'HEAD').trim()).toBe(head)
    expect(repo.git('status', '--porcelain')).toBe('')
    expect((await repo.cli(['doctor'])).code).toBe(0)
  }, 30_000)

  test('a rerun of tier add pins it, and doctor then finds nothing', async () => {
    const repo = repoWithConfig()
    const url = tierRepo()
    repo.git('fetch', '-q', '--no-tags', url, '+main:refs/learn/tiers/org')
    const again = await repo.cli(['tier', 'add', 'org', url])
    expect(again.code, again.stderr).toBe(0)
    expect(repo.read('.learnings/config.yaml')).toMatch(/name: org/)
    expect((await repo.cli(['doctor'])).code).toBe(0)
  }, 30_000)

  test.each([
    [
      'pinned in HEAD (a tier update killed after its fetch: the ref moved, the pin did not)',
      async (repo: TestRepo) => {
        expect((await repo.cli(['tier', 'add', 'org', tierRepo()])).code).toBe(0)
        orphan(repo)
      },
    ],
    [
      'named on another branch only',
      async (repo: TestRepo) => {
        repo.git('checkout', '-qb', 'feature')
        expect((await repo.cli(['tier', 'add', 'org', tierRepo()])).code).toBe(0)
        repo.git('checkout', '-q', 'main')
      },
    ],
    [
      'named in the work tree config, not committed',
      async (repo: TestRepo) => {
        const url = tierRepo()
        orphan(repo)
        repo.write('.learnings/config.yaml', `tiers:\n  - {name: org, url: ${JSON.stringify(url)}}\n`)
      },
    ],
    [
      'named in a config that is not valid YAML',
      async (repo: TestRepo) => {
        orphan(repo)
        repo.write('.learnings/config.yaml', 'tiers:\n  - name: org\n  url: [unclosed\n')
      },
    ],
  ])(
    'a ref that a config.yaml names is never reported nor deleted: %s',
    async (_, setup) => {
      const repo = repoWithConfig()
      await setup(repo)
      const refs = tierRefs(repo)
      expect(refs).toBe('refs/learn/tiers/org\n')
      const report = await repo.cli(['doctor', '--json'])
      expect(report.stdout).not.toContain('orphan-tier-ref')
      await repo.cli(['doctor', '--abort'])
      expect(tierRefs(repo)).toBe(refs)
    },
    30_000,
  )
})
