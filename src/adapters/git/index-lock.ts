/**
 * The user's index under git's own lock while a lifecycle commit moves the branch, as `git commit` holds it while it
 * moves HEAD. From just before the compare-and-swap until the index has followed the commit, no other git writes the
 * index, commits it or checks out another branch (each takes `<index>.lock` first and refuses while it exists): a
 * `git commit` of the user's never commits an index that lags our commit (which undid it), and the work tree that
 * follows the commit is still the branch's.
 *
 * The lock is taken as git takes it (created exclusively) and holds `git-learn <pid>`: one that a killed transition
 * left is recognised as ours and removed by the next command (never a lock of git's, which holds index bytes). The new
 * index is prepared before the lock is taken (a copy of the index with our entries, in the scratch directory) and
 * renamed into place under it, prepared again first when the index changed meanwhile; the lock is held for the branch
 * move and a rename, not for a git process that rewrites the index.
 */
import { randomBytes } from 'node:crypto'
import {
  accessSync,
  closeSync,
  constants,
  copyFileSync,
  linkSync,
  openSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import type { BigIntStats } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { FileAccessError } from '../../core/errors.js'
import { isProcessAlive } from '../state/journal.js'
import { onThisSide, processTag, scratchOwner } from '../state/process-tag.js'
import { interruptPending } from './interrupt.js'
import { formatIndexInfo } from './commit.js'
import type { IndexChange } from './commit.js'
import { gitAsync } from './run.js'

/** The user's index file and its lock. */
export interface IndexFiles {
  index: string
  lock: string
}

/** Where git keeps this work tree's index: $GIT_INDEX_FILE as git reads it, else `<git-dir>/index`. */
export async function locateIndex(root: string, gitDir: string): Promise<IndexFiles> {
  const index = process.env['GIT_INDEX_FILE']
    ? resolve(root, (await gitAsync(['rev-parse', '--git-path', 'index'], { cwd: root })).toString('utf8').trim())
    : join(gitDir, 'index')
  return { index, lock: `${index}.lock` }
}

/** Our lock's text: `git-learn <pid> <tag>` (process-tag.ts; an earlier version wrote no tag). */
const MARK = /^git-learn (\d+)(?: ([0-9a-f]{8}))?\n$/

/** The process a lock of ours names, and its side (undefined for git's own lock, or none). */
function lockOwner(lock: string): { pid: number; tag: string | undefined } | undefined {
  let fd: number
  try {
    fd = openSync(lock, 'r')
  } catch {
    return undefined
  }
  try {
    const buf = Buffer.alloc(48)
    const n = readSync(fd, buf, 0, buf.length, 0)
    const m = MARK.exec(buf.subarray(0, n).toString('latin1'))
    const pid = Number(m?.[1] ?? 0)
    return pid > 0 ? { pid, tag: m?.[2] } : undefined
  } finally {
    closeSync(fd)
  }
}

/**
 * Remove an index lock that a killed transition of ours left (it names a process that is gone); true when it did.
 * A lock of git's, of a git learn still running, or of one on another side of a shared repository (a dev container
 * and its host: process-tag.ts, where the pid cannot be asked) younger than LEFT_BEHIND_MS is left as it is.
 */
export function clearStaleIndexLock(lock: string): boolean {
  const owner = lockOwner(lock)
  if (!owner || (onThisSide(owner.tag) && owner.pid === process.pid) || isProcessAlive(owner.pid, owner.tag, lock))
    return false
  try {
    unlinkSync(lock)
    return true
  } catch {
    return false
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Take the index lock, waiting up to `waitMs` while another process holds it: false when it is still held then.
 * Throws the fs error when it cannot be made (a read-only or full disk): nothing is left behind. `scratch`: this
 * process's scratch directory (journal.ts scratchDir), where the lock's text is written before it is linked in.
 */
export async function takeIndexLock(files: IndexFiles, waitMs: number, scratch?: string): Promise<boolean> {
  const deadline = Date.now() + waitMs
  for (;;) {
    try {
      createMarked(files.lock, `git-learn ${process.pid} ${processTag()}\n`, scratch)
      return true
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      if (clearStaleIndexLock(files.lock)) continue
      // A signal waiting for the critical section to end (interrupt.ts) is not kept waiting for another git.
      if (Date.now() > deadline || interruptPending()) return false
      await sleep(50)
    }
  }
}

/**
 * Make `lock` exclusively, as git makes it, already holding `mark`: the mark is written whole to a file of this
 * process's (in `scratch`, else beside the lock), which is then hard-linked to the lock's name (EEXIST when a lock is
 * there). Opened exclusively and then written, a SIGKILL between the two left an empty lock, which no command can tell
 * from git's own and which waited for the user's `rm` (the random-kill test met it under load). Where no link can be
 * made (another filesystem, one without hard links), the lock is opened and written as before.
 */
function createMarked(lock: string, mark: string, scratch: string | undefined): void {
  const tmp = join(scratch ?? dirname(lock), `${scratchOwner()}.index-lock-${randomBytes(4).toString('hex')}`)
  try {
    writeFileSync(tmp, mark, { flag: 'wx' })
  } catch {
    createByWrite(lock, mark)
    return
  }
  try {
    linkSync(tmp, lock)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw err
    createByWrite(lock, mark)
  } finally {
    try {
      unlinkSync(tmp)
    } catch {
      // Gone already; a kill before this line leaves it to scratchDir's sweep.
    }
  }
}

/** Open `lock` exclusively and write `mark` into it (EEXIST when a lock is there); nothing left when the write fails. */
function createByWrite(lock: string, mark: string): void {
  const fd = openSync(lock, 'wx')
  try {
    writeSync(fd, mark)
    closeSync(fd)
  } catch (err) {
    closeSync(fd)
    unlinkSync(lock)
    throw err
  }
}

/** Release the index lock, if it is still this process's. */
export function releaseIndexLock(files: IndexFiles): void {
  const owner = lockOwner(files.lock)
  if (owner?.pid !== process.pid || owner.tag !== processTag()) return
  try {
    unlinkSync(files.lock)
  } catch {
    // Already gone.
  }
}

/** A copy of the index with a transition's entries, ready to be renamed into place. */
export interface PreparedIndex {
  file: string
  /** The index it was copied from, as it was then (undefined: there was none). */
  from: BigIntStats | undefined
  changes: readonly IndexChange[]
}

function statIndex(index: string): BigIntStats | undefined {
  return statSync(index, { bigint: true, throwIfNoEntry: false })
}

/**
 * Copy the index beside `scratch` (the scratch directory when it is on the index's file system, else the index's own
 * directory: a rename must not cross devices) and set `changes` in the copy (`update-index --index-info`).
 */
export async function prepareIndex(
  root: string,
  files: IndexFiles,
  scratch: string | undefined,
  changes: readonly IndexChange[],
  zeroOid: string,
): Promise<PreparedIndex> {
  const here = dirname(files.index)
  const dir = scratch && statSync(scratch).dev === statSync(here).dev ? scratch : here
  const file = join(dir, `${scratchOwner()}.${Math.random().toString(16).slice(2, 10)}.index.tmp`)
  const from = statIndex(files.index)
  try {
    if (from) copyIndex(files.index, file)
    await gitAsync(['update-index', '-z', '--index-info'], {
      cwd: root,
      env: { ...process.env, GIT_INDEX_FILE: file },
      input: formatIndexInfo(changes, zeroOid),
    })
  } catch (err) {
    discardIndex({ file, from, changes })
    throw err
  }
  return { file, from, changes }
}

/** Codes of a copy that failed writing, not reading: the copy is what they are about. */
const WRITE_FAILED = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EROFS'])

/**
 * copyFile(2) names its source in every error, the user's index; a full or read-only disk is about the copy, which is
 * named instead. Nothing has changed yet when it fails.
 */
function copyIndex(index: string, copy: string): void {
  try {
    copyFileSync(index, copy)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code && (WRITE_FAILED.has(code) || (code === 'EACCES' && readable(index))))
      throw new FileAccessError(copy, code, "a copy of git's index", true)
    throw err
  }
}

/** Whether this user may read `path`. */
function readable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK)
    return true
  } catch {
    return false
  }
}

/** Remove a prepared index that is not used. */
export function discardIndex(prepared: PreparedIndex): void {
  try {
    unlinkSync(prepared.file)
  } catch {
    // Never written.
  }
}

/**
 * Under the index lock: move the index with exactly `changes` into place. The prepared one serves when the index has
 * not changed since it was copied and it has these changes; otherwise it is prepared again from the index now.
 */
export async function installIndex(
  root: string,
  files: IndexFiles,
  prepared: PreparedIndex,
  changes: readonly IndexChange[],
  zeroOid: string,
): Promise<void> {
  let use = prepared
  const now = statIndex(files.index)
  const was = prepared.from
  const same =
    (now === undefined && was === undefined) ||
    (now !== undefined &&
      was !== undefined &&
      now.ino === was.ino &&
      now.size === was.size &&
      now.mtimeNs === was.mtimeNs &&
      now.ctimeNs === was.ctimeNs)
  // The same entries in the same order: anything else (a path the work tree kept, another blob) is prepared again.
  if (!same || formatIndexInfo(changes, zeroOid) !== formatIndexInfo(prepared.changes, zeroOid)) {
    discardIndex(prepared)
    use = await prepareIndex(root, files, dirname(prepared.file), changes, zeroOid)
  }
  try {
    renameSync(use.file, files.index)
  } catch (err) {
    discardIndex(use)
    throw err
  }
}
