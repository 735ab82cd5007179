/**
 * Per-fix outcomes (src/core/fix-outcomes.ts) on disk: the recall hook adds what it handed out to the session's
 * pending recalls (adapters/state/recalls.ts); the transcript capture feeds the records it just read and appends a success or failure usage
 * event for each recall they decide.
 */
import { appendEvent } from '../adapters/state/events.js'
import type { RepoLocation } from '../adapters/state/observations.js'
import { updatePendingRecalls } from '../adapters/state/recalls.js'
import { resolveFixOutcomes } from '../core/fix-outcomes.js'
import type { OutcomeRecord } from '../core/fix-outcomes.js'
import type { ObservedEvent } from '../core/observation.js'

const toRecord = (ts: string, e: ObservedEvent): OutcomeRecord => ({
  ts,
  agent: e.agent,
  session: e.session ?? 'unknown',
  event: e.event,
  tool: e.tool,
  tool_use_id: e.tool_use_id,
  input: e.input,
  output: e.output,
  error: e.error,
  ok: e.ok,
})

/**
 * Decide the pending recalls of the sessions in `events`; those of `endedSession` (a SessionEnd) are dropped after.
 * Warnings for what could not be saved.
 */
export function resolveRecallOutcomes(
  loc: RepoLocation,
  events: readonly { ts: string; event: ObservedEvent }[],
  endedSession: string | null,
): string[] {
  const warnings: string[] = []
  const sessions = new Set(events.map((e) => e.event.session).filter((s): s is string => s !== null))
  if (endedSession) sessions.add(endedSession)
  for (const session of sessions) {
    // Under the session's lock: a recall of the same session running now adds to the list, never loses or is lost.
    const saved = updatePendingRecalls(loc.stateDir, session, (pending) => {
      if (!pending.length) return pending
      const records = events.filter((e) => e.event.session === session).map((e) => toRecord(e.ts, e.event))
      const { outcomes, pending: left } = resolveFixOutcomes(pending, records, session === endedSession)
      for (const o of outcomes)
        appendEvent(loc.commonDir, { ts: o.ts, kind: o.kind, name: o.name, session: o.session, note: o.note })
      return left
    })
    if (!saved) warnings.push(`pending recalls of session ${session} could not be saved`)
  }
  return warnings
}
