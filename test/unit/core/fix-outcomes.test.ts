import { describe, expect, test } from 'vitest'
import { resolveFixOutcomes } from '../../../src/core/fix-outcomes.js'
import type { OutcomeRecord, PendingRecall } from '../../../src/core/fix-outcomes.js'

let n = 0
const run = (
  command: string,
  ok: boolean,
  error = 'Exit code 1\nError: boom in widget',
  session = 's',
): OutcomeRecord => ({
  ts: `2026-11-20T12:00:${String(n).padStart(2, '0')}.000Z`,
  agent: 'claude-code',
  session,
  event: ok ? 'PostToolUse' : 'PostToolUseFailure',
  tool: 'Bash',
  tool_use_id: `t${++n}`,
  input: { command },
  output: ok ? { stdout: 'ok' } : undefined,
  error: ok ? undefined : error,
  ok,
})
const pendingFor = (r: OutcomeRecord, name = 'fix-it'): PendingRecall => ({
  name,
  session: r.session,
  tool_use_id: r.tool_use_id,
  ts: r.ts,
})

describe('resolveFixOutcomes', () => {
  test('the next run of the same command decides: pass → success', () => {
    const fail = run('npm test', false)
    const { outcomes, pending } = resolveFixOutcomes(
      [pendingFor(fail)],
      [fail, run('ls', true), run('npm test', true)],
      false,
    )
    expect(outcomes).toEqual([expect.objectContaining({ name: 'fix-it', kind: 'success', note: 'npm test' })])
    expect(pending).toEqual([])
  })

  test('the same failure again → failure; another failure leaves it open; another runner of the same kind counts', () => {
    const fail = run('npx vitest run a.test.ts', false)
    const other = run('npx vitest run a.test.ts', false, 'Exit code 1\nTypeError: x is not a function')
    const first = resolveFixOutcomes([pendingFor(fail)], [fail, other], false)
    expect(first.outcomes).toEqual([])
    expect(first.pending).toHaveLength(1)
    // Saved and read again at the next turn: the same error, by the same runner with other arguments.
    const again = resolveFixOutcomes(first.pending, [run('npx vitest run b.test.ts', false)], false)
    expect(again.outcomes).toEqual([expect.objectContaining({ kind: 'failure' })])
  })

  test('other sessions, other commands and the failed call itself decide nothing; the session end drops what is open', () => {
    const fail = run('make build', false)
    const recs = [fail, run('make build', true, undefined, 'other-session'), run('echo hi', true)]
    const r = resolveFixOutcomes([pendingFor(fail)], recs, false)
    expect(r.outcomes).toEqual([])
    expect(r.pending).toHaveLength(1)
    expect(resolveFixOutcomes(r.pending, [], true).pending).toEqual([])
  })

  test('two learnings handed out for one failure are decided together', () => {
    const fail = run('cargo test', false)
    const r = resolveFixOutcomes([pendingFor(fail, 'a'), pendingFor(fail, 'b')], [fail, run('cargo test', true)], false)
    expect(r.outcomes.map((o) => `${o.name} ${o.kind}`)).toEqual(['a success', 'b success'])
  })
})
