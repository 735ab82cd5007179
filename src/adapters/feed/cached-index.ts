/**
 * A cached index of one key, read lazily: the postings of the terms a query reaches (terms-<key>.json gives their
 * offsets in postings-<key>.bin), the document table (docs-<key>.bin), and the catalog blocks of the hits only.
 */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import type { CatalogEntry, CatalogView, DocMeta } from '../../core/search.js'
import { mappedPart, mergeIndexes } from '../../core/search-merge.js'
import type { ScoringIndex } from '../../core/search-score.js'
import { files, isObject, readFeedFile } from './cache-files.js'
import { CatalogBlocks, blockCount, readRowTable } from './catalog-blocks.js'
import type { FeedFile, TermsFile } from './cache-files.js'
import { openIndex, readIndexTerms, tierIndexFiles } from './index-files.js'

/** The cached index of one key, read lazily: the terms a query reaches, and the rows of its hits. */
export class CachedIndex implements CatalogView {
  /** The catalog's blocks (ranking reads those of the candidates that can enter the top); close() closes the file. */
  private readonly catalog: CatalogBlocks
  /** Where the tiers start in rows-<key>.bin, in uint32. */
  private readonly tiersAt: number

  constructor(
    private readonly dir: string,
    private readonly f: ReturnType<typeof files>,
    readonly feed: FeedFile,
    private readonly terms: TermsFile,
    /** rows-<key>.bin: blocks + 1 block offsets, then count tiers. */
    private readonly rows: DataView,
  ) {
    this.tiersAt = blockCount(feed.count) + 1
    this.catalog = new CatalogBlocks(f.catalog, feed.count, (b) => {
      const at = rows.getUint32(b * 4, true)
      if (at > feed.catalogBytes) throw new Error('the block offsets do not match the catalog')
      return at
    })
  }

  private tierOf(id: number) {
    return Number.isInteger(id) && id >= 0 && id < this.feed.count
      ? this.feed.tiers[this.rows.getUint32((this.tiersAt + id) * 4, true)]
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
    this.catalog.close()
  }

  weight(id: number): number {
    return this.tierOf(id)?.weight ?? 1
  }

  entry(id: number): CatalogEntry | undefined {
    return this.catalog.entry(id)
  }

  /**
   * The index to score: the project's (postings-<key>.bin) merged with each tier's (built once per pinned commit),
   * their postings read when scoring asks for a term. Throws when a file does not match the others (a torn or
   * foreign cache): the caller rebuilds.
   */
  index(): ScoringIndex {
    const project = openIndex(this.f, this.terms, this.feed.count)
    const tiers = this.terms.tiers ?? []
    if (!tiers.length) return project
    return mergeIndexes([
      { index: project, idOf: (s) => project.docId(s) },
      ...tiers.map((t) => {
        if (!/^tier-index-[0-9a-f]{40,64}-[0-9a-f]{12}$/.test(t.index)) throw new Error('a tier index is misnamed')
        const files = tierIndexFiles(join(this.dir, t.index))
        const terms = readIndexTerms(files.terms)
        if (!terms || terms.header.nextId !== t.map.length) throw new Error('a tier index is missing or damaged')
        const count = this.feed.count
        if (!t.map.every((id) => Number.isInteger(id) && id >= -1 && id < count))
          throw new Error('a tier map is damaged')
        return mappedPart(openIndex(files, terms, t.map.length), t.map)
      }),
    ])
  }
}

export function readCachedIndex(dir: string, key: string): CachedIndex | undefined {
  const feed = readFeedFile(dir, key)
  if (!feed) return undefined
  const f = files(dir, key)
  const terms = readIndexTerms(f.terms)
  if (!terms || (terms.tiers !== undefined && !Array.isArray(terms.tiers))) return undefined
  if (terms.tiers?.some((t) => !isObject(t) || typeof t.index !== 'string' || !Array.isArray(t.map))) return undefined
  const catalogSize = statSync(f.catalog, { throwIfNoEntry: false })?.size
  if (catalogSize !== feed.catalogBytes) return undefined
  const rows = readRowTable(f.rows, feed)
  if (!rows) return undefined
  return new CachedIndex(dir, f, feed, terms, new DataView(rows.buffer, rows.byteOffset, rows.byteLength))
}
