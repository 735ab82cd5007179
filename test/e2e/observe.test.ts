import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { PROJECT_ROOT, makeRepo, sh } from '../helpers/repo.js'
import { sessionPayloads } from '../helpers/sessions.js'

const BIN = join(PROJECT_ROOT, 'dist', 'bin.js')

/** Every observation line, archive first, then the live file. */
function allLines(root: string): string[] {
  const learn = join(root, '.git', 'learn')
  const archive = join(learn, 'observations.archive')
  const files = [
    ...(existsSync(archive)
      ? readdirSync(archive)
          .sort()
          .map((f) => join(archive, f))
      : []),
    join(learn, 'observations.jsonl'),
  ]
  return files.filter(existsSync).flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean))
}

test('replaying a recorded session through `git learn observe`, one process per event, then retro finds the candidates', () => {
  const repo = makeRepo()
  for (const p of sessionPayloads('claude-every-detector.jsonl', repo.root)) {
    const r = sh(repo.root, 'git', ['learn', 'observe'], { input: p })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe('')
  }
  expect(allLines(repo.root)).toHaveLength(47)
  const retro = sh(repo.root, 'git', ['learn', 'retro', '--json'])
  expect(retro.code).toBe(0)
  const kinds = JSON.parse(retro.stdout)
    .candidates.map((c: { kind: string }) => c.kind)
    .sort()
  expect(kinds).toEqual(['error-solution', 'repeated-workflow', 'retry-loop', 'tool-preference', 'user-correction'])
})

test('a 50 MB payload: exit 0 quickly, a bounded record, nothing else', () => {
  const repo = makeRepo()
  const big = JSON.stringify({
    session_id: 's',
    hook_event_name: 'PostToolUse',
    tool_name: 'Read',
    tool_input: { file_path: '/x' },
    tool_response: { content: 'A'.repeat(50 * 1024 * 1024) },
  })
  const r = spawnSync(process.execPath, [BIN, 'observe'], {
    cwd: repo.root,
    input: big,
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  })
  expect(r.status).toBe(0)
  expect(r.stdout).toBe('')
  const lines = allLines(repo.root)
  expect(lines).toHaveLength(1)
  expect(Buffer.byteLength(lines[0] as string)).toBeLessThan(4096)
  expect(JSON.parse(lines[0] as string)).toMatchObject({
    session: 's',
    event: 'PostToolUse',
    tool: 'Read',
    truncated: true,
  })
})

test('8 parallel writers across rotations lose no line and tear none', async () => {
  const repo = makeRepo()
  repo.write('.learnings/config.yaml', 'observe:\n  rotate_bytes: 1024\n')
  const WRITERS = 8
  const EACH = 15
  // Each writer is a process that runs observe EACH times in a row; the 8 run at the same time.
  const script = `
    const { spawnSync } = require('node:child_process')
    const [bin, id, n] = process.argv.slice(1)
    for (let i = 0; i < Number(n); i++) {
      const p = JSON.stringify({ session_id: 'w' + id, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'echo ' + id + '-' + i }, tool_response: { stdout: 'x'.repeat(200) }, tool_use_id: id + '-' + i })
      const r = spawnSync(process.execPath, [bin, 'observe'], { input: p })
      if (r.status !== 0) process.exit(1)
    }`
  const codes = await Promise.all(
    Array.from(
      { length: WRITERS },
      (_, w) =>
        new Promise<number>((done) =>
          spawn(process.execPath, ['-e', script, BIN, String(w), String(EACH)], { cwd: repo.root, stdio: 'ignore' }).on(
            'exit',
            (c) => done(c ?? -1),
          ),
        ),
    ),
  )
  expect(codes).toEqual(Array(WRITERS).fill(0))
  const lines = allLines(repo.root)
  const ids = lines.map((l) => JSON.parse(l).tool_use_id)
  expect(ids).toHaveLength(WRITERS * EACH)
  expect(new Set(ids).size).toBe(WRITERS * EACH)
  expect(readdirSync(join(repo.root, '.git', 'learn', 'observations.archive')).length).toBeGreaterThan(5)
  expect(existsSync(join(repo.root, '.git', 'learn', 'rotate.lock'))).toBe(false)
}, 120_000)
