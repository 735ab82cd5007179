/**
 * Writing the files of one key of the feed cache (cache-files.ts), feed-<key>.json last: it marks the set complete.
 * The compression runs on zlib's threads while this one writes the other files.
 */
import { mkdirSync, readdirSync, statSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { invertRecall } from '../../core/recall-rank.js'
import { writeAtomic, writeAtomicPieces } from '../state/cache-file.js'
import { deflateJsonOffThread, files } from './cache-files.js'
import type { FeedFile } from './cache-files.js'
import { BLOCK_ROWS, packCatalogBlocks, rowsOfBlock } from './catalog-blocks.js'
import { packProjectRow } from './catalog-rows.js'
import { writeIndexFiles } from './index-files.js'
import { CACHE_FORMAT } from './feed-key.js'
import { writeRecallFile } from './recall-file.js'
import type { Built } from './rebuild.js'
import { packLineLengths, statusFile } from './status-file.js'

export async function writeCache(
  dir: string,
  key: string,
  b: Built & { tierOf: number[]; tiers: FeedFile['tiers']; volatile: boolean },
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
    for (const name of readdirSync(dir))
      if (
        /^(feed|catalog|terms|postings|docs|rows|search|project|recall|status|lines)-/.test(name) &&
        !name.includes(key)
      )
        unlinkSync(join(dir, name))
      else if (name.startsWith('spool-') || name.endsWith('.tmp')) sweepStale(join(dir, name))
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
    writeAtomic(join(dir, 'last-key'), key)
  } catch {
    // A read-only git dir only costs speed: the next command rebuilds again.
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
 * A spool file (run.ts openSpool) or a cache file's temporary copy (`<file>.<pid>.tmp`, state/cache-file.ts) still in
 * the directory an hour after it was made: one a process killed before its unlink or rename left (at 100,000
 * learnings tens of megabytes each, and a temporary copy of the current key's files is not swept with the old keys'),
 * or one where an open file cannot be unlinked (Windows). A live one is seconds old.
 */
function sweepStale(path: string): void {
  try {
    if (Date.now() - statSync(path).mtimeMs > 3_600_000) unlinkSync(path)
  } catch {
    // Gone meanwhile, or not ours to remove.
  }
}
