import { mapAgentPayload } from '../../adapters/agents/agent-payloads.js'
import { appendObservation, locateRepo, logObserveError, readObserveSettings } from '../../adapters/state/observations.js'
import { buildObservationRecord, formatObservationLine, isIgnoredTool, salvagePayload } from '../../core/observation.js'
import type { ObservationRecord, ObserveSettings } from '../../core/observation.js'
import { redactSecrets } from '../../core/secrets.js'
import { ExitCode, MAX_STDIN_BYTES } from '../context.js'
import type { Ctx } from '../context.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'observe',
  hook: true,
  summary: 'Agent hook: record one tool call or session event (JSON on stdin) as a line of <git-common-dir>/learn/observations.jsonl.',
  usage: 'git learn observe   (reads the hook payload on stdin)',
  details:
    'Registered by `git learn init --agent claude` for every hook event. The event comes from the payload\'s\n' +
    'hook_event_name; the agent (Claude Code, Codex, Cursor, Gemini CLI, Copilot CLI) from its shape. Fields are\n' +
    'cut to observe.max_field_bytes and secrets are redacted before anything is written. It prints nothing and\n' +
    'always exits 0; problems go to <git-common-dir>/learn/observe.log.',
  options: {},
}

/**
 * Why a payload is not JSON, without the payload: V8's message quotes the text around the fault (`Unexpected token
 * 'x', "…" is not valid JSON`), and that text can hold anything the agent saw. Only the position is kept.
 */
export function describeJsonError(message: string): string {
  const at = /position (\d+)|line (\d+) column (\d+)/.exec(message)
  if (at?.[1] !== undefined) return `payload is not JSON (at position ${at[1]})`
  if (at?.[2] !== undefined) return `payload is not JSON (at line ${at[2]} column ${at[3]})`
  return /end of (?:JSON )?input/i.test(message) ? 'payload is not JSON (it ends too early)' : 'payload is not JSON'
}

/** The record for a payload, or undefined when it is to be skipped (settings); pure apart from its arguments. */
export function planObservation(bytes: Buffer, settings: ObserveSettings, ts: string): ObservationRecord | undefined {
  const redact = (s: string) => redactSecrets(s, { allow: settings.secrets_allow })
  const opts = { ts, maxFieldBytes: settings.max_field_bytes, redact }
  const cut = bytes.length > MAX_STDIN_BYTES
  const text = bytes.subarray(0, MAX_STDIN_BYTES).toString('utf8')
  let payload: unknown
  let parseError: string | undefined
  if (cut) parseError = `payload larger than ${MAX_STDIN_BYTES} bytes; only its first bytes were read`
  else {
    try {
      payload = JSON.parse(text)
    } catch (err) {
      parseError = describeJsonError((err as Error).message)
    }
  }
  if (parseError !== undefined) {
    const { fields, excerpt } = salvagePayload(text, Math.min(1024, settings.max_field_bytes))
    return buildObservationRecord(
      {
        agent: 'unknown',
        session: fields['session_id'] ?? fields['sessionId'] ?? null,
        event: fields['hook_event_name'] ?? fields['hookEventName'] ?? 'unknown',
        tool: fields['tool_name'] ?? fields['toolName'] ?? null,
        tool_use_id: fields['tool_use_id'] ?? null,
        input: excerpt,
        ok: null,
        cwd: fields['cwd'] ?? null,
      },
      { ...opts, maxFieldBytes: Math.min(1024, settings.max_field_bytes), parseError },
    )
  }
  const ev = mapAgentPayload(payload)
  if (isIgnoredTool(ev.tool, settings.ignore_tools)) return undefined
  if (settings.skip_subagents && ev.subagent) return undefined
  return buildObservationRecord(ev, opts)
}

export async function run(_args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const now = ctx.now()
  let stateDir: string | undefined
  try {
    const loc = await locateRepo(ctx.cwd, ctx.env)
    if (!loc) return ExitCode.ok
    stateDir = loc.stateDir
    const settings = await readObserveSettings(loc, (m) => logObserveError(stateDir, m, now))
    if (!settings.enabled) return ExitCode.ok
    const bytes = await ctx.readStdin()
    if (bytes.length === 0 || (bytes.length < 4096 && bytes.toString('latin1').trim() === '')) {
      logObserveError(stateDir, 'empty payload on stdin; nothing recorded', now)
      return ExitCode.ok
    }
    const record = planObservation(bytes, settings, now.toISOString())
    if (!record) return ExitCode.ok
    if (record.parse_error) logObserveError(stateDir, `${record.parse_error} (recorded with an excerpt)`, now)
    appendObservation(stateDir, formatObservationLine(record), settings.rotate_bytes, now)
  } catch (err) {
    logObserveError(stateDir, `observe failed: ${(err as Error).stack ?? String(err)}`, now)
  }
  return ExitCode.ok
}
