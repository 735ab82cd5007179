import { describe, expect, test } from 'vitest'
import { EMPTY_CURSOR, readTranscriptLine } from '../../../src/core/transcript.js'
import type { TranscriptCursor } from '../../../src/core/transcript.js'

const opts = { agent: 'claude-code', session: 'fallback' }
const line = (o: Record<string, unknown>) =>
  JSON.stringify({ uuid: 'u1', timestamp: '2026-11-20T12:00:00.000Z', sessionId: 's', cwd: '/r', ...o })
const user = (content: unknown, extra: Record<string, unknown> = {}) =>
  line({ type: 'user', message: { role: 'user', content }, ...extra })

function read(lines: string[], cursor: TranscriptCursor = EMPTY_CURSOR, reread = false) {
  let c = cursor
  const events = []
  const shapes = []
  for (const l of lines) {
    const r = readTranscriptLine(l, c, { ...opts, reread })
    c = r.cursor
    events.push(...r.result.events)
    shapes.push(r.result.shape)
  }
  return { events: events.map((e) => e.event), shapes, cursor: c }
}

describe('readTranscriptLine', () => {
  test.each([
    ['a typed prompt', user('fix the build'), ['UserPromptSubmit fix the build']],
    ['a prompt as text blocks', user([{ type: 'text', text: 'use pnpm' }]), ['UserPromptSubmit use pnpm']],
    ["Claude Code's own note (isMeta)", user('Caveat: the messages below…', { isMeta: true }), []],
    ['the interruption marker', user([{ type: 'text', text: '[Request interrupted by user for tool use]' }]), []],
    ['an empty prompt', user('   '), []],
  ])('%s', (_what, l, want) => {
    expect(read([l]).events.map((e) => `${e.event} ${typeof e.input === 'string' ? e.input : ''}`.trim())).toEqual(want)
  })

  test('a structured result with a non-zero exit code is a failure even without is_error', () => {
    const call = line({
      type: 'assistant',
      message: {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'make' } }],
      },
    })
    const result = user([{ type: 'tool_result', tool_use_id: 't1', content: 'boom' }], {
      toolUseResult: { stdout: '', stderr: 'boom', exit_code: 2 },
    })
    expect(read([call, result]).events).toEqual([
      expect.objectContaining({
        event: 'PostToolUseFailure',
        tool: 'Bash',
        input: { command: 'make' },
        ok: false,
        error: 'boom',
        session: 's',
        cwd: '/r',
      }),
    ])
  })

  test('shapes: other kinds of entries and corrupt lines are told apart', () => {
    expect(
      read([line({ type: 'attachment', attachment: {} }), '{"no":"type"}', 'garbage', '"a string"']).shapes,
    ).toEqual(['other', 'other', 'corrupt', 'corrupt'])
  })

  test('a re-read skips the entries at or before the last time read, by id at that time', () => {
    const first = read([
      user('one', { uuid: 'a', timestamp: '2026-11-20T12:00:01.000Z' }),
      user('two', { uuid: 'b', timestamp: '2026-11-20T12:00:02.000Z' }),
    ])
    const again = read(
      [
        user('one', { uuid: 'a', timestamp: '2026-11-20T12:00:01.000Z' }),
        user('two', { uuid: 'b', timestamp: '2026-11-20T12:00:02.000Z' }),
        user('same time, new', { uuid: 'c', timestamp: '2026-11-20T12:00:02.000Z' }),
        user('three', { uuid: 'd', timestamp: '2026-11-20T12:00:03.000Z' }),
      ],
      first.cursor,
      true,
    )
    expect(again.events.map((e) => e.input)).toEqual(['same time, new', 'three'])
  })

  test('open calls are bounded', () => {
    const calls = Array.from({ length: 250 }, (_, i) =>
      line({ type: 'assistant', message: { content: [{ type: 'tool_use', id: `t${i}`, name: 'Read', input: {} }] } }),
    )
    const open = Object.keys(read(calls).cursor.open)
    expect(open).toHaveLength(200)
    expect(open[0]).toBe('t50')
  })
})
