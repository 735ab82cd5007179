/**
 * A git of a command's questions killed by a signal. CI saw `reject` end with exit 3, "git does not know who you are",
 * when a terminal-style Ctrl-C killed `git var` first: simple-git reported exit code null and no signal, and a 250 ms
 * wait for this process's own SIGINT decided between 130 and a missing identity. The questions now go through run.ts,
 * which sees the child's signal, so the answer does not depend on which process the kernel signals first.
 *
 * A `git` wrapper first on PATH kills `git var` (the identity every committing command asks for) with a signal; every
 * other call runs the real git. The command runs in a process group of its own, as in a terminal.
 */
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { BUILT_BIN } from '../helpers/fault.js'
import { learningText, makeRepo, tempDir } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()

/**
 * `git var` killed by $KILL_VAR: `group-INT` sends SIGINT to its whole process group (this git and the command, as a
 * terminal's Ctrl-C does), `INT` and `KILL` kill this git alone.
 */
const WRAPPER = `#!/bin/sh
if [ "$1" = var ]; then
  case "$KILL_VAR" in
    group-INT) kill -s INT 0 ;;
    INT|KILL) kill -s "$KILL_VAR" $$ ;;
  esac
fi
exec "${REAL_GIT}" "$@"
`

function wrapperDir(): string {
  const dir = tempDir('gl-var-bin-')
  writeFileSync(join(dir, 'git'), WRAPPER)
  chmodSync(join(dir, 'git'), 0o755)
  return dir
}

/** A store with a pending learning, committed. */
async function withPending(): Promise<TestRepo> {
  const repo = makeRepo()
  expect((await repo.cli(['init'])).code).toBe(0)
  repo.git('add', '.learnings')
  repo.git('commit', '-qm', 'store')
  repo.write('p.md', learningText('pending-one'))
  expect((await repo.cli(['add', '--file', 'p.md'])).code).toBe(0)
  return repo
}

/** Run the built binary in a process group of its own (its leader), the wrapper first on PATH. */
function run(
  root: string,
  argv: string[],
  mode: string,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUILT_BIN, ...argv], {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, PATH: `${wrapperDir()}:${process.env['PATH']}`, KILL_VAR: mode, NO_COLOR: '1' },
    })
    let stderr = ''
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')))
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stderr }))
  })
}

const argv = ['reject', 'pending-one', '--reason', 'not needed']

test.each([
  ['a Ctrl-C that reaches git var and the command (the whole group)', 'group-INT'],
  // The command's own share of the Ctrl-C not come yet (or never): git's death of SIGINT is taken as the command's,
  // as a shell takes its child's. Before, this waited 250 ms for a signal that never came, then said "who you are".
  ['git var killed by SIGINT before the command is signalled', 'INT'],
])('%s: the command ends as interrupted, one line, nothing changed', async (_what, mode) => {
  const repo = await withPending()
  const before = repo.snapshot()
  const r = await run(repo.root, argv, mode)
  expect(r.signal ?? r.code, r.stderr).toBe('SIGINT')
  const lines = r.stderr.split('\n').filter(Boolean)
  expect(lines, r.stderr).toHaveLength(1)
  expect(lines[0]).toMatch(/^git learn reject: interrupted by SIGINT;/)
  expect(r.stderr).not.toMatch(/who you are/)
  expect(repo.snapshot()).toBe(before)
})

// A git killed alone by a signal that is no Ctrl-C (the OOM killer's SIGKILL) is git failing, said as such: exit 3
// with how it ended, never read as an answer ("git does not know who you are").
test('git var killed alone by SIGKILL: git failing (exit 3, the signal named), nothing changed', async () => {
  const repo = await withPending()
  const before = repo.snapshot()
  const r = await run(repo.root, argv, 'KILL')
  expect(r.code, r.stderr).toBe(3)
  expect(r.stderr).toMatch(/git var GIT_(COMMITTER|AUTHOR)_IDENT failed\.\ngit said:\n\(git was killed by SIGKILL\)/)
  expect(r.stderr).not.toMatch(/who you are|interrupted/)
  expect(repo.snapshot()).toBe(before)
})
