/**
 * What recall handed out and the next run has not decided yet: `<git-common-dir>/learn/recalls/<hash of the
 * session>.json`, a JSON array of PendingRecall (src/core/fix-outcomes.ts), replaced whole (write and rename).
 */
import { createHash } from 'node:crypto'
import { readFileSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { writeCacheFile } from './cache-file.js'
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
export function readPendingRecalls(stateDir: string, session: string): PendingRecall[] {
  try {
    const v = JSON.parse(readFileSync(fileOf(stateDir, session), 'utf8')) as unknown
    return Array.isArray(v) ? v.filter(isPending).filter((p) => p.session === session) : []
  } catch {
    return []
  }
}

/** Replace the session's pending recalls (none: the file is removed). Returns whether it worked. */
export function writePendingRecalls(stateDir: string, session: string, pending: readonly PendingRecall[]): boolean {
  if (pending.length) return writeCacheFile(fileOf(stateDir, session), JSON.stringify(pending))
  try {
    unlinkSync(fileOf(stateDir, session))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return false
  }
  return true
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
  writePendingRecalls(stateDir, session, [...readPendingRecalls(stateDir, session), ...fresh].slice(-MAX_PENDING))
}
