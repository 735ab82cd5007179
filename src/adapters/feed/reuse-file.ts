/**
 * parsed-<key>.jsonl.deflate: the parse of every clean project file a rebuild read (by path and blob id), kept for the
 * next rebuild of the same work tree, and for the first rebuild of another work tree of the clone that has no set of
 * its own (a new worktree: cache-files.ts otherLastKey). After a pull or an approval that changed a few learnings, that
 * rebuild reads and parses only those, and takes the rest as they were parsed (rebuild.ts). Text, one JSON value a
 * line, each line ended by `\n`: the header `{format, stamp, allow}`, then `[path, oid, parsed]` for each file, in
 * store order (the state folders in the order of STATES, each one's files sorted as feed-key.ts storeFiles sorts them);
 * `parsed` holds each string the file has twice (its name, description, path… in its entry and its row) once, as the
 * parse worker sends them (parse-pool.ts shareOut). A line taken again is written back as it was read, so a rebuild
 * after a small change neither parses nor stringifies the rest.
 *
 * Streamed both ways, at any size of store: the next rebuild reads it a line at a time through zlib while it goes
 * through its own files, which are in the same order (ReuseReader: a merge join on the path, a chunk of files ahead,
 * so only the lines of the files it is about to read are held), and writes its own copy a line at a time through
 * zlib into a temporary file, renamed at the end as every cache file is (ReuseWriter). At 100,000 learnings the copy
 * is ~14 MB on disk, ~150 MB of lines (BENCHMARKS.md).
 *
 * Written by a rebuild that had a copy to start from, its work tree's last or another work tree's (a rebuild from
 * nothing, which the first agent hook of a fresh clone waits for, does not pay for it). Only files parsed without a
 * problem and without a finding (a credential, a directive) are kept: their screen depends on the acceptances and
 * reviewed fingerprints of the moment, so they are read and screened again.
 *
 * What is trusted of a copy: nothing when its header names another build, cache format or set of reviewed
 * fingerprints; otherwise each line on its own, once it is whole (ended by `\n`) and of the rebuild's shape, and only
 * for the file of its path and blob id. The rebuild's files and the copy's lines can differ (a learning added,
 * removed, renamed, edited or moved to another state since): a line whose path sorts before the file the rebuild is at
 * (a file gone, or a line out of order) is passed over, a file with no line of its path and blob id is read and
 * parsed. A line that is not of the rebuild's shape, a piece longer than MAX_LINE with no end of line, more than the
 * reader's limit inflated, or the end of a torn stream (zlib's error) end the reading there: the files joined before
 * it are taken, the rest parsed. A copy cut half-way thus still gives its first half, each line of it whole and
 * checked. The result is what a rebuild from nothing gives either way (test/integration/feed-reuse.test.ts).
 */
import { createReadStream, createWriteStream } from 'node:fs'
import type { ReadStream, WriteStream } from 'node:fs'
import { createDeflateRaw, createInflateRaw } from 'node:zlib'
import type { DeflateRaw, InflateRaw } from 'node:zlib'
import { STATES, STORE_DIR } from '../../core/layout.js'
import { openAtomic } from '../state/cache-file.js'
import { MAX_INFLATED, isObject } from './cache-files.js'
import type { ParsedFile } from './parse-file.js'
import { shareIn, shareOut } from './parse-pool.js'
import type { WireFile } from './parse-pool.js'
import type { CountedDoc } from '../../core/search-parts.js'

/** The longest line of a copy read (a learning is at most 1 MB; its parse is a few times that at most). */
export const MAX_LINE = 32 << 20

interface Header {
  format: number
  /** The build that parsed them (a new git-learn parses again). */
  stamp: string
  /** The reviewed secret fingerprints they were scanned with (config.yaml's secrets.allow, as JSON). */
  allow: string
}

/** Where a path of the store sorts among the state folders (STATES order; -1: none of them). */
function stateRank(path: string): number {
  const at = path.indexOf('/', STORE_DIR.length + 1)
  if (at < 0 || !path.startsWith(`${STORE_DIR}/`)) return -1
  return (STATES as readonly string[]).indexOf(path.slice(STORE_DIR.length + 1, at))
}

/**
 * The order of the rebuild's files, and of a copy's lines: by state folder as STATES lists them, then by path as
 * Array.prototype.sort orders strings (UTF-16 code units, as storeFiles sorts each folder's names).
 */
export function storeOrder(a: string, b: string): number {
  if (a === b) return 0
  const d = stateRank(a) - stateRank(b)
  if (d) return d
  return a < b ? -1 : a > b ? 1 : 0
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const NEWLINE = 0x0a
const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/

/** The path and blob id a copy's line starts with (`["<path>","<oid>",`), or undefined when it does not. */
function lineHead(line: Buffer): { path: string; oid: string } | undefined {
  if (line[0] !== 0x5b /* [ */ || line[1] !== QUOTE) return undefined
  // The path's closing quote: past any escaped character (a byte of UTF-8 past ASCII is never a quote or backslash).
  let end = line.indexOf(QUOTE, 2)
  const backslash = line.indexOf(BACKSLASH, 2)
  const escaped = backslash >= 0 && backslash < end
  if (escaped) {
    for (end = 2; end < line.length; end++) {
      const c = line[end]
      if (c === BACKSLASH) end++
      else if (c === QUOTE) break
    }
  }
  if (end < 0 || line[end + 1] !== COMMA || line[end + 2] !== QUOTE) return undefined
  const close = line.indexOf(QUOTE, end + 3)
  if (close < 0 || line[close + 1] !== COMMA) return undefined
  const oid = line.toString('latin1', end + 3, close)
  if (!OID.test(oid)) return undefined
  try {
    const path = escaped ? (JSON.parse(line.toString('utf8', 1, end + 1)) as unknown) : line.toString('utf8', 2, end)
    return typeof path === 'string' ? { path, oid } : undefined
  } catch {
    return undefined
  }
}

/**
 * The parse a copy's line holds for the file at `path` of blob `oid`, or undefined when the line is not one of that
 * file or not of the shape the rebuild writes (the caller then reads and parses the file).
 */
export function parsedOf(line: Buffer, path: string, oid: string): ParsedFile | undefined {
  try {
    const item = JSON.parse(line.toString('utf8')) as unknown
    if (!Array.isArray(item) || item.length !== 3 || item[0] !== path || item[1] !== oid) return undefined
    const kept = item[2] as Partial<WireFile> | null
    if (typeof kept !== 'object' || kept === null || Array.isArray(kept)) return undefined
    const { entry, row, name, counted, recall, hash } = kept
    if (
      !isObject(entry) ||
      (row !== undefined && !isObject(row)) ||
      !Array.isArray(counted) ||
      typeof hash !== 'string'
    )
      return undefined
    // The strings the file holds twice were kept once (keep): each given back to both places, one string in both.
    const parsed: ParsedFile = { ...shareIn({ entry, row, name }, path), counted: counted as CountedDoc, hash }
    if (recall !== undefined) parsed.recall = recall as unknown as string[][]
    return parsed
  } catch {
    return undefined
  }
}

/** A slot of the rebuild as the join sees it: `kept` is set to the copy's line for its path and blob id. */
export interface JoinSlot {
  path: string
  oid?: string | undefined
  kept?: Buffer | undefined
}

/**
 * The copy of the last rebuild, read a line at a time as the rebuild reaches the files they are of (`join`, called
 * with the rebuild's files in store order, a chunk at a time). Lines stay bytes (UTF-8) until their parse is taken
 * (parsedOf), and are written back as they are (ReuseWriter keep).
 */
export class ReuseReader {
  /** The bytes inflated and not yet looked at, from `at`: whole lines, then the start of the next. */
  private bytes: Buffer = Buffer.alloc(0)
  private at = 0
  /** The next line's path and blob id, read and not yet joined. */
  private head: { path: string; oid: string; line: Buffer } | undefined
  /** Bytes inflated so far. */
  private count = 0
  private ended = false
  /**
   * Pieces inflated and not yet looked at. Taken as zlib gives them ('data'), not through the stream's iterator: a
   * stream destroyed by an error (a torn copy) drops what it holds, and the pieces before the error are whole lines.
   */
  private readonly pieces: Buffer[] = []
  private queued = 0
  /** zlib has given all it will (the end, or an error). */
  private over = false
  private wake: (() => void) | undefined

  private constructor(
    private readonly source: ReadStream,
    private readonly inflate: InflateRaw,
    private readonly limit: number,
  ) {
    inflate.on('data', (piece: Buffer) => {
      this.pieces.push(piece)
      this.queued += piece.length
      if (this.queued >= 4 * CHUNK) inflate.pause()
      this.wake?.()
    })
    const over = () => {
      this.over = true
      this.wake?.()
    }
    inflate.on('end', over)
    inflate.on('error', over)
    inflate.on('close', over)
  }

  /**
   * The copy in `file` when its header is `want`'s; undefined when it is missing, torn before its first line, foreign,
   * or of another build, cache format or set of reviewed fingerprints. At most `limit` bytes are inflated.
   */
  static async open(file: string, want: Header, limit = MAX_INFLATED): Promise<ReuseReader | undefined> {
    const source = createReadStream(file, { highWaterMark: CHUNK })
    const inflate = createInflateRaw({ chunkSize: CHUNK })
    // A file that cannot be read ends the inflate (its error ends the reading).
    source.on('error', (err) => inflate.destroy(err))
    inflate.on('error', () => source.destroy())
    source.pipe(inflate)
    const reader = new ReuseReader(source, inflate, limit)
    let first: Buffer | undefined
    while ((first = reader.shift()) === undefined && (await reader.more()));
    try {
      const h = JSON.parse(first?.toString('utf8') ?? '') as Partial<Header> | null
      if (h?.format === want.format && h.stamp === want.stamp && h.allow === want.allow) return reader
    } catch {
      // Not a header: not a copy of ours.
    }
    reader.close()
    return undefined
  }

  /** The next whole line inflated (its bytes, without its `\n`), or undefined when none is (more() inflates). */
  private shift(): Buffer | undefined {
    const nl = this.bytes.indexOf(NEWLINE, this.at)
    if (nl < 0) return undefined
    const line = this.bytes.subarray(this.at, nl)
    this.at = nl + 1
    return line
  }

  /** The next piece zlib inflated, once it has; undefined when it has given all it will. */
  private async next(): Promise<Buffer | undefined> {
    while (!this.pieces.length && !this.over) {
      await new Promise<void>((resolve) => (this.wake = resolve))
      this.wake = undefined
    }
    const piece = this.pieces.shift()
    if (piece) this.queued -= piece.length
    if (this.inflate.isPaused() && this.queued < CHUNK) this.inflate.resume()
    return piece
  }

  /** Takes the next piece inflated; false at the end of the copy, at an error, or past the limits. */
  private async more(): Promise<boolean> {
    if (this.ended) return false
    const piece = await this.next()
    // What is left after the last `\n` at the end (or at an error) is no whole line: never read.
    if (!piece) return this.end()
    this.count += piece.length
    this.bytes = this.at < this.bytes.length ? Buffer.concat([this.bytes.subarray(this.at), piece]) : piece
    this.at = 0
    if (this.count > this.limit || (this.bytes.length > MAX_LINE && !this.bytes.includes(NEWLINE))) return this.end()
    return true
  }

  /** Stops reading: what was joined stays, nothing after it is read. */
  private end(): false {
    this.ended = true
    this.bytes = Buffer.alloc(0)
    this.at = 0
    this.pieces.length = 0
    this.close()
    return false
  }

  /** Sets `kept` of each slot (with a blob id) whose path and blob id a line of the copy has, to that line. */
  async join(slots: readonly JoinSlot[]): Promise<void> {
    for (const slot of slots) {
      if (slot.oid === undefined) continue
      for (;;) {
        if (!this.head) {
          const line = this.shift()
          if (line === undefined) {
            if (!(await this.more())) return
            continue
          }
          const head = lineHead(line)
          // Not a line the rebuild writes: the copy is read no further.
          if (!head) return void this.end()
          this.head = { ...head, line }
        }
        const order = storeOrder(this.head.path, slot.path)
        // A file the store no longer has (or no longer clean), or a line out of order: passed over.
        if (order < 0) {
          this.head = undefined
          continue
        }
        // A copy of its bytes: a view would hold the whole piece inflated.
        if (order === 0) {
          if (this.head.oid === slot.oid) slot.kept = Buffer.from(this.head.line)
          this.head = undefined
        }
        break
      }
    }
  }

  /** Stops reading the file. */
  close(): void {
    this.inflate.destroy()
    this.source.destroy()
  }
}

/** A file's parse as it was kept, and its line (written back unchanged when it is kept again). */
export interface Reusable {
  parsed: ParsedFile
  line: Uint8Array
}

/**
 * The copy a rebuild keeps for the next, written as the rebuild settles its files in store order: each line through
 * zlib's deflate (on its threads) into a temporary file beside `file`, renamed over it by `commit`.
 */
export class ReuseWriter {
  private readonly deflate: DeflateRaw
  private readonly out: WriteStream
  private readonly done: Promise<boolean>
  private readonly file: ReturnType<typeof openAtomic>
  /** Lines not yet handed to zlib, each with its `\n` (PIECE bytes of them are, at a time). */
  private pending: Uint8Array[] = []
  /** Lines made by this rebuild, after `pending`: encoded together (one Buffer for many, not one each). */
  private made: string[] = []
  private size = 0
  private settled = false

  /** The writer of `file`; throws when its temporary file cannot be made (a read-only git dir). */
  constructor(file: string, header: Header, level = REUSE_LEVEL) {
    this.file = openAtomic(file)
    // Up to 2 MB may wait for zlib: this thread goes on meanwhile, and waits (`drained`) only past that.
    this.deflate = createDeflateRaw({ level, chunkSize: CHUNK, writableHighWaterMark: 2 << 20 } as Parameters<
      typeof createDeflateRaw
    >[0])
    this.out = createWriteStream('', { fd: this.file.fd, autoClose: true })
    this.done = new Promise((resolve) => {
      let failed = false
      const fail = () => {
        failed = true
        this.deflate.destroy()
        this.out.destroy()
      }
      this.deflate.on('error', fail)
      this.out.on('error', fail)
      this.out.on('close', () => resolve(!failed && this.out.writableFinished))
    })
    this.deflate.pipe(this.out)
    this.add(JSON.stringify(header))
  }

  private add(line: Uint8Array | string): void {
    if (typeof line === 'string') {
      this.made.push(line, '\n')
      this.size += line.length + 1
    } else {
      this.encodeMade()
      this.pending.push(line, NL)
      this.size += line.byteLength + 1
    }
    if (this.size >= PIECE) this.flush()
  }

  private encodeMade(): void {
    if (!this.made.length) return
    this.pending.push(Buffer.from(this.made.join('')))
    this.made = []
  }

  private flush(): void {
    if (!this.size) return
    this.encodeMade()
    if (!this.deflate.destroyed) this.deflate.write(Buffer.concat(this.pending))
    this.pending = []
    this.size = 0
  }

  /** Keeps a clean file's parse when it is worth keeping (no problem, nothing withheld, no finding). */
  keep(path: string, oid: string, result: ParsedFile, taken?: Reusable): void {
    if (taken) return this.add(taken.line)
    const { entry, row, counted, recall, hash, name, scan, withheld } = result
    if (!entry || !counted || !hash || withheld || (scan && (scan.secrets.length || scan.directives.length))) return
    // Each string the file holds twice (its name, description, path… in the entry and the row) kept once: a fifth
    // less to write, inflate and parse, and the next rebuild holds one string for both places.
    const shared = shareOut({ entry, row, name }, path)
    this.add(JSON.stringify([path, oid, { ...shared, counted, recall, hash }]))
  }

  /** Resolves once zlib has taken what waits for it (below its high-water mark), or has failed. */
  drained(): Promise<void> {
    if (!this.deflate.writableNeedDrain || this.deflate.destroyed) return Promise.resolve()
    return new Promise((resolve) => {
      const go = () => {
        this.deflate.off('drain', go)
        this.deflate.off('close', go)
        resolve()
      }
      this.deflate.on('drain', go)
      this.deflate.on('close', go)
    })
  }

  /** Ends the copy and puts it in place; false when it could not be written (the next rebuild parses everything). */
  async commit(): Promise<boolean> {
    if (this.settled) return false
    this.flush()
    this.deflate.end()
    const ok = await this.done
    this.settled = true
    if (!ok) {
      this.file.abort()
      return false
    }
    try {
      this.file.commit()
      return true
    } catch {
      return false
    }
  }

  /** Drops the copy (the rebuild wrote no set, or failed); nothing once committed. */
  abort(): void {
    if (this.settled) return
    this.settled = true
    this.deflate.destroy()
    this.out.destroy()
    // Removed now (the command may exit before the stream closes), and again once the stream has closed it (Windows
    // removes no file that is open).
    this.file.abort()
    void this.done.then(() => this.file.abort())
  }
}

const NL = Buffer.from('\n')

/** How many bytes of lines are handed to zlib at a time. */
const PIECE = 256 << 10
/** zlib's level for the copy: at 100,000 learnings (~180 MB of lines) 4 took ~50 % longer than 3 for 7 % less. */
const REUSE_LEVEL = 3
/**
 * The bytes zlib inflates or deflates at a time (its own default is 16 KB): at 100,000 learnings the copy is ~160 MB
 * inflated, and each piece costs this thread a turn of the event loop.
 */
const CHUNK = 256 << 10
