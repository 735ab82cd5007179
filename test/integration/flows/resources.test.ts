/**
 * Our own writes failing: a disk that fills up part way (a small tmpfs, where this machine lets us mount one), a
 * TMPDIR that names no folder, a process out of file descriptors. Each leaves every file whole or absent, says what
 * ran out (exit 3, never an internal error), and the next run after the space is back finishes the work.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { SHIM_HOOKS } from '../../../src/adapters/git/hooks.js'
import { swapRef } from '../../../src/adapters/git/commit.js'
import { locateIndex, prepareIndex } from '../../../src/adapters/git/index-lock.js'
import { describeError } from '../../../src/cli/messages/errors.js'
import { FileAccessError, GitCommandError } from '../../../src/core/errors.js'
import { PROJECT_ROOT, cliAt, gitRepoAt, learningText, makeRepo, sh, tempDir } from '../../helpers/repo.js'

const mnt = mkdtempSync(join(tmpdir(), 'gl-tmpfs-'))
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mnt]).status === 0
afterAll(() => {
  if (mounted) spawnSync('umount', [mnt])
  rmSync(mnt, { recursive: true, force: true })
})

const FILL = join(mnt, 'fill')
/** Fill the small disk, leaving `kb` KB free (tmpfs counts whole 4 KB pages). */
function fillLeaving(kb: number): void {
  spawnSync('sh', ['-c', `dd if=/dev/zero of=${FILL} bs=64k 2>/dev/null; true`])
  truncateSync(FILL, Math.max(0, statSync(FILL).size - kb * 1024))
}

/** A repository on the small disk with one commit; `files` written and committed first. */
function repoOnDisk(name: string, files: Record<string, string> = {}) {
  return gitRepoAt(join(mnt, name), { 'README.md': '# scratch\n', ...files })
}

/** Every file under `dir` (relative, sorted) with its bytes. */
function filesUnder(dir: string, skip: (rel: string) => boolean = () => false): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name
      if (skip(r)) continue
      if (e.isDirectory()) walk(r)
      else out.set(r, readFileSync(join(dir, r), 'utf8'))
    }
  }
  walk('')
  return out
}

describe('a disk that fills up part way (tmpfs of 4 MB)', () => {
  // init writes the store, config.yaml, .prettierignore, five hooks, the CI workflow, CODEOWNERS, Claude's settings
  // and commands, one after another: the disk runs out at each of them in turn. config.yaml was written by
  // writeFileSync, so a full disk left it empty (an internal error, exit 70), and the next init kept it as the team's
  // settings; a hook shim left empty or cut was taken by the next install for a hook of the user's and never replaced.
  test.runIf(mounted)(
    'init --hooks --ci --agent claude leaves every file whole or absent, exit 3; the next init finishes',
    async () => {
      const ignore = 'node_modules\ndist\n'.repeat(200)
      // What a run with room writes: every file, whole.
      const roomy = makeRepo()
      writeFileSync(join(roomy.root, '.prettierignore'), ignore)
      expect((await cliAt(roomy.root, ['init', '--hooks', '--ci', '--agent', 'claude'])).code).toBe(0)
      const skip = (r: string) => r === '.git' || r.startsWith('.git/')
      const whole = filesUnder(roomy.root, skip)
      for (const h of SHIM_HOOKS) whole.set(`.git/hooks/${h}`, readFileSync(join(PROJECT_ROOT, 'githooks', h), 'utf8'))
      const seen = new Set<number>()
      // From a full disk up, 4 KB more each time, until there is room for all of it.
      for (let kb = 0; !seen.has(0) && kb <= 512; kb += 4) {
        const { root } = repoOnDisk(`init-${kb}`, { '.prettierignore': ignore })
        fillLeaving(kb)
        const r = await cliAt(root, ['init', '--hooks', '--ci', '--agent', 'claude'])
        rmSync(FILL)
        seen.add(r.code)
        expect([0, 3], `${kb} KB free: ${r.stderr}`).toContain(r.code)
        expect(r.stderr, `${kb} KB free`).not.toMatch(/internal error|\n\s+at /)
        if (r.code === 3) expect(r.stderr, `${kb} KB free`).toMatch(/no space|No space|Out of diskspace/)
        // The work tree and the hooks; the rest of .git is git's.
        const gits = (r2: string) => r2.startsWith('.git/') && r2 !== '.git/hooks' && !r2.startsWith('.git/hooks/')
        for (const [p, text] of filesUnder(root, (r2) => gits(r2) || r2.endsWith('.sample')))
          if (p === '.prettierignore') expect([ignore, whole.get(p)], `${kb} KB free: ${p}`).toContain(text)
          else if (whole.has(p)) expect(text, `${kb} KB free: ${p} is cut`).toBe(whole.get(p))
          else expect(['README.md'], `${kb} KB free: ${p} should not be there`).toContain(p)
        // The space is back: init again puts in everything, and no hook is left as "a hook of your own".
        const again = await cliAt(root, ['init', '--hooks', '--ci', '--agent', 'claude', '--json'])
        expect(again.code, `${kb} KB free, then again: ${again.stderr}`).toBe(0)
        const actions = (again.json().hooks as { action: string }[]).map((c) => c.action)
        expect(
          actions.filter((a) => a !== 'created' && a !== 'unchanged'),
          `${kb} KB free`,
        ).toEqual([])
        for (const [p, text] of whole) expect(readFileSync(join(root, p), 'utf8'), `${kb} KB free: ${p}`).toBe(text)
        rmSync(root, { recursive: true, force: true })
      }
      // The disk ran out on the way, until there was room for all of it.
      expect([...seen].sort()).toEqual([0, 3])
    },
  )

  // install --force moves the user's hook aside before it writes the shim: a write that fails put the user's hook
  // nowhere (an empty pre-commit, the user's as a backup nobody runs).
  test.runIf(mounted)("hook install --force that cannot write the shim puts the user's hook back", async () => {
    const mine = '#!/bin/sh\necho my own checks\n'
    const { root } = repoOnDisk('force')
    writeFileSync(join(root, '.git/hooks/pre-commit'), mine)
    chmodSync(join(root, '.git/hooks/pre-commit'), 0o755)
    fillLeaving(0)
    const r = await cliAt(root, ['hook', 'install', '--force'])
    rmSync(FILL)
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toMatch(/cannot use .*\.git\/hooks\/pre-commit: no space is left on the device/)
    expect(readFileSync(join(root, '.git/hooks/pre-commit'), 'utf8')).toBe(mine)
    expect(statSync(join(root, '.git/hooks/pre-commit')).mode & 0o111).not.toBe(0)
    expect(readdirSync(join(root, '.git/hooks')).filter((n) => !n.endsWith('.sample'))).toEqual(['pre-commit'])
  })

  // copyFile(2) names its source in every error: "cannot use .git/index: no space left" sent the user to git's index.
  test.runIf(mounted)("a copy of git's index that does not fit is named, not the index", async () => {
    const { root } = repoOnDisk('index-copy', { 'a.txt': 'x\n'.repeat(3000) })
    const scratch = join(root, '.git/learn/tmp')
    mkdirSync(scratch, { recursive: true })
    const files = await locateIndex(root, join(root, '.git'))
    fillLeaving(0)
    const err = await prepareIndex(root, files, scratch, [], '0'.repeat(40)).catch((e: unknown) => e)
    rmSync(FILL)
    expect(err).toBeInstanceOf(FileAccessError)
    expect(err).toMatchObject({ code: 'ENOSPC', nothingChanged: true })
    expect((err as FileAccessError).path.startsWith(scratch)).toBe(true)
    expect(readdirSync(scratch)).toEqual([])
  })

  // git names the branch's lock also when it could not write it: "couldn't write '…/refs/heads/main.lock'" was read
  // as a lock another git left ("refs/heads/main is locked … remove the lock"), a file that was not there.
  test.runIf(mounted)('a branch lock git could not write is git failing, not a lock left behind', async () => {
    const { root, git } = repoOnDisk('ref-lock')
    const one = git('rev-parse', 'HEAD').trim()
    git('commit', '-q', '--allow-empty', '-m', 'two')
    const two = git('rev-parse', 'HEAD').trim()
    fillLeaving(0)
    const err = await swapRef(root, 'refs/heads/main', one, two, '0'.repeat(40), 'test').catch((e: unknown) => e)
    rmSync(FILL)
    expect(err).toBeInstanceOf(GitCommandError)
    const message = describeError(err, 'approve').message
    expect(message).not.toMatch(/is locked|remove the lock/)
    expect(message).toMatch(/couldn't write '.*main\.lock'\nCheck that the disk that holds the repository has room/)
    expect(existsSync(join(root, '.git/refs/heads/main.lock'))).toBe(false)
    expect(git('rev-parse', 'HEAD').trim()).toBe(two)
  })

  // The capture hook's lock holds its pid; with no room for the pid it stayed, empty, and every capture of that
  // transcript for the next 30 s waited 3 s for it and then gave up ("another capture … is still running").
  test.runIf(mounted)(
    'capture on a full disk leaves no lock: the next capture, with room, reads the transcript',
    () => {
      const transcript = join(PROJECT_ROOT, 'test/fixtures/transcripts/claude-2.1.331.jsonl')
      const payload = (root: string) =>
        JSON.stringify({
          hook_event_name: 'Stop',
          session_id: '164729f8-0065-418d-865b-d78dca378583',
          transcript_path: transcript,
          cwd: root,
        })
      const records = (root: string) =>
        readFileSync(join(root, '.git/learn/observations.jsonl'), 'utf8').split('\n').filter(Boolean).length
      const control = makeRepo()
      expect(sh(control.root, 'git', ['learn', 'capture'], { input: payload(control.root) }).code).toBe(0)
      const { root } = repoOnDisk('capture')
      fillLeaving(0)
      const full = sh(root, 'git', ['learn', 'capture'], { input: payload(root) })
      rmSync(FILL)
      expect(full.code).toBe(0)
      expect(full.stdout).toBe('')
      const locks = join(root, '.git/learn/transcripts')
      expect(existsSync(locks) ? readdirSync(locks).filter((n) => n.endsWith('.lock')) : []).toEqual([])
      expect(sh(root, 'git', ['learn', 'capture'], { input: payload(root) }).code).toBe(0)
      expect(records(root)).toBe(records(control.root))
    },
  )
})

describe('a read-only .git (a clone mounted read-only into a container)', () => {
  // Read-only for real (root writes through file modes): a read-only bind mount of .git where we may mount.
  test('search, list, status, check, context and recall work from a cold cache, say nothing, write nothing', () => {
    const repo = makeRepo()
    repo.write('.learnings/active/ro-note.md', learningText('ro-note'))
    repo.git('add', '.')
    repo.git('commit', '-qm', 'store')
    const dotGit = join(repo.root, '.git')
    const bound = spawnSync('mount', ['--bind', dotGit, dotGit]).status === 0
    if (!bound) return
    try {
      if (spawnSync('mount', ['-o', 'remount,ro,bind', dotGit]).status !== 0) return
      const failure = JSON.stringify({
        hook_event_name: 'PostToolUseFailure',
        session_id: 's1',
        tool_name: 'Bash',
        tool_input: { command: 'npm test' },
        error: 'Error: ro-note exploded at line 3',
      })
      const runs: [string[], string | undefined][] = [
        [['search', 'ro-note exploded'], undefined],
        [['list'], undefined],
        [['status'], undefined],
        [['check'], undefined],
        [['context'], '{"hook_event_name":"SessionStart","session_id":"s1","source":"startup"}'],
        [['recall'], failure],
      ]
      for (const [args, input] of runs) {
        const r = sh(repo.root, 'git', ['learn', ...args], input === undefined ? {} : { input })
        expect(r.code, `${args[0]}: ${r.stderr}`).toBe(0)
        expect(r.stderr, args[0]).toBe('')
        if (args[0] !== 'check') expect(r.stdout, args[0]).toMatch(/ro-note/)
      }
      expect(existsSync(join(dotGit, 'learn'))).toBe(false)
    } finally {
      spawnSync('umount', [dotGit])
    }
  })
})

describe('TMPDIR', () => {
  // git itself needs no TMPDIR; the lifecycle commit's temporary index was made there (mkdtemp), so a TMPDIR naming
  // a folder that is gone (a stale one inherited by a container or a long-lived shell) failed every add and approve.
  test('a TMPDIR that names no folder stops neither add nor approve, and leaves nothing behind', () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', 'approval:\n  distinct_approver: false\n')
    repo.write('.learnings/pending/first-one.md', learningText('first-one'))
    repo.git('add', '.')
    repo.git('commit', '-qm', 'store')
    const input = join(tempDir('gl-in-'), 'new.md')
    const body =
      '## Problem\nThe importer crashed on a BOM.\n\n## Trigger Conditions\nImporting a CSV saved by Excel.\n\n' +
      '## Root Cause\nWe tried another parser; the byte order mark was read as part of the first header.\n\n' +
      '## Solution\nStrip U+FEFF before parsing.\n\n## Verification\nThe importer test passed: 9 passed.\n'
    writeFileSync(input, learningText('fresh-one', { trigger: 'TypeError: fresh-one is not a function' }, body))
    const env = { TMPDIR: join(tempDir('gl-gone-'), 'gone') }
    const add = sh(repo.root, 'git', ['learn', 'add', '--file', input], { env })
    expect(add.code, add.stderr).toBe(0)
    const approve = sh(repo.root, 'git', ['learn', 'approve', 'first-one', 'fresh-one'], { env })
    expect(approve.code, approve.stderr).toBe(0)
    expect(repo.exists('.learnings/active/fresh-one.md')).toBe(true)
    expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
    expect(readdirSync(join(repo.root, '.git/learn/tmp'))).toEqual([])
  })
})

describe('stdout into a file', () => {
  // Node's stream for a file makes one write(2) per piece, drops a short count and reports a failure after the
  // process has ended: `git learn export > bundle.json` that ran out of room left the bundle cut, or empty, exit 0.
  test('output that does not fit under `ulimit -f` is reported, exit 3', () => {
    const repo = makeRepo()
    for (let i = 0; i < 30; i++) repo.write(`.learnings/active/cut-note-${i}.md`, learningText(`cut-note-${i}`))
    repo.git('add', '.')
    repo.git('commit', '-qm', 'store')
    const whole = sh(repo.root, 'git', ['learn', 'export'])
    expect(whole.code, whole.stderr).toBe(0)
    expect(whole.stdout.length).toBeGreaterThan(8192)
    const out = join(tempDir('gl-out-'), 'bundle.json')
    // 8 blocks of 1 KB (bash's unit): the bundle is cut there; SIGXFSZ ignored, so the write fails with EFBIG.
    const r = sh(repo.root, 'sh', ['-c', `trap '' XFSZ; ulimit -f 8; exec git learn export > "${out}"`])
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(
      /^git learn export: could not write its output to stdout: the file is larger than this shell allows \(`ulimit -f`\)\. What was written there is incomplete\./,
    )
    expect(statSync(out).size).toBeLessThan(whole.stdout.length)
  })

  test.runIf(mounted)('output to a file on a full disk is reported, exit 3', () => {
    const { root } = repoOnDisk('stdout-full', { '.learnings/active/full-note.md': learningText('full-note') })
    fillLeaving(0)
    const r = sh(root, 'sh', ['-c', `exec git learn list --json > "${join(mnt, 'list.json')}"`])
    rmSync(FILL)
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/^git learn list: could not write its output to stdout: no space is left on the device/)
  })
})

describe('render that stops part way', () => {
  // render recorded what it wrote (render-manifest.json) only at its end: one that stopped part way left files no
  // manifest listed, which the next render neither owned nor removed, so a learning pruned since kept its skill where
  // agents read it. A file over `ulimit -f` stops it at one learning, after the others are written.
  test('the files it wrote are still its own: a learning pruned since loses its skill', async () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', 'render:\n  targets: [claude]\n')
    repo.write('.learnings/active/alpha-note.md', learningText('alpha-note'))
    repo.write('.learnings/active/beta-note.md', learningText('beta-note'))
    const long = `## Problem\n${'The nightly export stalled on a lock held by the vacuum job. '.repeat(150)}\n\n## Trigger Conditions\nRunning the export.\n\n## Root Cause\nWe tried A and B; the cause was C.\n\n## Solution\nDo D.\n\n## Verification\nnpx vitest run: 14 passed.\n`
    repo.write('.learnings/active/zeta-note.md', learningText('zeta-note', {}, long))
    repo.git('add', '.')
    repo.git('commit', '-qm', 'store')
    const cut = sh(repo.root, 'sh', ['-c', "trap '' XFSZ; ulimit -f 4; exec git learn render"])
    expect(cut.code, cut.stderr).toBe(3)
    expect(cut.stderr).toMatch(/zeta-note.*the file is larger than this shell allows/)
    expect(repo.exists('.claude/skills/beta-note/SKILL.md')).toBe(true)
    expect((await repo.cli(['prune', 'beta-note', '--reason', 'superseded', '--yes'])).code).toBe(0)
    const again = await repo.cli(['render'])
    expect(again.code, again.stderr).toBe(0)
    expect(repo.exists('.claude/skills/beta-note/SKILL.md')).toBe(false)
    expect(repo.exists('.claude/skills/alpha-note/SKILL.md')).toBe(true)
    expect(repo.exists('.claude/skills/zeta-note/SKILL.md')).toBe(true)
  })
})

/**
 * The built bin run as a user that is not the owner (root bypasses file modes: as root, `nobody` through setpriv,
 * trusting the repository with safe.directory), or as ourselves otherwise. Undefined when neither can be done.
 */
function runAsOther(cwd: string, args: string[]) {
  const bin = [process.execPath, join(PROJECT_ROOT, 'dist', 'bin.js'), ...args]
  if (process.getuid?.() !== 0) {
    const r = spawnSync(bin[0] as string, bin.slice(1), { cwd, encoding: 'utf8' })
    return { code: r.status, stderr: r.stderr }
  }
  const home = tempDir('gl-home-other-')
  chmodSync(home, 0o777)
  const env = {
    ...process.env,
    HOME: home,
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'safe.directory',
    GIT_CONFIG_VALUE_0: '*',
  }
  const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', ...bin], {
    cwd,
    env,
    encoding: 'utf8',
  })
  return r.error ? undefined : { code: r.status, stderr: r.stderr }
}

describe('permissions', () => {
  // A state folder this user cannot search (no x): show said "no learning named locked-note", and add found the
  // name free.
  test('a state folder this user cannot search is named with its permission, not "no learning named"', () => {
    const repo = makeRepo()
    repo.write('.learnings/active/locked-note.md', learningText('locked-note'))
    repo.git('add', '.')
    repo.git('commit', '-qm', 'store')
    chmodSync(repo.root, 0o755)
    chmodSync(join(repo.root, '.learnings/active'), 0o644)
    try {
      const r = runAsOther(repo.root, ['show', 'locked-note'])
      if (!r) return
      expect(r.stderr).toMatch(/cannot use .*\.learnings\/active\/locked-note\.md: permission denied/)
      expect(r.code).toBe(3)
    } finally {
      chmodSync(join(repo.root, '.learnings/active'), 0o755)
    }
  })
})

describe('a scratch folder this user cannot write', () => {
  // .git/learn/tmp left by a `sudo git learn …` (root's, 755): the transition copied git's index into it, failed with
  // EACCES, and said "cannot use .git/index: permission denied" (copyFile names its source) for every add and approve.
  test('does not stop approve: the copy goes beside the index instead', () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', 'approval:\n  distinct_approver: false\n')
    repo.write('.learnings/pending/sudo-note.md', learningText('sudo-note'))
    repo.git('add', '.')
    repo.git('commit', '-qm', 'store')
    const scratch = join(repo.root, '.git/learn/tmp')
    mkdirSync(scratch, { recursive: true })
    const root = process.getuid?.() === 0
    if (root) {
      execFileSync('chown', ['-R', '65534:65534', repo.root])
      execFileSync('chown', ['0:0', scratch])
      chmodSync(scratch, 0o755)
    } else chmodSync(scratch, 0o555)
    let r: ReturnType<typeof runAsOther>
    try {
      r = runAsOther(repo.root, ['approve', 'sudo-note'])
    } finally {
      chmodSync(scratch, 0o755)
      if (root) execFileSync('chown', ['-R', '0:0', repo.root])
    }
    if (!r) return
    expect(r.code, r.stderr).toBe(0)
    expect(repo.exists('.learnings/active/sudo-note.md')).toBe(true)
    expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
  })
})

describe('file descriptors', () => {
  // With no descriptor left for git's pipes Node gives a child without streams and an 'error' event: runGitAsync
  // read child.stdout.on of undefined (a TypeError, exit 70) and the unheard event ended the process with Node's own
  // trace, exit 1 — the recall and context hooks too, which must exit 0 whatever happens.
  test('git that cannot start for want of file descriptors is a GitCommandError, and the process lives on', () => {
    const script = `
      const fs = require('node:fs')
      const { runGitAsync } = require(${JSON.stringify(join(PROJECT_ROOT, 'dist/adapters/git/run.js'))})
      const held = []
      try { for (;;) held.push(fs.openSync('/dev/null', 'r')) } catch {}
      const run = runGitAsync(['--version'], { cwd: process.cwd() })
      for (const fd of held) fs.closeSync(fd)
      run.then(
        () => console.log('started'),
        (e) => console.log(e.constructor.name + ': ' + e.stderr),
      )
    `
    const r = spawnSync('sh', ['-c', `ulimit -n 64 && exec "${process.execPath}" -e "$0"`, script], {
      encoding: 'utf8',
    })
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(r.stdout.trim()).toBe(
      'GitCommandError: git could not be started: spawn git EMFILE (too many files are open: raise `ulimit -n`)',
    )
  })
})
