import { describe, expect, test } from 'vitest'
import { payloadLooksPassed } from '../../../src/core/recall-gate.js'
import { detectToolFailure } from '../../../src/core/search-recall.js'

const post = (tool_response: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    session_id: 's',
    transcript_path: '/h/t.jsonl',
    cwd: '/r',
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'npm test' },
    tool_response,
    tool_use_id: 't1',
    ...extra,
  })

describe('payloadLooksPassed: the recall hook ends at once only for a call that plainly passed', () => {
  test.each([
    [
      'a passing test run',
      post({ stdout: ' ✓ test/a.test.ts (3 tests)\n Tests  3 passed (3)\n', stderr: '', interrupted: false }),
      true,
    ],
    [
      'quoted JSON inside the output',
      post({ stdout: '{"error": 1, "exit_code": 2, "success": false}', stderr: '', interrupted: false }),
      true,
    ],
    [
      'a failing summary on a later line',
      post({ stdout: 'RUN v4\n FAIL  test/a.test.ts > adds\n Tests  1 failed | 2 passed\n', stderr: '' }),
      false,
    ],
    ['FAIL at the start of the output', post({ stdout: 'FAIL test/a.test.ts', stderr: '' }), false],
    ['an exception at the start of stderr', post({ stdout: '', stderr: 'TypeError: x is not a function' }), false],
    ['a non-zero exit code', post({ stdout: '', exit_code: 2 }), false],
    ['an interrupted call', post({ stdout: 'partial', interrupted: true }), false],
    ['an error field', post({ stdout: '' }, { error: 'boom' }), false],
    ['a ✗ escaped as \\u2717', post({ stdout: 'x' }).replace('"x"', '"\\u2717 broken"'), false],
    [
      'a Gemini CLI shell result with a non-zero exit code in its text',
      post({ llmContent: 'Output: (empty)\nExit Code: 1\n', returnDisplay: '' }),
      false,
    ],
    ['a PostToolUseFailure', JSON.stringify({ hook_event_name: 'PostToolUseFailure', error: 'Exit code 1' }), false],
    ['not JSON', 'hello', false],
  ])('%s → %s', (_what, payload, passed) => {
    expect(payloadLooksPassed(payload)).toBe(passed)
  })

  test('never "passed" where the full decision finds a failure (random outputs)', () => {
    const parts = [
      'ok',
      'FAIL x',
      '\n',
      ' 2 failed',
      'Error: y',
      'error: z',
      '×',
      'npm ERR! a',
      'Traceback (most recent call last)',
      'fine',
      '"',
      '\\',
      'TypeError: q',
    ]
    let seed = 7
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (let i = 0; i < 2000; i++) {
      const text = Array.from(
        { length: 1 + Math.floor(rand() * 5) },
        () => parts[Math.floor(rand() * parts.length)],
      ).join(rand() < 0.5 ? '\n' : ' ')
      const payload = post({ stdout: text, stderr: rand() < 0.3 ? text : '', interrupted: false })
      if (payloadLooksPassed(payload)) expect(detectToolFailure(JSON.parse(payload)), text).toBeUndefined()
    }
  })
})

test("Gemini CLI's failed shell command (exit code only in llmContent) is a failure for recall", () => {
  const payload = {
    session_id: 'g',
    hook_event_name: 'AfterTool',
    tool_name: 'run_shell_command',
    tool_input: { command: 'node check.js' },
    tool_response: {
      llmContent: '<untrusted_context>\nOutput: Error: boom\nExit Code: 1\n</untrusted_context>',
      returnDisplay: 'Command exited with code: 1',
    },
  }
  expect(detectToolFailure(payload)).toMatchObject({ event: 'AfterTool', text: expect.stringContaining('Error: boom') })
  expect(
    detectToolFailure({
      ...payload,
      tool_response: { llmContent: 'Output: ok\nProcess Group PGID: 1', returnDisplay: '' },
    }),
  ).toBeUndefined()
})

// A tool that printed many empty lines: the gate's `(?:^|\n)\s*FAIL` was tried from every line break, each try running
// over the rest of the run, so 200,000 of them (400 KB of payload) took minutes where 25,000 took seconds: this test
// timed out (vitest's 5 s) before the blanks before `FAIL` were kept to one line. Now one pass: well under a second.
test('a run of 200,000 empty lines is read in one pass, and a FAIL after it is still found', () => {
  const blank = '\n'.repeat(200_000)
  expect(payloadLooksPassed(post({ stdout: `${blank}done`, stderr: '', interrupted: false }))).toBe(true)
  expect(payloadLooksPassed(post({ stdout: `${blank}  FAIL test/a.test.ts`, stderr: '' }))).toBe(false)
  expect(
    detectToolFailure({ hook_event_name: 'PostToolUse', tool_response: { stdout: `${blank}done` } }),
  ).toBeUndefined()
  expect(
    detectToolFailure({ hook_event_name: 'PostToolUse', tool_response: { stdout: `${blank} \t✗ adds` } }),
  ).toMatchObject({ text: expect.stringContaining('✗ adds') })
})
