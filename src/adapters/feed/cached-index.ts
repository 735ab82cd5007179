/**
 * A cached index of one key, read lazily: the postings of the terms a query reaches (terms-<key>.json gives their
 * offsets in postings-<key>.bin), the document table (docs-<key>.bin), and the catalog rows of the hits only.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs'
import type { CatalogEntry, CatalogView, DocMeta } from '../../core/search.js'
import { decodePostings } from '../../core/search-postings.js'
import type { ScoringIndex } from '../../core/search-score.js'
import { ABSENT, files, isObject, readFeedFile, readJson, readSlice } from './cache-files.js'
import type { FeedFile, TermsFile } from './cache-files.js'
import { CACHE_FORMAT } from './feed-key.js'

/** The cached index of one key, read lazily: the terms a query reaches, and the rows of its hits. */
export class CachedIndex implements CatalogView {
  /** The catalog rows read so far (ranking reads those of the candidates that can enter the top). */
  private readonly entries = new Map<number, CatalogEntry>()
  /** The catalog file, open while ranking reads its rows (close() closes it). */
  private fd: number | undefined

  constructor(
    private readonly f: ReturnType<typeof files>,
    readonly feed: FeedFile,
    private readonly terms: TermsFile,
    /** rows-<key>.bin: count + 1 row offsets, then count tiers. */
    private readonly rows: DataView,
  ) {}

  private tierOf(id: number) {
    return Number.isInteger(id) && id >= 0 && id < this.feed.count
      ? this.feed.tiers[this.rows.getUint32((this.feed.count + 1 + id) * 4, true)]
      : undefined
  }

  meta(id: number): DocMeta | undefined {
    const e = this.entry(id)
    if (!e) return undefined
    const t = this.tierOf(id)
    return { name: e.name, state: e.state, type: e.type, tier: t?.tier ?? '?', weight: t?.weight ?? 1 }
  }

  /** Close the catalog file if a row was read. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  weight(id: number): number {
    return this.tierOf(id)?.weight ?? 1
  }

  entry(id: number): CatalogEntry | undefined {
    if (!Number.isInteger(id) || id < 0 || id >= this.feed.count) return undefined
    let e = this.entries.get(id)
    if (!e) {
      const start = this.rows.getUint32(id * 4, true)
      const end = this.rows.getUint32((id + 1) * 4, true)
      if (end < start + 2 || end > this.feed.catalogBytes) throw new Error('the row offsets do not match the catalog')
      this.fd ??= openSync(this.f.catalog, 'r')
      e = JSON.parse(readSlice(this.fd, start, end - start - 2)) as CatalogEntry
      if (!isObject(e) || typeof e.name !== 'string') throw new Error('a catalog row is not an entry')
      this.entries.set(id, e)
    }
    return e
  }

  /**
   * The index to score: its postings are read from postings-<key>.bin when scoring asks for a term. Throws when a
   * file does not match the others (a torn or foreign cache): the caller rebuilds.
   */
  index(): ScoringIndex {
    const { terms, offsets, header } = this.terms
    const postingsSize = statSync(this.f.postings, { throwIfNoEntry: false })?.size
    if (postingsSize !== offsets[offsets.length - 1]) throw new Error('the postings file does not match its offsets')
    const table = readFileSync(this.f.docs)
    const fieldCount = Object.keys(header.fieldIds).length
    const width = 1 + fieldCount
    if (table.length !== header.nextId * width * 4) throw new Error('the document table does not match the index')
    const view = new DataView(table.buffer, table.byteOffset, table.byteLength)
    const file = this.f.postings
    const count = this.feed.count
    return {
      documentCount: header.documentCount,
      nextId: header.nextId,
      averageFieldLength: header.averageFieldLength,
      terms,
      postings(i) {
        const start = offsets[i] as number
        const bytes = Buffer.allocUnsafe((offsets[i + 1] as number) - start)
        const fd = openSync(file, 'r')
        try {
          for (let got = 0; got < bytes.length;) {
            const n = readSync(fd, bytes, got, bytes.length - got, start + got)
            if (n <= 0) throw new Error('the postings file is shorter than its offsets')
            got += n
          }
        } finally {
          closeSync(fd)
        }
        return decodePostings(bytes, fieldCount, header.nextId)
      },
      docId(short) {
        // Every short id of a table we wrote names a catalog entry: anything else is a foreign or damaged file.
        const id = view.getUint32(short * width * 4, true)
        if (id === ABSENT || id >= count) throw new Error('the document table names no catalog entry')
        return id
      },
      fieldLength: (short, fieldId) => view.getUint32((short * width + 1 + fieldId) * 4, true),
    }
  }
}

export function readCachedIndex(dir: string, key: string): CachedIndex | undefined {
  const feed = readFeedFile(dir, key)
  if (!feed) return undefined
  const f = files(dir, key)
  const t = readJson(f.terms)
  if (
    !isObject(t) ||
    t['format'] !== CACHE_FORMAT ||
    !isObject(t['header']) ||
    !Array.isArray(t['terms']) ||
    !Array.isArray(t['offsets'])
  )
    return undefined
  const terms = t as unknown as TermsFile
  const h = terms.header
  const fieldCount = isObject(h.fieldIds) ? Object.keys(h.fieldIds).length : -1
  if (
    !Number.isInteger(h.nextId) ||
    h.nextId < 0 ||
    typeof h.documentCount !== 'number' ||
    !Array.isArray(h.averageFieldLength) ||
    h.averageFieldLength.length > fieldCount ||
    !h.averageFieldLength.every((a) => typeof a === 'number')
  )
    return undefined
  if (
    terms.offsets.length !== terms.terms.length + 1 ||
    !terms.offsets.every((o, i) => Number.isInteger(o) && o >= (terms.offsets[i - 1] ?? 0))
  )
    return undefined
  const catalogSize = statSync(f.catalog, { throwIfNoEntry: false })?.size
  if (catalogSize !== feed.catalogBytes) return undefined
  let rows: Buffer
  try {
    rows = readFileSync(f.rows)
  } catch {
    return undefined
  }
  if (rows.length !== (2 * feed.count + 1) * 4) return undefined
  return new CachedIndex(f, feed, terms, new DataView(rows.buffer, rows.byteOffset, rows.byteLength))
}
