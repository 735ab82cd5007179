import { appendFileSync, chmodSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
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
