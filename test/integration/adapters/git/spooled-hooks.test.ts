// The hooks' short git questions through files instead of pipes (src/adapters/git/run.ts runGitAsyncFiles): the
// pre-commit check asks `git cat-file --batch-check` while its engine loads; a pipe's socket cost the hook more than
// the overlap saved.
import { execFileSync, spawnSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test, vi } from 'vitest'
import { runGitAsync, runGitAsyncFiles, runGitSync, spoolsOpened } from '../../../../src/adapters/git/run.js'
import { readStagedForCheck } from '../../../../src/adapters/git/index-reader.js'
import { GitCommandError } from '../../../../src/core/errors.js'
import { STATES } from '../../../../src/core/layout.js'
import { PROJECT_ROOT, learningText, makeRepo, repoWithBlobs } from '../../../helpers/repo.js'

const TOKEN = 'ghp_R8fK2mXq9LsV4tYw7ZbN3cJ6hD1pGe5aUo0i'

describe('git with stdin, stdout and stderr in files', () => {
  test('answers byte for byte what git answers through pipes, with its exit code and stderr; no file is left', async () => {
    const { repo, oids, spool } = repoWithBlobs(3, 'file-note')
    const input = `${[...oids, ':.learnings/active/file-note-1.md', ':.learnings/pending/none.md', 'HEAD'].join('\n')}\n`
    const args = ['cat-file', '--batch-check']
    const piped = await runGitAsync(args, { cwd: repo.root, input })
    const filed = await runGitAsyncFiles(args, { cwd: repo.root, input, dir: spool })
    expect(filed.code).toBe(0)
    expect(filed.stdout.equals(piped.stdout)).toBe(true)
    expect(filed.stdout.equals(runGitSync(args, { cwd: repo.root, input }).stdout)).toBe(true)
    expect(filed.stdout.toString('utf8')).toContain(':.learnings/pending/none.md missing')
    const failed = await runGitAsyncFiles(['cat-file', '-p', 'no-such-object'], { cwd: repo.root, dir: spool })
    expect(failed.code).not.toBe(0)
    expect(failed.stderr).toMatch(/no-such-object/)
    await expect(
      runGitAsyncFiles(['status'], { cwd: join(repo.root, 'no-such-dir'), dir: spool }),
    ).rejects.toBeInstanceOf(GitCommandError)
    expect(readdirSync(spool)).toEqual([])
  })

  test('a directory that takes no file, or a link planted at a name: it throws before git starts', async () => {
    const { repo, oids, spool } = repoWithBlobs(3, 'file-note')
    const input = `${oids.join('\n')}\n`
    const args = ['cat-file', '--batch-check']
    const piped = await runGitAsync(args, { cwd: repo.root, input })
    for (const dir of [join(spool, 'missing'), ...(process.getuid?.() === 0 ? [] : [spool])]) {
      if (dir === spool) chmodSync(spool, 0o500)
      try {
        expect(() => runGitAsyncFiles(args, { cwd: repo.root, input, dir })).toThrow()
      } finally {
        chmodSync(spool, 0o700)
      }
    }
    // The third file's name taken (stderr's): the two opened before it are closed and removed, the next call answers.
    const victim = join(repo.root, 'victim.txt')
    writeFileSync(victim, 'keep me')
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5) // every name is spool-<pid>-<counter>-i.tmp
    try {
      const next = spoolsOpened()
      symlinkSync(victim, join(spool, `spool-${process.pid}-${next + 2}-i.tmp`))
      expect(() => runGitAsyncFiles(args, { cwd: repo.root, input, dir: spool })).toThrow(/EEXIST/)
      expect(readdirSync(spool)).toEqual([`spool-${process.pid}-${next + 2}-i.tmp`])
    } finally {
      random.mockRestore()
    }
    rmSync(join(spool, readdirSync(spool)[0] as string))
    expect((await runGitAsyncFiles(args, { cwd: repo.root, input, dir: spool })).stdout.equals(piped.stdout)).toBe(true)
  })
})

type Finding = { rule: string; severity: string; path: string; line: number; message: string }

describe('check --staged asks the index through files while its engine loads', () => {
  test('the same findings through files and, without a cache directory, synchronously', async () => {
    const repo = makeRepo()
    expect((await repo.cli(['init'])).code).toBe(0)
    repo.write('.learnings/active/first-one.md', learningText('first-one'))
    repo.git('add', '-A')
    repo.git('commit', '-q', '-m', 'store')
    rmSync(join(repo.root, '.learnings/active/first-one.md')) // deleted in the work tree only: still a clash
    repo.write('.learnings/pending/first-one.md', learningText('first-one'))
    repo.write('.learnings/pending/no-clash.md', learningText('no-clash'))
    repo.write('.learnings/pending/broken.md', learningText('other-name'))
    repo.git('add', '.learnings/pending')
    const cache = join(repo.root, '.git', 'learn', 'cache')
    const run = async () => {
      const before = spoolsOpened()
      const r = await repo.cli(['check', '--staged', '--json'])
      return { code: r.code, findings: r.json().findings as Finding[], spools: spoolsOpened() - before }
    }
    rmSync(cache, { recursive: true, force: true })
    const synchronously = await run()
    expect(synchronously.spools).toBe(1) // one name tried: the directory is missing, git was asked synchronously
    mkdirSync(cache, { recursive: true })
    const filed = await run()
    expect(filed.spools).toBe(3) // git's stdin, stdout and stderr
    expect(readdirSync(cache).filter((f) => f.startsWith('spool-'))).toEqual([])
    expect(filed.code).toBe(1)
    expect(filed.findings).toEqual(synchronously.findings)
    expect(filed.findings.map((f) => `${f.rule} ${f.path}`)).toEqual(
      expect.arrayContaining(['schema .learnings/pending/first-one.md', 'schema .learnings/pending/broken.md']),
    )
    expect(filed.findings.some((f) => f.path === '.learnings/pending/no-clash.md')).toBe(false)
  })
})

describe('check --staged reads a staged blob the work tree holds from the work tree', () => {
  /** An environment whose `git` logs each call's arguments to a file, then runs the real git. */
  function loggingGit(dir: string): { env: Record<string, string>; calls: () => string[] } {
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()
    const bin = join(dir, 'bin')
    mkdirSync(bin)
    const log = join(dir, 'calls.log')
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 })
    return {
      env: { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}` } as Record<string, string>,
      calls: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
    }
  }

  test('the same bytes as git gives; git is asked only for what the work tree does not hold as staged', async () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', 'secrets:\n  allow: []\n')
    repo.write('.learnings/pending/same.md', learningText('same'))
    repo.write('.learnings/pending/edited.md', learningText('edited'))
    repo.git('add', '-A')
    const staged = (path: string) => ({ sha: repo.git('rev-parse', `:${path}`).trim(), path })
    const asked = [staged('.learnings/pending/same.md'), staged('.learnings/pending/edited.md')]
    // Edited after `git add`, to the same size: only its blob id tells it apart.
    const edited = learningText('edited')
    repo.write('.learnings/pending/edited.md', edited.replace('## Problem', '## Pro-lem'))
    const spool = join(repo.root, '.git', 'spool-test')
    mkdirSync(spool)
    const { env, calls } = loggingGit(repo.root)
    const got = await readStagedForCheck(repo.root, env, asked, ['.learnings/active/same.md'], true, spool)
    expect(got.blobs.get(asked[0]?.sha as string)).toEqual({ text: learningText('same') })
    expect(got.blobs.get(asked[1]?.sha as string)).toEqual({ text: edited })
    expect(got.config?.toString('utf8')).toBe('secrets:\n  allow: []\n')
    expect(got.inIndex).toEqual([])
    expect(calls()).toEqual(['cat-file --batch-check', 'cat-file --batch'])
    // Everything as staged in the work tree: no `--batch` at all. A symbolic link to the staged bytes is not followed.
    repo.write('.learnings/pending/edited.md', edited)
    rmSync(join(repo.root, '.learnings/pending/same.md'))
    repo.write('elsewhere.md', learningText('same'))
    symlinkSync(join(repo.root, 'elsewhere.md'), join(repo.root, '.learnings/pending/same.md'))
    const again = await readStagedForCheck(repo.root, env, asked.slice(1), [], true, spool)
    expect(again.blobs.get(asked[1]?.sha as string)).toEqual({ text: edited })
    expect(calls().slice(2)).toEqual(['cat-file --batch-check'])
    const linked = await readStagedForCheck(repo.root, env, asked.slice(0, 1), [], false, spool)
    expect(linked.blobs.get(asked[0]?.sha as string)).toEqual({ text: learningText('same') })
    expect(calls().slice(3)).toEqual(['cat-file --batch-check', 'cat-file --batch'])
  })
})

// A disk that takes the hook's question but not git's answer (full, or past a file size limit): the spooled
// `--batch-check` fails, and is asked again through pipes rather than failing the commit.
describe("check --staged when git cannot write its answer's spool file", () => {
  const prlimit = spawnSync('prlimit', ['--version']).status === 0
  test.skipIf(!prlimit)('asks again through pipes: the same report as without the limit', () => {
    const repo = makeRepo()
    const names = ['note-one', 'note-two', 'note-six']
    for (const n of names) repo.write(`.learnings/pending/${n}.md`, learningText(n))
    repo.write('.learnings/pending/note-two.md', learningText('note-two', {}, `## Problem\nexport GH_TOKEN=${TOKEN}\n`))
    repo.git('add', '-A')
    const bin = join(PROJECT_ROOT, 'dist', 'bin.js')
    const check = (limit?: number) =>
      spawnSync(
        limit === undefined ? process.execPath : 'prlimit',
        [...(limit === undefined ? [] : [`--fsize=${limit}`, process.execPath]), bin, 'check', '--staged', '--json'],
        { cwd: repo.root, encoding: 'utf8' },
      )
    // The first run leaves the cache directory the spool files go to.
    const expected = check()
    expect(expected.status).toBe(1)
    expect(expected.stdout).toContain('note-two.md')
    // What the check writes to git's stdin (readStagedForCheck): the config, each blob, each name in every state.
    const shas = names.map((n) => repo.git('rev-parse', `:.learnings/pending/${n}.md`).trim())
    const question = [
      ':.learnings/config.yaml',
      ...shas,
      ...names.flatMap((n) => STATES.map((s) => `:.learnings/${s}/${n}.md`)),
    ]
    const limit = Buffer.byteLength(`${question.join('\n')}\n`) + 1
    const limited = check(limit)
    expect([limited.status, limited.stdout, limited.stderr]).toEqual([
      expected.status,
      expected.stdout,
      expected.stderr,
    ])
  })
})
