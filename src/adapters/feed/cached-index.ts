/**
 * A cached index of one key, read lazily: the postings of the terms a query can reach (terms-<key>.json gives their
 * offsets in postings-<key>.txt), the document records of those postings (docs-<key>.bin), and the catalog rows of
 * the hits only.
 */
import { closeSync, fstatSync, openSync, readFileSync, statSync } from 'node:fs'
import type MiniSearch from 'minisearch'
import type { AsPlainObject } from 'minisearch'
import type { CatalogEntry, CatalogView, DocMeta, IndexDoc, SearchDoc } from '../../core/search.js'
import type { BuiltParts } from '../../core/search-parts.js'
import { files, isObject, readFeedFile, readJson, readSlice } from './cache-files.js'
import { unpackCatalogEntry } from './catalog-rows.js'
import type { FeedFile, TermsFile } from './cache-files.js'
import { CACHE_FORMAT } from './feed-key.js'
import { ABSENT } from './write-cache.js'

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

  entry(id: number): CatalogEntry | undefined {
    const start = this.feed.rows[id]
    const end = this.feed.rows[id + 1]
    if (start === undefined || end === undefined) return undefined
    let e = this.entries.get(id)
    if (!e) {
      const fd = openSync(this.f.catalog, 'r')
      try {
        e = unpackCatalogEntry(JSON.parse(readSlice(fd, start, end - start - 2)))
        if (!e) throw new Error('a catalog row does not read back')
      } finally {
        closeSync(fd)
      }
      this.entries.set(id, e)
    }
    return e
  }

  /** An index holding the postings of the terms `query` can reach. */
  indexFor(query: string, search: typeof import('../../core/search.js')): MiniSearch<SearchDoc> {
    const { terms, offsets, header } = this.terms
    const picked = search.selectIndexTerms(terms, search.buildQueryTerms(query))
    const fd = openSync(this.f.postings, 'r')
    try {
      if (fstatSync(fd).size !== offsets[offsets.length - 1])
        throw new Error('the postings file does not match its offsets')
      const entries: AsPlainObject['index'] = picked.map((i) => [
        terms[i] as string,
        JSON.parse(
          readSlice(fd, offsets[i] as number, (offsets[i + 1] as number) - (offsets[i] as number)),
        ) as AsPlainObject['index'][number][1],
      ])
      const table = readFileSync(this.f.docs)
      const width = 1 + Object.keys(header.fieldIds).length
      if (table.length !== header.nextId * width * 4) throw new Error('the document table does not match the index')
      const doc = (short: number): IndexDoc | undefined => {
        if (!Number.isInteger(short) || short < 0 || short >= header.nextId) return undefined
        const at = short * width * 4
        const id = table.readUInt32LE(at)
        if (id === ABSENT) return undefined
        const lengths: number[] = []
        for (let f = 1; f < width; f++) lengths.push(table.readUInt32LE(at + f * 4))
        return [id, lengths]
      }
      return search.joinIndex(header, entries, doc)
    } finally {
      closeSync(fd)
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
  if (terms.offsets.length !== terms.terms.length + 1) return undefined
  const catalogSize = statSync(f.catalog, { throwIfNoEntry: false })?.size
  if (catalogSize !== feed.catalogBytes) return undefined
  return new CachedIndex(f, feed, terms)
}

/** An index holding the postings of the terms `query` can reach, from parts just built (no cache file read). */
export function freshIndexFor(
  parts: BuiltParts,
  query: string,
  search: typeof import('../../core/search.js'),
): MiniSearch<SearchDoc> {
  const picked = search.selectIndexTerms(parts.terms, search.buildQueryTerms(query))
  const entries: AsPlainObject['index'] = picked.map((i) => [
    parts.terms[i] as string,
    JSON.parse(parts.postingsJson(i)) as AsPlainObject['index'][number][1],
  ])
  return search.joinIndex(parts.header, entries, (short) => parts.docs[short])
}
