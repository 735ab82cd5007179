/**
 * A tier's cached reads under <common dir>/learn/cache/, one set per pinned commit and build of git-learn:
 * `tier-items-<commit>-<code>.bin` (tier-items.ts: catalog entries, content hashes, recall terms) and
 * `tier-index-<commit>-<code>.{terms.json,postings.bin,docs.bin}` (feed/rebuild.ts: the search index) and
 * `tier-learnings-<commit>-<code>.json.deflate` (tiers.ts: the screened learnings render and the store's readers use)
 * and `tier-name-<commit>-<code>.json` (tier-earlier.ts: the tier that pinned it last). A commit never changes; the
 * code part retires them when the parser or the screening rules do. pruneTierCache removes the tier files not of a
 * commit pinned here and this build once they have not been used for a day (each use touches them: markTierCacheUsed),
 * and names of older formats (`tier-<commit>.json`) at once. Not at once for the others: worktrees share this cache and
 * may pin a tier at different commits (a branch that moves the pin, under review), and two builds may serve one
 * repository (a global install and a project's own); removing what the other needs would rebuild a tier at each turn.
 */
import { createHash } from 'node:crypto'
import { readdirSync, statSync, unlinkSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { codeStamp } from './feed-key.js'

/** How long a pinned commit whose fetch failed is not fetched again by the feed (`tier verify` tries at once). */
export const PINNED_RETRY_MS = 10 * 60 * 1000
/**
 * The name of a failed fetch's marker (tiers.ts unfetchedFile) starts with this: past PINNED_RETRY_MS it means
 * nothing, and one of a pin since moved is never looked at again, so a rebuild removes it (write-cache.ts).
 */
export const UNFETCHED_PREFIX = 'unfetched-'

/** The build part of a tier cache file's name. */
export const tierCacheStamp = (): string => codeStamp(createHash).slice(0, 12)

/** `tier-[kind-]<commit>[-<code>].<ext>`: the commit and the code part of a tier cache file's name. */
const TIER_FILE = /^tier-(?:[a-z]+-)?([0-9a-f]{40}|[0-9a-f]{64})(?:-([0-9a-f]{12}))?\./

/** How long a tier file not of a commit pinned here, or of another build, is kept after its last use. */
const UNUSED_KEPT_MS = 24 * 3600 * 1000

/** Remove the tier cache files in `dir` of no commit in `pinned` or of another build, unused for a day. */
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
      if (m[2] !== undefined && now - statSync(file).mtimeMs < UNUSED_KEPT_MS) continue
      unlinkSync(file)
    } catch {
      // The cache is an optimisation only: a file another process removed first, or a read-only git dir.
    }
  }
}

/** Mark tier cache files as used now (their mtime), so that another worktree's or build's prune keeps them. */
export function markTierCacheUsed(files: readonly string[], now = new Date()): void {
  for (const f of files)
    try {
      utimesSync(f, now, now)
    } catch {
      // Gone or read-only: only the next prune's choice depends on it.
    }
}
