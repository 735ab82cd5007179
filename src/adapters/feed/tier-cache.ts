/**
 * A tier's cached reads under <common dir>/learn/cache/, one set per pinned commit and build of git-learn:
 * `tier-items-<commit>-<code>.json.deflate` and `tier-index-<commit>-<code>.{terms.json,postings.bin,docs.bin}`
 * (feed/rebuild.ts: catalog entries, content hashes, search index) and `tier-learnings-<commit>-<code>.json.deflate`
 * (tiers.ts: the screened learnings render and the store's readers use). A commit never changes; the code part
 * retires them when the parser or the screening rules do. pruneTierCache removes every tier file that is not of a
 * pinned commit, so a tier removed or moved to another commit frees its space at the next read (names of older
 * formats, `tier-<commit>.json`, included). Files of another build go once they are a day old: two builds used on
 * one repository (a global install and a project's own) would otherwise remove each other's at every run.
 */
import { createHash } from 'node:crypto'
import { readdirSync, statSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { codeStamp } from './feed-key.js'

/** The build part of a tier cache file's name. */
export const tierCacheStamp = (): string => codeStamp(createHash).slice(0, 12)

/** `tier-[kind-]<commit>[-<code>].<ext>`: the commit and the code part of a tier cache file's name. */
const TIER_FILE = /^tier-(?:[a-z]+-)?([0-9a-f]{40}|[0-9a-f]{64})(?:-([0-9a-f]{12}))?\./

const OTHER_BUILD_KEPT_MS = 24 * 3600 * 1000

/** Remove the tier cache files in `dir` not of one of `pinned` (commit ids), or of another build and a day old. */
export function pruneTierCache(dir: string, pinned: Iterable<string>, now = Date.now()): void {
  const keep = new Set(pinned)
  const stamp = tierCacheStamp()
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return // no cache yet
  }
  for (const name of names) {
    const m = TIER_FILE.exec(name)
    if (!m || (keep.has(m[1] as string) && m[2] === stamp)) continue
    const file = join(dir, name)
    try {
      if (keep.has(m[1] as string) && m[2] !== undefined && now - statSync(file).mtimeMs < OTHER_BUILD_KEPT_MS) continue
      unlinkSync(file)
    } catch {
      // The cache is an optimisation only: a file another process removed first, or a read-only git dir.
    }
  }
}
