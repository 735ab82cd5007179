/**
 * The diagnostics logs of `<git-common-dir>/learn/` (`hooks.log`, `observe.log`): appended a line at a time by hooks
 * of any number of sessions and worktrees, and bounded: once a log has passed MAX_LOG_BYTES it is moved to
 * `<log>.1` (replacing the one before) and a new log begins, so a log and its previous part take at most about
 * 2 × MAX_LOG_BYTES however long a hook keeps failing. One `stat` per line appended; the file is never read. The move
 * is made under the state dir's `rotate.lock` (observations.ts) and only when the log is still past the bound: two
 * hooks that both saw a full log move it once, and the second never moves the new log over the part the first
 * moved. Imports node:fs and node:path and the lock: the observe hook's failure path uses it.
 */
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { acquireLock } from './file-lock.js'
import { STATE_FILES } from '../../core/layout.js'

/** A log is moved to `<log>.1` once it has reached this size. */
export const MAX_LOG_BYTES = 1024 * 1024
/** A rotate.lock older than this was left by a crashed process (observations.ts takes it over the same way). */
const STALE_LOCK_MS = 30_000

const sizeOf = (file: string) => statSync(file, { throwIfNoEntry: false })?.size ?? 0

/** Append `line` (one whole line, with its newline) to `<stateDir>/<name>`, moving a full log aside first. Throws. */
export function appendLogLine(stateDir: string, name: string, line: string, maxBytes = MAX_LOG_BYTES): void {
  const file = join(stateDir, name)
  if (sizeOf(file) >= maxBytes) rotateLog(stateDir, file, maxBytes)
  try {
    appendFileSync(file, line)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    mkdirSync(stateDir, { recursive: true })
    appendFileSync(file, line)
  }
}

/** Move `file` to `<file>.1` if it is still full, one mover at a time; another mover at work: appended as it is. */
function rotateLog(stateDir: string, file: string, maxBytes: number): void {
  const lock = acquireLock(join(stateDir, STATE_FILES.observationsLock), { waitMs: 0, staleMs: STALE_LOCK_MS })
  if (!lock) return
  try {
    if (sizeOf(file) >= maxBytes) renameSync(file, `${file}.1`)
  } finally {
    lock.release()
  }
}
