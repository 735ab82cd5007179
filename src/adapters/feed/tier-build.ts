/**
 * A pinned tier commit built for the feed (rebuild.ts): its learnings read from git objects and parsed on both cores,
 * each one's catalog entry, content hash, recall terms and context lines' lengths as items, and its search index in
 * parts. From an earlier build of the tier (tier-earlier.ts: `tier update` moved the pin), only the blobs that build
 * did not have are read, and its index is updated instead of built from nothing.
 */
import { lineLengths as contextLineLengths } from '../../core/context.js'
import type { CatalogEntry } from '../../core/search.js'
import { IndexBuilder } from '../../core/search-parts.js'
import type { BuiltParts, CountedDoc } from '../../core/search-parts.js'
import { updateIndexParts } from '../../core/search-update.js'
import type { SchemaValidator } from '../../core/validate.js'
import type { ParsedFile, compactor } from './parse-file.js'
import type { ParseQueue, ParseWorker } from './parse-pool.js'
import type { EarlierTier } from './tier-earlier.js'
import type { TierItem } from './tier-items.js'
import type { TierKept, TierText } from './tiers.js'

/** The tier and commit a build is of. */
type TierPin = { tier: string; commit: string }

/** A tier learning as its index and items hold it (tier-file.ts parseTierFile). */
type TierFile = { entry: CatalogEntry; counted: CountedDoc; recall: string[][]; hash: string }

/**
 * The learnings of a pinned tier commit, parsed on both cores (tier-file.ts, the parse worker taking batches while
 * this thread parses others) and handed to `onFile` in tree order as they are ready; returns its warnings (tree and
 * sizes, then parsing, as tiers.ts forEachTierLearning gives them). At 100,000 learnings one thread took ~13 s.
 */
async function readTier(
  git: Parameters<typeof import('./tiers.js').forEachTierFile>[0],
  pin: { tier: string; commit: string },
  validator: SchemaValidator,
  compact: ReturnType<typeof compactor>,
  onFile: (f: TierFile) => void,
  earlier?: Pick<EarlierTier, 'keep' | 'tree'> & { onKept: (item: number) => void },
): Promise<{ path: string; reason: string }[]> {
  const [{ forEachTierFile }, { parseTierFile }, { ParseQueue, startParseWorker }] = await Promise.all([
    import('./tiers.js'),
    import('./tier-file.js'),
    import('./parse-pool.js'),
  ])
  const parseWarnings: { path: string; reason: string }[] = []
  /** A file's text parsed here (its strings cut from its text: copied out), or the problem it was read with. */
  const here = (f: TierText | TierKept): ParsedFile =>
    'kept' in f
      ? {}
      : f.problem === undefined
        ? compact(parseTierFile(f.path, f.text, validator), f.path, true)
        : { problem: f.problem }
  const settle = (files: (TierText | TierKept)[], parsed: ParsedFile[]) =>
    files.forEach((f, i) => {
      if ('kept' in f) return earlier?.onKept(f.kept)
      // The worker was given '' for a file that could not be read: the file keeps the reason it could not.
      const r = f.problem === undefined ? (parsed[i] as ParsedFile) : { problem: f.problem }
      const { entry, counted, recall, hash } = r
      if (entry && counted && recall && hash) onFile({ entry, counted, recall, hash })
      else parseWarnings.push({ path: `${pin.tier}:${f.path}`, reason: r.problem ?? 'invalid learning' })
    })
  let worker: ParseWorker | undefined
  let queue: ParseQueue<TierText | TierKept> | undefined
  try {
    const warnings = await forEachTierFile(git, pin.tier, pin.commit, {
      // The worker loads its modules while git reads the first chunk.
      start: (total) => {
        worker = startParseWorker([], total)
        queue = new ParseQueue(worker, {
          ask: (w, batch) =>
            w.parseTier(
              batch.map((f) => f.path),
              batch.map((f) => ('kept' in f ? '' : (f.text ?? ''))),
            ),
          here: (batch) => batch.map(here),
          fromWorker: (r, f) => compact(r, f.path, false),
          settle,
          // A batch of kept files alone is neither parsed nor asked of the worker.
          ready: (f) => ('kept' in f ? {} : undefined),
        })
      },
      files: (files) => (queue as ParseQueue<TierText | TierKept>).add(files),
      ...(earlier ? { keep: earlier.keep, tree: earlier.tree } : {}),
    })
    await queue?.finish()
    return [...warnings, ...parseWarnings]
  } finally {
    worker?.close()
  }
}

/** A pinned tier commit built: its items, its warnings (paths `<tier>:<path>`) and its index in parts. */
export interface TierBuild {
  items: TierItem[]
  warnings: { path: string; reason: string }[]
  parts: BuiltParts
}

type Git = Parameters<typeof readTier>[0]
type Compact = ReturnType<typeof compactor>

/**
 * A pinned tier commit's items, warnings and index parts. Each learning indexed as it is read, its text dropped (not
 * readTierLearningsCached: a copy of every parsed learning of a 100,000-learning tier is most of a gigabyte). From
 * an `earlier` build, only the blobs it did not have are read; the kept ones take its items, and its index is updated
 * (core/search-update.ts); undefined when that update fails (the caller builds from nothing).
 */
export async function buildTier(
  git: Git,
  pin: TierPin,
  validator: SchemaValidator,
  compact: Compact,
): Promise<TierBuild>
export async function buildTier(
  git: Git,
  pin: TierPin,
  validator: SchemaValidator,
  compact: Compact,
  earlier: EarlierTier,
): Promise<TierBuild | undefined>
export async function buildTier(
  git: Git,
  pin: TierPin,
  validator: SchemaValidator,
  compact: Compact,
  earlier?: EarlierTier,
): Promise<TierBuild | undefined> {
  // From nothing: every learning. From an earlier build: those read now, each with its position as its id.
  const builder = new IndexBuilder()
  const items: TierItem[] = []
  /** With an earlier build: each item's earlier position (-1: read now). */
  const from: number[] = []
  const warnings = await readTier(
    git,
    pin,
    validator,
    compact,
    (f) => {
      builder.addCounted(items.length, f.counted)
      if (earlier) from.push(-1)
      items.push({ entry: f.entry, hash: f.hash, recall: f.recall, lines: contextLineLengths(f.entry) })
    },
    earlier && {
      keep: earlier.keep,
      tree: earlier.tree,
      onKept: (j) => {
        from.push(j)
        items.push(earlier.items[j] as TierItem)
      },
    },
  )
  if (!earlier) return { items, warnings, parts: builder.finish() }
  try {
    return { items, warnings, parts: updateIndexParts(earlier.index, Int32Array.from(from), builder.finish()) }
  } catch {
    return undefined
  }
}
