/**
 * The recall hook's decisions, kept free of minisearch so the no-failure path of a PostToolUse hook loads almost
 * nothing: did the tool fail, and what is its error text. The ranking and its threshold are in recall-rank.ts.
 */
import { FAILING_RUN } from './recall-gate.js'

export interface HookPayload {
  session_id?: unknown
  cwd?: unknown
  hook_event_name?: unknown
  tool_name?: unknown
  tool_input?: unknown
  tool_response?: unknown
  tool_use_id?: unknown
  error?: unknown
}

export interface ToolFailure {
  event: string
  session: string | null
  tool: string | null
  /** The failed call's id (its outcome is the next run of the same call: src/core/fix-outcomes.ts). */
  tool_use_id: string | null
  /** The error text to look up (at most MAX_ERROR_TEXT characters). */
  text: string
}

const MAX_ERROR_TEXT = 256 * 1024

const s = (v: unknown): string | null => (typeof v === 'string' && v ? v : null)

function textOf(v: unknown): string {
  if (typeof v === 'string') return v
  if (v === null || v === undefined) return ''
  try {
    return JSON.stringify(v)
  } catch {
    return ''
  }
}

/** The exit code in the text of a Gemini CLI shell result ("Exit Code: 1"), or undefined. */
function geminiExitCode(v: unknown): number | undefined {
  const m = typeof v === 'string' ? /(?:^|\n)Exit Code: (-?\d+)/.exec(v) : null
  return m ? Number(m[1]) : undefined
}

/** The failure a hook payload reports, or undefined when the tool succeeded (or the payload is not one). */
export function detectToolFailure(payload: unknown): ToolFailure | undefined {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return undefined
  const p = payload as HookPayload
  const event = s(p.hook_event_name) ?? 'PostToolUse'
  // The payload's cwd is not kept: recall reads the hook's own repository (adapters/feed/recall.ts).
  const base = { event, session: s(p.session_id), tool: s(p.tool_name), tool_use_id: s(p.tool_use_id) }
  const cut = (t: string) => (t.length > MAX_ERROR_TEXT ? t.slice(-MAX_ERROR_TEXT) : t)
  const error = textOf(p.error)
  const r =
    p.tool_response && typeof p.tool_response === 'object' && !Array.isArray(p.tool_response)
      ? (p.tool_response as Record<string, unknown>)
      : undefined
  // Gemini CLI's tool_response is {llmContent, returnDisplay, error?}; a failed shell command says "Exit Code: N" there.
  const out = r
    ? [textOf(r['stderr']), textOf(r['stdout']), textOf(r['error']), textOf(r['output']), textOf(r['llmContent'])]
        .filter(Boolean)
        .join('\n')
    : textOf(p.tool_response)
  if (event === 'PostToolUseFailure' || error) return { ...base, text: cut([error, out].filter(Boolean).join('\n')) }
  if (!r) return FAILING_RUN.test(out) ? { ...base, text: cut(out) } : undefined
  const code = r['exit_code'] ?? r['exitCode'] ?? r['returncode'] ?? r['code'] ?? geminiExitCode(r['llmContent'])
  const failed =
    (typeof code === 'number' && code !== 0) ||
    r['interrupted'] === true ||
    r['is_error'] === true ||
    r['success'] === false ||
    FAILING_RUN.test(out)
  return failed && out.trim() ? { ...base, text: cut(out) } : undefined
}
