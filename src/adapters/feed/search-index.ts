/**
 * The feed cache, under `<common dir>/learn/cache/`. search, recall, context, status and feedback read learnings
 * from it, never from the 10,000 files themselves.
 *
 * The key (src/adapters/feed-key.ts). `git ls-files -s` gives the blob id of every learning in the index, `git
 * status --porcelain --ignored` the paths whose work-tree file differs from it (edited, added, deleted, untracked,
 * gitignored: the rebuild reads the store's directories, so an ignored learning is indexed like any other); those
 * few are stat'ed (size, mtime, ctime, inode). With the bytes of config.yaml (tier pins and weights) and a stamp of
 * this code, that is the key; on most runs the index file's stat stands in for ls-files. git stats the files in C
 * with its index's stat cache, and no learning is read. Without git's answer the key falls back to stat'ing every
 * file.
 *
 * The files of one key, written by a rebuild (feed-<key>.json last: it marks the set complete):
 * - `feed-<key>.json`: problems (unreadable learnings), tiers, the number of catalog entries and the catalog's size;
 * - `catalog-<key>.deflate`: every catalog entry as a positional row, in blocks of 64 rows each deflated alone
 *   (catalog-blocks.ts: search reads the blocks of the candidates that can enter its top, context those of its lines);
 * - `rows-<key>.bin`: where each catalog block starts, and each entry's tier, uint32 little-endian;
 * - `terms-<key>.json`, `postings-<key>.bin` and `docs-<key>.bin`: the index cut by term (src/core/search-parts.ts):
 *   the header and sorted terms with the byte offset of each term's postings, the postings in binary
 *   (src/core/search-postings.ts), and each document's id and field lengths by short id as fixed-width little-endian
 *   uint32 records; a query reads the postings of the terms it reaches, not the whole index, and ranks exactly as
 *   the whole index would;
 * - `project-<key>.json.deflate`: every readable file of the project store, unfolded, as a listing row (list,
 *   prune), and the project's problems, as deflated JSON; `status-<key>.json.deflate` what status and context rank by,
 *   likewise; `lines-<key>.bin` the lengths of each active learning's two context lines (status-file.ts).
 *
 * A rebuild reads the clean files of the store in bulk from git's object store (one `git cat-file --batch` per
 * 10,000 blob ids of the index) and the others from the work tree, parsing, folding and indexing each file as it
 * comes (src/core/search-parts.ts IndexBuilder). A corrupt, torn or foreign cache file is a miss, never an error.
 *
 * The modules: feed-key.ts (the key), cache-files.ts (the files and their readers), rebuild.ts (read, fold, index),
 * write-cache.ts, cached-index.ts (a query's postings), status-file.ts, config-cache.ts; this file holds the readers
 * each command calls.
 */
import type { CatalogEntry, SearchFilter, SearchHit } from '../../core/search.js'
import type { StatusEntry } from '../../core/status.js'
import { files, lastKey, markLastKeyUsed, noteLastKey, readFeedFile, readProjectFile } from './cache-files.js'
import { CatalogBlocks, readCatalogFile, readRowTable } from './catalog-blocks.js'
import type { Problem, ProjectFile } from './cache-files.js'
import { readCachedIndex } from './cached-index.js'
import { cacheDir, keyingFor } from './feed-key.js'
import type { Keying, StoreState } from './feed-key.js'
import type { Built } from './rebuild.js'
import { readLineLengths, readStatusFile } from './status-file.js'
import type { LineLengths } from './status-file.js'

export type { Problem, ProjectRow } from './cache-files.js'

interface FeedBase {
  root: string
  commonDir: string
  /** Files that could not be read as learnings (reported once per command as a warning). */
  problems: Problem[]
  /** Whether the cache was used (false: rebuilt now). */
  cached: boolean
}

export interface Feed extends FeedBase {
  catalog: CatalogEntry[]
}

export interface SearchFeed extends FeedBase {
  /** Rank learnings for a query (src/core/search.ts rankLearnings over the cached index). */
  rank(query: string, filter?: SearchFilter, limit?: number): Promise<SearchHit[]>
}

/** Rebuild the cache (loaded only then: a warm command does not load the rebuild's modules). */
async function rebuild(root: string, commonDir: string, state: StoreState): Promise<Built> {
  return (await import('./rebuild.js')).rebuild(root, commonDir, state)
}

// Each reader starts the two git processes of the key, then, while they run, reads the cache files of the last key
// written (most often still current); if git's answer gives another key, it reads that key's files instead.

/** `read(key)` for the key of the store now, read for the last key while git computes the current one. */
async function readWhileKeying<T>(
  k: Keying,
  read: (dir: string, key: string) => T | undefined,
): Promise<{ state: StoreState; hit: T | undefined }> {
  const dir = cacheDir(k.commonDir)
  const guess = lastKey(dir, k.root)
  const early = guess ? read(dir, guess) : undefined
  const state = await k.state
  if (guess === state.key) {
    if (early !== undefined) markLastKeyUsed(dir, k.root)
    return { state, hit: early }
  }
  const hit = read(dir, state.key)
  if (hit) noteLastKey(dir, k.root, state.key)
  return { state, hit }
}

export interface StatusFeed extends FeedBase {
  entries: StatusEntry[]
}

/** What status needs of every learning, from the cache when it is current (status-<key>.json.deflate). */
export async function readStatusFeed(cwd: string): Promise<StatusFeed> {
  const k = await keyingFor(cwd)
  const { root, commonDir } = k
  // The feed file first: it marks the set complete, and a set read while a tier was missing is not kept (volatile).
  const { state, hit } = await readWhileKeying(k, (dir, key) =>
    readFeedFile(dir, key) ? readStatusFile(dir, key) : undefined,
  )
  if (hit) return { root, commonDir, entries: hit.entries, problems: hit.problems, cached: true }
  const built = await rebuild(root, commonDir, state)
  return { root, commonDir, entries: built.catalog, problems: built.problems, cached: false }
}

export interface ContextFeed extends FeedBase {
  /** What ranks each learning (its status row), in catalog order. */
  entries: StatusEntry[]
  /** The whole catalog entry of a row: from the cache, its block read when first asked. */
  entry(row: number): CatalogEntry | undefined
  /** The lengths of an active row's context lines, from the cache (none after a rebuild: computed from the entry). */
  lengths?: LineLengths
  close(): void
}

/**
 * What context ranks every learning by (status-<key>.json.deflate), and the catalog entries of the few it shows, from
 * the cache when it is current: at 100,000 learnings the catalog's ~1,500 blocks were most of the SessionStart
 * hook's time, for the ~40 lines that fit its budget. `located` is given the work tree's root as soon as it is known.
 */
export async function readContextFeed(cwd: string, located?: (root: string) => void): Promise<ContextFeed> {
  const k = await keyingFor(cwd)
  const { root, commonDir } = k
  // The work tree is known before git has answered for the key: the caller may start its own git work beside it.
  located?.(root)
  const { state, hit } = await readWhileKeying(k, (dir, key) => {
    const feed = readFeedFile(dir, key)
    const status = feed && readStatusFile(dir, key)
    if (!feed || !status || status.entries.length !== feed.count) return undefined
    const f = files(dir, key)
    const rows = readRowTable(f.rows, feed)
    if (!rows) return undefined
    const blocks = new CatalogBlocks(f.catalog, feed.count, (b) => {
      const at = rows.readUInt32LE(b * 4)
      if (at > feed.catalogBytes) throw new Error('the block offsets do not match the catalog')
      return at
    })
    return { feed, status, blocks, lengths: readLineLengths(f.lines, feed.count) }
  })
  if (hit) {
    const { feed, status, blocks, lengths } = hit
    return {
      root,
      commonDir,
      problems: feed.problems,
      cached: true,
      entries: status.entries,
      entry: (row) => blocks.entry(row),
      ...(lengths ? { lengths } : {}),
      close: () => blocks.close(),
    }
  }
  const built = await rebuild(root, commonDir, state)
  const catalog = built.catalog
  return {
    root,
    commonDir,
    problems: built.problems,
    cached: false,
    entries: catalog,
    entry: (row) => catalog[row],
    close() {},
  }
}

/** The catalog of every learning in every source and state, from the cache when it is current. */
export async function readFeed(cwd: string): Promise<Feed> {
  const k = await keyingFor(cwd)
  const { root, commonDir } = k
  const { state, hit } = await readWhileKeying(k, (dir, key) => {
    const feed = readFeedFile(dir, key)
    const catalog = feed && readCatalogFile(dir, key, feed)
    return feed && catalog ? { feed, catalog } : undefined
  })
  if (hit) return { root, commonDir, catalog: hit.catalog, problems: hit.feed.problems, cached: true }
  const built = await rebuild(root, commonDir, state)
  return { root, commonDir, catalog: built.catalog, problems: built.problems, cached: false }
}

/** The learnings ready to rank, from the cache when it is current. */
export async function readSearchFeed(cwd: string): Promise<SearchFeed> {
  const k = await keyingFor(cwd)
  const { root, commonDir } = k
  const [{ state, hit: cached }, search] = await Promise.all([
    readWhileKeying(k, readCachedIndex),
    import('../../core/search.js'),
  ])
  let built: Built | undefined
  const fresh = async () => (built ??= await rebuild(root, commonDir, state))
  const rankFresh = async (query: string, filter?: SearchFilter, limit?: number) => {
    const b = await fresh()
    const [{ partsIndex }, { mappedPart, mergeIndexes }] = await Promise.all([
      import('../../core/search-parts.js'),
      import('../../core/search-merge.js'),
    ])
    const project = partsIndex(b.parts)
    const index = b.tierIndexes.length
      ? mergeIndexes([
          { index: project, idOf: (s) => project.docId(s) },
          ...b.tierIndexes.map((t) => mappedPart(t.index, t.map)),
        ])
      : project
    return search.rankLearnings(index, b.catalog, query, filter, limit)
  }
  if (cached) {
    return {
      root,
      commonDir,
      problems: cached.feed.problems,
      cached: true,
      async rank(query, filter, limit) {
        if (built) return rankFresh(query, filter, limit)
        try {
          return search.rankLearnings(cached.index(), cached, query, filter, limit)
        } catch {
          // A torn or foreign cache file: rebuild, and answer from the fresh index.
          return rankFresh(query, filter, limit)
        } finally {
          cached.close()
        }
      },
    }
  }
  const b = await fresh()
  return { root, commonDir, problems: b.problems, cached: false, rank: rankFresh }
}

export interface ProjectFeed extends ProjectFile {
  root: string
  commonDir: string
  cached: boolean
}

/**
 * Every readable learning file of the project store (all states, not folded with tiers) as a listing row, and
 * the files that could not be read, from the cache when it is current (else the cache is rebuilt).
 */
export async function readProjectFeed(cwd: string): Promise<ProjectFeed> {
  const k = await keyingFor(cwd)
  const { root, commonDir } = k
  const { state, hit } = await readWhileKeying(k, readProjectFile)
  if (hit) return { root, commonDir, ...hit, cached: true }
  const built = await rebuild(root, commonDir, state)
  return { root, commonDir, ...built.project, cached: false }
}
