/**
 * Claude Code's session transcript → observed events, in transcript order. Pure: the adapter reads the lines from
 * where the last read stopped and hands them over one at a time with the reader's saved state.
 *
 * The transcript (`transcript_path` in every hook payload; `~/.claude/projects/<project>/<session>.jsonl`) is one
 * JSON object a line. The lines read here (Claude Code 2.1.x; other lines are other kinds of entries and are passed
 * over):
 *
 *   {"type":"user","uuid":…,"timestamp":"2026-11-24T21:48:51.906Z","sessionId":…,"cwd":…,"isSidechain":false,
 *    "message":{"role":"user","content":"please list files"}}                                  ← a prompt
 *   {"type":"assistant",…,"message":{"content":[{"type":"tool_use","id":"toolu_…","name":"Bash",
 *    "input":{"command":"ls"}}]}}                                                              ← a tool call
 *   {"type":"user",…,"message":{"content":[{"type":"tool_result","tool_use_id":"toolu_…","content":"Exit code 3",
 *    "is_error":true}]},"toolUseResult":"Error: Exit code 3"}                                  ← its result
 *
 * `toolUseResult` is the tool's structured result (for Bash `{stdout, stderr, interrupted}`, the same value a
 * PostToolUse hook gets as `tool_response`). Lines with `isMeta` are Claude Code's own notes, not the user's words.
 */
import type { ObservedEvent } from './observation.js'

/** A tool call seen in the transcript whose result has not been read yet. */
export interface OpenCall {
  tool: string
  input: unknown
}

/** What a reader keeps between two reads of one transcript. */
export interface TranscriptCursor {
  /** Tool calls without a result yet, by tool_use_id (a turn's results can come in a later read). */
  open: Record<string, OpenCall>
  /** The newest entry time read so far, and the ids of the entries read at that time (to skip them on a re-read). */
  lastTs: string | null
  lastIds: string[]
}

export const EMPTY_CURSOR: TranscriptCursor = Object.freeze({ open: {}, lastTs: null, lastIds: [] }) as TranscriptCursor

/** Claude Code's tool result for a call the user refused with a reason ("… To tell you how to proceed, the user said:\n…"). */
const REFUSAL = /^The user doesn't want to proceed with this tool use\b[\s\S]*?the user said:\s*([\s\S]+)$/

/** At most this many open calls are kept (a transcript that never answers its calls does not grow the state). */
const MAX_OPEN = 200
const MAX_LAST_IDS = 200

export interface TranscriptEvent {
  ts: string
  event: ObservedEvent
}

export interface TranscriptLineResult {
  events: TranscriptEvent[]
  /** 'entry': a line of a known kind; 'other': JSON of another kind; 'corrupt': not a JSON object. */
  shape: 'entry' | 'other' | 'corrupt'
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null)

/** The text of a tool_result's content: a string, or text blocks joined. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((b) => (isObj(b) && typeof b['text'] === 'string' ? b['text'] : ''))
    .filter(Boolean)
    .join('\n')
}

/** Failure signals inside a structured result (a non-zero exit code, success: false). */
function structuredFailed(r: unknown): boolean {
  if (!isObj(r)) return false
  const code = r['exit_code'] ?? r['exitCode'] ?? r['returncode']
  return (typeof code === 'number' && code !== 0) || r['success'] === false || r['is_error'] === true
}

/** A prompt the user typed: not a tool result, not Claude Code's own note or its interruption marker. */
function promptText(content: unknown): string | null {
  let text: string | null = null
  if (typeof content === 'string') text = content
  else if (Array.isArray(content)) {
    if (content.some((b) => isObj(b) && b['type'] === 'tool_result')) return null
    text = content
      .map((b) => (isObj(b) && b['type'] === 'text' && typeof b['text'] === 'string' ? b['text'] : ''))
      .filter(Boolean)
      .join('\n')
  }
  if (!text || !text.trim() || /^\[Request interrupted by user/.test(text)) return null
  return text
}

/**
 * Read one transcript line: the events it holds (a prompt, or the results of tool calls, each with its call's
 * tool and input), and the updated cursor. `skipUpTo` (a re-read of a transcript read before) skips the entries
 * at or before the cursor's last time that were already read.
 */
export function readTranscriptLine(
  line: string,
  cursor: TranscriptCursor,
  opts: { agent: string; session: string | null; subagent?: string | null; reread?: boolean },
): { result: TranscriptLineResult; cursor: TranscriptCursor } {
  let o: unknown
  try {
    o = JSON.parse(line)
  } catch {
    return { result: { events: [], shape: 'corrupt' }, cursor }
  }
  if (!isObj(o)) return { result: { events: [], shape: 'corrupt' }, cursor }
  const type = o['type']
  const message = o['message']
  if ((type !== 'user' && type !== 'assistant') || !isObj(message))
    return { result: { events: [], shape: 'other' }, cursor }
  const ts = str(o['timestamp'])
  const id = str(o['uuid']) ?? ''
  if (!ts) return { result: { events: [], shape: 'other' }, cursor }
  if (
    opts.reread &&
    cursor.lastTs !== null &&
    (ts < cursor.lastTs || (ts === cursor.lastTs && cursor.lastIds.includes(id)))
  )
    return { result: { events: [], shape: 'entry' }, cursor }
  const next: TranscriptCursor = {
    open: cursor.open,
    lastTs: cursor.lastTs === null || ts > cursor.lastTs ? ts : cursor.lastTs,
    lastIds:
      cursor.lastTs === null || ts > cursor.lastTs
        ? [id]
        : ts === cursor.lastTs
          ? [...cursor.lastIds, id].slice(-MAX_LAST_IDS)
          : cursor.lastIds,
  }
  const base = {
    agent: opts.agent,
    session: str(o['sessionId']) ?? opts.session,
    cwd: str(o['cwd']),
    ...(opts.subagent ? { subagent: opts.subagent } : {}),
  }
  const content = message['content']
  const events: TranscriptEvent[] = []
  if (type === 'assistant') {
    if (Array.isArray(content)) {
      const open = { ...next.open }
      for (const b of content) {
        if (!isObj(b) || b['type'] !== 'tool_use' || !str(b['id'])) continue
        open[b['id'] as string] = { tool: str(b['name']) ?? 'unknown', input: b['input'] }
      }
      const ids = Object.keys(open)
      for (const k of ids.slice(0, Math.max(0, ids.length - MAX_OPEN))) delete open[k]
      next.open = open
    }
    return { result: { events, shape: 'entry' }, cursor: next }
  }
  if (o['isMeta'] === true) return { result: { events, shape: 'entry' }, cursor: next }
  const prompt = promptText(content)
  if (prompt !== null) {
    events.push({
      ts,
      event: { ...base, event: 'UserPromptSubmit', tool: null, tool_use_id: null, input: prompt, ok: null },
    })
    return { result: { events, shape: 'entry' }, cursor: next }
  }
  if (!Array.isArray(content)) return { result: { events, shape: 'entry' }, cursor: next }
  const structured = o['toolUseResult']
  const results = content.filter((b): b is Obj => isObj(b) && b['type'] === 'tool_result')
  let open = next.open
  for (const b of results) {
    const useId = str(b['tool_use_id'])
    const call = useId ? open[useId] : undefined
    if (useId && call) {
      open = { ...open }
      delete open[useId]
    }
    const failed = b['is_error'] === true || (results.length === 1 && structuredFailed(structured))
    const text = resultText(b['content'])
    const ev: ObservedEvent = {
      ...base,
      event: failed ? 'PostToolUseFailure' : 'PostToolUse',
      tool: call?.tool ?? null,
      tool_use_id: useId,
      input: call?.input,
      ok: !failed,
    }
    if (failed) ev.error = text
    else
      ev.output = results.length === 1 && structured !== undefined && typeof structured !== 'string' ? structured : text
    events.push({ ts, event: ev })
    // The user refused the call and said why: their words, right after the agent's action.
    const reason = failed ? REFUSAL.exec(text)?.[1]?.trim() : undefined
    if (reason)
      events.push({
        ts,
        event: { ...base, event: 'UserPromptSubmit', tool: null, tool_use_id: null, input: reason, ok: null },
      })
  }
  next.open = open
  return { result: { events, shape: 'entry' }, cursor: next }
}
