import { expect, test } from 'vitest'
import { mapAgentPayload } from '../../../../src/adapters/agents/agent-payloads.js'

const claude = {
  session_id: 's1',
  transcript_path: '/h/.claude/projects/x/s1.jsonl',
  cwd: '/r',
  permission_mode: 'default',
}

test.each([
  [
    'Claude PreToolUse',
    {
      ...claude,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'toolu_1',
    },
    {
      agent: 'claude-code',
      session: 's1',
      event: 'PreToolUse',
      tool: 'Bash',
      tool_use_id: 'toolu_1',
      input: { command: 'ls' },
      ok: null,
      cwd: '/r',
    },
  ],
  [
    'Claude PostToolUse',
    {
      ...claude,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_response: { stdout: 'a', stderr: '' },
      tool_use_id: 'toolu_1',
    },
    { agent: 'claude-code', event: 'PostToolUse', output: { stdout: 'a', stderr: '' }, ok: true },
  ],
  [
    'Claude PostToolUseFailure',
    {
      ...claude,
      hook_event_name: 'PostToolUseFailure',
      tool_name: 'Bash',
      tool_input: { command: 'false' },
      tool_use_id: 'toolu_2',
      error: 'Exit code 1',
      is_interrupt: false,
    },
    { event: 'PostToolUseFailure', error: 'Exit code 1', ok: false },
  ],
  [
    'Claude UserPromptSubmit',
    { ...claude, hook_event_name: 'UserPromptSubmit', prompt: 'no, use pnpm' },
    { event: 'UserPromptSubmit', input: 'no, use pnpm', ok: null, tool: null },
  ],
  [
    'Claude SessionStart',
    { ...claude, hook_event_name: 'SessionStart', source: 'startup' },
    { event: 'SessionStart', input: { source: 'startup' } },
  ],
  [
    'Claude SessionEnd',
    { ...claude, hook_event_name: 'SessionEnd', reason: 'clear' },
    { event: 'SessionEnd', input: { reason: 'clear' } },
  ],
  ['Claude Stop', { ...claude, hook_event_name: 'Stop', stop_hook_active: false }, { event: 'Stop', ok: null }],
  [
    'Claude subagent',
    {
      ...claude,
      hook_event_name: 'PostToolUse',
      agent_id: 'a7',
      agent_type: 'Explore',
      tool_name: 'Glob',
      tool_input: {},
      tool_response: {},
    },
    { subagent: 'Explore' },
  ],
  [
    'Codex',
    {
      session_id: 'c1',
      turn_id: 't9',
      transcript_path: '/h/.codex/sessions/c1.jsonl',
      cwd: '/r',
      hook_event_name: 'PostToolUse',
      tool_name: 'shell',
      tool_input: { command: ['ls'] },
      tool_response: { exit_code: 2 },
    },
    { agent: 'codex', session: 'c1', tool: 'shell', ok: false },
  ],
  [
    'Cursor shell',
    {
      conversation_id: 'cv1',
      generation_id: 'g1',
      hook_event_name: 'afterShellExecution',
      command: 'npm test',
      output: 'ok',
      workspace_roots: ['/w'],
    },
    {
      agent: 'cursor',
      session: 'cv1',
      event: 'PostToolUse',
      tool: 'Shell',
      input: { command: 'npm test' },
      output: 'ok',
      ok: true,
      cwd: '/w',
    },
  ],
  [
    'Cursor prompt',
    { conversation_id: 'cv1', hook_event_name: 'beforeSubmitPrompt', prompt: 'stop', workspace_roots: ['/w'] },
    { agent: 'cursor', event: 'UserPromptSubmit', input: 'stop' },
  ],
  [
    'Cursor edit',
    {
      conversation_id: 'cv1',
      hook_event_name: 'afterFileEdit',
      file_path: '/w/a.ts',
      edits: [{ old_string: 'a', new_string: 'b' }],
    },
    { agent: 'cursor', tool: 'Edit', input: { file_path: '/w/a.ts' }, ok: true },
  ],
  [
    'Gemini AfterTool',
    {
      session_id: 'g1',
      cwd: '/r',
      hook_event_name: 'AfterTool',
      timestamp: '2026-01-01T00:00:00Z',
      tool_name: 'run_shell_command',
      tool_input: { command: 'ls' },
      tool_response: { error: 'boom' },
    },
    { agent: 'gemini', event: 'PostToolUse', tool: 'run_shell_command', ok: false, error: 'boom' },
  ],
  [
    'Gemini CLI 0.61 AfterTool of a failed shell command (the exit code only in llmContent)',
    {
      session_id: 'g1',
      transcript_path: '/h/.gemini/tmp/p/chats/s.jsonl',
      cwd: '/r',
      hook_event_name: 'AfterTool',
      tool_name: 'run_shell_command',
      tool_input: { command: 'false' },
      tool_response: {
        llmContent: 'Output: (empty)\nExit Code: 1\nProcess Group PGID: 7',
        returnDisplay: 'Command exited with code: 1',
      },
    },
    {
      agent: 'gemini',
      event: 'PostToolUse',
      tool: 'run_shell_command',
      ok: false,
      error: 'Output: (empty)\nExit Code: 1\nProcess Group PGID: 7',
    },
  ],
  [
    'Gemini SessionEnd (a name Claude Code shares; the transcript is under ~/.gemini)',
    {
      session_id: 'g1',
      transcript_path: '/h/.gemini/tmp/p/chats/s.jsonl',
      cwd: '/r',
      hook_event_name: 'SessionEnd',
      reason: 'exit',
    },
    { agent: 'gemini', event: 'SessionEnd', input: { reason: 'exit' } },
  ],
  [
    'Gemini BeforeAgent',
    { session_id: 'g1', hook_event_name: 'BeforeAgent', prompt: 'hi' },
    { agent: 'gemini', event: 'UserPromptSubmit', input: 'hi' },
  ],
  [
    'Copilot postToolUse',
    {
      timestamp: 1763700000000,
      cwd: '/r',
      toolName: 'bash',
      toolArgs: '{"command":"npm test"}',
      toolResult: { resultType: 'failure', textResultForLlm: 'FAIL' },
    },
    { agent: 'copilot', event: 'PostToolUse', tool: 'bash', input: { command: 'npm test' }, ok: false },
  ],
  [
    'Copilot prompt',
    { timestamp: 1763700000000, cwd: '/r', prompt: 'use pnpm' },
    { agent: 'copilot', event: 'UserPromptSubmit', input: 'use pnpm' },
  ],
  ['not an object', 42, { agent: 'claude-code', event: 'unknown' }],
])('%s', (_what, payload, expected) => {
  expect(mapAgentPayload(payload)).toMatchObject(expected)
})
