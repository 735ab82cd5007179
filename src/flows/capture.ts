/**
 * Transcript capture: the Stop, SubagentStop, PreCompact and SessionEnd hook. Reads the agent's transcript from
 * where the last read of it stopped and appends the observation records of what it holds (prompts, and every tool
 * call with its input and result) in transcript order, then a record of the hook event itself. No printing; every
 * problem is a warning for the hooks log, never an exception out of here (apart from bugs).
 */
import { mapAgentPayload } from '../adapters/agents/agent-payloads.js'
import { appendObservations, linesAlreadyWritten, locateRepo } from '../adapters/state/observations.js'
import { readObserveSettings } from '../adapters/store/config.js'
import type { RepoLocation } from '../adapters/state/observations.js'
import {
  lockTranscript,
  readTranscriptLines,
  readTranscriptState,
  unreadState,
  writeTranscriptState,
} from '../adapters/state/transcripts.js'
import { buildObservationRecord, formatObservationLine, isIgnoredTool } from '../core/observation.js'
import type { ObservedEvent, ObserveSettings } from '../core/observation.js'
import { scanSecrets } from '../core/secrets.js'
import { readTranscriptLine } from '../core/transcript.js'
import type { TranscriptCursor } from '../core/transcript.js'
import { resolveRecallOutcomes } from './fix-outcomes.js'

export interface CaptureResult {
  /** The repository's state dir, or undefined outside a repository (nothing done). */
  stateDir?: string
  /** Records appended from the transcript (the hook event's own record not counted). */
  records: number
  warnings: string[]
}

type Payload = Record<string, unknown>
/** Agents' transcripts are absolute paths to JSON Lines files; anything else a payload names is not read. */
const TRANSCRIPT_NAME = /^(?:\/|[A-Za-z]:[\\/]).*\.jsonl$/
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null)

function recordLine(ev: ObservedEvent, ts: string, settings: ObserveSettings): string | undefined {
  if (isIgnoredTool(ev.tool, settings.ignore_tools)) return undefined
  if (settings.skip_subagents && ev.subagent) return undefined
  const scan = (s: string) => scanSecrets(s, { allow: settings.secrets_allow })
  return formatObservationLine(buildObservationRecord(ev, { ts, maxFieldBytes: settings.max_field_bytes, scan }))
}

/** Read one transcript's new lines into records; warnings for what could not be read. */
function captureTranscript(
  loc: RepoLocation,
  path: string,
  payload: Payload,
  settings: ObserveSettings,
  warnings: string[],
):
  | {
      lines: string[]
      events: { ts: string; event: ObservedEvent }[]
      /** Say that these lines' records are being appended (a kill from here on is found by the next capture). */
      begin(): void
      finish(save: boolean): void
    }
  | undefined {
  const lock = lockTranscript(loc.stateDir, path)
  if (!lock) {
    warnings.push(`${path}: another capture of this transcript is still running; its new lines are read next time`)
    return undefined
  }
  let release = true
  try {
    const saved = readTranscriptState(loc.stateDir, path)
    let read
    try {
      read = readTranscriptLines(path, saved)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      warnings.push(
        code === 'ENOENT'
          ? `transcript ${path} does not exist (moved or deleted?); nothing read from it`
          : `transcript ${path} could not be read: ${(err as Error).message}`,
      )
      return undefined
    }
    if (read.reread)
      warnings.push(
        `transcript ${path} is not the file read before (rotated, truncated or rewritten): read again from its start, skipping what was already recorded`,
      )
    if (read.oversized) warnings.push(`transcript ${path}: ${read.oversized} line(s) over 16 MB skipped`)
    if (read.more) warnings.push(`transcript ${path}: more than 256 MB new; the rest is read by the next capture`)
    const subagent =
      payload['hook_event_name'] === 'SubagentStop' ? (str(payload['agent_type']) ?? str(payload['agent_id'])) : null
    const opts = { agent: 'claude-code', session: str(payload['session_id']), subagent, reread: read.reread }
    let cursor: TranscriptCursor = read.next.cursor
    const events: { ts: string; event: ObservedEvent }[] = []
    const lines: string[] = []
    let entries = 0
    let corrupt = 0
    for (const text of read.lines) {
      const r = readTranscriptLine(text, cursor, opts)
      cursor = r.cursor
      if (r.result.shape === 'entry') entries++
      else if (r.result.shape === 'corrupt') corrupt++
      for (const e of r.result.events) {
        events.push(e)
        const line = recordLine(e.event, e.ts, settings)
        if (line) lines.push(line)
      }
    }
    if (read.interrupted) {
      // The last capture was killed between appending these records and saving its read position.
      const done = linesAlreadyWritten(loc.stateDir, lines)
      if (done)
        warnings.push(
          `transcript ${path}: ${done} record(s) written by an interrupted capture are in the log already; not written again`,
        )
      lines.splice(0, done)
    }
    if (corrupt) warnings.push(`transcript ${path}: ${corrupt} line(s) are not JSON objects (torn or foreign), skipped`)
    if (read.lines.length >= 5 && entries === 0)
      warnings.push(
        `transcript ${path}: none of ${read.lines.length} new lines has a shape git learn reads (user/assistant messages); is it Claude Code's transcript, and has its format changed?`,
      )
    release = false
    return {
      lines,
      events,
      begin() {
        // Best effort: without the mark (a read-only git dir) a kill costs duplicates, as before it existed.
        if (lines.length) writeTranscriptState(loc.stateDir, { ...(saved ?? unreadState(read.next)), appending: true })
      },
      finish(save) {
        try {
          if (save && !writeTranscriptState(loc.stateDir, { ...read.next, cursor }))
            warnings.push(
              `transcript ${path}: its read position could not be saved (a read-only or full git dir?); the next capture reads these lines again`,
            )
        } finally {
          lock.release()
        }
      },
    }
  } finally {
    if (release) lock.release()
  }
}

/** Capture the transcript named by a hook payload (see the module comment). */
export async function runCapture(
  bytes: Buffer,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
  now: Date,
): Promise<CaptureResult> {
  const warnings: string[] = []
  let payload: Payload
  try {
    const v = JSON.parse(bytes.toString('utf8')) as unknown
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not a JSON object')
    payload = v as Payload
  } catch {
    // V8's message quotes the payload around the fault: the log says only that it is not JSON.
    const loc = await locateRepo(cwd, env)
    return {
      ...(loc ? { stateDir: loc.stateDir } : {}),
      records: 0,
      warnings: ['the hook payload is not a JSON object; nothing captured'],
    }
  }
  // The repository is the hook's working directory, as for observe: a payload never points the records elsewhere.
  const loc = await locateRepo(cwd, env)
  if (!loc) return { records: 0, warnings }
  const settings = await readObserveSettings(loc.root, loc.commonDir, (m) => warnings.push(m))
  if (!settings.enabled) return { stateDir: loc.stateDir, records: 0, warnings }
  const event = str(payload['hook_event_name']) ?? 'unknown'
  const path =
    event === 'SubagentStop' ? (str(payload['agent_transcript_path']) ?? null) : str(payload['transcript_path'])
  let records = 0
  if (path && !TRANSCRIPT_NAME.test(path))
    warnings.push(
      `the ${event} payload names ${path.slice(0, 300)}, not an absolute path to a .jsonl transcript; not read`,
    )
  else if (path) {
    const got = captureTranscript(loc, path, payload, settings, warnings)
    if (got) {
      // The read position moves only once the records are on disk: a failed append is read again next time.
      let written = false
      try {
        got.begin()
        appendObservations(loc.stateDir, got.lines, settings.rotate_bytes, now)
        written = true
        records = got.lines.length
      } finally {
        got.finish(written)
      }
      warnings.push(
        ...resolveRecallOutcomes(loc, got.events, event === 'SessionEnd' ? str(payload['session_id']) : null),
      )
    }
  } else if (event !== 'SubagentStop')
    warnings.push(
      `the ${event} payload names no transcript_path; only the event is recorded (use the per-call observe hooks for this agent)`,
    )
  const own = recordLine(mapAgentPayload(payload), now.toISOString(), settings)
  if (own) appendObservations(loc.stateDir, [own], settings.rotate_bytes, now)
  return { stateDir: loc.stateDir, records, warnings }
}
