/**
 * Writing the files of one key of the feed cache (cache-files.ts), feed-<key>.json last: it marks the set complete.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import type { IndexParts } from '../../core/search.js'
import { invertRecall } from '../../core/search-recall.js'
import { writeAtomic } from '../state/cache-file.js'
import { files } from './cache-files.js'
import type { DocColumns, FeedFile, RecallFile, TermsFile } from './cache-files.js'
import { CACHE_FORMAT, codeStamp } from './feed-key.js'
import type { Built, ParsedFile } from './rebuild.js'
import { statusFile } from './status-file.js'

export function writeCache(
  dir: string,
  key: string,
  b: Built & { columns: DocColumns; tiers: FeedFile['tiers']; volatile: boolean; parsed: Map<string, ParsedFile> },
  splitIndex: typeof import('../../core/search.js').splitIndex,
): void {
  try {
    mkdirSync(dir, { recursive: true })
    const f = files(dir, key)
    // The catalog: "[\n" row ",\n" row … "\n]\n"; rows[i] is where row i starts.
    const rows: number[] = []
    let pos = 2
    const texts = b.catalog.map((e) => {
      const t = JSON.stringify(e)
      rows.push(pos)
      pos += Buffer.byteLength(t) + 2
      return t
    })
    rows.push(pos)
    const catalogText = `[\n${texts.join(',\n')}\n]\n`
    const parts = splitIndex(b.index)
    const offsets: number[] = []
    let at = 0
    for (const p of parts.postings) {
      offsets.push(at)
      at += Buffer.byteLength(p)
    }
    offsets.push(at)
    for (const name of readdirSync(dir)) if (/^(feed|catalog|terms|postings|docs|search|project|recall|status)-/.test(name) && !name.includes(key)) unlinkSync(join(dir, name))
    writeAtomic(f.postings, parts.postings.join(''))
    writeAtomic(f.docs, docTable(parts))
    writeAtomic(f.terms, JSON.stringify({ format: CACHE_FORMAT, header: parts.header, terms: parts.terms, offsets } satisfies TermsFile))
    writeAtomic(f.catalog, catalogText)
    const recallFile: RecallFile = {
      format: CACHE_FORMAT,
      key,
      ...invertRecall(b.recall),
      rows: b.recallIds.map((id) => [rows[id] as number, (rows[id + 1] as number) - 2]),
      catalogBytes: Buffer.byteLength(catalogText),
    }
    writeAtomic(f.recall, JSON.stringify(recallFile))
    writeAtomic(f.project, JSON.stringify({ format: CACHE_FORMAT, key, ...b.project }))
    writeAtomic(f.status, JSON.stringify(statusFile(key, b.catalog, b.problems)))
    writeAtomic(f.feed, JSON.stringify({ format: CACHE_FORMAT, key, problems: b.problems, tiers: b.tiers, docs: b.columns, rows, catalogBytes: Buffer.byteLength(catalogText), ...(b.volatile ? { volatile: true } : {}) } satisfies FeedFile))
    writeAtomic(join(dir, 'last-key'), key)
    writeAtomic(join(dir, 'parsed.json'), JSON.stringify({ format: CACHE_FORMAT, stamp: codeStamp(createHash), files: Object.fromEntries(b.parsed) }))
  } catch {
    // A read-only git dir only costs speed: the next command rebuilds again.
  }
}

export const ABSENT = 0xffffffff

/** docs-<key>.bin: per short id, the document's id (ABSENT: none) and its field lengths, uint32 little-endian. */
function docTable(parts: IndexParts): Buffer {
  const width = 1 + Object.keys(parts.header.fieldIds).length
  const buf = Buffer.alloc(parts.docs.length * width * 4)
  parts.docs.forEach((d, short) => {
    buf.writeUInt32LE(d ? d[0] : ABSENT, short * width * 4)
    for (let f = 1; f < width; f++) buf.writeUInt32LE(d?.[1][f - 1] ?? 0, (short * width + f) * 4)
  })
  return buf
}
