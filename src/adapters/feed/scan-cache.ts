/**
 * The scans of this project's learnings that render screens with (core/agent-safety.ts scanForAgents), kept between
 * runs by the text they were made from: render runs after every approve, reject and prune and on post-merge and
 * post-checkout, and between two runs almost every learning is unchanged, so it scans only what changed.
 *
 * The file is `<git-common-dir>/learn/cache/agent-scans-v1.json`, local state that never enters the work tree. It maps
 * the sha256 of a learning's text to its scan (0 for nothing found) under a key of the build (codeStamp: the scanner's
 * rules and the YAML parser that decodes frontmatter values) and secrets.allow, so an edited file simply misses (its
 * new text is another key) and a new build or allow list starts over: nothing can be stale. The accepted directives
 * are not in it: the screen applies them to the scan on every run (agent-screen.ts). A missing, unreadable, corrupt or
 * foreign file is ignored and rebuilt, never an error. After a run the file holds exactly the scans that run used, and
 * is replaced atomically.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { scanForAgents } from '../../core/agent-safety.js'
import type { TextScan } from '../../core/agent-safety.js'
import { writeCacheFile } from '../state/cache-file.js'
import { cacheDir, codeStamp } from './feed-key.js'

export const SCAN_CACHE_FILE = 'agent-scans-v1.json'

interface CacheFile {
  key: string
  /** sha256 of a text → its scan, or 0 when nothing was found. */
  scans: Record<string, TextScan | 0>
}

export interface ScanCache {
  /** scanForAgents(text, allow, data), from the cache when this text was scanned before. */
  scan(text: string, data: Record<string, unknown>): TextScan
  /** Write the scans used in this run, when they differ from what was read. Never throws. */
  save(): void
}

const isScan = (v: unknown): v is TextScan | 0 =>
  v === 0 ||
  (typeof v === 'object' &&
    v !== null &&
    Array.isArray((v as TextScan).secrets) &&
    Array.isArray((v as TextScan).directives))

function readScans(file: string, key: string): Map<string, TextScan | 0> {
  const out = new Map<string, TextScan | 0>()
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<CacheFile>
    if (parsed.key !== key || typeof parsed.scans !== 'object' || parsed.scans === null) return out
    for (const [h, v] of Object.entries(parsed.scans)) if (isScan(v)) out.set(h, v)
  } catch {
    // A missing or damaged cache is a miss.
  }
  return out
}

/** The scan cache of the repository whose common git dir is `commonDir`, for this build and `allow`. */
export function openScanCache(commonDir: string, allow: readonly string[]): ScanCache {
  const file = join(cacheDir(commonDir), SCAN_CACHE_FILE)
  const key = `${codeStamp(createHash)} ${JSON.stringify(allow)}`
  const known = readScans(file, key)
  const used = new Map<string, TextScan | 0>()
  let missed = false
  return {
    scan(text, data) {
      const h = createHash('sha256').update(text).digest('hex')
      const hit = used.get(h) ?? known.get(h)
      if (hit !== undefined) {
        used.set(h, hit)
        return hit === 0 ? { secrets: [], directives: [] } : hit
      }
      missed = true
      const scan = scanForAgents(text, allow, data)
      used.set(h, scan.secrets.length || scan.directives.length ? scan : 0)
      return scan
    },
    save() {
      if (!missed && used.size === known.size) return
      const scans: Record<string, TextScan | 0> = {}
      for (const [h, v] of used) scans[h] = v
      writeCacheFile(file, JSON.stringify({ key, scans } satisfies CacheFile))
    },
  }
}
