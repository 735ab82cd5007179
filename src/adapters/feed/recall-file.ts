/**
 * recall-<key>.bin, the recall hook's file: what it ranks a failure against (src/core/recall-rank.ts RecallPostings),
 * laid out so a failing tool call reads only what it uses. The postings are the bulk (at 100,000 learnings a common
 * trigger word is held by most entries): each term's are read when the ranking first looks at them, so a failure reads
 * those of its own terms (and of any other the ranking asks for), never all of them; the JSON file before it was
 * parsed whole on every failure.
 *
 * Layout: one line of JSON (the header), then the sections it gives the byte lengths of, in this order:
 * - `totals`: per entry, its total trigger weight × 1000 (RecallPostings holds it rounded to three decimals), uint32;
 * - `tiers`: per entry, the position of its tier weight in header.weights, uint16;
 * - `rows`: per entry, [start, end) of its block in catalog-<key>.deflate (two uint32), its row's place in the block
 *   and the rows the block holds (two uint16);
 * - `nameEnds`: per entry, where its name ends in `names`, in bytes, uint32;
 * - `names`: the entries' names, UTF-8, one after the other (a name is decoded when the ranking reads it: a failure
 *   reads a few, and parsing 100,000 of them cost more than the ranking);
 * - `terms`: the distinct trigger terms, sorted, one JSON array;
 * - `offsets`: per term, where its postings start in `postings`, counted in entries (terms + 1 values), uint32;
 * - `postings`: per term, the entries holding it, ascending, uint32.
 * Numbers are little-endian. A torn, foreign or older file reads as undefined (a miss), never as an error; damage
 * found later (a name or posting out of bounds) throws when it is read.
 */
import { closeSync, fstatSync, openSync, statSync } from 'node:fs'
import type { RecallPostings } from '../../core/recall-rank.js'
import { writeAtomic } from '../state/cache-file.js'
import { readBytes } from './cache-files.js'
import { CACHE_FORMAT } from './feed-key.js'

const MAGIC = 'git-learn recall'
/** At most this many bytes of header (its names and numbers are few). */
const MAX_HEADER = 64 * 1024
/** Bytes of an entry's place in the catalog (the `rows` section). */
const ROW_BYTES = 12
/** The file's sections, in the order it holds them (the header's `sizes` follow it). */
export const SECTIONS = ['totals', 'tiers', 'rows', 'nameEnds', 'names', 'terms', 'offsets', 'postings'] as const
type Section = (typeof SECTIONS)[number]

interface Header {
  magic: string
  format: number
  key: string
  /** Recall entries. */
  n: number
  /** Distinct trigger terms. */
  t: number
  /** The distinct tier weights. */
  weights: number[]
  catalogBytes: number
  /** Byte length of each section, in SECTIONS order. */
  sizes: number[]
}

/** Write the recall file of an inverted recall index; `rows` are where the entries' catalog rows are (CatalogRowAt). */
export function writeRecallFile(
  file: string,
  key: string,
  index: RecallPostings,
  rows: readonly (readonly [number, number, number, number])[],
  catalogBytes: number,
): void {
  const n = index.names.length
  const weights = [...new Set(index.weights)]
  const totals = Buffer.alloc(4 * n)
  const tiers = Buffer.alloc(2 * n)
  const rowBuf = Buffer.alloc(ROW_BYTES * n)
  for (let i = 0; i < n; i++) {
    totals.writeUInt32LE(Math.round((index.totals[i] as number) * 1000), 4 * i)
    tiers.writeUInt16LE(weights.indexOf(index.weights[i] as number), 2 * i)
    const [start, end, line, blockRows] = rows[i] as readonly [number, number, number, number]
    rowBuf.writeUInt32LE(start, ROW_BYTES * i)
    rowBuf.writeUInt32LE(end, ROW_BYTES * i + 4)
    rowBuf.writeUInt16LE(line, ROW_BYTES * i + 8)
    rowBuf.writeUInt16LE(blockRows, ROW_BYTES * i + 10)
  }
  const names = index.names.map((s) => Buffer.from(s))
  const nameEnds = Buffer.alloc(4 * n)
  let end = 0
  names.forEach((b, i) => nameEnds.writeUInt32LE((end += b.length), 4 * i))
  const [offsets, postings] = packPostings(index.postings)
  const body: Record<Section, Buffer> = {
    totals,
    tiers,
    rows: rowBuf,
    nameEnds,
    names: Buffer.concat(names),
    terms: Buffer.from(JSON.stringify(index.terms)),
    offsets,
    postings,
  }
  const header: Header = {
    magic: MAGIC,
    format: CACHE_FORMAT,
    key,
    n,
    t: index.terms.length,
    weights,
    catalogBytes,
    sizes: SECTIONS.map((s) => body[s].length),
  }
  writeAtomic(file, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), ...SECTIONS.map((s) => body[s])]))
}

/** Postings as two sections: where each term's start (counted in entries, terms + 1 values) and the entries. */
function packPostings(lists: readonly (readonly number[])[]): [Buffer, Buffer] {
  const offsets = Buffer.alloc(4 * (lists.length + 1))
  let first = 0
  lists.forEach((docs, t) => {
    offsets.writeUInt32LE(first, 4 * t)
    first += docs.length
  })
  offsets.writeUInt32LE(first, 4 * lists.length)
  const postings = Buffer.alloc(4 * first)
  let at = 0
  for (const docs of lists) for (const d of docs) at = postings.writeUInt32LE(d, at)
  return [offsets, postings]
}

/** Where a recall entry's catalog row is: [start, end) of its block, its place in it, the rows the block holds. */
export interface CatalogRowAt {
  start: number
  end: number
  line: number
  rows: number
}

/** An open recall file whose header matched: what a failure's terms reach, and an entry's catalog row. */
export interface RecallReader {
  /** The recall index as rankRecall reads it; each term's postings are read from the file when first used. */
  index(): RecallPostings
  /** Entry `i`'s row in the catalog file: [start, end) of its block, its place in it and the block's rows. */
  row(i: number): CatalogRowAt | undefined
  close(): void
}

const isCount = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0

/** The recall file of `key`, when it is whole, of this format and its catalog file has the size it was written with. */
export function openRecallFile(file: string, catalog: string, key: string): RecallReader | undefined {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    return undefined
  }
  try {
    const reader = readerOf(fd, catalog, key)
    if (!reader) closeSync(fd)
    return reader
  } catch {
    closeSync(fd)
    return undefined
  }
}

function readerOf(fd: number, catalog: string, key: string): RecallReader | undefined {
  const size = fstatSync(fd).size
  const head = readBytes(fd, 0, Math.min(size, MAX_HEADER))
  const eol = head.indexOf(10)
  if (eol < 0) return undefined
  const h = JSON.parse(head.subarray(0, eol).toString('utf8')) as Partial<Header>
  const sizes = h.sizes
  if (
    h.magic !== MAGIC ||
    h.format !== CACHE_FORMAT ||
    h.key !== key ||
    !isCount(h.n) ||
    !isCount(h.t) ||
    !Array.isArray(h.weights) ||
    !h.weights.every((w) => typeof w === 'number') ||
    !Array.isArray(sizes) ||
    sizes.length !== SECTIONS.length ||
    !sizes.every(isCount) ||
    statSync(catalog, { throwIfNoEntry: false })?.size !== h.catalogBytes
  )
    return undefined
  const { n, t, weights } = h as Header
  const sizeOf = (s: Section) => sizes[SECTIONS.indexOf(s)] as number
  const fixed: Partial<Record<Section, number>> = {
    totals: 4 * n,
    tiers: 2 * n,
    rows: ROW_BYTES * n,
    nameEnds: 4 * n,
    offsets: 4 * (t + 1),
  }
  const start: Partial<Record<Section, number>> = {}
  let at = eol + 1
  for (const s of SECTIONS) {
    start[s] = at
    at += sizeOf(s)
  }
  if (at !== size || SECTIONS.some((s) => fixed[s] !== undefined && fixed[s] !== sizeOf(s))) return undefined
  const section = (s: Section, from = 0, length = sizeOf(s) - from) =>
    readBytes(fd, (start[s] as number) + from, length)
  const strings = (s: Section, count: number): string[] => {
    const v = JSON.parse(section(s).toString('utf8')) as unknown
    if (!Array.isArray(v) || v.length !== count || !v.every((x) => typeof x === 'string'))
      throw new Error(`the recall file's ${s} do not match its header`)
    return v as string[]
  }
  return {
    index() {
      const totalsBuf = section('totals')
      const tiersBuf = section('tiers')
      const totals: number[] = new Array<number>(n)
      const entryWeights: number[] = new Array<number>(n)
      for (let i = 0; i < n; i++) {
        totals[i] = totalsBuf.readUInt32LE(4 * i) / 1000
        const w = weights[tiersBuf.readUInt16LE(2 * i)]
        if (w === undefined) throw new Error('the recall file names a tier weight it does not hold')
        entryWeights[i] = w
      }
      const docsOf = (offsetsSection: Section, postingsSection: Section) => {
        const offsets = section(offsetsSection)
        const count = sizeOf(postingsSection) / 4
        return (term: number): number[] => {
          const first = offsets.readUInt32LE(4 * term)
          const end = offsets.readUInt32LE(4 * term + 4)
          if (end < first || end > count) throw new Error('a recall term points outside the postings')
          const buf = section(postingsSection, 4 * first, 4 * (end - first))
          const docs: number[] = new Array<number>(end - first)
          for (let i = 0; i < docs.length; i++) {
            const d = buf.readUInt32LE(4 * i)
            if (d >= n) throw new Error('a recall posting names no entry')
            docs[i] = d
          }
          return docs
        }
      }
      const nameEnds = section('nameEnds')
      const names = section('names')
      const decoded = new Array<string | undefined>(n)
      const nameOf = (i: number): string => {
        let name = decoded[i]
        if (name === undefined) {
          if (!Number.isInteger(i) || i < 0 || i >= n) throw new Error('a recall entry out of range')
          const start = i === 0 ? 0 : nameEnds.readUInt32LE(4 * i - 4)
          const end = nameEnds.readUInt32LE(4 * i)
          if (end < start || end > names.length) throw new Error('a recall name points outside the names')
          decoded[i] = name = names.toString('utf8', start, end)
        }
        return name
      }
      return {
        names: lazyArray(n, nameOf),
        nameOf,
        weights: entryWeights,
        totals,
        terms: strings('terms', t),
        postings: lazyArray(t, docsOf('offsets', 'postings')),
      }
    },
    row(i) {
      if (!Number.isInteger(i) || i < 0 || i >= n) return undefined
      const buf = section('rows', ROW_BYTES * i, ROW_BYTES)
      return {
        start: buf.readUInt32LE(0),
        end: buf.readUInt32LE(4),
        line: buf.readUInt16LE(8),
        rows: buf.readUInt16LE(10),
      }
    },
    close: () => closeSync(fd),
  }
}

/**
 * An array of `length` values, each computed by `load` when it is first read (then kept): to its reader an ordinary
 * array, so the ranking in src/core/recall-rank.ts reads the postings it needs without knowing they come from a file.
 */
function lazyArray<T>(length: number, load: (i: number) => T): T[] {
  const values = new Array<T>(length)
  const loaded = new Uint8Array(length)
  return new Proxy(values, {
    get(target, prop, receiver) {
      if (typeof prop === 'string') {
        const i = Number(prop)
        if (Number.isInteger(i) && i >= 0 && i < length && String(i) === prop) {
          if (!loaded[i]) {
            target[i] = load(i)
            loaded[i] = 1
          }
          return target[i]
        }
      }
      return Reflect.get(target, prop, receiver) as unknown
    },
  })
}
