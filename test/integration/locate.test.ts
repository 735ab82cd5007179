import { execFileSync } from 'node:child_process'
import { mkdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { findGitDirs, readHeadCommit } from '../../src/adapters/git/locate.js'
import { learningText, makeRepo, sh, tempDir } from '../helpers/repo.js'

/** What git itself says, for comparison. */
const revParse = (cwd: string) => {
  const [root, commonDir] = execFileSync(
    'git',
    ['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir'],
    { cwd, encoding: 'utf8' },
  )
    .trim()
    .split('\n')
  return { root: realpathSync(root as string), commonDir: realpathSync(commonDir as string) }
}
const real = (d: { root: string; commonDir: string } | undefined) =>
  d && { root: realpathSync(d.root), commonDir: realpathSync(d.commonDir) }

describe('findGitDirs finds the repository as git rev-parse does, without a process', () => {
  test('from a subdirectory', () => {
    const repo = makeRepo()
    const sub = join(repo.root, 'a', 'b')
    mkdirSync(sub, { recursive: true })
    expect(real(findGitDirs(sub, {}))).toEqual(revParse(sub))
  })

  test('in a linked worktree: its own root, the main repository common dir', () => {
    const repo = makeRepo()
    const wt = join(tempDir(), 'wt')
    repo.git('worktree', 'add', '-q', wt)
    const found = real(findGitDirs(wt, {}))
    expect(found).toEqual(revParse(wt))
    expect(found?.commonDir).toBe(realpathSync(join(repo.root, '.git')))
  })

  test('with a .git file pointing elsewhere (--separate-git-dir, as submodules have)', () => {
    const dir = join(tempDir(), 'work')
    const gitDir = join(tempDir(), 'elsewhere.git')
    execFileSync('git', ['init', '-q', '--separate-git-dir', gitDir, dir])
    expect(real(findGitDirs(dir, {}))).toEqual(revParse(dir))
  })

  test('leaves it to git when the environment redirects discovery, and finds nothing outside a repository', () => {
    const repo = makeRepo()
    for (const v of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_CEILING_DIRECTORIES', 'GIT_COMMON_DIR'])
      expect(findGitDirs(repo.root, { [v]: '/x' })).toBeUndefined()
    expect(findGitDirs(tempDir(), {})).toBeUndefined()
  })
})

test('the built git learn searches from a subdirectory and from a linked worktree (keying started before the command loads)', async () => {
  const repo = makeRepo()
  await repo.cli(['init'])
  repo.write(
    'd.md',
    learningText('vitest-hoisting-fix', { description: '"Fix hoisting of vi.mock factories in vitest."' }),
  )
  expect((await repo.cli(['add', '--file', 'd.md'])).code).toBe(0)
  const sub = join(repo.root, 'src', 'deep')
  mkdirSync(sub, { recursive: true })
  const wt = join(tempDir(), 'wt')
  repo.git('worktree', 'add', '-q', wt)
  for (const cwd of [sub, wt]) {
    const r = sh(cwd, 'git', ['learn', 'search', '--state', 'pending', '--json', 'hoisting vitest'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).results.map((x: { name: string }) => x.name)).toEqual(['vitest-hoisting-fix'])
  }
  // Outside any repository the prefetch fails quietly and the command reports the usual error.
  const out = sh(tempDir(), 'git', ['learn', 'search', 'x'])
  expect(out.code).toBe(3)
  expect(out.stderr).toMatch(/not inside a git repository/)
})

test('readHeadCommit reads HEAD through a loose ref, packed-refs and a detached HEAD; an unborn branch is undefined', () => {
  const repo = makeRepo()
  const dirs = () => findGitDirs(repo.root, {}) as NonNullable<ReturnType<typeof findGitDirs>>
  const head = () => repo.git('rev-parse', 'HEAD').trim()
  expect(readHeadCommit(dirs())).toBe(head())
  repo.git('pack-refs', '--all')
  expect(readHeadCommit(dirs())).toBe(head())
  repo.git('checkout', '-q', '--detach')
  expect(readHeadCommit(dirs())).toBe(head())
  const wt = join(tempDir(), 'wt')
  repo.git('worktree', 'add', '-q', '-b', 'side', wt)
  expect(readHeadCommit(findGitDirs(wt, {}) as NonNullable<ReturnType<typeof findGitDirs>>)).toBe(head())
  expect(
    readHeadCommit(findGitDirs(makeRepo({ commit: false }).root, {}) as NonNullable<ReturnType<typeof findGitDirs>>),
  ).toBeUndefined()
})
