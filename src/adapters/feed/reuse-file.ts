/**
 * parsed-<key>.jsonl.deflate: the parse of every clean project file a rebuild read (by path and blob id), kept for the
 * next rebuild of the same work tree. After a pull or an approval that changed a few learnings, that rebuild reads
 * and parses only those, and takes the rest as they were parsed (rebuild.ts). Text, one JSON value a line: the header
 * `{format, stamp, allow}`, then `[path, oid, parsed]` for each file; a line taken again is written back as it was
 * read, so a rebuild after a small change neither parses nor stringifies the rest.
 *
 * Written by a rebuild that follows another in the same work tree (a rebuild from nothing, which the first agent hook
 * of a fresh clone waits for, does not pay for it). Kept only for stores of up to REUSE_MAX learnings: at 100,000 learnings a parsed copy was a 163 MB file that took
 * longer to write and read back than parsing the blobs again (BENCHMARKS.md), and the local state's budget there is
 * 60 MB. Only files parsed without a problem and without a finding (a credential, a directive) are kept: their
 * screen depends on the acceptances and reviewed fingerprints of the moment, so they are read and screened again.
 */
import { readFileSync } from 'node:fs'
import { inflateRawSync } from 'node:zlib'
import { MAX_INFLATED } from './cache-files.js'
import type { ParsedFile } from './parse-file.js'

/**
 * The most project learnings whose parse is kept. At 10,000 the copy is ~1.6 MB on disk and is read back in a tenth
 * of the time parsing takes; past 20,000 it would outgrow the local state's budget.
 */
export const REUSE_MAX = 20_000

/** A file's parse as it was kept, and its line (written back unchanged when it is kept again). */
export interface Reusable {
  parsed: ParsedFile
  line: string
}

interface Header {
  format: number
  /** The build that parsed them (a new git-learn parses again). */
  stamp: string
  /** The reviewed secret fingerprints they were scanned with (config.yaml's secrets.allow, as JSON). */
  allow: string
}

/**
 * The parses kept in `file`, by `path\0oid`; undefined when it is missing, torn or foreign, or was made by another
 * build, cache format or set of reviewed fingerprints than `want`'s.
 */
export function readReusable(file: string, want: Header): Map<string, Reusable> | undefined {
  let lines: string[]
  try {
    lines = inflateRawSync(readFileSync(file), { maxOutputLength: MAX_INFLATED }).toString('utf8').split('\n')
    const h = JSON.parse(lines[0] ?? '') as Partial<Header> | null
    if (h?.format !== want.format || h.stamp !== want.stamp || h.allow !== want.allow) return undefined
  } catch {
    return undefined
  }
  const out = new Map<string, Reusable>()
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string
    let item: unknown
    try {
      item = JSON.parse(line)
    } catch {
      return undefined
    }
    if (!Array.isArray(item)) return undefined
    const [path, oid, parsed] = item as [unknown, unknown, Partial<ParsedFile> | null]
    if (typeof path !== 'string' || typeof oid !== 'string' || typeof parsed !== 'object' || parsed === null)
      return undefined
    if (!parsed.entry || !Array.isArray(parsed.counted) || typeof parsed.hash !== 'string') return undefined
    out.set(`${path}\0${oid}`, { parsed, line })
  }
  return out
}

/** Collects the parses a rebuild keeps, in store order; `text()` is the file's content. */
export class ReuseWriter {
  private readonly lines: string[]

  constructor(header: Header) {
    this.lines = [JSON.stringify(header)]
  }

  /** Keeps a clean file's parse when it is worth keeping (no problem, nothing withheld, no finding). */
  keep(path: string, oid: string, result: ParsedFile, taken?: Reusable): void {
    if (taken) {
      this.lines.push(taken.line)
      return
    }
    const { entry, row, counted, recall, hash, name, scan, withheld } = result
    if (!entry || !counted || !hash || withheld || (scan && (scan.secrets.length || scan.directives.length))) return
    this.lines.push(JSON.stringify([path, oid, { entry, row, counted, recall, hash, name }]))
  }

  text(): string {
    return this.lines.join('\n')
  }
}
