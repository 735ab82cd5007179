import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs'
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

describe('the walk and readHeadCommit against git, in odd states: the same answer, or none (git is asked)', () => {
  const ask = (cwd: string, ...args: string[]) => spawnSync('git', args, { cwd, encoding: 'utf8' })
  /** What the walk found, as real paths, or undefined; and git's answer the same way (undefined: git refused). */
  const both = (cwd: string) => {
    const r = ask(
      cwd,
      'rev-parse',
      '--path-format=absolute',
      '--show-toplevel',
      '--git-common-dir',
      '--absolute-git-dir',
    )
    const [root, commonDir, gitDir] = r.stdout
      .trim()
      .split('\n')
      .map((p) => realpathSync(p))
    const found = findGitDirs(cwd, {})
    return {
      mine: found && {
        root: realpathSync(found.root),
        commonDir: realpathSync(found.commonDir),
        gitDir: realpathSync(found.gitDir),
      },
      git: r.status === 0 ? { root, commonDir, gitDir } : undefined,
      head: found && readHeadCommit(found),
      gitHead: ask(cwd, 'rev-parse', '-q', '--verify', 'HEAD').stdout.trim() || undefined,
    }
  }
  const agrees = (label: string, cwd: string) => {
    const b = both(cwd)
    if (b.mine !== undefined) expect(b.mine, label).toEqual(b.git)
    if (b.head !== undefined) expect(b.head, label).toBe(b.gitHead)
    return b
  }

  test('refs packed, detached, a symbolic chain, an unborn branch; index v4, split, untracked cache, sparse; SHA-256', () => {
    const repo = makeRepo()
    const steps: [string, (() => void)?][] = [
      ['loose refs'],
      ['packed refs only', () => repo.git('pack-refs', '--all')],
      ['detached', () => repo.git('checkout', '-q', '--detach')],
      [
        'a branch naming a branch',
        () => {
          repo.git('checkout', '-q', 'main')
          repo.git('symbolic-ref', 'refs/heads/alias', 'refs/heads/main')
          repo.git('symbolic-ref', 'HEAD', 'refs/heads/alias')
        },
      ],
      ['an unborn branch', () => repo.git('symbolic-ref', 'HEAD', 'refs/heads/unborn')],
      [
        'index version 4',
        () => {
          repo.git('symbolic-ref', 'HEAD', 'refs/heads/main')
          repo.git('update-index', '--index-version', '4')
        },
      ],
      ['split index', () => repo.git('update-index', '--split-index')],
      ['untracked cache', () => repo.git('update-index', '--untracked-cache')],
      ['sparse index', () => repo.git('sparse-checkout', 'set', '--cone', '--sparse-index', 'docs')],
    ]
    for (const [label, step] of steps) {
      step?.()
      const b = agrees(label, repo.root)
      expect(b.mine, label).toBeDefined()
      if (label !== 'an unborn branch') expect(b.head, label).toBeDefined()
    }
    const sha256 = tempDir()
    execFileSync('git', ['init', '-q', '--object-format=sha256', sha256])
    execFileSync('git', ['-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-q', '--allow-empty', '-m', 'x'], {
      cwd: sha256,
    })
    execFileSync('git', ['pack-refs', '--all'], { cwd: sha256 })
    expect(agrees('sha256', sha256).head).toHaveLength(64)
  })

  test('an empty .git directory in a subdirectory is passed over, as git passes over it', async () => {
    // Found there before: `git learn search` in pkg/ read an empty store (pkg/ taken for the work tree's top) while
    // git worked on the repository above.
    const repo = makeRepo()
    await repo.cli(['init'])
    repo.write('d.md', learningText('vitest-hoisting-fix', { description: '"Fix hoisting of vi.mock in vitest."' }))
    expect((await repo.cli(['add', '--file', 'd.md'])).code).toBe(0)
    const pkg = join(repo.root, 'pkg')
    mkdirSync(join(pkg, '.git'), { recursive: true })
    expect(agrees('empty .git', pkg).mine?.root).toBe(realpathSync(repo.root))
    const r = sh(pkg, 'git', ['learn', 'search', '--state', 'pending', '--json', 'hoisting vitest'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).results.map((x: { name: string }) => x.name)).toEqual(['vitest-hoisting-fix'])
    // And `git learn check` there checked pkg/ (nothing) and said ok, with a broken learning in the store above.
    repo.write('.learnings/active/bad.md', '---\nname: not-bad\n---\n')
    const c = sh(pkg, 'git', ['learn', 'check'])
    expect(c.code).not.toBe(0)
    expect(c.stdout + c.stderr).toMatch(/\.learnings\/active\/bad\.md/)
  })

  test('in a bare repository inside a work tree, or inside .git, there is no work tree: git is asked', () => {
    const repo = makeRepo()
    execFileSync('git', ['init', '-q', '--bare', join(repo.root, 'mirror.git')])
    for (const cwd of [
      join(repo.root, 'mirror.git'),
      join(repo.root, 'mirror.git', 'refs'),
      join(repo.root, '.git', 'refs'),
    ]) {
      expect(both(cwd).git, cwd).toBeUndefined()
      expect(findGitDirs(cwd, {}), cwd).toBeUndefined()
    }
  })

  test('a .git file git would refuse (a second line, a trailing space, no repository there) is left to git', () => {
    const dir = join(tempDir(), 'work')
    execFileSync('git', ['init', '-q', '--separate-git-dir', join(dir, '..', 'gd'), dir])
    for (const text of [
      'gitdir: ../gd\n',
      'gitdir: ../gd\r\n',
      'x\ngitdir: ../gd\n',
      'gitdir: ../gd  \n',
      'gitdir: ../none\n',
    ]) {
      writeFileSync(join(dir, '.git'), text)
      const b = agrees(JSON.stringify(text), dir)
      expect(b.mine === undefined, JSON.stringify(text)).toBe(b.git === undefined)
    }
  })

  test("a linked worktree's HEAD on one of its own refs (refs/worktree/) is not read from the common dir", () => {
    const repo = makeRepo()
    repo.git('update-ref', 'refs/worktree/mine', 'HEAD')
    const wt = join(tempDir(), 'wt')
    repo.git('worktree', 'add', '-q', '--detach', wt)
    execFileSync('git', ['-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-q', '--allow-empty', '-m', 'wt'], {
      cwd: wt,
    })
    execFileSync('git', ['update-ref', 'refs/worktree/mine', 'HEAD'], { cwd: wt })
    execFileSync('git', ['symbolic-ref', 'HEAD', 'refs/worktree/mine'], { cwd: wt })
    // The main worktree's refs/worktree/mine (another commit) is in the common dir; this worktree's is in its git dir.
    agrees('worktree ref', wt)
  })
})
