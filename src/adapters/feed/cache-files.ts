/**
 * The files of the feed cache under `<common dir>/learn/cache/` (what search-index.ts says each holds), their shapes,
 * and the readers that check one is whole and of this format before anything trusts it: a torn, foreign or older
 * file reads as undefined (a miss), never as an error.
 */
import { readFileSync, readSync, readdirSync, statSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { deflateRaw, deflateRawSync, inflateRawSync } from 'node:zlib'
import { readFileBounded } from '../store/read-bounded.js'
import { writeCacheFile } from '../state/cache-file.js'
import type { LearningSummary } from '../../core/query.js'
import type { IndexHeader } from '../../core/search.js'
import { unpackProjectRow } from './catalog-rows.js'
import { CACHE_FORMAT, worktreeName } from './feed-key.js'

/** A key of the cache (feed-key.ts). */
const KEY = /^[0-9a-f]{20}$/

export interface Problem {
  path: string
  reason: string
}

export function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return undefined
  }
}

/** zlib's level for the cache's compressed files: 4 is within a tenth of the best size at half the default's time. */
export const DEFLATE_LEVEL = 4
/** No block or file of the cache inflates past this (a hostile file could claim any size). */
export const MAX_INFLATED = 256 << 20

/** A value as compressed JSON (project-<key>.json.deflate, status-<key>.json.deflate). */
export function deflateJson(v: unknown, level = DEFLATE_LEVEL): Buffer {
  return deflateRawSync(JSON.stringify(v), { level })
}

/** Raw deflate on one of zlib's threads: this thread goes on with other work meanwhile. */
export function deflateOffThread(data: string | Buffer, level = DEFLATE_LEVEL): Promise<Buffer> {
  return new Promise((resolve, reject) => deflateRaw(data, { level }, (err, out) => (err ? reject(err) : resolve(out))))
}

/** deflateJson with the compression on one of zlib's threads. */
export function deflateJsonOffThread(v: unknown, level = DEFLATE_LEVEL): Promise<Buffer> {
  return deflateOffThread(JSON.stringify(v), level)
}

/** A file of deflateJson read back, or undefined when it is missing, torn or not JSON. */
export function readDeflatedJson(file: string): unknown {
  try {
    return JSON.parse(inflateRawSync(readFileSync(file), { maxOutputLength: MAX_INFLATED }).toString('utf8'))
  } catch {
    return undefined
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)

export interface FeedFile {
  format: number
  key: string
  problems: Problem[]
  tiers: { tier: string; weight: number }[]
  /** The number of catalog entries (where each block of their rows starts, and each one's tier, are in rows-<key>.bin). */
  count: number
  /** Size of catalog-<key>.deflate. */
  catalogBytes: number
  /** A tier could not be read for a reason the key does not see (its commit not fetched yet): rebuild next time. */
  volatile?: boolean
}

export interface TermsFile {
  format: number
  header: IndexHeader
  terms: string[]
  /** Byte offset of each term's postings in postings-<key>.bin (terms.length + 1 values). */
  offsets: number[]
  /**
   * CRC-32 of the postings file and of the document table, as written. A file zero-filled by a power loss keeps its
   * length: the table's CRC is checked at every open (it is read whole anyway), the postings' where a rebuild reuses
   * a tier's index (elsewhere a damaged term fails its decoding, and the caller rebuilds).
   */
  crc: { postings: number; docs: number }
  /**
   * The key's index only: each tier's index merged with the project's at query time (src/core/search-merge.ts), by
   * the file name its files start with, and the catalog id of each of its documents (-1: hidden by the fold).
   */
  tiers?: TierIndexRef[]
}

export interface TierIndexRef {
  index: string
  map: number[]
}

/** A short id of docs-<key>.bin that holds no document. */
export const ABSENT = 0xffffffff

export const files = (dir: string, key: string) => ({
  feed: join(dir, `feed-${key}.json`),
  catalog: join(dir, `catalog-${key}.deflate`),
  terms: join(dir, `terms-${key}.json`),
  postings: join(dir, `postings-${key}.bin`),
  docs: join(dir, `docs-${key}.bin`),
  rows: join(dir, `rows-${key}.bin`),
  recall: join(dir, `recall-${key}.bin`),
  project: join(dir, `project-${key}.json.deflate`),
  status: join(dir, `status-${key}.json.deflate`),
  lines: join(dir, `lines-${key}.bin`),
  parsed: join(dir, `parsed-${key}.jsonl.deflate`),
})

export function readFeedFile(dir: string, key: string): FeedFile | undefined {
  const f = readJson(files(dir, key).feed)
  if (!isObject(f) || f['format'] !== CACHE_FORMAT || f['key'] !== key || f['volatile']) return undefined
  const n = f['count']
  if (
    !Number.isInteger(n) ||
    (n as number) < 0 ||
    !Number.isInteger(f['catalogBytes']) ||
    !Array.isArray(f['problems']) ||
    !Array.isArray(f['tiers'])
  )
    return undefined
  return f as unknown as FeedFile
}

/**
 * A cache file's bytes when it is a regular file of exactly `size` bytes, else undefined (missing, torn, another key's,
 * or a FIFO or directory put at its name): read through readFileBounded, never more than `size` + 1 bytes.
 */
export function readSized(path: string, size: number): Buffer | undefined {
  try {
    const r = readFileBounded(path, size, { regularOnly: true })
    return r.regular && !r.over && r.bytes.length === size ? r.bytes : undefined
  } catch {
    return undefined
  }
}

/** Bytes [start, start + length) of an open file; a short read throws (the file is torn or not what its offsets say). */
export function readBytes(fd: number, start: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length)
  let got = 0
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, start + got)
    if (n <= 0) throw new Error('the cache file is shorter than its offsets')
    got += n
  }
  return buf
}

/** A project learning as list and prune need it. */
export interface ProjectRow {
  row: LearningSummary
  created: string | null
  supersedes: string[]
}

export interface ProjectFile {
  rows: ProjectRow[]
  problems: Problem[]
}

/**
 * `last-key-<work tree>` (feed-key.ts worktreeName): the key whose cache files this work tree wrote last (most often
 * still the current one), and the work tree's root, as JSON. Every worktree of a clone keeps its own.
 */
export function lastKeyFile(dir: string, root: string): string {
  return join(dir, `last-key-${worktreeName(root)}`)
}

/**
 * The most read of a small file of the cache's own state (a last-key file, a tier's name file: a path, a name): one
 * read in a shared git dir is never a FIFO's wait nor a huge file's memory (readFileBounded, regular files only).
 */
export const MAX_STATE_FILE = 64 << 10

/**
 * What a last-key file says: the key, and the work tree it is of; undefined when it is not one (a FIFO, a directory
 * or a huge file at its name among them: every other work tree's is read at a rebuild, write-cache.ts keptKeys and
 * otherLastKey).
 */
export function readLastKey(file: string): { key: string; root: string } | undefined {
  try {
    const r = readFileBounded(file, MAX_STATE_FILE, { regularOnly: true })
    if (!r.regular || r.over) return undefined
    const v = JSON.parse(r.bytes.toString('utf8')) as { key?: unknown; root?: unknown }
    return typeof v.key === 'string' && KEY.test(v.key) && typeof v.root === 'string'
      ? { key: v.key, root: v.root }
      : undefined
  } catch {
    return undefined
  }
}

/**
 * Records `key` as the last key of the work tree at `root`: a rebuild's last step, and a reader's when it found the
 * key's files written by another worktree (on the same commit), so that its next run reads them while git computes
 * the key, and another worktree's rebuild keeps them.
 */
export function noteLastKey(dir: string, root: string, key: string): void {
  writeCacheFile(lastKeyFile(dir, root), JSON.stringify({ key, root }))
}

/**
 * How stale a last-key file's mtime may get before a reader that used its key marks it used again: its mtime is when
 * its work tree last used the cache (write-cache.ts drops the sets of work trees idle for IDLE_MS), and a day is
 * precise enough for that, at one write a day rather than one per command.
 */
export const USED_EVERY_MS = 24 * 3_600_000

/**
 * Marks the last-key file of the work tree at `root` used now (its mtime) when it is older than USED_EVERY_MS: the
 * work tree read the cache under the key it names (written by an earlier run), so another work tree's rebuild keeps
 * that set (write-cache.ts keptKeys). A stat per command, a write once a day; a failure only costs a rebuild later.
 */
export function markLastKeyUsed(dir: string, root: string, now = Date.now()): void {
  const file = lastKeyFile(dir, root)
  try {
    const st = statSync(file, { throwIfNoEntry: false })
    if (st && now - st.mtimeMs > USED_EVERY_MS) utimesSync(file, now / 1000, now / 1000)
  } catch {
    // Removed meanwhile, or not ours to change.
  }
}

/** The key whose cache files the work tree at `root` wrote last (most often still the current one). */
export function lastKey(dir: string, root: string): string | undefined {
  const last = readLastKey(lastKeyFile(dir, root))
  return last?.root === root ? last.key : undefined
}

/**
 * The key another work tree of this clone wrote last whose set kept a parse (reuse-file.ts), the most recently used:
 * a work tree's first rebuild (a new worktree, one whose branch has other learnings) takes the parses of the blobs it
 * shares with that set instead of parsing the whole store. Undefined when there is none (a fresh clone).
 */
export function otherLastKey(dir: string, root: string): string | undefined {
  let best: { key: string; used: number } | undefined
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return undefined
  }
  for (const name of names) {
    if (!name.startsWith('last-key-') || name.endsWith('.tmp')) continue
    const file = join(dir, name)
    const last = readLastKey(file)
    if (!last || last.root === root) continue
    const used = statSync(file, { throwIfNoEntry: false })?.mtimeMs
    if (used === undefined || (best && best.used >= used)) continue
    if (statSync(files(dir, last.key).parsed, { throwIfNoEntry: false })) best = { key: last.key, used }
  }
  return best?.key
}

export function readProjectFile(dir: string, key: string): ProjectFile | undefined {
  const f = readDeflatedJson(files(dir, key).project)
  if (
    !isObject(f) ||
    f['format'] !== CACHE_FORMAT ||
    f['key'] !== key ||
    !Array.isArray(f['rows']) ||
    !Array.isArray(f['problems'])
  )
    return undefined
  const rows = (f['rows'] as unknown[]).map(unpackProjectRow)
  return rows.every((r) => r !== undefined)
    ? { rows: rows as ProjectRow[], problems: f['problems'] as Problem[] }
    : undefined
}
