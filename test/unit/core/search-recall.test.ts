import { describe, expect, test } from 'vitest'
import { detectToolFailure } from '../../../src/core/search-recall.js'

describe('recall decisions', () => {
  test.each([
    ['PostToolUseFailure', { hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', error: 'Command failed' }, true],
    ['error field', { hook_event_name: 'PostToolUse', error: 'boom' }, true],
    [
      'non-zero exit',
      { hook_event_name: 'PostToolUse', tool_response: { stdout: 'x', stderr: 'bad', exit_code: 2 } },
      true,
    ],
    ['interrupted', { hook_event_name: 'PostToolUse', tool_response: { stdout: 'partial', interrupted: true } }, true],
    [
      'failing test run with exit 0',
      {
        hook_event_name: 'PostToolUse',
        tool_response: { stdout: ' FAIL  test/a.test.ts\n Tests  1 failed | 3 passed', stderr: '' },
      },
      true,
    ],
    [
      'passing run',
      {
        hook_event_name: 'PostToolUse',
        tool_response: { stdout: ' ✓ test/a.test.ts (3 tests)\n Tests  3 passed', stderr: '' },
      },
      false,
    ],
    [
      'an edit',
      { hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_response: { filePath: '/x', success: true } },
      false,
    ],
    ['not an object', 'hello', false],
  ])('%s', (_what, payload, failed) => {
    expect(Boolean(detectToolFailure(payload))).toBe(failed)
  })
})
