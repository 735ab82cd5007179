/**
 * One agent session's hooks at once: Claude Code runs the hooks of parallel tool calls (and of its subagents, which
 * carry the session's id) side by side. Each `recall` that hands a fix out adds it to the session's pending recalls
 * (`learn/recalls/<session>.json`), read later to record whether the fix worked; two recalls that each read the list
 * and wrote it back with their own names lost the other's.
 */
import { spawn } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { BUILT_BIN } from '../helpers/fault.js'
import { learningText, makeRepo } from '../helpers/repo.js'

function recall(cwd: string, payload: object): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BUILT_BIN, 'recall'], { cwd, stdio: ['pipe', 'ignore', 'ignore'] })
    child.on('close', resolve)
    child.stdin.end(JSON.stringify(payload))
  })
}

test('16 recalls of one session at once: every fix handed out is pending, none lost', async () => {
  const repo = makeRepo()
  // Letters, not numbers: error text is matched with its numbers dropped.
  const names = Array.from({ length: 16 }, (_, i) => `boom-${String.fromCharCode(97 + i)}x`)
  for (const n of names) repo.write(`.learnings/active/${n}.md`, learningText(n))
  repo.git('add', '.learnings')
  repo.git('commit', '-qm', 'store')
  const failure = (n: string, i: number) => ({
    hook_event_name: 'PostToolUseFailure',
    session_id: 'one-session',
    tool_name: 'Bash',
    tool_use_id: `toolu_${i}`,
    tool_input: { command: 'npm test' },
    error: `Error: ${n} exploded at line 3`,
    cwd: repo.root,
  })
  // Warm the feed's cache first, so that the recalls run together and not one after another's rebuild.
  expect(await recall(repo.root, { ...failure('boom-ax', 99), session_id: 'warm-up' })).toBe(0)
  const codes = await Promise.all(names.map((n, i) => recall(repo.root, failure(n, i))))
  expect(codes).toEqual(names.map(() => 0))
  const dir = join(repo.root, '.git', 'learn', 'recalls')
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'))
  const pending = files
    .flatMap((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { name: string; session: string }[])
    .filter((p) => p.session === 'one-session')
  expect(pending.map((p) => p.name).sort()).toEqual([...names].sort())
  expect(readdirSync(dir).filter((f) => f.endsWith('.lock'))).toEqual([])
}, 120_000)
