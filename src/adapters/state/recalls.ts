/**
 * What recall handed out and the next run has not decided yet: `<git-common-dir>/learn/recalls/<hash of the
 * session>.json`, a JSON array of PendingRecall (src/core/fix-outcomes.ts), replaced whole (write and rename), read
 * and replaced under `<that file>.lock`: one session's hooks run at once (parallel tool calls, subagents), and two
 * recalls that each read the list and wrote it back with their own names lost the other's. A session's file goes when
 * the session ends (capture at SessionEnd), or, for a session killed before it, once idle for PENDING_KEPT_MS
 * (sweepPendingRecalls).
 */
import { createHash } from 'node:crypto'
import { readFileSync, statSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { writeCacheFile } from './cache-file.js'
import { acquireLock, removeUnderLock } from './file-lock.js'
import { MAX_PENDING } from '../../core/fix-outcomes.js'
import type { PendingRecall } from '../../core/fix-outcomes.js'

const fileOf = (stateDir: string, session: string) =>
  join(stateDir, 'recalls', `${createHash('sha1').update(session).digest('hex').slice(0, 24)}.json`)

const isPending = (v: unknown): v is PendingRecall => {
  if (typeof v !== 'object' || v === null) return false
  const p = v as Record<string, unknown>
  return (
    typeof p['name'] === 'string' &&
    typeof p['session'] === 'string' &&
    typeof p['ts'] === 'string' &&
    (p['tool_use_id'] === null || typeof p['tool_use_id'] === 'string')
  )
}

/** The session's pending recalls; [] when there are none or the file is damaged. */
function readPendingRecalls(stateDir: string, session: string): PendingRecall[] {
  try {
    const v = JSON.parse(readFileSync(fileOf(stateDir, session), 'utf8')) as unknown
    return Array.isArray(v) ? v.filter(isPending).filter((p) => p.session === session) : []
  } catch {
    return []
  }
}

/** Replace the session's pending recalls (none: the file is removed). Returns whether it worked. */
function writePendingRecalls(stateDir: string, session: string, pending: readonly PendingRecall[]): boolean {
  if (pending.length) return writeCacheFile(fileOf(stateDir, session), JSON.stringify(pending))
  try {
    unlinkSync(fileOf(stateDir, session))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return false
  }
  return true
}

/** How long a hook waits for another of the session's to finish with the list (ms): each holds it for a read and a write. */
const LOCK_WAIT_MS = 1000
/** A lock older than this was left by a process killed while it held it (ms). */
const STALE_LOCK_MS = 10_000

/** Take the session's lock (file-lock.ts); its release, or undefined when it could not be had in time (go on without). */
function lockSession(file: string): (() => void) | undefined {
  try {
    const lock = acquireLock(`${file}.lock`, { waitMs: LOCK_WAIT_MS, staleMs: STALE_LOCK_MS })
    return lock && (() => lock.release())
  } catch {
    return undefined // no lock can be made here (a read-only state dir): the update goes on without one
  }
}

/**
 * Read the session's pending recalls, and replace them with what `update` returns, under the session's lock (without
 * it after LOCK_WAIT_MS: a hook never waits long). Returns whether they were saved.
 */
export function updatePendingRecalls(
  stateDir: string,
  session: string,
  update: (pending: PendingRecall[]) => readonly PendingRecall[],
): boolean {
  const release = lockSession(fileOf(stateDir, session))
  try {
    return writePendingRecalls(stateDir, session, update(readPendingRecalls(stateDir, session)))
  } finally {
    release?.()
  }
}

/** Remember that recall handed `names` out for a failed call of `session`. */
export function addPendingRecalls(
  stateDir: string,
  session: string,
  toolUseId: string | null,
  names: readonly string[],
  now: Date,
): void {
  if (!names.length) return
  const ts = now.toISOString()
  const fresh: PendingRecall[] = names.map((name) => ({ name, session, tool_use_id: toolUseId, ts }))
  updatePendingRecalls(stateDir, session, (pending) => [...pending, ...fresh].slice(-MAX_PENDING))
}

/**
 * How long a session's pending recalls are kept after the file was last written (a recall added, or a capture of the
 * session): Claude Code's default retention of a session's transcript (`cleanupPeriodDays`, 30 days without use), past
 * which the session cannot be resumed unless that setting was raised. A session killed before its SessionEnd leaves
 * its file; one resumed after that long only loses the outcomes of the fixes still pending, as a SessionEnd would.
 */
export const PENDING_KEPT_MS = 30 * 24 * 3_600_000

/**
 * Remove the pending-recalls file `file` (`recalls/<key>.json`) once it was not written for PENDING_KEPT_MS, under
 * the session's lock and judged again there (a recall of the session adding to it now keeps it). Returns whether it
 * was removed; never throws.
 */
export function sweepPendingRecalls(file: string, now: number): boolean {
  return removeUnderLock(file, `${file}.lock`, STALE_LOCK_MS, () => {
    const st = statSync(file, { throwIfNoEntry: false })
    return st?.isFile() === true && now - st.mtimeMs >= PENDING_KEPT_MS
  })
}
