// The pre-commit hook's `git diff --cached` starts in bin.ts before the command's modules load
// (index-reader.ts prefetchStagedChanges): through the built binary, what it answers must be what the command would
// have asked for itself, from a subdirectory, outside a repository, and under the temporary index of a partial commit.
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { PROJECT_ROOT, copyPackage, learningText, makeRepo, sh, tempDir } from '../helpers/repo.js'

const TOKEN = 'ghp_R8fK2mXq9LsV4tYw7ZbN3cJ6hD1pGe5aUo0i'
const secretNote = learningText('leaky-note', {}, `## Problem\nexport GH_TOKEN=${TOKEN}\n`)

describe("the hook's staged changes, asked before its modules load", () => {
  test('from a subdirectory: the staged learning is found and refused, and an unstaged one is not read', async () => {
    const repo = makeRepo()
    repo.write('src/deep/file.txt', 'x\n')
    repo.write('.learnings/pending/leaky-note.md', secretNote)
    repo.git('add', '.learnings/pending/leaky-note.md')
    const sub = join(repo.root, 'src', 'deep')
    const r = sh(sub, 'git', ['learn', 'check', '--staged'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('.learnings/pending/leaky-note.md')
    expect(r.stderr).toMatch(/GitHub/i)
    repo.git('reset', '-q')
    expect(sh(sub, 'git', ['learn', 'check', '--staged', '--json']).stdout).toBe('{"ok":true,"findings":[]}\n')
  })

  test('with diff.relative set, from a subdirectory: the whole repository is diffed, and the prefetch is what is used', () => {
    const repo = makeRepo()
    repo.write('src/deep/file.txt', 'x\n')
    repo.write('.learnings/pending/leaky-note.md', secretNote)
    repo.git('add', '.learnings/pending/leaky-note.md')
    repo.git('config', 'diff.relative', 'true')
    // A git in front of the real one that logs each call and where it ran.
    const real = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim()
    const bin = tempDir('gl-gitlog-')
    const log = join(bin, 'calls.log')
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$PWD $*" >> '${log}'\nexec '${real}' "$@"\n`)
    chmodSync(join(bin, 'git'), 0o755)
    const sub = join(repo.root, 'src', 'deep')
    // The binary run by node, not through `git learn`: git would put its own exec path, and its git, first on PATH.
    const run = spawnSync(process.execPath, [join(PROJECT_ROOT, 'dist', 'bin.js'), 'check', '--staged'], {
      cwd: sub,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env['PATH']}` },
    })
    const r = { code: run.status, stderr: run.stderr }
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('.learnings/pending/leaky-note.md')
    // One diff of the index, asked in the subdirectory before the command ran (the command itself would ask at the top).
    const diffs = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.includes(' diff --cached'))
    expect(diffs).toHaveLength(1)
    expect(diffs[0]).toMatch(new RegExp(`^${sub} diff --cached .*--no-relative`))
  })

  test('a build without its hash file still checks: the staged config is read without the cache', () => {
    const pkg = copyPackage()
    rmSync(join(pkg, 'dist', 'generated', 'build-hash.txt'))
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', 'secrets:\n  allow: []\n')
    repo.write('.learnings/pending/leaky-note.md', secretNote)
    repo.git('add', '-A')
    const r = spawnSync(process.execPath, [join(pkg, 'dist', 'bin.js'), 'check', '--staged'], {
      cwd: repo.root,
      encoding: 'utf8',
    })
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('.learnings/pending/leaky-note.md')
    expect(r.stderr).not.toMatch(/internal error/)
  })

  test('git not on PATH: the prefetch that could not start is asked again, and the error is the usual one', () => {
    const repo = makeRepo()
    repo.write('.learnings/pending/leaky-note.md', secretNote)
    repo.git('add', '.learnings/pending/leaky-note.md')
    const run = (...extra: string[]) =>
      spawnSync(process.execPath, [join(PROJECT_ROOT, 'dist', 'bin.js'), 'check', '--staged', ...extra], {
        cwd: repo.root,
        encoding: 'utf8',
        env: { ...process.env, PATH: tempDir('gl-nogit-') },
      })
    const prefetched = run()
    // Another command line than the hook's: nothing is asked before the command runs.
    const asked = run('--format', 'text')
    expect(prefetched.status).toBe(3)
    expect(prefetched.stderr).toMatch(/ENOENT/)
    expect([prefetched.status, prefetched.stdout, prefetched.stderr]).toEqual([
      asked.status,
      asked.stdout,
      asked.stderr,
    ])
  })

  test('outside a repository: the refusal the command gives when nothing was asked before it', () => {
    const dir = tempDir('gl-norepo-')
    mkdirSync(join(dir, 'x'))
    const r = sh(join(dir, 'x'), 'git', ['learn', 'check', '--staged'])
    // Another command line than the hook's: nothing is asked before the command runs.
    const asked = sh(join(dir, 'x'), 'git', ['learn', 'check', '--staged', '--format', 'text'])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/not a git repository/i)
    expect([r.code, r.stdout, r.stderr]).toEqual([asked.code, asked.stdout, asked.stderr])
  })

  test("a partial commit's hook checks git's temporary index: a secret staged but not committed does not stop it", async () => {
    const repo = makeRepo()
    repo.write('.learnings/pending/clean-note.md', learningText('clean-note'))
    repo.git('add', '-A')
    repo.git('commit', '-q', '-m', 'store')
    expect((await repo.cli(['hook', 'install'])).code).toBe(0)
    repo.write('.learnings/pending/leaky-note.md', secretNote)
    repo.git('add', '.learnings/pending/leaky-note.md')
    repo.write(
      '.learnings/pending/clean-note.md',
      learningText('clean-note', {
        description: 'Fix the clean-note failure again. Use when the build prints the clean-note error.',
      }),
    )
    const partial = sh(repo.root, 'git', [
      'commit',
      '-q',
      '-m',
      'only the clean one',
      '--',
      '.learnings/pending/clean-note.md',
    ])
    expect(partial.code).toBe(0)
    const whole = sh(repo.root, 'git', ['commit', '-q', '-m', 'the staged secret too'])
    expect(whole.code).not.toBe(0)
    expect(whole.stderr).toContain('.learnings/pending/leaky-note.md')
  })
})
