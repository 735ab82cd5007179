// The feed key's saved listing of untracked and ignored files (src/adapters/feed/feed-key.ts readWatch): while the
// index and the state directories keep their stat, the key's status lists tracked paths only and the untracked ones
// come from the listing. Each test first checks that road was taken (git's trace), then that no edit is missed.
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { RACY_MS, readWatch } from '../../src/adapters/feed/feed-key.js'
import { cliAt, learningText, makeRepo, tempDir } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

const STATES = ['pending', 'active', 'archived']

/** A committed store with an untracked pending learning and a gitignored one beside a tracked active one. */
function storeRepo(): TestRepo {
  const repo = makeRepo()
  repo.write('.learnings/active/tracked-fix.md', learningText('tracked-fix'))
  repo.write('.learnings/archived/.keep', '')
  repo.write('.gitignore', '.learnings/pending/ign*.md\n')
  repo.git('add', '.')
  repo.git('commit', '-q', '-m', 'seed')
  repo.write('.learnings/pending/loose-one.md', learningText('loose-one'))
  repo.write('.learnings/pending/ign-one.md', learningText('ign-one'))
  return repo
}

/** Set the index's (and the state directories') mtimes back, as if the last change were a minute old. */
function settle(root: string, gitDir = join(root, '.git'), dirs = true): void {
  const old = new Date(Date.now() - 60_000)
  for (const p of [join(gitDir, 'index'), ...(dirs ? STATES.map((s) => join(root, '.learnings', s)) : [])])
    if (existsSync(p)) utimesSync(p, old, old)
}

const description = (words: string) => `"Fix ${words} now. Use when ${words} fails."`

let trace = ''
beforeEach(() => {
  trace = join(tempDir(), 'trace')
  process.env['GIT_TRACE'] = trace
})
afterEach(() => {
  delete process.env['GIT_TRACE']
  delete process.env['GIT_INDEX_FILE']
})

/** The `git status` runs since the last call: 'tracked' for a tracked-only one, 'full' for one listing untracked files. */
function statusRuns(): string[] {
  const lines = existsSync(trace) ? readFileSync(trace, 'utf8').split('\n') : []
  rmSync(trace, { force: true })
  return lines
    .filter((l) => / built-in: git status /.test(l))
    .map((l) => (l.includes('--untracked-files=no') ? 'tracked' : 'full'))
}

async function found(repo: TestRepo, words: string, cwd?: string): Promise<string[]> {
  const argv = ['search', '--json', '--state', 'all', words]
  const r = cwd ? await cliAt(cwd, argv) : await repo.cli(argv)
  return (r.json() as { results: { name: string }[] }).results.map((x) => x.name).sort()
}

const listings = (root: string) =>
  readdirSync(join(root, '.git', 'learn', 'cache')).filter((f) => /^untracked-[0-9a-f]{8}\.json$/.test(f))

describe('the feed key trusts a saved untracked listing only while nothing it rests on moved', () => {
  test('untracked and ignored files edited in place after the listing was saved show at once', async () => {
    const repo = storeRepo()
    settle(repo.root)
    expect(await found(repo, 'anything')).toEqual([])
    expect(statusRuns()).toEqual(['full'])
    expect(listings(repo.root)).toHaveLength(1)

    // Each edit alone: the first after the save would change the key anyway if the saved records were not in it.
    repo.write('.learnings/pending/loose-one.md', learningText('loose-one', { description: description('zzloose') }))
    expect(await found(repo, 'zzloose')).toEqual(['loose-one'])
    repo.write('.learnings/pending/ign-one.md', learningText('ign-one', { description: description('zzignored') }))
    expect(await found(repo, 'zzignored')).toEqual(['ign-one'])
    repo.write('.learnings/pending/loose-one.md', learningText('loose-one', { description: description('zzagain') }))
    expect(await found(repo, 'zzagain')).toEqual(['loose-one'])
    expect(await found(repo, 'zzloose')).toEqual([])
    expect(statusRuns()).toEqual(['tracked', 'tracked', 'tracked', 'tracked'])

    // A tracked file edited in place: the tracked-only status sees it.
    repo.write(
      '.learnings/active/tracked-fix.md',
      learningText('tracked-fix', { description: description('zztracked') }),
    )
    expect(await found(repo, 'zztracked')).toEqual(['tracked-fix'])
    expect(statusRuns()).toEqual(['tracked'])
  })

  test('the tracked-only status gives the key the full one gave: the cache is not rebuilt', async () => {
    const repo = storeRepo()
    settle(repo.root)
    await found(repo, 'anything')
    const cache = join(repo.root, '.git', 'learn', 'cache')
    const feed = readdirSync(cache).filter((f) => f.startsWith('feed-'))
    expect(feed).toHaveLength(1)
    const written = statSync(join(cache, feed[0] as string)).mtimeMs
    await found(repo, 'anything')
    expect(statusRuns()).toEqual(['full', 'tracked'])
    expect(readdirSync(cache).filter((f) => f.startsWith('feed-'))).toEqual(feed)
    expect(statSync(join(cache, feed[0] as string)).mtimeMs).toBe(written)
  })

  test('a file added, removed or renamed in a state directory moves its stat: the full status runs again', async () => {
    const repo = storeRepo()
    settle(repo.root)
    await found(repo, 'anything')
    repo.write('.learnings/active/new-one.md', learningText('new-one', { description: description('zznew') }))
    expect(await found(repo, 'zznew')).toEqual(['new-one'])
    expect(statusRuns()).toEqual(['full', 'full'])

    settle(repo.root)
    await found(repo, 'anything')
    renameSync(join(repo.root, '.learnings/active/new-one.md'), join(repo.root, '.learnings/archived/new-one.md'))
    const moved = await repo.cli(['list', '--json', '--state', 'all'])
    const row = (moved.json() as { learnings: { name: string; state: string }[] }).learnings.find(
      (l) => l.name === 'new-one',
    )
    expect(row?.state).toMatch(/^archived/)

    settle(repo.root)
    await found(repo, 'anything')
    rmSync(join(repo.root, '.learnings/archived/new-one.md'))
    expect(await found(repo, 'zznew')).toEqual([])
    expect(statusRuns()).toEqual(['full', 'full', 'full', 'full'])
  })

  test('a tracked file that leaves the index (rm --cached, commit) and is then edited in place shows', async () => {
    const repo = storeRepo()
    settle(repo.root)
    await found(repo, 'anything')
    repo.git('rm', '-q', '--cached', '.learnings/active/tracked-fix.md')
    repo.git('commit', '-q', '-m', 'untrack')
    settle(repo.root, undefined, false) // the directories did not move; the index did
    expect(await found(repo, 'anything')).toEqual([])
    repo.write('.learnings/active/tracked-fix.md', learningText('tracked-fix', { description: description('zzleft') }))
    expect(await found(repo, 'zzleft')).toEqual(['tracked-fix'])
    expect(statusRuns()).toEqual(['full', 'full', 'tracked'])
  })

  test('a checkout that brings files, and a git add, are seen', async () => {
    const repo = storeRepo()
    repo.git('checkout', '-q', '-b', 'side')
    repo.write('.learnings/active/side-fix.md', learningText('side-fix', { description: description('zzside') }))
    repo.git('add', '.learnings/active/side-fix.md')
    repo.git('commit', '-q', '-m', 'side')
    repo.git('checkout', '-q', 'main')
    settle(repo.root)
    expect(await found(repo, 'zzside')).toEqual([])
    repo.git('checkout', '-q', 'side')
    expect(await found(repo, 'zzside')).toEqual(['side-fix'])

    settle(repo.root)
    await found(repo, 'anything')
    repo.write('.learnings/pending/loose-one.md', learningText('loose-one', { description: description('zzadded') }))
    repo.git('add', '.learnings/pending/loose-one.md')
    expect(await found(repo, 'zzadded')).toEqual(['loose-one'])
    expect(statusRuns()).toEqual(['full', 'full', 'full', 'full'])
  })

  test('a listing is saved only when the index and the directories are older than RACY_MS', async () => {
    const repo = storeRepo()
    await found(repo, 'anything')
    await found(repo, 'anything')
    expect(listings(repo.root)).toEqual([])
    expect(statusRuns()).toEqual(['full', 'full'])

    const dirs = { root: repo.root, gitDir: join(repo.root, '.git') }
    const index = join(dirs.gitDir, 'index')
    const newest = Math.floor(
      Math.max(statSync(index).mtimeMs, ...STATES.map((s) => statSync(join(repo.root, '.learnings', s)).mtimeMs)),
    )
    expect(readWatch(repo.root, dirs.gitDir, dirs.gitDir, index, newest + RACY_MS).settled).toBe(false)
    expect(readWatch(repo.root, dirs.gitDir, dirs.gitDir, index, newest + RACY_MS + 1).settled).toBe(true)
  })

  test('a damaged listing, or one of another work tree, is not used', async () => {
    const repo = storeRepo()
    settle(repo.root)
    await found(repo, 'anything')
    const file = join(repo.root, '.git', 'learn', 'cache', listings(repo.root)[0] as string)
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
    statusRuns()
    for (const bad of [
      '{',
      JSON.stringify({ ...saved, root: '/elsewhere' }),
      JSON.stringify({ ...saved, untracked: ['x'] }),
    ]) {
      writeFileSync(file, bad)
      await found(repo, 'anything')
      expect(statusRuns()).toEqual(['full'])
    }
  })

  test('each work tree keeps its own listing; an edit in place in a linked one shows there only', async () => {
    const repo = storeRepo()
    const wt = join(tempDir(), 'wt')
    repo.git('worktree', 'add', '-q', wt)
    mkdirSync(join(wt, '.learnings/pending'))
    writeFileSync(join(wt, '.learnings/pending/loose-one.md'), learningText('loose-one'))
    const wtGitDir = repo.git('-C', wt, 'rev-parse', '--absolute-git-dir').trim()
    settle(repo.root)
    settle(wt, wtGitDir)
    await found(repo, 'anything')
    await found(repo, 'anything', wt)
    expect(listings(repo.root)).toHaveLength(2)
    writeFileSync(
      join(wt, '.learnings/pending/loose-one.md'),
      learningText('loose-one', { description: description('zzwt') }),
    )
    expect(await found(repo, 'zzwt', wt)).toEqual(['loose-one'])
    expect(await found(repo, 'zzwt')).toEqual([])
    expect(statusRuns()).toEqual(['full', 'full', 'tracked', 'tracked'])
  })

  test('with GIT_INDEX_FILE the full status always runs', async () => {
    const repo = storeRepo()
    settle(repo.root)
    await found(repo, 'anything')
    process.env['GIT_INDEX_FILE'] = join(repo.root, '.git', 'index')
    await found(repo, 'anything')
    repo.write('.learnings/pending/loose-one.md', learningText('loose-one', { description: description('zzenv') }))
    expect(await found(repo, 'zzenv')).toEqual(['loose-one'])
    expect(statusRuns()).toEqual(['full', 'full', 'full'])
  })
})
