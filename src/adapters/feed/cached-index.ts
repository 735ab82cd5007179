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
  /** The record of each document, made when ranking first asks for it. */
  private readonly metas = new Map<number, DocMeta>()
  private readonly entries = new Map<number, CatalogEntry>()

  constructor(
    private readonly f: ReturnType<typeof files>,
    readonly feed: FeedFile,
    private readonly terms: TermsFile,
  ) {}

  meta(id: number): DocMeta | undefined {
    let m = this.metas.get(id)
    if (!m) {
      const { names, states, types, tiers } = this.feed.docs
      const name = names[id]
      const state = states[id]
      const type = types[id]
      if (name === undefined || state === undefined || type === undefined) return undefined
      const t = this.feed.tiers[tiers[id] ?? -1]
      m = { name, state, type, tier: t?.tier ?? '?', weight: t?.weight ?? 1 }
      this.metas.set(id, m)
    }
    return m
  }

  weight(id: number): number {
    return this.feed.tiers[this.feed.docs.tiers[id] ?? -1]?.weight ?? 1
  }

  entry(id: number): CatalogEntry | undefined {
    const start = this.feed.rows[id]
    const end = this.feed.rows[id + 1]
    if (start === undefined || end === undefined) return undefined
    let e = this.entries.get(id)
    if (!e) {
      const fd = openSync(this.f.catalog, 'r')
      try {
        e = JSON.parse(readSlice(fd, start, end - start - 2)) as CatalogEntry
      } finally {
        closeSync(fd)
      }
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
        const id = view.getUint32(short * width * 4, true)
        return id === ABSENT ? undefined : id
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
  return new CachedIndex(f, feed, terms)
}
