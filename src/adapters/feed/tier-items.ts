/**
 * `tier-items-<commit>-<code>.bin` (tier-cache.ts names the tier's files): what a rebuild keeps of a pinned commit's
 * learnings — each one's catalog entry, content hash, recall terms and context lines' lengths — so that a project edit
 * reads them back instead of parsing the tier again.
 *
 * One line of JSON (the format, the commit, the tier's warnings, the item count and the byte size of each segment),
 * then the segments: each a raw-deflated JSON array of up to SEGMENT_ITEMS items. Read a segment at a time, a
 * 100,000-learning tier never holds its ~75 MB of JSON text at once (one deflated document had the inflated bytes, the
 * text and the parsed items alive together: ~110 MB more at the read's peak than the items themselves).
 */
import { readFileSync } from 'node:fs'
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import type { CatalogEntry } from '../../core/search.js'
import { writeCacheFile } from '../state/cache-file.js'
import { MAX_INFLATED, isObject } from './cache-files.js'
import type { Problem } from './cache-files.js'
import { CACHE_FORMAT } from './feed-key.js'

export interface TierItem {
  entry: CatalogEntry
  hash: string
  /** Recall terms of each trigger (src/core/recall-rank.ts entryRecallTerms); [] when recall does not look it up. */
  recall: string[][]
  /**
   * The lengths of its two context lines with the tier's name left empty (rebuild.ts adds the name's length): counted
   * once per pinned commit, not at every rebuild after a project edit.
   */
  lines: [directive: number, index: number]
}

export interface TierItems {
  items: TierItem[]
  /** Paths inside the tier (without the tier's name). */
  warnings: Problem[]
}

/** Items per segment: ~0.75 MB of JSON each at the generated tiers' sizes. */
const SEGMENT_ITEMS = 1000
const NEWLINE = 0x0a

const isTerms = (t: unknown): boolean => Array.isArray(t) && t.every((w) => typeof w === 'string')
const isItem = (it: unknown): it is TierItem =>
  isObject(it) &&
  isObject(it['entry']) &&
  typeof it['hash'] === 'string' &&
  Array.isArray(it['recall']) &&
  it['recall'].every(isTerms) &&
  Array.isArray(it['lines']) &&
  it['lines'].length === 2 &&
  it['lines'].every((n) => Number.isSafeInteger(n) && (n as number) >= 0)

/** The items of `commit` from `file`, or undefined when it is missing, torn, of another format or commit. */
export function readTierItems(file: string, commit: string): TierItems | undefined {
  try {
    const bytes = readFileSync(file)
    const eol = bytes.indexOf(NEWLINE)
    if (eol < 0) return undefined
    const head: unknown = JSON.parse(bytes.toString('utf8', 0, eol))
    if (
      !isObject(head) ||
      head['format'] !== CACHE_FORMAT ||
      head['commit'] !== commit ||
      !Array.isArray(head['warnings']) ||
      !head['warnings'].every((w) => isObject(w) && typeof w['path'] === 'string' && typeof w['reason'] === 'string') ||
      !Number.isSafeInteger(head['count']) ||
      !Array.isArray(head['segments']) ||
      !head['segments'].every((n) => Number.isSafeInteger(n) && (n as number) > 0)
    )
      return undefined
    const sizes = head['segments'] as number[]
    if (eol + 1 + sizes.reduce((a, b) => a + b, 0) !== bytes.length) return undefined
    const items: TierItem[] = []
    let at = eol + 1
    for (const size of sizes) {
      const text = inflateRawSync(bytes.subarray(at, at + size), { maxOutputLength: MAX_INFLATED }).toString('utf8')
      at += size
      const part: unknown = JSON.parse(text)
      if (!Array.isArray(part) || !part.every(isItem)) return undefined
      for (const it of part) items.push(it)
    }
    if (items.length !== head['count']) return undefined
    return { items, warnings: head['warnings'] as Problem[] }
  } catch {
    return undefined
  }
}

/** Write `t` for `commit` to `file` (a cache file: a failure only costs the next rebuild's time). */
export function writeTierItems(file: string, commit: string, t: TierItems): void {
  const segments: Buffer[] = []
  // Level 1: written once per pinned commit, on the tier's first read, where time counts more than ~10 % of size.
  for (let at = 0; at < t.items.length; at += SEGMENT_ITEMS)
    segments.push(deflateRawSync(JSON.stringify(t.items.slice(at, at + SEGMENT_ITEMS)), { level: 1 }))
  const head = JSON.stringify({
    format: CACHE_FORMAT,
    commit,
    warnings: t.warnings,
    count: t.items.length,
    segments: segments.map((s) => s.byteLength),
  })
  writeCacheFile(file, Buffer.concat([Buffer.from(`${head}\n`, 'utf8'), ...segments]))
}
