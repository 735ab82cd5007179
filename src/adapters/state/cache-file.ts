/**
 * Writing git-learn's local state under `<git-common-dir>/learn/` (caches, settings): a whole file through a
 * temporary one and rename(2), so a reader sees the old bytes or the new, never a part, and concurrent writers at
 * worst replace each other's file. Imports node:fs and node:path only (the observe hook uses it).
 */
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { dirname, join } from 'node:path'
import { scratchOwner } from './process-tag.js'

/**
 * The temporary name beside `file` for this process (its pid and side, process-tag.ts: a dev container's process of
 * the same id as one on its host is another process), cleared of what a killed run of the same pid left there. It is
 * then created with O_EXCL: a file or symbolic link put there meanwhile (a shared git dir) is never written through.
 */
function freshTemp(file: string): string {
  const tmp = `${file}.${scratchOwner()}.tmp`
  try {
    unlinkSync(tmp) // a link itself, never what it points to
  } catch {
    // Nothing there: the usual case.
  }
  return tmp
}

/** Replace `file` with `data`; throws on failure, leaving no temporary file behind. */
export function writeAtomic(file: string, data: string | Uint8Array): void {
  const tmp = freshTemp(file)
  try {
    writeFileSync(tmp, data, { flag: 'wx' })
    renameSync(tmp, file)
  } catch (err) {
    try {
      unlinkSync(tmp)
    } catch {
      // Nothing was written.
    }
    throw err
  }
}

/**
 * writeAtomic for a file written in pieces (`fill` calls `write` for each; it returns the bytes written), so a file
 * of tens of megabytes is never one string in memory.
 */
export function writeAtomicPieces(file: string, fill: (write: (piece: string | Uint8Array) => number) => void): void {
  const tmp = freshTemp(file)
  let fd: number | undefined
  try {
    fd = openSync(tmp, 'wx')
    const out = fd
    let buf = Buffer.allocUnsafe(1 << 20)
    let used = 0
    const flush = () => {
      for (let at = 0; at < used;) at += writeSync(out, buf, at, used - at)
      used = 0
    }
    fill((piece) => {
      const n = typeof piece === 'string' ? Buffer.byteLength(piece) : piece.byteLength
      if (used + n > buf.length) {
        flush()
        if (n > buf.length) buf = Buffer.allocUnsafe(n)
      }
      if (typeof piece === 'string') buf.write(piece, used)
      else buf.set(piece, used)
      used += n
      return n
    })
    flush()
    closeSync(fd)
    fd = undefined
    renameSync(tmp, file)
  } catch (err) {
    if (fd !== undefined) closeSync(fd)
    try {
      unlinkSync(tmp)
    } catch {
      // Nothing was written.
    }
    throw err
  }
}

/**
 * writeAtomic for a file written by a stream as its writer goes (feed/reuse-file.ts): its temporary file is created
 * (O_EXCL) and open at `fd`, which the caller writes and closes; then `commit` renames it over `file` (throws on
 * failure, leaving no temporary file behind), or `abort` removes it.
 */
export function openAtomic(file: string): { fd: number; commit(): void; abort(): void } {
  const tmp = freshTemp(file)
  const fd = openSync(tmp, 'wx')
  const abort = () => {
    try {
      unlinkSync(tmp)
    } catch {
      // Removed already.
    }
  }
  return {
    fd,
    commit() {
      try {
        renameSync(tmp, file)
      } catch (err) {
        abort()
        throw err
      }
    },
    abort,
  }
}

/**
 * writeAtomic for a cache, creating its directory: a failure (a read-only git dir, a full disk) only costs speed,
 * so it is swallowed. Returns whether the file was written.
 */
export function writeCacheFile(file: string, data: string | Uint8Array): boolean {
  try {
    mkdirSync(dirname(file), { recursive: true })
    writeAtomic(file, data)
    return true
  } catch {
    return false
  }
}

/**
 * writeCacheFile, then remove the other files of its directory whose names start with `prefix` (the older versions of
 * a cache keyed in its file name), so they do not pile up. Returns whether the file was written.
 */
export function writeCacheFileAlone(file: string, data: string | Uint8Array, prefix: string): boolean {
  if (!writeCacheFile(file, data)) return false
  const dir = dirname(file)
  try {
    for (const name of readdirSync(dir))
      if (name.startsWith(prefix) && join(dir, name) !== file) unlinkSync(join(dir, name))
  } catch {
    // An old version left behind only costs disk.
  }
  return true
}

/**
 * writeCacheFile, then remove the oldest (by mtime) of the other files of its directory whose names start with
 * `prefix` beyond the `keep` newest, so that a few versions in use at once (the work trees of one repository, each on
 * its branch's config.yaml) stay cached side by side and the rest do not pile up. Returns whether it was written.
 */
export function writeCacheFileKeeping(file: string, data: string | Uint8Array, prefix: string, keep: number): boolean {
  if (!writeCacheFile(file, data)) return false
  const dir = dirname(file)
  try {
    const others: { path: string; mtime: number }[] = []
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      // Another process's temporary copy (freshTemp), about to be renamed: not a version, and not ours to remove.
      if (!name.startsWith(prefix) || path === file || name.endsWith('.tmp')) continue
      const st = statSync(path, { throwIfNoEntry: false })
      if (st) others.push({ path, mtime: st.mtimeMs })
    }
    others.sort((a, b) => b.mtime - a.mtime)
    for (const o of others.slice(Math.max(0, keep - 1)))
      try {
        unlinkSync(o.path)
      } catch {
        // Removed by another process meanwhile.
      }
  } catch {
    // An unreadable directory: an old version left behind only costs disk.
  }
  return true
}
