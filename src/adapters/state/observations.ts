/**
 * The observation log on disk: `<git-common-dir>/learn/observations.jsonl`, rotated into
 * `learn/observations.archive/`. This module is on the `git learn observe` fast path: it imports node:fs and
 * node:path only (no simple-git, no yaml unless the config changed, no ajv).
 *
 * Guarantees relied on:
 * - Appends: each record is ONE write(2) of one whole line on a file descriptor opened with O_APPEND. POSIX makes
 *   the seek-to-end and the write one atomic step for O_APPEND, so concurrent writers never overwrite each other;
 *   Linux local file systems also serialise the data of each write(2) on a regular file under the inode lock, so
 *   lines do not interleave (ext4, xfs, btrfs, tmpfs; not promised on NFS). Lines are bounded (each field at most
 *   observe.max_field_bytes), so one write(2) never comes back short except on a full disk.
 * - Rotation never loses a line: it is a rename(2) of the live file to a unique archive name. A rename keeps the
 *   inode, so a writer that opened the live file before the rename appends to the archived file; nothing is ever
 *   truncated or deleted. The O_EXCL lock file `learn/rotate.lock` only stops several writers from rotating at
 *   once (which would leave small extra archive files, never lose data).
 */
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  readdirSync,
  renameSync,
  statSync,
  writeSync,
  createReadStream,
} from 'node:fs'
import { dirname, join } from 'node:path'
import { acquireLock } from './file-lock.js'
import { appendLogLine } from './log-file.js'
import { findGitDirs, needsGit } from '../git/locate.js'
import { STATE_FILES } from '../../core/layout.js'
import { redactSecrets } from '../../core/secrets.js'

export const LIVE_FILE = STATE_FILES.observations
export const ARCHIVE_DIR = STATE_FILES.observationsArchive
const LOCK_FILE = STATE_FILES.observationsLock
const LOG_FILE = STATE_FILES.observeLog
/** A rotate.lock older than this is left by a crashed process: it is moved aside. */
const STALE_LOCK_MS = 30_000

export interface RepoLocation {
  /** The work tree root (where `.learnings/` lives). */
  root: string
  /** `git rev-parse --git-common-dir`, absolute. */
  commonDir: string
  /** `<commonDir>/learn`. */
  stateDir: string
}

const isFile = (p: string) => statSync(p, { throwIfNoEntry: false })

/** The repository around `cwd` (src/adapters/git/locate.ts: no git process in the usual layout; with GIT_DIR and the
 * like, git is asked). */
export async function locateRepo(
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<RepoLocation | undefined> {
  // node:child_process costs a few ms to load: only a redirected discovery (GIT_DIR and the like) pays for it.
  const dirs = needsGit(env) ? (await import('../git/fast.js')).locateRepo(cwd, env) : findGitDirs(cwd, env)
  return dirs && { root: dirs.root, commonDir: dirs.commonDir, stateDir: join(dirs.commonDir, 'learn') }
}

function openAppend(path: string): number {
  try {
    return openSync(path, 'a+')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    mkdirSync(dirname(path), { recursive: true })
    return openSync(path, 'a+')
  }
}

/**
 * A torn tail (the last line cut short by a crash or a full disk) is ended with a newline before the next append, so
 * the next record starts on its own line: the torn line stays as it is (retro skips it, counted), nothing else is
 * lost. Two writers that both saw the torn tail only leave an empty line.
 */
function tailIsTorn(fd: number): boolean {
  const size = fstatSync(fd).size
  if (size === 0) return false
  const last = Buffer.alloc(1)
  return readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a
}

/** Write `text` (whole lines) with one write(2), after ending a torn tail; the file's size after it. */
function writeWhole(fd: number, live: string, text: string): number {
  const buf = Buffer.from(tailIsTorn(fd) ? `\n${text}` : text, 'utf8')
  const n = writeSync(fd, buf)
  if (n !== buf.length)
    throw new Error(
      `short write to ${live}: ${n} of ${buf.length} bytes (disk full?); the torn line is ended before the next append`,
    )
  return fstatSync(fd).size
}

/** Append one line with a single write; rotate the live file when it has reached `rotateBytes`. */
export function appendObservation(stateDir: string, line: string, rotateBytes: number, now: Date): void {
  appendObservations(stateDir, [line], rotateBytes, now)
}

/** Lines (each with its newline) per write when several are appended at once: one write stays one small atomic step. */
const BATCH_BYTES = 256 * 1024

/**
 * Append lines in order, whole lines per write(2) (batches of at most BATCH_BYTES, or one line when it is larger);
 * rotate the live file when it has reached `rotateBytes`.
 */
export function appendObservations(stateDir: string, lines: readonly string[], rotateBytes: number, now: Date): void {
  if (!lines.length) return
  const live = join(stateDir, LIVE_FILE)
  let i = 0
  while (i < lines.length) {
    const fd = openAppend(live)
    let size: number
    try {
      let batch = lines[i++] as string
      while (i < lines.length && batch.length + (lines[i] as string).length <= BATCH_BYTES)
        batch += lines[i++] as string
      size = writeWhole(fd, live, batch)
    } finally {
      closeSync(fd)
    }
    if (size >= rotateBytes) rotateObservations(stateDir, rotateBytes, now)
  }
}

/** How far back the log is searched for the records of an interrupted capture (other writers may have appended since). */
const INTERRUPTED_WINDOW = 32 * 1024 * 1024

/**
 * How many of `lines` (in order, each with its newline) are in the log already: the records of a capture killed
 * while appending them. Appends go in order, so the written ones are the lines up to the last one found among the
 * whole lines of the log's last INTERRUPTED_WINDOW bytes (the live file, then the newest archives: a rotation may
 * have moved them). A line cut short by the kill is not a whole line: it is written again, and retro skips the torn one.
 */
export function linesAlreadyWritten(stateDir: string, lines: readonly string[]): number {
  if (!lines.length) return 0
  const chunks: Buffer[] = []
  let left = INTERRUPTED_WINDOW
  for (const file of listObservationFiles(stateDir).reverse()) {
    if (left <= 0) break
    let fd: number
    try {
      fd = openSync(file, 'r')
    } catch {
      continue // rotated away since it was listed
    }
    try {
      const size = fstatSync(fd).size
      const take = Math.min(size, left)
      const buf = Buffer.alloc(take)
      const n = readSync(fd, buf, 0, take, size - take)
      chunks.unshift(buf.subarray(0, n))
      left -= n
    } finally {
      closeSync(fd)
    }
  }
  const seen = new Set(Buffer.concat(chunks).toString('utf8').split('\n'))
  for (let i = lines.length - 1; i >= 0; i--) if (seen.has((lines[i] as string).replace(/\n$/, ''))) return i + 1
  return 0
}

let rotations = 0

/** Move the live file into the archive when it is (still) at least `rotateBytes`; one rotator at a time. */
export function rotateObservations(stateDir: string, rotateBytes: number, now: Date): string | undefined {
  // A crashed rotator's lock is taken over (file-lock.ts); one another writer holds means it rotates now.
  const lock = acquireLock(join(stateDir, LOCK_FILE), { waitMs: 0, staleMs: STALE_LOCK_MS, now: () => now.getTime() })
  if (!lock) return undefined
  try {
    const live = join(stateDir, LIVE_FILE)
    const st = isFile(live)
    if (!st || st.size < rotateBytes) return undefined
    mkdirSync(join(stateDir, ARCHIVE_DIR), { recursive: true })
    const stamp = now.toISOString().replace(/[:.]/g, '-')
    const dest = join(stateDir, ARCHIVE_DIR, `observations-${stamp}-${process.pid}-${rotations++}.jsonl`)
    renameSync(live, dest)
    return dest
  } finally {
    lock.release()
  }
}

/** Append a line to `learn/observe.log` (kept under 1 MB: the old log moves to observe.log.1, log-file.ts). Never throws. */
export function logObserveError(stateDir: string | undefined, message: string, now: Date): void {
  if (!stateDir) return
  try {
    // Messages can carry a payload's text (an error's stack, a config value): redacted like observations are.
    appendLogLine(stateDir, LOG_FILE, `${now.toISOString()} ${redactSecrets(message.replace(/\n/g, ' '))}\n`)
  } catch {
    /* nowhere left to report: observe must stay silent */
  }
}

/** The observation files, oldest first: the archive (by name, which starts with the rotation time), then the live file. */
export function listObservationFiles(stateDir: string): string[] {
  let archived: string[] = []
  try {
    archived = readdirSync(join(stateDir, ARCHIVE_DIR))
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
      .map((f) => join(stateDir, ARCHIVE_DIR, f))
  } catch {
    /* no archive yet */
  }
  return isFile(join(stateDir, LIVE_FILE)) ? [...archived, join(stateDir, LIVE_FILE)] : archived
}

/** Every line of the files in order, streamed (memory stays flat on a large log). */
export async function* readObservationLines(files: readonly string[]): AsyncGenerator<string> {
  const { createInterface } = await import('node:readline')
  for (const file of files) {
    const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity })
    for await (const line of rl) yield line
  }
}

/** The summed size of the observation files (those gone since they were listed count 0). */
export function observationBytes(files: readonly string[]): number {
  return files.reduce((n, f) => n + (statSync(f, { throwIfNoEntry: false })?.size ?? 0), 0)
}
