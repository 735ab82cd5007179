// The recall hook after a Bash call that passed ends right after Node's start: no module beyond the bin, stdin's
// reader and the gate is loaded. A run that printed a failing test summary still gets recall.
import { spawnSync } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { expect, test } from 'vitest'
import { PROJECT_ROOT, learningText, makeRepo, tempDir } from '../helpers/repo.js'

const BIN = join(PROJECT_ROOT, 'dist', 'bin.js')
const payload = (stdout: string) =>
  JSON.stringify({
    session_id: 's',
    transcript_path: '/h/t.jsonl',
    cwd: '/r',
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'npx vitest run' },
    tool_response: { stdout, stderr: '', interrupted: false },
    tool_use_id: 't1',
  })

function recall(cwd: string, input: string): { stdout: string; loaded: string[] } {
  const preload = join(tempDir('gl-preload-'), 'loaded.cjs')
  writeFileSync(preload, 'process.on("exit", () => process.stderr.write(JSON.stringify(Object.keys(require.cache))))\n')
  const r = spawnSync(process.execPath, ['-r', preload, BIN, 'recall'], { cwd, input, encoding: 'utf8' })
  expect(r.status).toBe(0)
  const ours = (JSON.parse(r.stderr) as string[]).filter((f) => f.startsWith(join(PROJECT_ROOT, 'dist')))
  return { stdout: r.stdout, loaded: ours.map((f) => relative(join(PROJECT_ROOT, 'dist'), f)).sort() }
}

test('a passed Bash call: recall loads only the bin, the stdin reader and the gate, and prints nothing', () => {
  const repo = makeRepo()
  const r = recall(repo.root, payload(' ✓ test/a.test.ts (3 tests)\n Tests  3 passed (3)\n'))
  expect(r).toEqual({ stdout: '', loaded: ['bin.js', 'cli/context.js', 'core/recall-gate.js'] })
})

test('a Bash call that "passed" with a failing test summary still gets recall', () => {
  const repo = makeRepo()
  const trigger = 'AssertionError: expected widget to be frobnicated'
  repo.write('.learnings/active/widget-frobnicate.md', learningText('widget-frobnicate', { trigger }))
  repo.git('add', '-A')
  repo.git('commit', '-q', '-m', 'learning')
  const r = recall(
    repo.root,
    payload(` FAIL  test/widget.test.ts > frobnicates\n${trigger}\n Tests  1 failed (1)\n`).replace(
      '"cwd":"/r"',
      `"cwd":${JSON.stringify(repo.root)}`,
    ),
  )
  expect(r.stdout).toContain('git-learn: widget-frobnicate')
  expect(r.loaded.length).toBeGreaterThan(3)
})

// The payload's cwd is the agent's word: git is never run there (a repository's core.fsmonitor, like other config,
// is a command git runs), nor its learnings read; the hook's own repository answers.
test('a payload whose cwd names another repository: nothing runs there, the hook repository answers', () => {
  const repo = makeRepo()
  const trigger = 'AssertionError: expected widget to be frobnicated'
  repo.write('.learnings/active/widget-frobnicate.md', learningText('widget-frobnicate', { trigger }))
  repo.git('add', '-A')
  repo.git('commit', '-q', '-m', 'learning')
  const other = makeRepo()
  other.write('.learnings/active/other-fix.md', learningText('other-fix', { trigger }))
  other.git('add', '-A')
  other.git('commit', '-q', '-m', 'learning')
  const ran = join(tempDir('gl-ran-'), 'fsmonitor-ran')
  other.git('config', 'core.fsmonitor', `touch ${ran}; false`)
  const failing = payload(` FAIL  test/widget.test.ts > frobnicates\n${trigger}\n Tests  1 failed (1)\n`)
  {
    const bin = BIN
    const r = spawnSync(process.execPath, [bin, 'recall'], {
      cwd: repo.root,
      input: failing.replace('"cwd":"/r"', `"cwd":${JSON.stringify(other.root)}`),
      encoding: 'utf8',
    })
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('git-learn: widget-frobnicate')
    expect(r.stdout).not.toContain('other-fix')
  }
  expect(existsSync(ran)).toBe(false)
  expect(existsSync(join(other.root, '.git', 'learn'))).toBe(false)
})
