/**
 * catalog-<key>.deflate: the catalog rows (catalog-rows.ts) in blocks of BLOCK_ROWS consecutive entries, each block
 * its rows joined by ",\n" and compressed alone (raw deflate). A search inflates only the blocks of the hits it ranks,
 * recall those of the learnings it prints, context those of the lines it shows (a damaged cache's context every
 * block); rows-<key>.bin holds where each block starts. At 100,000 learnings the rows were 32 MB of
 * JSON, the largest file of the local state.
 *
 * A block that does not inflate or parse, or holds another number of rows than its place says (a torn or foreign
 * file), throws or reads as undefined: the caller's miss.
 */
import { closeSync, openSync, readFileSync } from 'node:fs'
import { inflateRawSync } from 'node:zlib'
import type { CatalogEntry } from '../../core/search.js'
import { MAX_INFLATED, deflateOffThread, files, readBytes, readSized } from './cache-files.js'
import type { FeedFile } from './cache-files.js'
import { packCatalogEntry, unpackCatalogEntry } from './catalog-rows.js'

/** Rows a block holds (the last may hold fewer). */
export const BLOCK_ROWS = 64

export const blockCount = (count: number): number => Math.ceil(count / BLOCK_ROWS)

/** Blocks being compressed at a time while this thread writes the next ones' text: bounds the texts held. */
const IN_FLIGHT = 8

/**
 * The compressed blocks of a catalog, and where each starts in the file (blocks + 1 values: the last is its size).
 * Each block is compressed on one of zlib's threads while this one writes the text of the next (at 100,000 learnings
 * the compression was ~0.3 s of this thread).
 */
export async function packCatalogBlocks(
  catalog: readonly CatalogEntry[],
): Promise<{ blocks: Buffer[]; starts: number[] }> {
  const blocks: Buffer[] = []
  const pending: Promise<void>[] = []
  let failed: unknown
  for (let first = 0; first < catalog.length; first += BLOCK_ROWS) {
    const text = catalog
      .slice(first, first + BLOCK_ROWS)
      .map((e) => JSON.stringify(packCatalogEntry(e)))
      .join(',\n')
    const b = first / BLOCK_ROWS
    // Never rejects: a failure is thrown once every block is done, so none is left to reject unheard.
    pending.push(
      deflateOffThread(text).then(
        (block) => void (blocks[b] = block),
        (err: unknown) => void (failed ??= err),
      ),
    )
    if (pending.length >= IN_FLIGHT) await pending.shift()
  }
  await Promise.all(pending)
  if (failed !== undefined) throw failed
  const starts = [0]
  for (const block of blocks) starts.push((starts[starts.length - 1] as number) + block.length)
  return { blocks, starts }
}

/** The entries of one compressed block that should hold `rows` rows; throws when it does not. */
export function unpackBlock(block: Buffer, rows: number): CatalogEntry[] {
  const v = JSON.parse(`[${inflateRawSync(block, { maxOutputLength: MAX_INFLATED }).toString('utf8')}]`) as unknown
  if (!Array.isArray(v) || v.length !== rows) throw new Error('a catalog block holds another number of rows')
  return v.map((row) => {
    const e = unpackCatalogEntry(row)
    if (!e) throw new Error('a catalog row does not read back')
    return e
  })
}

/** Rows block `b` of a catalog of `count` entries holds. */
export const rowsOfBlock = (b: number, count: number): number => Math.min(BLOCK_ROWS, count - b * BLOCK_ROWS)

/**
 * The catalog's entries read a block at a time, each block once: `start(b)` is where block b starts (b up to the
 * block count, whose start is the file's size). Throws on a block that does not read back.
 */
export class CatalogBlocks {
  private fd: number | undefined
  private readonly blocks = new Map<number, CatalogEntry[]>()

  constructor(
    private readonly file: string,
    private readonly count: number,
    private readonly start: (b: number) => number,
  ) {}

  entry(id: number): CatalogEntry | undefined {
    if (!Number.isInteger(id) || id < 0 || id >= this.count) return undefined
    const b = Math.floor(id / BLOCK_ROWS)
    let rows = this.blocks.get(b)
    if (!rows) {
      const from = this.start(b)
      const to = this.start(b + 1)
      if (to <= from) throw new Error('the block offsets do not match the catalog')
      this.fd ??= openSync(this.file, 'r')
      rows = unpackBlock(readBytes(this.fd, from, to - from), rowsOfBlock(b, this.count))
      this.blocks.set(b, rows)
    }
    return rows[id - b * BLOCK_ROWS]
  }

  /** Close the file if a block was read. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }
}

/** Every entry of the catalog file, or undefined when it does not read back whole. */
export function readCatalogBlocks(
  file: string,
  count: number,
  start: (b: number) => number,
): CatalogEntry[] | undefined {
  try {
    const buf = readFileSync(file)
    const n = blockCount(count)
    if (start(n) !== buf.length) return undefined
    const entries: CatalogEntry[] = []
    for (let b = 0; b < n; b++) {
      const from = start(b)
      const to = start(b + 1)
      if (to <= from) return undefined
      for (const e of unpackBlock(buf.subarray(from, to), rowsOfBlock(b, count))) entries.push(e)
    }
    return entries
  } catch {
    return undefined
  }
}

/**
 * rows-<key>.bin of a key (each block's start in the catalog file, then each entry's row and tier, uint32), or
 * undefined when it is missing or not the size the feed file's count gives.
 */
export function readRowTable(path: string, feed: FeedFile): Buffer | undefined {
  return readSized(path, (blockCount(feed.count) + 1 + feed.count) * 4)
}

/** The catalog rows of the cache (every entry), or undefined when a file is missing or does not match. */
export function readCatalogFile(dir: string, key: string, feed: FeedFile): CatalogEntry[] | undefined {
  const f = files(dir, key)
  const rows = readRowTable(f.rows, feed)
  return rows && readCatalogBlocks(f.catalog, feed.count, (b) => rows.readUInt32LE(b * 4))
}
