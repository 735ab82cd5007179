/**
 * Writing the files of one key of the feed cache (cache-files.ts), feed-<key>.json last: it marks the set complete.
 */
import { mkdirSync, readdirSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { invertRecall } from '../../core/recall-rank.js'
import { writeAtomic, writeAtomicPieces } from '../state/cache-file.js'
import { files } from './cache-files.js'
import type { FeedFile } from './cache-files.js'
import { packCatalogEntry, packProjectRow } from './catalog-rows.js'
import { writeIndexFiles } from './index-files.js'
import { CACHE_FORMAT } from './feed-key.js'
import { writeRecallFile } from './recall-file.js'
import type { Built } from './rebuild.js'
import { statusFile } from './status-file.js'

export function writeCache(
  dir: string,
  key: string,
  b: Built & { tierOf: number[]; tiers: FeedFile['tiers']; volatile: boolean },
): void {
  try {
    mkdirSync(dir, { recursive: true })
    const f = files(dir, key)
    for (const name of readdirSync(dir))
      if (/^(feed|catalog|terms|postings|docs|rows|search|project|recall|status)-/.test(name) && !name.includes(key))
        unlinkSync(join(dir, name))
    // Written piece by piece: at 100,000 learnings the postings and the catalog are tens of megabytes each.
    writeIndexFiles(f, b.parts, {
      tiers: b.tierIndexes.map((t) => ({ index: t.name, map: Array.from(t.map) })),
    })
    // The catalog: "[\n" row ",\n" row … "\n]\n"; rows[i] is where row i starts.
    const rows: number[] = []
    let pos = 0
    writeAtomicPieces(f.catalog, (write) => {
      pos += write('[\n')
      b.catalog.forEach((e, i) => {
        rows.push(pos)
        pos += write(JSON.stringify(packCatalogEntry(e)))
        if (i < b.catalog.length - 1) pos += write(',\n')
      })
      rows.push(b.catalog.length ? pos + 2 : pos)
      pos += write('\n]\n')
    })
    const catalogBytes = pos
    writeAtomic(f.rows, rowTable(rows, b.tierOf))
    writeRecallFile(
      f.recall,
      key,
      invertRecall(b.recall),
      b.recallIds.map((id) => [rows[id] as number, (rows[id + 1] as number) - 2] as const),
      catalogBytes,
    )
    writeAtomic(
      f.project,
      JSON.stringify({
        format: CACHE_FORMAT,
        key,
        rows: b.project.rows.map(packProjectRow),
        problems: b.project.problems,
      }),
    )
    writeAtomic(f.status, JSON.stringify(statusFile(key, b.catalog, b.problems)))
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
 * rows-<key>.bin: the byte offset of each catalog row and one past the last row's separator (count + 1 values), then
 * each entry's tier (its position in the feed file's tiers), uint32 little-endian: ranking reads the tier (its weight)
 * of every candidate and the rows of the few that can enter the top.
 */
function rowTable(rows: readonly number[], tierOf: readonly number[]): Buffer {
  const buf = Buffer.alloc((rows.length + tierOf.length) * 4)
  rows.forEach((r, i) => buf.writeUInt32LE(r, i * 4))
  tierOf.forEach((t, i) => buf.writeUInt32LE(t, (rows.length + i) * 4))
  return buf
}
