/**
 * Writing the files of one key of the feed cache (cache-files.ts), feed-<key>.json last: it marks the set complete.
 * The compression runs on zlib's threads while this one writes the other files.
 *
 * Every worktree of a clone shares the cache directory, and two worktrees on different branches have different keys:
 * the sets of other keys are removed unless a work tree that still exists names it as its last key and used it within
 * IDLE_MS (at most MAX_KEYS such keys, the most recently used); an incomplete one (no feed file yet) only once it is
 * older than YOUNG_MS (another process may be writing it). The bound is on keys, not work trees: work trees on the
 * same store share a key, and a set is what costs disk (docs/scale.md "Many worktrees").
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { invertRecall } from '../../core/recall-rank.js'
import { writeAtomic, writeAtomicPieces } from '../state/cache-file.js'
import { deflateJsonOffThread, files, lastKeyFile, noteLastKey, readLastKey } from './cache-files.js'
import type { FeedFile } from './cache-files.js'
import { BLOCK_ROWS, packCatalogBlocks, rowsOfBlock } from './catalog-blocks.js'
import { packProjectRow } from './catalog-rows.js'
import { writeIndexFiles } from './index-files.js'
import { CACHE_FORMAT, worktreeName } from './feed-key.js'
import { writeRecallFile } from './recall-file.js'
import { PINNED_RETRY_MS, UNFETCHED_PREFIX } from './tier-cache.js'
import type { Built } from './rebuild.js'
import type { ReuseWriter } from './reuse-file.js'
import { packLineLengths, statusFile } from './status-file.js'

/**
 * How many other keys' sets of cache files are kept at most, the most recently used (each is ~35 MB at 100,000
 * learnings with its kept parse, about a tenth of the work tree's checkout of those learnings). It was 8 work trees: a
 * ninth agent's worktree had each rebuild drop another's set, and with a dozen on branches of their own every command
 * rebuilt.
 */
export const MAX_KEYS = 32
/**
 * A work tree that has not used the cache for this long (its last-key file's mtime: written by its rebuilds, marked
 * by its reads once a day, cache-files.ts markLastKeyUsed) loses its set at the next rebuild: one rebuild when it is
 * used again. The worktrees an agent tool leaves behind, one per task, do not keep a set each for ever.
 */
export const IDLE_MS = 7 * 24 * 3_600_000
/** An incomplete set no work tree names is kept while younger than this: another process may be writing it. */
const YOUNG_MS = 60_000

/** The cache files of one key. */
const KEY_FILE =
  /^(?:feed|catalog|terms|postings|docs|rows|search|project|recall|status|lines|parsed)-([0-9a-f]{20})[.]/

/**
 * The keys whose sets stay beside `key` (the work tree at `root` writes it now): those other work trees still name.
 * Removes the last-key files of work trees gone, idle for IDLE_MS, or whose key is past the MAX_KEYS most recently
 * used, and the aliases only they used.
 */
function keptKeys(dir: string, root: string, key: string, names: readonly string[], now: number): Set<string> {
  const own = lastKeyFile(dir, root)
  const others: { key: string; name: string; at: number }[] = []
  const gone = (name: string) => {
    try {
      unlinkSync(join(dir, name))
    } catch {
      // Removed by another process first.
    }
  }
  for (const name of names) {
    // One file for every worktree (before 2026-12-08); each has its own now.
    if (name === 'last-key' || name === 'directive-acceptances.json') gone(name)
    // A `.tmp` is another process's copy before its rename (state/cache-file.ts): swept after an hour, as any.
    if (!name.startsWith('last-key-') || name.endsWith('.tmp') || join(dir, name) === own) continue
    const last = readLastKey(join(dir, name))
    if (!last || name !== `last-key-${worktreeName(last.root)}` || !existsSync(last.root)) gone(name)
    else
      try {
        const at = statSync(join(dir, name)).mtimeMs
        if (now - at > IDLE_MS) gone(name)
        else others.push({ key: last.key, name: worktreeName(last.root), at })
      } catch {
        // Removed meanwhile.
      }
  }
  others.sort((a, b) => b.at - a.at)
  // The MAX_KEYS keys most recently used (the work tree writing `key` is not counted); every work tree naming one stays.
  const keys = new Set<string>()
  const kept = others.filter((o) => {
    if (o.key === key || keys.has(o.key)) return true
    if (keys.size < MAX_KEYS) {
      keys.add(o.key)
      return true
    }
    gone(`last-key-${o.name}`)
    return false
  })
  const aliases = new Set([worktreeName(root), ...kept.map((o) => o.name)])
  for (const name of names) {
    const m = /^alias-(?:([0-9a-f]{8})-)?[0-9a-f]{20}$/.exec(name)
    if (m && !aliases.has(m[1] ?? ''))
      gone(name) // of a work tree gone, or of one file for all (m[1] undefined)
    else if (
      /^(?:untracked|directive-acceptances)-[0-9a-f]{8}[.]json$/.test(name) &&
      ofWorktreeGone(join(dir, name), now)
    )
      gone(name)
  }
  return new Set([key, ...kept.map((o) => o.key)])
}

/**
 * Whether a work tree's own file (feed-key.ts: its untracked listing, its directive acceptances) is of a work tree
 * that is no more: the root it names (and the git dir, for the listing) is gone — `git worktree remove`, a folder
 * deleted then pruned, `git worktree move` — so a clone where agent tools made a worktree per task does not keep a file
 * of each for ever. A file naming no root (acceptances written before it named one) goes once IDLE_MS old: when its
 * work tree is still there, that costs one rebuild.
 */
function ofWorktreeGone(file: string, now: number): boolean {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as { root?: unknown; gitDir?: unknown }
    if (typeof v.root === 'string')
      return !existsSync(v.root) || (typeof v.gitDir === 'string' && !existsSync(v.gitDir))
    return now - statSync(file).mtimeMs > IDLE_MS
  } catch {
    return false // being replaced (read between its writer's rename and ours), or not ours: left alone
  }
}

export async function writeCache(
  dir: string,
  root: string,
  key: string,
  b: Built & { tierOf: number[]; tiers: FeedFile['tiers']; volatile: boolean; reusable?: ReuseWriter },
): Promise<void> {
  try {
    // Started first, compressed while the index and the catalog are written; never rejects (undefined: failed).
    const later = (v: unknown) => deflateJsonOffThread(v).catch(() => undefined)
    const project = later({
      format: CACHE_FORMAT,
      key,
      rows: b.project.rows.map(packProjectRow),
      problems: b.project.problems,
    })
    const status = later(statusFile(key, b.catalog, b.problems))
    mkdirSync(dir, { recursive: true })
    const f = files(dir, key)
    const names = readdirSync(dir)
    const kept = keptKeys(dir, root, key, names, Date.now())
    // A set no work tree names goes at once when complete (its feed file written last); without one it may be another
    // process's, being written: it goes once it is older than YOUNG_MS.
    const complete = new Set(names.filter((n) => n.startsWith('feed-')).map((n) => KEY_FILE.exec(n)?.[1]))
    for (const name of names) {
      const k = KEY_FILE.exec(name)?.[1]
      if (k !== undefined && !kept.has(k)) sweepStale(join(dir, name), complete.has(k) ? -Infinity : YOUNG_MS)
      else if (name.startsWith('spool-') || name.endsWith('.tmp')) sweepStale(join(dir, name), 3_600_000)
      // A failed fetch's marker past its time, or of a pin moved since (none reads it again): a file per failed pin.
      else if (name.startsWith(UNFETCHED_PREFIX)) sweepStale(join(dir, name), PINNED_RETRY_MS)
    }
    // Written piece by piece: at 100,000 learnings the postings and the catalog are tens of megabytes each.
    writeIndexFiles(f, b.parts, {
      tiers: b.tierIndexes.map((t) => ({ index: t.name, map: Array.from(t.map) })),
    })
    // The catalog in compressed blocks (catalog-blocks.ts); rows-<key>.bin gives where each starts.
    const { blocks, starts } = await packCatalogBlocks(b.catalog)
    writeAtomicPieces(f.catalog, (write) => {
      for (const block of blocks) write(block)
    })
    const catalogBytes = starts[starts.length - 1] as number
    writeAtomic(f.rows, rowTable(starts, b.tierOf))
    writeRecallFile(
      f.recall,
      key,
      invertRecall(b.recall),
      b.recallIds.map((id) => {
        const block = Math.floor(id / BLOCK_ROWS)
        const line = id - block * BLOCK_ROWS
        return [
          starts[block] as number,
          starts[block + 1] as number,
          line,
          rowsOfBlock(block, b.catalog.length),
        ] as const
      }),
      catalogBytes,
    )
    const [projectBytes, statusBytes] = await Promise.all([project, status])
    // Without them the set is not complete: no feed file, so the next command rebuilds.
    if (!projectBytes || !statusBytes) return
    writeAtomic(f.project, projectBytes)
    writeAtomic(f.status, statusBytes)
    writeAtomic(f.lines, packLineLengths(b.catalog, b.tierLines))
    // Optional (the next rebuild reads it if it is there): before the feed file, so a complete set holds it.
    await b.reusable?.commit()
    // Named first: another worktree's rebuild removes a complete set no work tree names.
    noteLastKey(dir, root, key)
    writeAtomic(
      f.feed,
      JSON.stringify({
        format: CACHE_FORMAT,
        key,
        problems: b.problems,
        tiers: b.tiers,
        count: b.catalog.length,
        catalogBytes,
        ...(b.volatile ? { volatile: true } : {}),
      } satisfies FeedFile),
    )
  } catch {
    // A read-only git dir only costs speed: the next command rebuilds again.
  } finally {
    // Not put in place (the set was not completed): its temporary file goes.
    b.reusable?.abort()
  }
}

/**
 * rows-<key>.bin: where each block of the catalog starts and the catalog's size (blocks + 1 values), then each
 * entry's tier (its position in the feed file's tiers), uint32 little-endian: ranking reads the tier (its weight) of
 * every candidate and the blocks of the few that can enter the top.
 */
function rowTable(rows: readonly number[], tierOf: readonly number[]): Buffer {
  const buf = Buffer.alloc((rows.length + tierOf.length) * 4)
  rows.forEach((r, i) => buf.writeUInt32LE(r, i * 4))
  tierOf.forEach((t, i) => buf.writeUInt32LE(t, (rows.length + i) * 4))
  return buf
}

/**
 * Removes a file older than `ms`. A spool file (run.ts openSpool) or a cache file's temporary copy (`<file>.<pid>.tmp`,
 * state/cache-file.ts) still in the directory an hour after it was made: one a process killed before its unlink or
 * rename left (at 100,000 learnings tens of megabytes each, and a temporary copy of the current key's files is not
 * swept with the old keys'), or one where an open file cannot be unlinked (Windows); a live one is seconds old. A file
 * of a key no work tree names, once another process cannot be writing it any more.
 */
function sweepStale(path: string, ms: number): void {
  try {
    if (Date.now() - statSync(path).mtimeMs > ms) unlinkSync(path)
  } catch {
    // Gone meanwhile, or not ours to remove.
  }
}
