// git's stdin and stdout through files instead of pipes (src/adapters/git/run.ts runGitAsyncSpooled): the rebuild asks
// `git cat-file --batch` for ~13 MB of blobs while its thread parses, and through a pipe git waited for that thread.
import {
  chmodSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, test, vi } from 'vitest'
import {
  gitAsyncSpooled,
  runGitAsync,
  runGitAsyncSpooled,
  spoolsOpened,
  tryGitAsyncSpooled,
} from '../../../../src/adapters/git/run.js'
import { GitCommandError } from '../../../../src/core/errors.js'
import { PROJECT_ROOT, learningText, makeRepo, repoWithBlobs } from '../../../helpers/repo.js'
import { lastCacheKey } from '../../../helpers/feed-store.js'

describe('git through spool files', () => {
  test('cat-file --batch answers byte for byte what it answers through pipes, and no spool file is left', async () => {
    const { repo, oids, spool } = repoWithBlobs(300)
    // More than a pipe holds (64 KiB) both ways: 300 ids of 41 bytes in, 300 learnings out, and an id git lacks.
    const input = `${[...oids, ...oids, ...oids, ...oids, ...oids, ...oids, '0'.repeat(40)].join('\n')}\n`
    expect(input.length).toBeGreaterThan(65_536)
    const piped = await runGitAsync(['cat-file', '--batch'], { cwd: repo.root, input })
    const spooled = await runGitAsyncSpooled(['cat-file', '--batch'], { cwd: repo.root, input, dir: spool })
    expect(spooled.code).toBe(0)
    expect(spooled.stdout.length).toBeGreaterThan(65_536)
    expect(spooled.stdout.equals(piped.stdout)).toBe(true)
    expect(spooled.stdout.toString('utf8')).toContain(`${'0'.repeat(40)} missing`)
    expect(readdirSync(spool)).toEqual([])
  })

  test('a failing git gives its exit code and stderr; a git that cannot start rejects with GitCommandError', async () => {
    const { repo, spool } = repoWithBlobs(1)
    const r = await runGitAsyncSpooled(['cat-file', '-p', 'no-such-object'], { cwd: repo.root, dir: spool })
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/no-such-object/)
    expect(await tryGitAsyncSpooled(['cat-file', '-p', 'no-such-object'], { cwd: repo.root, dir: spool })).toBe(
      undefined,
    )
    await expect(
      runGitAsyncSpooled(['status'], { cwd: join(repo.root, 'no-such-dir'), dir: spool }),
    ).rejects.toBeInstanceOf(GitCommandError)
    expect(readdirSync(spool)).toEqual([])
  })

  test('output over maxBuffer is refused', async () => {
    const { repo, oids, spool } = repoWithBlobs(3)
    await expect(
      runGitAsyncSpooled(['cat-file', '--batch'], {
        cwd: repo.root,
        input: `${oids.join('\n')}\n`,
        dir: spool,
        maxBuffer: 100,
      }),
    ).rejects.toThrow(/larger than 100 bytes/)
  })

  test('a directory that takes no file: runGitAsyncSpooled throws, tryGitAsyncSpooled answers through pipes', async () => {
    const { repo, oids, spool } = repoWithBlobs(3)
    const input = `${oids.join('\n')}\n`
    const piped = await runGitAsyncSpooled(['cat-file', '--batch'], { cwd: repo.root, input, dir: spool })
    for (const dir of [join(spool, 'missing'), ...(process.getuid?.() === 0 ? [] : [spool])]) {
      if (dir === spool) chmodSync(spool, 0o500)
      try {
        expect(() => runGitAsyncSpooled(['cat-file', '--batch'], { cwd: repo.root, input, dir })).toThrow()
        const out = await tryGitAsyncSpooled(['cat-file', '--batch'], { cwd: repo.root, input, dir })
        expect(out?.equals(piped.stdout)).toBe(true)
      } finally {
        chmodSync(spool, 0o700)
      }
    }
  })
})

describe('spool files are never written through what is already there', () => {
  test('a link planted at every name the next calls would take: the spool is refused, the pipes answer', async () => {
    const { repo, oids, spool } = repoWithBlobs(3)
    const input = `${oids.join('\n')}\n`
    const piped = await runGitAsync(['cat-file', '--batch'], { cwd: repo.root, input })
    const victim = join(repo.root, 'victim.txt')
    writeFileSync(victim, 'keep me')
    // Math.random() of 0.5 is "0.i" in base 36: every name is spool-<pid>-<counter>-i.tmp.
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5)
    try {
      for (let n = 0; n < 500; n++) symlinkSync(victim, join(spool, `spool-${process.pid}-${n}-i.tmp`))
      expect(() => runGitAsyncSpooled(['cat-file', '--batch'], { cwd: repo.root, input, dir: spool })).toThrow(/EEXIST/)
      const out = await tryGitAsyncSpooled(['cat-file', '--batch'], { cwd: repo.root, input, dir: spool })
      expect(out?.equals(piped.stdout)).toBe(true)
    } finally {
      random.mockRestore()
    }
    expect(readFileSync(victim, 'utf8')).toBe('keep me')
  })
})

describe('a spooled git past its maxBuffer', () => {
  test('is stopped while it writes, not after: the refusal says git was stopped', async () => {
    // One blob of 1 MiB asked 600 times: 600 MiB if git were let run; the bound is 4 MiB.
    const repo = makeRepo()
    repo.write('big.txt', 'x'.repeat(1 << 20))
    repo.git('add', 'big.txt')
    repo.git('commit', '-q', '-m', 'big')
    const oid = repo.git('rev-parse', 'HEAD:big.txt').trim()
    const spool = join(repo.root, '.git', 'spool-test')
    mkdirSync(spool)
    const input = `${Array.from({ length: 600 }, () => oid).join('\n')}\n`
    await expect(
      runGitAsyncSpooled(['cat-file', '--batch'], { cwd: repo.root, input, dir: spool, maxBuffer: 4 << 20 }),
    ).rejects.toThrow(/git was stopped/)
    expect(readdirSync(spool)).toEqual([])
  })
})

describe('the rebuild reads its blobs through spool files', () => {
  test('a cold search finds every learning and leaves no spool file in the cache directory', async () => {
    const { repo } = repoWithBlobs(40)
    const before = spoolsOpened()
    const r = await repo.cli(['search', '--json', '--limit', '50', 'exploded'])
    expect(r.json().results.length).toBe(40)
    expect(spoolsOpened() - before).toBe(2) // git's stdin and stdout for the one chunk: the pipes were not used
    const cache = join(repo.root, '.git', 'learn', 'cache')
    expect(readdirSync(cache).filter((f) => f.startsWith('spool-'))).toEqual([])
  })

  test("a tier's first read asks git through spool files too, and a non-zero exit is still an error", async () => {
    const { repo: tier } = repoWithBlobs(30)
    const project = makeRepo()
    project.write('.learnings/active/project-note.md', learningText('project-note'))
    project.git('add', '-A')
    project.git('commit', '-q', '-m', 'store')
    expect((await project.cli(['tier', 'add', 'org', tier.root])).code).toBe(0)
    rmSync(join(project.root, '.git', 'learn'), { recursive: true, force: true })
    const before = spoolsOpened()
    const r = await project.cli(['search', '--json', '--limit', '50', 'exploded'])
    expect(r.json().results.filter((x: { tier: string }) => x.tier === 'org').length).toBe(30)
    // The project's chunk (2), the tier's sizes (2) and its blobs (2): no pipe.
    expect(spoolsOpened() - before).toBe(6)
    const cache = join(project.root, '.git', 'learn', 'cache')
    expect(readdirSync(cache).filter((f) => f.startsWith('spool-'))).toEqual([])
    await expect(
      gitAsyncSpooled(['cat-file', '-t', '0'.repeat(40)], { cwd: tier.root, dir: cache }),
    ).rejects.toBeInstanceOf(GitCommandError)
    // A directory that takes no file: the pipes, the same answer.
    const oid = tier.git('rev-parse', 'HEAD:.learnings/active/spool-note-1.md').trim()
    const out = await gitAsyncSpooled(['cat-file', '-p', oid], { cwd: tier.root, dir: join(cache, 'no-such-dir') })
    expect(out.toString('utf8')).toBe(learningText('spool-note-1'))
  })

  test('a rebuild sweeps a spool file an hour old (a kill between open and unlink), not a fresh one', async () => {
    const { repo } = repoWithBlobs(5)
    const cache = join(repo.root, '.git', 'learn', 'cache')
    mkdirSync(cache, { recursive: true })
    writeFileSync(join(cache, 'spool-1-0-old.tmp'), 'left by a killed run')
    const twoHoursAgo = (Date.now() - 7_200_000) / 1000
    utimesSync(join(cache, 'spool-1-0-old.tmp'), twoHoursAgo, twoHoursAgo)
    writeFileSync(join(cache, 'spool-2-0-new.tmp'), 'another process, mid-open')
    // A cache file's temporary copy a killed rebuild left, named for the key this search will write again.
    await repo.cli(['search', '--json', 'exploded'])
    const key = lastCacheKey(cache)
    rmSync(join(cache, `feed-${key}.json`))
    writeFileSync(join(cache, `postings-${key}.bin.999999.tmp`), 'left by a killed rebuild')
    utimesSync(join(cache, `postings-${key}.bin.999999.tmp`), twoHoursAgo, twoHoursAgo)
    writeFileSync(join(cache, `docs-${key}.bin.999998.tmp`), 'another rebuild, mid-write')
    await repo.cli(['search', '--json', 'exploded'])
    expect(readdirSync(cache).filter((f) => f.endsWith('.tmp'))).toEqual([
      `docs-${key}.bin.999998.tmp`,
      'spool-2-0-new.tmp',
    ])
  })
})

// A full disk, as git meets it writing a spool file: the file size limit (ulimit -f) stops git's write past 2 blocks
// (SIGXFSZ; no core file: ulimit -c 0), as ENOSPC would fail it, while a pipe is no file and takes the same bytes.
describe('a spooled run that fails for want of disk', () => {
  test('is asked again through pipes (gitAsyncSpooled): the same bytes as the pipes give', async () => {
    const { repo, oids, spool } = repoWithBlobs(10)
    const input = `${oids.join('\n')}\n`
    expect(input.length).toBeLessThan(1024) // node writes it to git's stdin spool under the limit
    const piped = await runGitAsync(['cat-file', '--batch'], { cwd: repo.root, input })
    expect(piped.stdout.length).toBeGreaterThan(4096)
    const script = `const run = require(${JSON.stringify(join(PROJECT_ROOT, 'dist', 'adapters', 'git', 'run.js'))})
      const [cwd, input, dir] = process.argv.slice(1)
      const o = { cwd, input, dir }
      ;(async () => {
        const spooled = await run.runGitAsyncSpooled(['cat-file', '--batch'], o).then((r) => r.code, () => 'threw')
        const out = await run.gitAsyncSpooled(['cat-file', '--batch'], o)
        process.stdout.write(JSON.stringify({ spooled, out: out.toString('base64') }))
      })()`
    const r = spawnSync(
      'sh',
      [
        '-c',
        'ulimit -c 0; ulimit -f 2 && exec "$0" -e "$1" "$2" "$3" "$4"',
        process.execPath,
        script,
        repo.root,
        input,
        spool,
      ],
      { encoding: 'utf8' },
    )
    expect(r.stderr).toBe('')
    const { spooled, out } = JSON.parse(r.stdout) as { spooled: number | null | string; out: string }
    expect(spooled).not.toBe(0) // the spooled run alone fails under the limit
    expect(Buffer.from(out, 'base64').equals(piped.stdout)).toBe(true)
    expect(readdirSync(spool)).toEqual([])
  })
})
