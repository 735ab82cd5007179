/**
 * Reading an agent's transcript from where the last read stopped. Per transcript, local state under
 * `<git-common-dir>/learn/transcripts/<hash of its path>.json` keeps the byte offset just after the last whole line
 * read, what identifies the bytes before it (device, inode, hashes of the first bytes and of those just before the
 * offset), and the reader's cursor
 * (src/core/transcript.ts). A transcript that was replaced, truncated or rewritten is read again from its start, and
 * the cursor skips the entries already read. One reader at a time per transcript (an O_EXCL lock file). The state
 * also names the side it was written on (process-tag.ts), for the sweep of the states of transcripts that are gone
 * (sweepTranscriptState).
 */
import { createHash } from 'node:crypto'
import { closeSync, readFileSync, readSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { writeCacheFile } from './cache-file.js'
import { acquireLock, removeUnderLock } from './file-lock.js'
import type { FileLock } from './file-lock.js'
import { onThisSide, processTag } from './process-tag.js'
import { openWithoutWaiting } from '../store/read-bounded.js'
import { EMPTY_CURSOR } from '../../core/transcript.js'
import type { OpenCall, TranscriptCursor } from '../../core/transcript.js'

const DIR = 'transcripts'
const PROBE = 256
/** A line longer than this is skipped (and counted): a transcript line holds one message, rarely more than a few MB. */
export const MAX_TRANSCRIPT_LINE = 16 * 1024 * 1024
/** At most this much is read by one capture; the next one goes on from there. */
export const MAX_READ_BYTES = 256 * 1024 * 1024
const CHUNK = 1024 * 1024
const LOCK_WAIT_MS = 3000
const STALE_LOCK_MS = 30_000

export interface TranscriptState {
  path: string
  dev: number
  ino: number
  offset: number
  head: string
  /** A hash of the bytes just before `offset`: a file cut short and written on past the offset is told apart. */
  tail: string
  cursor: TranscriptCursor
  /**
   * Set just before the records read from `offset` are appended, cleared when the state after them is saved: a
   * capture killed in between left some of those records in the log, and the next capture does not write them again.
   */
  appending?: true
}

export interface TranscriptRead {
  /** Whole lines from the saved offset, in file order. */
  lines: string[]
  /** The state to save once the lines' records are written. */
  next: TranscriptState
  /** Read from the start again because the file is not the one read before (rotated, truncated, rewritten). */
  reread: boolean
  /** Lines over MAX_TRANSCRIPT_LINE, skipped. */
  oversized: number
  /** More bytes are left than one read takes. */
  more: boolean
  /** The last capture was killed while appending these lines' records: some may be in the log already. */
  interrupted: boolean
}

const keyOf = (path: string) => createHash('sha1').update(path).digest('hex').slice(0, 24)
const statePath = (stateDir: string, path: string) => join(stateDir, DIR, `${keyOf(path)}.json`)

/** sha1 of bytes [start, end) of an open file. */
function hashRange(fd: number, start: number, end: number): string {
  const buf = Buffer.alloc(Math.max(0, end - start))
  const n = buf.length ? readSync(fd, buf, 0, buf.length, start) : 0
  return createHash('sha1').update(buf.subarray(0, n)).digest('hex')
}
const hashHead = (fd: number, offset: number) => hashRange(fd, 0, Math.min(PROBE, offset))
const hashTail = (fd: number, offset: number) => hashRange(fd, Math.max(0, offset - PROBE), offset)

function validCursor(c: unknown): TranscriptCursor | undefined {
  if (typeof c !== 'object' || c === null) return undefined
  const o = c as Record<string, unknown>
  const open = o['open']
  if (typeof open !== 'object' || open === null || Array.isArray(open)) return undefined
  if (
    !(o['lastTs'] === null || typeof o['lastTs'] === 'string') ||
    !Array.isArray(o['lastIds']) ||
    !o['lastIds'].every((x) => typeof x === 'string')
  )
    return undefined
  for (const v of Object.values(open))
    if (typeof v !== 'object' || v === null || typeof (v as OpenCall).tool !== 'string') return undefined
  return {
    open: open as Record<string, OpenCall>,
    lastTs: o['lastTs'] as string | null,
    lastIds: o['lastIds'] as string[],
  }
}

/** The saved state of a transcript, or undefined (never read, or the state file is damaged: read from the start). */
export function readTranscriptState(stateDir: string, path: string): TranscriptState | undefined {
  try {
    const s = JSON.parse(readFileSync(statePath(stateDir, path), 'utf8')) as Record<string, unknown>
    const num = (k: string) => typeof s[k] === 'number' && Number.isSafeInteger(s[k]) && (s[k] as number) >= 0
    const cursor = validCursor(s['cursor'])
    if (
      s['path'] !== path ||
      !num('dev') ||
      !num('ino') ||
      !num('offset') ||
      typeof s['head'] !== 'string' ||
      typeof s['tail'] !== 'string' ||
      !cursor
    )
      return undefined
    return {
      path,
      dev: s['dev'] as number,
      ino: s['ino'] as number,
      offset: s['offset'] as number,
      head: s['head'],
      tail: s['tail'],
      cursor,
      ...(s['appending'] === true ? { appending: true as const } : {}),
    }
  } catch {
    return undefined
  }
}

/** The state of `next`'s file before anything of it was read (what a first capture marks before it appends). */
export function unreadState(next: TranscriptState): TranscriptState {
  const none = createHash('sha1').digest('hex')
  return { ...next, offset: 0, head: none, tail: none, cursor: EMPTY_CURSOR }
}

/** Save the state after the records of its lines were written (a failure costs a re-read, which skips what was read). */
export function writeTranscriptState(stateDir: string, state: TranscriptState): boolean {
  return writeCacheFile(statePath(stateDir, state.path), JSON.stringify({ ...state, tag: processTag() }))
}

const DAY_MS = 24 * 3_600_000
/** A state is kept this long after its last write however its transcript is (a capture is making it). */
export const GONE_TRANSCRIPT_KEPT_MS = DAY_MS
/**
 * A state whose transcript cannot be looked at from here (written on another side, or by an earlier version for a
 * folder not on this machine) is kept this long after its last write: three times Claude Code's default retention of
 * its transcripts (`cleanupPeriodDays`, 30), past which a session idle so long is resumed only where the retention
 * was raised.
 */
export const UNSEEN_TRANSCRIPT_KEPT_MS = 90 * DAY_MS

/**
 * Whether the transcript a state names is `here` (or cannot be told: a folder this user may not read), `gone` (not at
 * its path, seen from the side that wrote the state) or `unseen` (another side's: a dev container's transcript seen
 * from its host, another machine's on a shared file system; its path means nothing here).
 */
function transcriptSeen(path: string, tag: unknown): 'here' | 'gone' | 'unseen' {
  if (typeof tag === 'string' && !onThisSide(tag)) return 'unseen'
  try {
    statSync(path)
    return 'here'
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return 'here'
  }
  if (typeof tag === 'string') return 'gone'
  // An earlier version's state names no side: gone when the transcript's folder is here (this machine's agent's).
  return statSync(dirname(path), { throwIfNoEntry: false })?.isDirectory() ? 'gone' : 'unseen'
}

/**
 * Remove the state file `file` (`transcripts/<key>.json`) when its transcript is gone: it can never be read again,
 * so its offset is of no use. Claude Code deletes a session's transcript after `cleanupPeriodDays` without use (30
 * by default); one that is still there is kept however old, since its session may be resumed (and without its
 * state would be recorded again in full). A damaged state, read as none anyway, goes too. Never one written in the
 * last GONE_TRANSCRIPT_KEPT_MS, and only under the transcript's lock, judged again there: a capture reading it now
 * (a transcript back at its path) keeps it. Returns whether it was removed; never throws.
 */
export function sweepTranscriptState(file: string, now: number): boolean {
  try {
    const st = statSync(file, { throwIfNoEntry: false })
    if (!st?.isFile() || now - st.mtimeMs < GONE_TRANSCRIPT_KEPT_MS) return false
    const judge = (): boolean => {
      let s: Record<string, unknown> | undefined
      try {
        s = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
      } catch {
        s = undefined
      }
      const path = typeof s?.['path'] === 'string' ? s['path'] : undefined
      if (path === undefined) return true
      const seen = transcriptSeen(path, s?.['tag'])
      return seen === 'gone' || (seen === 'unseen' && now - st.mtimeMs >= UNSEEN_TRANSCRIPT_KEPT_MS)
    }
    // Under the lock a capture takes, the file must also be the one judged (a capture rewrote it: kept).
    const same = () => statSync(file, { throwIfNoEntry: false })?.mtimeMs === st.mtimeMs && judge()
    return removeUnderLock(file, file.replace(/\.json$/, '.lock'), STALE_LOCK_MS, same)
  } catch {
    return false // gone meanwhile, or a folder this user cannot write: left for the next sweep
  }
}

/**
 * The whole lines of `path` after the saved state's offset (from the start when the file is not the one read
 * before), at most MAX_READ_BYTES. A last line without its newline is left for the next read (it may still be
 * being written). Throws ENOENT and the like: the caller logs them.
 */
export function readTranscriptLines(path: string, saved: TranscriptState | undefined): TranscriptRead {
  // A payload can name a FIFO (or a symlink to one) `….jsonl`: opened so that it cannot wait for a writer.
  const { fd, st } = openWithoutWaiting(path)
  try {
    if (!st.isFile()) throw new Error(`${path} is not a regular file`)
    const same =
      saved !== undefined &&
      saved.dev === st.dev &&
      saved.ino === st.ino &&
      saved.offset <= st.size &&
      saved.head === hashHead(fd, saved.offset) &&
      saved.tail === hashTail(fd, saved.offset)
    const reread = saved !== undefined && !same
    const from = same ? saved.offset : 0
    const to = Math.min(st.size, from + MAX_READ_BYTES)
    const lines: string[] = []
    let oversized = 0
    let carry: Buffer[] = []
    let carryBytes = 0
    let skipping = false
    let end = from
    const buf = Buffer.allocUnsafe(CHUNK)
    for (let pos = from; pos < to;) {
      const n = readSync(fd, buf, 0, Math.min(CHUNK, to - pos), pos)
      if (n <= 0) break
      let start = 0
      for (let nl = buf.indexOf(0x0a, 0); nl >= 0 && nl < n; nl = buf.indexOf(0x0a, start)) {
        if (skipping) oversized++
        else {
          const text = Buffer.concat([...carry, buf.subarray(start, nl)]).toString('utf8')
          if (text.trim()) lines.push(text)
        }
        carry = []
        carryBytes = 0
        skipping = false
        start = nl + 1
        end = pos + nl + 1
      }
      if (start < n && !skipping) {
        carryBytes += n - start
        if (carryBytes > MAX_TRANSCRIPT_LINE) {
          skipping = true
          carry = []
        } else carry.push(Buffer.from(buf.subarray(start, n)))
      }
      pos += n
    }
    const cursor = same ? saved.cursor : reread ? saved.cursor : EMPTY_CURSOR
    return {
      lines,
      next: { path, dev: st.dev, ino: st.ino, offset: end, head: hashHead(fd, end), tail: hashTail(fd, end), cursor },
      interrupted: saved?.appending === true,
      reread,
      oversized,
      more: to < st.size,
    }
  } finally {
    closeSync(fd)
  }
}

/**
 * The transcript's lock (file-lock.ts), or undefined when another capture held it for LOCK_WAIT_MS. A lock older than
 * STALE_LOCK_MS, or whose process has ended, is taken over.
 */
export function lockTranscript(stateDir: string, path: string, now: () => number = Date.now): FileLock | undefined {
  const lock = statePath(stateDir, path).replace(/\.json$/, '.lock')
  return acquireLock(lock, { waitMs: LOCK_WAIT_MS, staleMs: STALE_LOCK_MS, sleepMs: 25, now })
}
