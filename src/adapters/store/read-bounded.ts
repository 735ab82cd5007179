/**
 * Reading a file named by a user, a config or a bundle without trusting its size: at most `limit + 1` bytes are
 * read from the descriptor, so /dev/zero, a FIFO fed forever or a huge file end the read instead of filling memory.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import type { Stats } from 'node:fs'

export interface BoundedRead {
  /** The bytes read: the whole file when `over` is false, at most `limit` bytes otherwise. */
  bytes: Buffer
  /** The file holds more than `limit` bytes. */
  over: boolean
  /** The file's size when it is a regular file (known without reading it), else undefined. */
  size: number | undefined
  /** Whether it is a regular file (with `regularOnly`, nothing is read from anything else). */
  regular: boolean
}

const CHUNK = 64 * 1024

/**
 * Read at most `limit` bytes of `path` (open errors are thrown as node's ErrnoException). With `regularOnly`,
 * a directory, device or FIFO is reported (`regular: false`) without being read.
 */
export function readFileBounded(path: string, limit: number, opts: { regularOnly?: boolean } = {}): BoundedRead {
  const { fd, st } = opts.regularOnly ? openWithoutWaiting(path) : { fd: openSync(path, 'r'), st: undefined }
  try {
    const stat = st ?? fstatSync(fd)
    const regular = stat.isFile()
    const size = regular ? stat.size : undefined
    if (!regular && opts.regularOnly) return { bytes: Buffer.alloc(0), over: false, size, regular }
    const chunks: Buffer[] = []
    let total = 0
    // Sequential reads (position null) so pipes and character devices work; stop one byte past the limit.
    while (total <= limit) {
      const buf = Buffer.alloc(Math.min(CHUNK, limit + 1 - total))
      const n = readSync(fd, buf, 0, buf.length, null)
      if (n === 0) break
      chunks.push(n === buf.length ? buf : buf.subarray(0, n))
      total += n
    }
    const all = Buffer.concat(chunks, total)
    return total > limit
      ? { bytes: all.subarray(0, limit), over: true, size, regular }
      : { bytes: all, over: false, size, regular }
  } finally {
    closeSync(fd)
  }
}

/**
 * Open `path` for reading without waiting and fstat it (the caller closes `fd`; open errors are thrown). Opening a
 * FIFO for reading blocks until a writer comes, and a path can name one (or a symlink to one) where a regular file is
 * expected: it is opened non-blocking, so the stat says what it is at once. O_NONBLOCK changes nothing for a regular
 * file's reads.
 */
export function openWithoutWaiting(path: string): { fd: number; st: Stats } {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    return { fd, st: fstatSync(fd) }
  } catch (err) {
    closeSync(fd)
    throw err
  }
}
