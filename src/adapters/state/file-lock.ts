/**
 * Lock files for local state under `.git/learn/`: one capture of a transcript at a time, one update of a session's
 * pending recalls, one rotation of the observation log. A lock is a file made with O_EXCL that holds its holder's pid.
 *
 * - *Stale*: a lock whose process has ended (a hook killed with -9) is taken over at once, and one older than the
 *   caller's `staleMs` (a holder that hangs) too. A lock without a pid yet (being written), or of another side of a
 *   shared repository (a dev container's, seen from its host: process-tag.ts), is judged by its age alone.
 * - *By identity, never by name*: taking a stale lock over and releasing one's own both move the file aside first
 *   (rename is atomic, so only one process moves it) and compare what they moved with the file they meant (its inode
 *   and its text: the token, since an inode number is handed out again once its file is gone). A file that is not that one — a lock another process made in between — is put back as it was (a hard link
 *   of that very file) and left to its holder. Before, a take-over removed the lock by its name, so two processes that
 *   judged one dead lock stale at once could remove the fresh lock the first of them made, and a holder whose lock was
 *   taken over as stale removed its successor's lock on release: two holders at once either way.
 * - What is left: a put-back fails only if yet another process made a lock in the instant between the move and the
 *   link; that needs three processes on one stale lock within microseconds.
 */
import { randomBytes } from 'node:crypto'
import {
  closeSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs'
import { dirname } from 'node:path'
import { onThisSide, processTag } from './process-tag.js'

export interface LockOptions {
  /** How long to wait for another holder (ms); 0 tries once. */
  waitMs: number
  /** A lock older than this was left by a holder that hangs (ms). */
  staleMs: number
  /** How long to sleep between tries (ms). */
  sleepMs?: number
  now?: () => number
}

export interface FileLock {
  /** Remove the lock if it is still this one (not after a take-over by another process). */
  release(): void
}

interface Identity {
  ino: number
  /** The lock's text: its holder's pid and token. */
  text: string
}

/** Take the lock at `path`, waiting up to `waitMs`; undefined when another process holds it still. */
export function acquireLock(path: string, o: LockOptions): FileLock | undefined {
  const now = o.now ?? Date.now
  const deadline = now() + o.waitMs
  const sleeper = new Int32Array(new SharedArrayBuffer(4))
  mkdirSync(dirname(path), { recursive: true })
  for (;;) {
    const mine = create(path)
    if (mine) return { release: () => removeIfSame(path, mine) }
    const held = inspect(path)
    if (held && (held.pid === 'gone' || now() - held.mtimeMs > o.staleMs)) {
      removeIfSame(path, held)
      continue
    }
    if (now() >= deadline) return undefined
    Atomics.wait(sleeper, 0, 0, o.sleepMs ?? 5)
  }
}

/** Make the lock (O_EXCL) and write our pid into it: its identity, or undefined when a lock is there already. */
function create(path: string): Identity | undefined {
  let fd: number
  try {
    fd = openSync(path, 'wx')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined
    throw err
  }
  try {
    const text = `${process.pid} ${randomBytes(8).toString('hex')} ${processTag()}`
    try {
      writeSync(fd, text)
    } catch (err) {
      // No room for the pid (a full disk): a lock without one is judged by its age alone, so it would hold every
      // capture of the transcript (or update of the recalls) off until staleMs. Nothing of ours stays.
      unlinkSync(path)
      throw err
    }
    return { ino: fstatSync(fd).ino, text }
  } finally {
    closeSync(fd)
  }
}

/** The lock at `path` as one file: its identity, age and whether its holder has ended (undefined: none there). */
function inspect(path: string): (Identity & { mtimeMs: number; pid: 'gone' | 'alive' | 'unknown' }) | undefined {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return undefined
  }
  try {
    const st = fstatSync(fd)
    const text = readText(fd)
    return { ino: st.ino, text, mtimeMs: st.mtimeMs, pid: holder(text) }
  } finally {
    closeSync(fd)
  }
}

/** A lock's text (at most 64 bytes: a pid, a token and a side). */
function readText(fd: number): string {
  const buf = Buffer.alloc(64)
  const n = readSync(fd, buf, 0, buf.length, 0)
  return buf.toString('utf8', 0, n)
}

/**
 * Whether the process a lock names has ended; a lock without a pid (being written), or of another side (its pid
 * means nothing here), is `unknown`. A lock of an older version holds the pid alone, or the pid and the token.
 */
function holder(text: string): 'gone' | 'alive' | 'unknown' {
  const m = /^([1-9][0-9]{0,9})(?: [0-9a-f]{16}(?: ([0-9a-f]{8}))?)?$/.exec(text)
  const pid = m?.[1]
  if (pid === undefined || !onThisSide(m?.[2])) return 'unknown'
  try {
    process.kill(Number(pid), 0)
    return 'alive'
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH' ? 'gone' : 'alive'
  }
}

/** Remove the lock at `path` only if it is the file `meant`; any other file moved aside goes back. */
export function removeIfSame(path: string, meant: Identity): void {
  const aside = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.aside`
  try {
    renameSync(path, aside)
  } catch {
    return // gone already: released, or taken over by another process
  }
  try {
    const fd = openSync(aside, 'r')
    let same: boolean
    try {
      same = fstatSync(fd).ino === meant.ino && readText(fd) === meant.text
    } finally {
      closeSync(fd)
    }
    if (!same) linkSync(aside, path)
  } catch {
    // A lock made in the instant since the move: its maker holds it (see the file's comment).
  } finally {
    try {
      unlinkSync(aside)
    } catch {
      // Gone already.
    }
  }
}

/**
 * Remove `file` when `judge()` says it may go, judged once without the lock (most files stay: no lock taken) and again
 * under the lock at `lock` that its writers take (a writer using it now, or one that used it in between, keeps it).
 * Whether it was removed; never throws (a lock held, a file gone meanwhile, a folder this user cannot write: left for
 * the next sweep).
 */
export function removeUnderLock(file: string, lock: string, staleMs: number, judge: () => boolean): boolean {
  try {
    if (!judge()) return false
    const held = acquireLock(lock, { waitMs: 0, staleMs })
    if (!held) return false
    try {
      if (!judge()) return false
      unlinkSync(file)
      return true
    } finally {
      held.release()
    }
  } catch {
    return false
  }
}
