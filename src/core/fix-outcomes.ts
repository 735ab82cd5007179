/**
 * Per-fix success rates: when recall hands a learning out for a failed call, the agent's next run of the same call
 * (the same command, or the same test runner) decides it — passed: a success for the learning; failed with the same
 * error: a failure; failed otherwise: not decided yet (the fix moved the error on). Pure: the recall hook records what
 * it handed out (a PendingRecall), the transcript capture feeds the session's records in order.
 */
import { callKey, commandOf, errorTrigger, failureText, isToolResult, testRunnerOf } from './retro/records.js'
import type { RetroRecord } from './retro/records.js'

/** What recall handed out for a failure, until the next run of the same call decides it. */
export interface PendingRecall {
  name: string
  session: string
  /** The failed call's id: outcomes are looked for after it. Null when the agent gives none (then after `ts`). */
  tool_use_id: string | null
  ts: string
  /** "The same call" (records.ts callKey) and its test runner, once the failed call was seen. */
  key?: string
  runner?: string | null
  /** The failed call's error line (records.ts errorTrigger). */
  trigger?: string
}

export interface FixOutcome {
  name: string
  kind: 'success' | 'failure'
  session: string
  ts: string
  /** The run that decided it. */
  note: string
}

/** Pending recalls kept per session at most (the oldest go first). */
export const MAX_PENDING = 50

/** The record view the outcome rule reads, from an observed event. */
export interface OutcomeRecord extends RetroRecord {
  tool_use_id: string | null
}

/** Decide what the records decide, in order; the recalls still open come back (none once the session ended). */
export function resolveFixOutcomes(
  pending: readonly PendingRecall[],
  records: readonly OutcomeRecord[],
  sessionEnded: boolean,
): { outcomes: FixOutcome[]; pending: PendingRecall[] } {
  const open = pending.map((p) => ({ ...p }))
  const outcomes: FixOutcome[] = []
  for (const r of records) {
    if (!isToolResult(r)) continue
    for (let i = 0; i < open.length; i++) {
      const p = open[i] as PendingRecall
      if (p.session !== r.session) continue
      if (p.key === undefined) {
        // The failed call itself: what "the same call" and "the same way" mean for this recall.
        if (p.tool_use_id !== null ? r.tool_use_id === p.tool_use_id : r.ts >= p.ts && r.ok === false) {
          const cmd = commandOf(r)
          p.key = callKey(r)
          p.runner = cmd ? (testRunnerOf(cmd) ?? null) : null
          p.trigger = errorTrigger(failureText(r))
        }
        continue
      }
      if (r.tool_use_id !== null && r.tool_use_id === p.tool_use_id) continue
      const cmd = commandOf(r)
      const same = callKey(r) === p.key || (p.runner != null && cmd !== undefined && testRunnerOf(cmd) === p.runner)
      if (!same) continue
      const note = (cmd ?? r.tool ?? '').slice(0, 200)
      if (r.ok) outcomes.push({ name: p.name, kind: 'success', session: p.session, ts: r.ts, note })
      else if (errorTrigger(failureText(r)) === p.trigger)
        outcomes.push({ name: p.name, kind: 'failure', session: p.session, ts: r.ts, note })
      else continue
      open.splice(i--, 1)
    }
  }
  return { outcomes, pending: sessionEnded ? [] : open.slice(-MAX_PENDING) }
}
