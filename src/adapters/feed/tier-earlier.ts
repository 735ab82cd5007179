/**
 * An earlier build of a tier, for the build of its new pinned commit to start from (rebuild.ts): when `tier update`
 * moves a pin, most of the tier's learnings are the blobs the last pin had, at the same paths. Their items and index
 * postings are taken from the earlier commit's cache files (tier-items.ts, index-files.ts); only the blobs that
 * changed are read and parsed, and the index is updated (core/search-update.ts) instead of built from nothing. The
 * result is what a build from nothing gives, byte for byte (test/integration/tier-update-reuse.test.ts).
 *
 * The earlier build is the most recently used one of the same tier name with this build's stamp: beside a commit's
 * build, `tier-name-<commit>-<code>.json` names the tier that pinned it last (noteTierName, at every rebuild: a tier
 * renamed in config.yaml is found under its new name). A learning's item depends only on its path, its text and this
 * build (the schema and screens are the build's), so a path whose blob id is the same in both commits keeps its item.
 *
 * An earlier build that shares fewer than half of the new commit's learnings is not used: updating holds the earlier
 * items and postings beside the new learnings', and past that share it costs more than the read it saves (at 100,000
 * learnings a pin that changed every one took ~26 s and ~885 MB updated, ~19 s and ~455 MB built from nothing; one
 * that changed 45 % of them ~15 s and ~570 MB updated).
 */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { parseLsTree } from '../../core/git-output.js'
import type { TreeEntry } from '../../core/git-output.js'
import type { EarlierIndex } from '../../core/search-update.js'
import type { Git } from '../git/simple.js'
import { readFileBounded } from '../store/read-bounded.js'
import { writeCacheFile } from '../state/cache-file.js'
import { MAX_STATE_FILE } from './cache-files.js'
import { readEarlierIndex, readIndexTerms, tierIndexFiles } from './index-files.js'
import { readTierItems } from './tier-items.js'
import type { TierItem } from './tier-items.js'

export interface EarlierTier {
  commit: string
  items: TierItem[]
  index: EarlierIndex
  /** The new commit's entries under .learnings/active, listed once here (forEachTierFile `tree`). */
  tree: TreeEntry[]
  /** The earlier item of `path` when its blob there was `oid` too. */
  keep(path: string, oid: string): number | undefined
}

/** The share of the new commit's learnings an earlier build must hold at the same path and blob to be updated from. */
const MIN_SHARED = 0.5

const NAME_FILE = /^tier-name-([0-9a-f]{40}|[0-9a-f]{64})-([0-9a-f]{12})\.json$/

/** The file that names the tier a commit's build was last pinned by. */
export const tierNameFile = (dir: string, commit: string, stamp: string): string =>
  join(dir, `tier-name-${commit}-${stamp}.json`)

/**
 * The tier a commit's build was last pinned by, or undefined. Read bounded, and from a regular file only: a FIFO put
 * at its name (a shared git dir) would hold every rebuild for ever, a huge file fill memory (readFileBounded).
 */
function readTierName(file: string): string | undefined {
  try {
    const r = readFileBounded(file, MAX_STATE_FILE, { regularOnly: true })
    if (!r.regular || r.over) return undefined
    const v = JSON.parse(r.bytes.toString('utf8')) as { tier?: unknown }
    return typeof v.tier === 'string' ? v.tier : undefined
  } catch {
    return undefined
  }
}

/** Records that tier `tier` pins `commit` (written only when it named another tier or none). */
export function noteTierName(dir: string, commit: string, stamp: string, tier: string): void {
  const file = tierNameFile(dir, commit, stamp)
  if (readTierName(file) !== tier) writeCacheFile(file, JSON.stringify({ tier }))
}

/** The earlier build of tier `tier` to update from for `commit`, or undefined when there is none to trust. */
export async function earlierTierBuild(
  dir: string,
  git: Pick<Git, 'tryRun'>,
  tier: string,
  commit: string,
  stamp: string,
): Promise<EarlierTier | undefined> {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return undefined
  }
  // The builds this tier pinned, the most recently used first (their terms file's mtime: markTierCacheUsed).
  const candidates: { commit: string; terms: string; used: number }[] = []
  for (const name of names) {
    const m = NAME_FILE.exec(name)
    if (!m || m[1] === commit || m[2] !== stamp || readTierName(join(dir, name)) !== tier) continue
    const terms = `${join(dir, `tier-index-${m[1]}-${stamp}`)}.terms.json`
    const used = statSync(terms, { throwIfNoEntry: false })?.mtimeMs
    if (used !== undefined) candidates.push({ commit: m[1] as string, terms, used })
  }
  candidates.sort((a, b) => b.used - a.used)
  let now: Listing | undefined
  for (const c of candidates) {
    const terms = readIndexTerms(c.terms)
    if (!terms || terms['commit'] !== c.commit) continue
    // Both commits' blobs by path, before the earlier build is read; a commit no longer here (gone with a forced
    // update) gives none.
    now ??= await learningBlobs(git, commit)
    if (now === undefined) return undefined
    const oids = (await learningBlobs(git, c.commit))?.oids
    if (oids === undefined) continue
    let shared = 0
    for (const [path, oid] of now.oids) if (oids.get(path) === oid) shared++
    if (!shared || shared < now.oids.size * MIN_SHARED) continue
    const cached = readTierItems(join(dir, `tier-items-${c.commit}-${stamp}.bin`), c.commit)
    if (!cached || terms.header.nextId !== cached.items.length) continue
    let index: EarlierIndex
    try {
      index = readEarlierIndex(tierIndexFiles(join(dir, `tier-index-${c.commit}-${stamp}`)), terms)
    } catch {
      continue // damaged: another, or none
    }
    const at = new Map<string, number>()
    cached.items.forEach((it, j) => at.set(it.entry.path, j))
    return {
      commit: c.commit,
      items: cached.items,
      index,
      tree: now.entries,
      keep: (path, oid) => {
        const j = at.get(path)
        return j !== undefined && oids.get(path) === oid ? j : undefined
      },
    }
  }
  return undefined
}

/** A commit's entries under .learnings/active (as forEachTierFile lists them), its `.md` files' blob ids by path. */
interface Listing {
  entries: TreeEntry[]
  oids: Map<string, string>
}

/** The listing of a commit's .learnings/active, or undefined when git cannot list it. */
async function learningBlobs(git: Pick<Git, 'tryRun'>, commit: string): Promise<Listing | undefined> {
  const tree = await git.tryRun(['ls-tree', '-r', '-z', '--full-tree', commit, '--', '.learnings/active'])
  if (tree === undefined) return undefined
  const entries = parseLsTree(tree)
  const oids = new Map<string, string>()
  for (const e of entries) if (e.path.endsWith('.md')) oids.set(e.path, e.oid)
  return { entries, oids }
}
