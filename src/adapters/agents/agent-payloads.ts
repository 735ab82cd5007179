/**
 * Agent hook payloads → one `ObservedEvent`. One adapter per agent, chosen from the payload's shape (never from
 * an argument): Claude Code fully; Codex, Cursor, Gemini CLI and Copilot CLI best effort. Tool names are kept as
 * the agent sends them; the retrospective maps them to kinds (shell, edit) with its own table.
 *
 * Claude Code (code.claude.com/docs/en/hooks, "hook input"): every event has session_id, transcript_path, cwd,
 * permission_mode, hook_event_name, and agent_id/agent_type inside a subagent. PreToolUse adds tool_name,
 * tool_input, tool_use_id; PostToolUse adds tool_response; PostToolUseFailure adds error (and is_interrupt);
 * UserPromptSubmit adds prompt; SessionStart adds source; SessionEnd adds reason; Stop adds stop_hook_active.
 */
import type { ObservedEvent } from '../../core/observation.js'

type Payload = Record<string, unknown>

export interface AgentAdapter {
  agent: string
  /** Does this payload come from this agent? Tried in table order. */
  matches(p: Payload): boolean
  map(p: Payload): ObservedEvent
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null)
const first = (...vs: unknown[]): unknown => vs.find((v) => v !== undefined && v !== null)

/** A JSON string argument (Copilot sends toolArgs as a string) parsed when it is one. */
function maybeJson(v: unknown): unknown {
  if (typeof v !== 'string' || !/^\s*[{[]/.test(v)) return v
  try {
    return JSON.parse(v) as unknown
  } catch {
    return v
  }
}

/** Failure signals inside a tool response that was reported as a normal PostToolUse. */
function responseFailed(r: unknown): boolean {
  if (typeof r !== 'object' || r === null) return false
  const o = r as Payload
  const code = first(o['exit_code'], o['exitCode'], o['returncode'])
  if (typeof code === 'number' && code !== 0) return true
  if (o['success'] === false || o['is_error'] === true || o['isError'] === true) return true
  return o['resultType'] === 'failure' || o['resultType'] === 'error'
}

/** Events that are tool results: ok is decided for them only. */
function resultOk(event: string, p: Payload, response: unknown): boolean | null {
  if (event === 'PostToolUseFailure') return false
  if (event === 'PostToolUse') return !(p['error'] !== undefined && p['error'] !== null) && !responseFailed(response)
  return null
}

function common(agent: string, p: Payload, event: string): ObservedEvent {
  return {
    agent,
    session: str(first(p['session_id'], p['sessionId'], p['conversation_id'], p['conversationId'])),
    event,
    tool: null,
    tool_use_id: null,
    ok: null,
    cwd: str(
      first(
        p['cwd'],
        Array.isArray(p['workspace_roots']) ? (p['workspace_roots'] as unknown[])[0] : undefined,
        p['working_directory'],
      ),
    ),
  }
}

function mapClaudeLike(agent: string, p: Payload, event: string): ObservedEvent {
  const ev = common(agent, p, event)
  ev.tool = str(p['tool_name'])
  ev.tool_use_id = str(p['tool_use_id'])
  const sub = str(first(p['agent_type'], p['agent_id']))
  if (sub) ev.subagent = sub
  if (p['tool_input'] !== undefined) ev.input = p['tool_input']
  else if (p['prompt'] !== undefined) ev.input = p['prompt']
  else if (event === 'SessionStart' && p['source'] !== undefined) ev.input = { source: p['source'] }
  else if (event === 'SessionEnd' && p['reason'] !== undefined) ev.input = { reason: p['reason'] }
  if (p['tool_response'] !== undefined) ev.output = p['tool_response']
  if (p['error'] !== undefined && p['error'] !== null) ev.error = p['error']
  ev.ok = resultOk(event, p, p['tool_response'])
  return ev
}

const GEMINI_EVENTS: Record<string, string> = {
  BeforeTool: 'PreToolUse',
  AfterTool: 'PostToolUse',
  BeforeAgent: 'UserPromptSubmit',
  AfterAgent: 'Stop',
  SessionStart: 'SessionStart',
  SessionEnd: 'SessionEnd',
}

const CURSOR_EVENTS: Record<string, string> = {
  beforeShellExecution: 'PreToolUse',
  afterShellExecution: 'PostToolUse',
  beforeMCPExecution: 'PreToolUse',
  afterMCPExecution: 'PostToolUse',
  beforeReadFile: 'PreToolUse',
  afterFileEdit: 'PostToolUse',
  beforeSubmitPrompt: 'UserPromptSubmit',
  preToolUse: 'PreToolUse',
  postToolUse: 'PostToolUse',
  postToolUseFailure: 'PostToolUseFailure',
  stop: 'Stop',
  sessionStart: 'SessionStart',
  sessionEnd: 'SessionEnd',
}

const COPILOT_EVENTS: Record<string, string> = {
  preToolUse: 'PreToolUse',
  postToolUse: 'PostToolUse',
  postToolUseFailure: 'PostToolUseFailure',
  userPromptSubmitted: 'UserPromptSubmit',
  sessionStart: 'SessionStart',
  sessionEnd: 'SessionEnd',
  agentStop: 'Stop',
  errorOccurred: 'Error',
}

const CLAUDE_EVENTS = new Set([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'UserPromptSubmit',
  'Stop',
  'SubagentStop',
  'SessionStart',
  'SessionEnd',
  'Notification',
  'PreCompact',
  'PermissionRequest',
])

/** A non-zero exit code in the text of a Gemini CLI shell result. */
const GEMINI_EXIT = /(?:^|\n)Exit Code: -?[1-9]\d*\b/

const eventName = (p: Payload) => str(first(p['hook_event_name'], p['hookEventName'])) ?? ''

export const AGENT_ADAPTERS: readonly AgentAdapter[] = [
  {
    // Cursor: conversation_id / generation_id / workspace_roots, camelCase event names.
    agent: 'cursor',
    matches: (p) =>
      p['conversation_id'] !== undefined || p['generation_id'] !== undefined || Array.isArray(p['workspace_roots']),
    map(p) {
      const raw = eventName(p)
      const event = CURSOR_EVENTS[raw] ?? raw
      const ev = common('cursor', p, event)
      if (/ShellExecution$/.test(raw)) {
        ev.tool = 'Shell'
        ev.input = { command: p['command'] }
        if (p['output'] !== undefined) ev.output = p['output']
      } else if (raw === 'afterFileEdit' || raw === 'beforeReadFile') {
        ev.tool = raw === 'afterFileEdit' ? 'Edit' : 'Read'
        ev.input = { file_path: p['file_path'] }
        if (p['edits'] !== undefined) ev.output = p['edits']
      } else if (raw === 'beforeSubmitPrompt') ev.input = p['prompt']
      else {
        ev.tool = str(p['tool_name'])
        if (p['tool_input'] !== undefined) ev.input = p['tool_input']
        const out = first(p['result_json'], p['tool_output'], p['tool_response'])
        if (out !== undefined) ev.output = maybeJson(out)
      }
      if (p['error'] !== undefined && p['error'] !== null) ev.error = p['error']
      ev.tool_use_id = str(first(p['tool_use_id'], p['generation_id']))
      const exit = p['exit_code'] ?? p['exitCode']
      ev.ok =
        event === 'PostToolUse'
          ? !(typeof exit === 'number' && exit !== 0) && ev.error === undefined
          : event === 'PostToolUseFailure'
            ? false
            : null
      return ev
    },
  },
  {
    // Copilot CLI: camelCase fields (toolName, toolArgs as a JSON string, toolResult.resultType), ms timestamps.
    agent: 'copilot',
    matches: (p) =>
      p['toolName'] !== undefined ||
      p['toolArgs'] !== undefined ||
      p['toolResult'] !== undefined ||
      (typeof p['timestamp'] === 'number' && p['hook_event_name'] === undefined),
    map(p) {
      const raw = eventName(p)
      const result = p['toolResult'] as Payload | undefined
      const event =
        COPILOT_EVENTS[raw] ??
        (raw ||
          (result !== undefined
            ? 'PostToolUse'
            : p['toolName'] !== undefined
              ? 'PreToolUse'
              : p['prompt'] !== undefined
                ? 'UserPromptSubmit'
                : p['source'] !== undefined
                  ? 'SessionStart'
                  : p['reason'] !== undefined
                    ? 'SessionEnd'
                    : 'unknown'))
      const ev = common('copilot', p, event)
      ev.tool = str(p['toolName'])
      if (p['toolArgs'] !== undefined) ev.input = maybeJson(p['toolArgs'])
      else if (p['prompt'] !== undefined) ev.input = p['prompt']
      if (result !== undefined) ev.output = result
      if (p['error'] !== undefined && p['error'] !== null) ev.error = p['error']
      ev.ok =
        event === 'PostToolUseFailure'
          ? false
          : event === 'PostToolUse'
            ? !responseFailed(result) && ev.error === undefined
            : null
      return ev
    },
  },
  {
    // Gemini CLI: BeforeTool/AfterTool/BeforeAgent/AfterAgent events, otherwise Claude-like fields.
    agent: 'gemini',
    // SessionStart/SessionEnd share Claude Code's names: told apart by the transcript under ~/.gemini.
    matches: (p) =>
      GEMINI_EVENTS[eventName(p)] !== undefined &&
      (!CLAUDE_EVENTS.has(eventName(p)) ||
        (typeof p['transcript_path'] === 'string' && /[/\\]\.gemini[/\\]/.test(p['transcript_path']))),
    map(p) {
      const ev = mapClaudeLike('gemini', p, GEMINI_EVENTS[eventName(p)] as string)
      const r = p['tool_response'] as Payload | undefined
      if (ev.event === 'PostToolUse' && r && typeof r === 'object' && r['error']) {
        ev.ok = false
        ev.error = r['error']
      } else if (
        ev.event === 'PostToolUse' &&
        r &&
        typeof r === 'object' &&
        typeof r['llmContent'] === 'string' &&
        GEMINI_EXIT.test(r['llmContent'])
      ) {
        // Gemini CLI 0.61's run_shell_command reports a failed command only in its text: "…\nExit Code: 1\n…".
        ev.ok = false
        ev.error = r['llmContent']
      }
      return ev
    },
  },
  {
    // Codex: Claude-like snake_case fields plus turn_id / a transcript under ~/.codex.
    agent: 'codex',
    matches: (p) =>
      p['turn_id'] !== undefined ||
      (typeof p['transcript_path'] === 'string' && /[/\\]\.codex[/\\]/.test(p['transcript_path'])),
    map: (p) => mapClaudeLike('codex', p, eventName(p) || 'unknown'),
  },
  {
    agent: 'claude-code',
    matches: () => true,
    map: (p) => mapClaudeLike('claude-code', p, eventName(p) || 'unknown'),
  },
]

/** Map a parsed payload with the first adapter whose shape matches. */
export function mapAgentPayload(payload: unknown): ObservedEvent {
  const p: Payload =
    typeof payload === 'object' && payload !== null && !Array.isArray(payload)
      ? (payload as Payload)
      : { value: payload }
  const adapter = AGENT_ADAPTERS.find((a) => a.matches(p)) as AgentAdapter
  return adapter.map(p)
}
