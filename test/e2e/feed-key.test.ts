import {
  appendFileSync,
  chmodSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { expect, test } from 'vitest'
import { PROJECT_ROOT, cliAt, copyPackage, learningText, makeRepo, sh, tempDir } from '../helpers/repo.js'

/** A `git` first on PATH that logs each call's arguments, then runs the real git. */
function loggingGit(): { dir: string; calls: () => string[] } {
  const dir = tempDir('gl-gitlog-')
  const log = join(dir, 'calls.log')
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()
  writeFileSync(join(dir, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`)
  chmodSync(join(dir, 'git'), 0o755)
  return { dir, calls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean) }
}

test('a search on an unchanged store asks git status only; a commit or a checkout is seen at once', async () => {
  const repo = makeRepo()
  await repo.cli(['init'])
  repo.write('d.md', learningText('redis-timeout-fix', { description: '"Fix the redis timeout in CI."' }))
  expect((await repo.cli(['add', '--file', 'd.md'])).code).toBe(0)
  const g = loggingGit()
  // The built bin run directly: `git learn` would put git's exec-path (and its own git) first on PATH.
  const PATH = `${g.dir}:${process.env['PATH']}`
  const search = (q: string) => {
    const r = sh(
      repo.root,
      process.execPath,
      [join(PROJECT_ROOT, 'dist', 'bin.js'), 'search', '--state', 'pending', '--json', q],
      { env: { PATH } },
    )
    expect(r.code, r.stderr).toBe(0)
    return JSON.parse(r.stdout).results.map((x: { name: string; description: string }) => `${x.name}: ${x.description}`)
  }
  expect(search('redis timeout')).toEqual(['redis-timeout-fix: Fix the redis timeout in CI.'])
  const before = g.calls().length
  expect(g.calls().some((c) => c.includes('ls-files'))).toBe(true) // the first run computed the full key
  expect(search('redis timeout')).toEqual(['redis-timeout-fix: Fix the redis timeout in CI.'])
  const second = g.calls().slice(before)
  expect(
    second.some((c) => c.includes('status')),
    second.join('\n'),
  ).toBe(true)
  expect(second.some((c) => c.includes('ls-files'))).toBe(false) // the alias of the index's stat stood in for it
  expect(readdirSync(join(repo.root, '.git', 'learn', 'cache')).filter((f) => f.startsWith('alias-'))).toHaveLength(1)

  // A commit that changes the learning, then a checkout back: each is seen by the next search.
  repo.git('checkout', '-q', '-b', 'edit')
  repo.write(
    '.learnings/pending/redis-timeout-fix.md',
    learningText('redis-timeout-fix', { description: '"Raise the redis timeout to 5 s."' }),
  )
  repo.git('commit', '-q', '-am', 'edit the learning')
  expect(search('redis timeout')).toEqual(['redis-timeout-fix: Raise the redis timeout to 5 s.'])
  repo.git('checkout', '-q', 'main')
  expect(search('redis timeout')).toEqual(['redis-timeout-fix: Fix the redis timeout in CI.'])
})

test('the cache key is the build: a change in any module (the tokenizer here) is a new key', () => {
  const pkg = copyPackage()
  const repo = makeRepo()
  const run = (...args: string[]) => sh(repo.root, process.execPath, [join(pkg, 'dist', 'bin.js'), ...args])
  expect(run('init').code).toBe(0)
  repo.write('d.md', learningText('redis-timeout-fix'))
  expect(run('add', '--file', 'd.md').code).toBe(0)
  const feeds = () => readdirSync(join(repo.root, '.git', 'learn', 'cache')).filter((f) => f.startsWith('feed-'))
  expect(run('search', '--state', 'all', 'redis').code).toBe(0)
  const first = feeds()
  expect(first).toHaveLength(1)
  expect(run('search', '--state', 'all', 'redis').code).toBe(0)
  expect(feeds()).toEqual(first) // nothing changed: the same key
  // core/terms.ts is the search tokenizer; a build that changes it must not answer from the old index.
  appendFileSync(join(pkg, 'dist', 'core', 'terms.js'), '\n// a changed tokenizer\n')
  execFileSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'build-hash.mjs'), join(pkg, 'dist')])
  expect(run('search', '--state', 'all', 'redis').code).toBe(0)
  expect(feeds()).toHaveLength(1)
  expect(feeds()).not.toEqual(first)
})

test('a built package without its build hash says so instead of keying the cache on nothing', () => {
  const pkg = copyPackage()
  const repo = makeRepo()
  rmSync(join(pkg, 'dist', 'generated', 'build-hash.txt'))
  const r = sh(repo.root, process.execPath, [join(pkg, 'dist', 'bin.js'), 'search', 'redis'])
  expect(r.code).toBe(70)
  expect(r.stderr).toContain('build-hash.txt is missing or damaged')
})

test('worktrees of one clone keep their own cache: alternating searches rebuild nothing', async () => {
  const repo = makeRepo()
  await repo.cli(['init'])
  repo.git('add', '.learnings')
  repo.git('commit', '-qm', 'git learn init')
  repo.write('d.md', learningText('redis-timeout-fix', { description: '"Fix the redis timeout in CI."' }))
  expect((await repo.cli(['add', '--file', 'd.md'])).code).toBe(0)
  // Two more worktrees: one on a branch with a learning of its own (another key), one on the same commit (same key).
  const other = join(tempDir('gl-wt-'), 'other')
  const same = join(tempDir('gl-wt-'), 'same')
  repo.git('worktree', 'add', '-q', '-b', 'other', other)
  repo.git('worktree', 'add', '-q', '--detach', same)
  writeFileSync(join(other, 'e.md'), learningText('postgres-pool-fix', { description: '"Fix the postgres pool."' }))
  expect((await cliAt(other, ['add', '--file', 'e.md'])).code).toBe(0)
  const g = loggingGit()
  const search = (cwd: string) => {
    const r = sh(
      cwd,
      process.execPath,
      [join(PROJECT_ROOT, 'dist', 'bin.js'), 'search', '--state', 'pending', '--json', 'fix'],
      {
        env: { PATH: `${g.dir}:${process.env['PATH']}` },
      },
    )
    expect(r.code, r.stderr).toBe(0)
    return JSON.parse(r.stdout)
      .results.map((x: { name: string }) => x.name)
      .sort()
  }
  const mine = ['redis-timeout-fix']
  const theirs = ['postgres-pool-fix', 'redis-timeout-fix']
  expect([search(repo.root), search(other), search(same)]).toEqual([mine, theirs, mine])
  // A rebuild reads the store's blobs (git cat-file --batch): once per key, never again while the keys hold.
  expect(g.calls().filter((c) => c.startsWith('cat-file')).length).toBe(2)
  const before = g.calls().length
  for (let i = 0; i < 2; i++) expect([search(repo.root), search(other), search(same)]).toEqual([mine, theirs, mine])
  expect(
    g
      .calls()
      .slice(before)
      .filter((c) => c.startsWith('cat-file')),
  ).toEqual([])
  const cache = join(repo.root, '.git', 'learn', 'cache')
  const lastKeys = () => readdirSync(cache).filter((f) => f.startsWith('last-key-'))
  const feeds = () => readdirSync(cache).filter((f) => f.startsWith('feed-'))
  expect(lastKeys()).toHaveLength(3)
  expect(feeds()).toHaveLength(2)

  // A worktree removed: its set goes at the next rebuild, once no process can still be writing it (a minute old).
  repo.git('worktree', 'remove', '--force', other)
  const old = new Date(Date.now() - 120_000)
  for (const f of readdirSync(cache)) utimesSync(join(cache, f), old, old)
  repo.write('f.md', learningText('kafka-lag-fix', { description: '"Fix the kafka lag."' }))
  expect((await repo.cli(['add', '--file', 'f.md'])).code).toBe(0)
  expect(search(repo.root)).toEqual(['kafka-lag-fix', 'redis-timeout-fix'])
  expect(lastKeys()).toHaveLength(2)
  // The main worktree's new set, and the set the worktree on the old commit still names.
  expect(feeds()).toHaveLength(2)
  const before2 = g.calls().length
  expect(search(same)).toEqual(mine)
  expect(
    g
      .calls()
      .slice(before2)
      .filter((c) => c.startsWith('cat-file')),
  ).toEqual([])
  expect(readdirSync(cache).filter((f) => f.startsWith('alias-')).length).toBeLessThanOrEqual(2)
})

/** `n` linked worktrees of a new clone, each on a branch with an active learning of its own (a key of its own). */
function worktreesOfTheirOwn(n: number): { main: string; trees: string[] } {
  const repo = makeRepo()
  repo.write('.learnings/active/redis-timeout-fix.md', learningText('redis-timeout-fix'))
  repo.git('add', '.learnings')
  repo.git('commit', '-qm', 'store')
  const base = tempDir('gl-wts-')
  const trees = Array.from({ length: n }, (_, i) => {
    const name = `own-${String.fromCharCode(97 + i)}x-fix`
    const wt = join(base, `wt${i}`)
    repo.git('worktree', 'add', '-q', '-b', `b${i}`, wt)
    writeFileSync(join(wt, '.learnings', 'active', `${name}.md`), learningText(name))
    execFileSync('git', ['add', '.learnings'], { cwd: wt })
    execFileSync('git', ['commit', '-qm', name], { cwd: wt })
    return wt
  })
  return { main: repo.root, trees }
}

test('a dozen worktrees on stores of their own: searching each in turn rebuilds nothing after the first round', () => {
  // Claude Code's parallel sessions, or a tool that makes one worktree per task: more than the 8 sets once kept.
  const { main, trees } = worktreesOfTheirOwn(12)
  const g = loggingGit()
  const search = (cwd: string) => {
    const r = sh(cwd, process.execPath, [join(PROJECT_ROOT, 'dist', 'bin.js'), 'search', '--json', 'fix'], {
      env: { PATH: `${g.dir}:${process.env['PATH']}` },
    })
    expect(r.code, r.stderr).toBe(0)
    return JSON.parse(r.stdout).results.length as number
  }
  const rebuilds = () => g.calls().filter((c) => c.startsWith('cat-file --batch')).length
  for (const wt of trees) expect(search(wt)).toBe(2)
  expect(rebuilds()).toBe(12)
  for (let round = 0; round < 2; round++) for (const wt of trees) expect(search(wt)).toBe(2)
  expect(rebuilds()).toBe(12) // before: 12 more each round, every search a rebuild
  const cache = join(main, '.git', 'learn', 'cache')
  expect(readdirSync(cache).filter((f) => f.startsWith('feed-'))).toHaveLength(12)
}, 120_000)

test('a worktree idle for a week loses its set at the next rebuild; one in use marks its key used', () => {
  const { main, trees } = worktreesOfTheirOwn(3)
  const [busy, idle, other] = trees as [string, string, string]
  const bin = join(PROJECT_ROOT, 'dist', 'bin.js')
  const search = (cwd: string) => expect(sh(cwd, process.execPath, [bin, 'search', 'fix']).code).toBe(0)
  for (const wt of trees) search(wt)
  const cache = join(main, '.git', 'learn', 'cache')
  const lastKeyOf = (wt: string) =>
    readdirSync(cache)
      .filter((f) => f.startsWith('last-key-'))
      .map((f) => join(cache, f))
      .find((f) => JSON.parse(readFileSync(f, 'utf8')).root === wt) as string
  const keyOf = (wt: string) => JSON.parse(readFileSync(lastKeyOf(wt), 'utf8')).key as string
  const [busyKey, idleKey] = [keyOf(busy), keyOf(idle)]
  const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000)
  utimesSync(lastKeyOf(busy), daysAgo(8), daysAgo(8))
  utimesSync(lastKeyOf(idle), daysAgo(8), daysAgo(8))
  // A search in the busy worktree reads its set and marks it used; the idle one is not used.
  search(busy)
  expect(Date.now() - statSync(lastKeyOf(busy)).mtimeMs).toBeLessThan(3_600_000)
  // A rebuild elsewhere: the idle worktree's set goes (its last-key file with it), the busy one's stays.
  writeFileSync(join(other, '.learnings', 'active', 'kafka-lag-fix.md'), learningText('kafka-lag-fix'))
  search(other)
  const feeds = readdirSync(cache).filter((f) => f.startsWith('feed-'))
  expect(feeds).toContain(`feed-${busyKey}.json`)
  expect(feeds).not.toContain(`feed-${idleKey}.json`)
  expect(lastKeyOf(idle)).toBeUndefined()
  // Used again, it rebuilds once.
  search(idle)
  expect(readdirSync(cache)).toContain(`feed-${idleKey}.json`)
}, 60_000)

test('a worktree removed, pruned or moved leaves none of its files in the cache after the next rebuild', () => {
  // One worktree per task, made and removed by an agent tool: each left its untracked listing behind for ever.
  const { main, trees } = worktreesOfTheirOwn(3)
  const [removed, deleted, moved] = trees as [string, string, string]
  const bin = join(PROJECT_ROOT, 'dist', 'bin.js')
  const search = (cwd: string) => expect(sh(cwd, process.execPath, [bin, 'search', 'fix']).code).toBe(0)
  const cache = join(main, '.git', 'learn', 'cache')
  const minuteAgo = new Date(Date.now() - 60_000)
  for (const wt of [main, ...trees]) {
    // Settled (older than git-learn's racy window), so that the untracked listing is kept for the next run.
    const gitDir = execFileSync('git', ['rev-parse', '--absolute-git-dir'], { cwd: wt, encoding: 'utf8' }).trim()
    for (const p of [join(gitDir, 'index'), join(wt, '.learnings', 'active')]) utimesSync(p, minuteAgo, minuteAgo)
    search(wt)
  }
  const naming = (root: string) =>
    readdirSync(cache).filter(
      (f) => !f.endsWith('.deflate') && !f.endsWith('.bin') && readFileSync(join(cache, f), 'utf8').includes(root),
    )
  for (const wt of trees)
    expect(naming(wt)).toEqual([expect.stringMatching(/^last-key-/), expect.stringMatching(/^untracked-/)])
  execFileSync('git', ['worktree', 'remove', '--force', removed], { cwd: main })
  rmSync(deleted, { recursive: true, force: true })
  execFileSync('git', ['worktree', 'prune'], { cwd: main })
  execFileSync('git', ['worktree', 'move', moved, `${moved}-moved`], { cwd: main })
  // The next rebuild, anywhere (here the main worktree, on a new learning).
  writeFileSync(join(main, '.learnings', 'active', 'kafka-lag-fix.md'), learningText('kafka-lag-fix'))
  search(main)
  for (const wt of [removed, deleted]) expect(naming(wt)).toEqual([])
  expect(naming(`${moved}"`)).toEqual([]) // the old root (JSON: its closing quote); the moved one is a new work tree
  search(`${moved}-moved`)
  expect(readdirSync(cache).filter((f) => f.startsWith('feed-'))).toHaveLength(2) // main's new set, and the moved one's
})
