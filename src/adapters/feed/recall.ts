/** The failure path of the recall hook: match the error against the cached triggers, record the matches. */
import { closeSync, openSync } from 'node:fs'
import { join } from 'node:path'
import type { CatalogEntry } from '../../core/search.js'
import type { ToolFailure } from '../../core/search-recall.js'
import { RECALL_MAX_ITEMS, rankRecall, recallQueryTerms } from '../../core/recall-rank.js'
import type { RecallIndex, RecallPostings } from '../../core/recall-rank.js'
import { appendEventLine } from '../state/event-line.js'
import { addPendingRecalls } from '../state/recalls.js'
import { sweepSessionFilesDaily } from '../state/daily-sweep.js'
import { files, lastKey, markLastKeyUsed, noteLastKey, readBytes } from './cache-files.js'
import { unpackBlock } from './catalog-blocks.js'
import { cacheDir, keyingFor } from './feed-key.js'
import { openRecallFile } from './recall-file.js'

export interface RecalledLearning {
  name: string
  /** "project", or the tier it comes from (labelled as such to the agent). */
  tier: string
  fix: string
  description: string
}

export interface RecallFeed {
  commonDir: string
  /** The recall entries a failure with these terms picks (rankRecall), best first, at most `limit`. */
  rank(queryTerms: ReadonlySet<string>, limit: number): Promise<{ doc: number; name: string; score: number }[]>
  /** The catalog entry of recall entry `doc` (of the last rank). */
  entry(doc: number): CatalogEntry | undefined
  /** Close the cache file (rank reads postings from it until then). */
  close(): void
}

type Picks = { doc: number; name: string; score: number }[]

/**
 * The recall entries, from recall-<key>.bin when it is current (else the cache is rebuilt). Only light modules are
 * loaded on a hit: the rebuild (and the search index's modules) only on a miss. A damaged file is a miss wherever
 * the damage is found (its header, or a term's postings read during the ranking).
 *
 * With `early` (the query the caller will rank), the file of the key written last is ranked while git computes the
 * current key, and that answer is given only if the key proves the same: at 100,000 learnings git's stat of every
 * index entry takes ~0.1 s, time the ranking used to wait through before starting.
 */
export async function readRecallFeed(
  cwd: string,
  early?: { terms: ReadonlySet<string>; limit: number },
): Promise<RecallFeed> {
  const k = await keyingFor(cwd)
  const { root, commonDir } = k
  const dir = cacheDir(commonDir)
  type Hit = { reader: NonNullable<ReturnType<typeof openRecallFile>>; catalog: string; index?: RecallPostings }
  const open = (key: string): Hit | undefined => {
    const f = files(dir, key)
    const reader = openRecallFile(f.recall, f.catalog, key)
    return reader && { reader, catalog: f.catalog }
  }
  let built: Awaited<ReturnType<typeof import('./rebuild.js').rebuild>> | undefined
  const pick = (index: RecallIndex | RecallPostings, terms: ReadonlySet<string>, limit: number) =>
    rankRecall(index, terms, limit).map((c) => ({ doc: c.doc, name: index.names[c.doc] as string, score: c.score }))
  /** The catalog entries of the last rank's picks, read from the cache's catalog blocks. */
  const picked = new Map<number, CatalogEntry>()
  const readEntry = (file: Hit, doc: number): CatalogEntry => {
    const row = file.reader.row(doc)
    if (!row || row.end <= row.start || row.line >= row.rows) throw new Error('a recall row is damaged')
    const fd = openSync(file.catalog, 'r')
    try {
      const e = unpackBlock(readBytes(fd, row.start, row.end - row.start), row.rows)[row.line]
      if (!e) throw new Error('a recall row is damaged')
      return e
    } finally {
      closeSync(fd)
    }
  }
  /** The picks of `terms` from `file`, their entries in `picked`; throws on a damaged file. */
  const rankIn = (file: Hit, terms: ReadonlySet<string>, limit: number): Picks => {
    picked.clear()
    const picks = pick((file.index ??= file.reader.index()), terms, limit)
    for (const p of picks) picked.set(p.doc, readEntry(file, p.doc))
    return picks
  }
  // The file of the key written last is opened (and with `early` ranked) while git computes the current key, which
  // is most often the same.
  const guess = lastKey(dir, root)
  const guessed = guess ? open(guess) : undefined
  let ranked: Picks | undefined
  if (guessed && early)
    try {
      ranked = rankIn(guessed, early.terms, early.limit)
    } catch {
      ranked = undefined // damaged: decided again below, once the key is known
    }
  const state = await k.state
  let hit = guessed
  if (guess === state.key && hit) markLastKeyUsed(dir, root)
  if (guess !== state.key) {
    guessed?.reader.close()
    hit = open(state.key)
    ranked = undefined
    if (hit) noteLastKey(dir, root, state.key)
  }
  return {
    commonDir,
    async rank(terms, limit) {
      if (ranked && early && terms === early.terms && limit === early.limit) return ranked
      ranked = undefined
      picked.clear()
      if (hit && !built)
        try {
          return rankIn(hit, terms, limit)
        } catch {
          // A torn or foreign file (the recall file's postings, or a catalog block): rebuild, and answer from the
          // fresh entries.
          picked.clear()
        }
      built ??= await (await import('./rebuild.js')).rebuild(root, commonDir, state)
      return pick(built.recall, terms, limit)
    },
    entry(doc) {
      if (built) return built.catalog[built.recallIds[doc] as number]
      return picked.get(doc)
    },
    close: () => hit?.reader.close(),
  }
}

/**
 * The learnings a failure matches (best first, at most RECALL_MAX_ITEMS), each recorded as a match; [] for none. The
 * repository is the one at `cwd`, the hook's own directory: a payload's `cwd` is the agent's word and is not followed.
 * Recording is best effort: when `events.jsonl` cannot be appended (a read-only mount, a file another user owns after a
 * `sudo` run) the answer is still returned and `unrecorded` is told why, once.
 */
export async function recallFailure(
  failure: ToolFailure,
  cwd: string,
  now: Date,
  unrecorded: (err: unknown) => void,
): Promise<RecalledLearning[]> {
  const terms = recallQueryTerms(failure.text)
  const feed = await readRecallFeed(cwd, { terms, limit: RECALL_MAX_ITEMS })
  const chosen: { entry: CatalogEntry; score: number }[] = []
  try {
    for (const c of await feed.rank(terms, RECALL_MAX_ITEMS)) {
      const entry = feed.entry(c.doc)
      if (entry) chosen.push({ entry, score: c.score })
    }
  } finally {
    feed.close()
  }
  const out: RecalledLearning[] = []
  for (const { entry } of chosen)
    out.push({ name: entry.name, tier: entry.tier, fix: entry.fix, description: entry.description })
  try {
    for (const { entry, score } of chosen)
      appendEventLine(feed.commonDir, {
        ts: now.toISOString(),
        kind: 'match',
        name: entry.name,
        ...(failure.session ? { session: failure.session } : {}),
        score,
      })
  } catch (err) {
    unrecorded(err)
  }
  if (failure.session && out.length) {
    const stateDir = join(feed.commonDir, 'learn')
    addPendingRecalls(
      stateDir,
      failure.session,
      failure.tool_use_id,
      out.map((o) => o.name),
      now,
    )
    // Once a day, as capture does (without capture registered, nothing else ever removes a pending-recalls file).
    const sweeping = sweepSessionFilesDaily(stateDir)
    if (sweeping) await sweeping
  }
  return out
}
