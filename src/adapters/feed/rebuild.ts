/**
 * The rebuild of the feed cache: read every source (the project store, its clean files in bulk from git's object
 * store, and each pinned tier, parsed once per commit), fold duplicates across sources, index, and write the files
 * of the key (write-cache.ts).
 *
 * The store keeps the parse of its clean files for the next rebuild (reuse-file.ts, read and written as a stream):
 * after a pull or an approval that changed a few learnings, only those are read and parsed again. A tier's new pin is
 * built from its last pin's build (tier-build.ts, tier-earlier.ts): only the blobs that changed are read.
 *
 * Why over 300 lines: reading every source and folding duplicates is one pass with one memory budget; writing is
 * write-cache.ts.
 */
import { lstatSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { GitCommandError, reasonOf } from '../../core/errors.js'
import { STATES, STORE_DIR, TIER_REF_PREFIX } from '../../core/layout.js'
import { MAX_LEARNING_BYTES } from '../../core/learning.js'
import { readFileBounded } from '../store/read-bounded.js'
import { storeDirProblem } from '../store/store-dirs.js'
import type { TextScan } from '../../core/agent-safety.js'
import type { ParsedFile } from './parse-file.js'
import type { CatalogEntry } from '../../core/search.js'
import type { RecallIndex } from '../../core/recall-rank.js'
import { chunkBounds, groupBySize, parseCatFileBatch } from '../../core/git-output.js'
import { IndexBuilder, partsIndex } from '../../core/search-parts.js'
import type { ScoringIndex } from '../../core/search-score.js'
import type { BuiltParts, CountedDoc } from '../../core/search-parts.js'
import { tryGitAsyncSpooled } from '../git/run.js'
import { openIndex, readIndexTerms, tierIndexFiles, writeIndexFiles } from './index-files.js'
import { MAX_INFLATED, files, lastKey, otherLastKey } from './cache-files.js'
import { ReuseReader, ReuseWriter, parsedOf } from './reuse-file.js'
import type { Reusable } from './reuse-file.js'
import type { Problem, ProjectFile } from './cache-files.js'
import { CACHE_FORMAT, acceptanceLogHash, acceptancesFile, cacheDir, storeFiles } from './feed-key.js'
import { writeCacheFile } from '../state/cache-file.js'
import type { StoreState } from './feed-key.js'
import { markTierCacheUsed, pruneTierCache, tierCacheStamp } from './tier-cache.js'
import { readTierItems, writeTierItems } from './tier-items.js'
import type { TierItem } from './tier-items.js'
import { writeCache } from './write-cache.js'
import { earlierTierBuild, noteTierName, tierNameFile } from './tier-earlier.js'
import { buildTier } from './tier-build.js'
import type { TierBuild } from './tier-build.js'

export interface Built {
  catalog: CatalogEntry[]
  problems: Problem[]
  /** The project's index in the parts its cache files hold (src/core/search-parts.ts). */
  parts: BuiltParts
  /** Each tier's index (built once per pinned commit), and the catalog id of each of its documents (-1: folded). */
  tierIndexes: { name: string; index: ScoringIndex; map: Int32Array }[]
  recall: RecallIndex
  /** The catalog position of each recall entry. */
  recallIds: number[]
  /** The context lines' lengths of the tiers' entries, by catalog id (counted once per pinned commit). */
  tierLines: ([number, number] | undefined)[]
  /** Every readable project file, unfolded, in store order, and the project's problems. */
  project: ProjectFile
}

/** `git ls-files -s -z` records as path → {mode, oid}. Sample: "100644 3f2c…e1 0\t.learnings/active/x.md\0". */
function parseLsFiles(out: string | undefined): Map<string, { mode: string; oid: string }> {
  const map = new Map<string, { mode: string; oid: string }>()
  for (const rec of (out ?? '').split('\0')) {
    const tab = rec.indexOf('\t')
    if (tab < 0) continue
    const [mode = '', oid = '', stage = '0'] = rec.slice(0, tab).split(' ')
    if (stage === '0') map.set(rec.slice(tab + 1), { mode, oid })
  }
  return map
}

/** How many blobs one `git cat-file --batch` is asked for: bounds the memory of its output (~13 MB of learnings). */
const BULK_CHUNK = 10_000
/**
 * The first chunk is smaller: both threads wait for it (at 10,000 learnings one chunk of all was ~0.2 s of git before
 * the first file was parsed), while each later chunk is read as the one before it is parsed.
 */
const FIRST_CHUNK = 1_000
/** At most this many bytes of blobs (their files' sizes) per `git cat-file --batch`, as a tier's reads (tiers.ts). */
const READ_BYTES = 64 << 20
/** The most `git cat-file --batch` adds to a blob: `<oid> blob <size>\n` before it (a SHA-256 id is 64), `\n` after. */
const BATCH_HEADER_BYTES = 128

/**
 * The blobs of the clean slots (those with a blob id), a chunk at a time (FIRST_CHUNK, then BULK_CHUNK each): `from`
 * and `to` bound the chunk's slots, `blobs` its blobs by id, read from git's object store with one `git cat-file
 * --batch` (at 100,000 learnings reading the files one by one was a fifth of a rebuild). The next chunk is asked for
 * while this one is used, so git works on the other core, and a chunk's bytes are dropped once used. git's stdin and
 * stdout are files in `spool` (run.ts runGitAsyncSpooled): through a pipe git waited for this thread's event loop,
 * which parses between its turns, and at 100,000 learnings the rebuild waited ~0.25 s for each chunk (~2.7 s in all).
 * An id git does not answer is left out (the caller reads the file).
 */
async function* readBlobsInBulk(
  root: string,
  spool: string,
  slots: readonly { path: string; oid?: string; size?: number | undefined; kept?: Buffer }[],
  sizesOf?: (files: string[]) => Promise<(number | undefined)[] | undefined>,
  joinCopy?: (from: number, to: number) => Promise<void>,
): AsyncGenerator<{ from: number; to: number; blobs: Map<string, Uint8Array> }> {
  const ask = async ([from, to]: [number, number], first: boolean) => {
    // The last rebuild's copy read as far as the chunk's end: a file whose parse it kept (`kept`) is not read.
    await joinCopy?.(from, to)
    // Each clean file's size in the work tree first (asInWorkTree compares it with its blob's): a blob of a file over
    // the limit of a learning is not asked for (a 300 MB learning was 650 MB of peak), the file is read, bounded.
    // Asked of the parse worker after the first chunk (this thread is the busier one: 10,000 lstats are ~40 ms).
    const clean = slots.slice(from, to).filter((s) => s.oid !== undefined && s.kept === undefined)
    const files = clean.map((s) => join(root, s.path))
    const sizes = (!first && (await sizesOf?.(files))) || files.map(lstatSize)
    clean.forEach((s, i) => (s.size = sizes[i]))
    // Cut where the files' sizes pass READ_BYTES, and git is stopped past its group's sizes (maxBuffer): a chunk of
    // 10,000 learnings near the 1 MB limit would otherwise be ~10 GB in a spool file, and a blob larger than its file
    // (a skip-worktree entry) could not grow it.
    const outs: Buffer[] = []
    const readable = clean.filter((s) => s.size !== undefined && s.size <= MAX_LEARNING_BYTES)
    for (const g of groupBySize(readable, (s) => s.size as number, READ_BYTES)) {
      const out = await tryGitAsyncSpooled(['cat-file', '--batch'], {
        cwd: root,
        input: `${g.items.map((s) => s.oid).join('\n')}\n`,
        dir: spool,
        maxBuffer: g.bytes + g.items.length * BATCH_HEADER_BYTES,
      })
      if (out) outs.push(out) // a group git did not answer is read from its files
    }
    return outs.length > 1 ? Buffer.concat(outs) : outs[0]
  }
  const chunks = chunkBounds(slots.length, FIRST_CHUNK, BULK_CHUNK)
  let next = chunks[0] && ask(chunks[0], true)
  for (const [i, [from, to]] of chunks.entries()) {
    const answer = await next
    const after = chunks[i + 1]
    if (after) next = ask(after, false)
    const blobs = new Map<string, Uint8Array>()
    if (answer) for (const o of parseCatFileBatch(answer)) if (o.bytes && o.type === 'blob') blobs.set(o.oid, o.bytes)
    yield { from, to, blobs }
  }
}

/** A file's size (lstat), undefined when it is missing or cannot be stat'ed (EACCES…: its read says why). */
function lstatSize(file: string): number | undefined {
  try {
    return lstatSync(file, { throwIfNoEntry: false })?.size
  } catch {
    return undefined
  }
}

/**
 * A clean file's blob as its work-tree bytes, or undefined to read the file: a blob whose size differs from the
 * file's (`size`, its lstat) went through a conversion on checkout (core.autocrlf, an eol or smudge filter), so the
 * file is what counts.
 */
function asInWorkTree(size: number | undefined, blob: Uint8Array | undefined): Uint8Array | undefined {
  return blob && size === blob.byteLength ? blob : undefined
}

/**
 * How far V8 lets the heap grow past what a full collection left alive before the next one, in percent, while a
 * rebuild runs. Left to itself V8 picks up to ~100 % for a thread that allocates as fast as the rebuild's: at 100,000
 * learnings ~170 MB alive was a heap of ~350 MB, and the process peaked at 576–697 MB (BENCHMARKS.md, branch `cold8`).
 */
export const REBUILD_HEAP_GROWING_PERCENT = 50

/**
 * Sets V8's heap growth for the rebuild (a flag V8 reads at every full collection, so it holds from the next one on),
 * and back to V8's own choice (0) after.
 */
function tightenHeapGrowth(): () => void {
  if (rebuilding++ === 0) setFlagsFromString(`--heap-growing-percent=${REBUILD_HEAP_GROWING_PERCENT}`)
  return () => {
    if (--rebuilding === 0) setFlagsFromString('--heap-growing-percent=0')
  }
}

/** Rebuilds under way in this process: the flag is set back when the last one ends, not the first. */
let rebuilding = 0

/**
 * Leave the acceptances the screen read for the next key (feed-key.ts acceptanceStamp) when a learning holds a
 * directive, HEAD's id beside them; remove them when none does, so that a store without directives pays nothing.
 */
async function stampAcceptances(root: string, commonDir: string, directiveMet: boolean): Promise<void> {
  const file = acceptancesFile(commonDir, root)
  const forget = () => {
    try {
      rmSync(file, { force: true })
    } catch {
      // Not a file (a directory in its place): the key then reads no stamp from it either.
    }
  }
  if (!directiveMet) return forget()
  const [{ createHash }, { findGitDirs, readHeadCommit }] = await Promise.all([
    import('node:crypto'),
    import('../git/locate.js'),
  ])
  const dirs = findGitDirs(root, process.env)
  // Without HEAD's id from the files (an unborn branch, reftable, GIT_DIR) the file names none: the key then reads
  // the trailers at every run, rather than leave them out (a key without them keeps no set: see the caller).
  const head = (dirs && readHeadCommit(dirs)) ?? null
  // The key read the trailers for this HEAD already (feed-key.ts acceptanceStamp): not a third `git log` for them.
  try {
    if (head && (JSON.parse(readFileSync(file, 'utf8')) as { head?: unknown }).head === head) return
  } catch {
    // Missing or unreadable: written below.
  }
  writeCacheFile(file, JSON.stringify({ head, log: await acceptanceLogHash(root, createHash), root }))
}

/** Read every source, fold, index, and write the cache files of `state.key`. */
export async function rebuild(root: string, commonDir: string, state: StoreState): Promise<Built> {
  const loosen = tightenHeapGrowth()
  try {
    return await rebuildSources(root, commonDir, state)
  } finally {
    loosen()
  }
}

async function rebuildSources(root: string, commonDir: string, state: StoreState): Promise<Built> {
  const [store, sources, { buildRecallIndex }] = await Promise.all([
    import('../store/store.js'),
    import('../store/sources.js'),
    import('../../core/recall-rank.js'),
  ])
  const dir = cacheDir(commonDir)
  // Dropped once the project's slots are listed (a map of every indexed file: ~20 MB at 100,000).
  let indexed: Map<string, { mode: string; oid: string }> | undefined = parseLsFiles(
    state.lsFiles ?? (await state.lsLater?.()),
  )
  const problems: Problem[] = []
  const config = await (await import('../store/config.js')).readConfig(root, commonDir)
  const [
    { withheldReason },
    { projectScreen },
    { compactor, parseProjectFile },
    { MIN_WORKER_FILES, ParseQueue, PARSE_BATCH, startParseWorker },
  ] = await Promise.all([
    import('../../core/agent-safety.js'),
    import('./agent-screen.js'),
    import('./parse-file.js'),
    import('./parse-pool.js'),
  ])
  const compact = compactor()
  const agentScreen = projectScreen(root, process.env)
  /** Why the learning `name` is withheld, from its text's scan, or undefined (the screen render and show use too). */
  const screen = async (name: string, scan: TextScan): Promise<string | undefined> => {
    const hazards = await agentScreen(name, scan)
    return hazards.length ? withheldReason(hazards) : undefined
  }
  const projectFile: ProjectFile = { rows: [], problems: [] }

  // Tiers (section 9) first: active learnings read from each pinned commit's git objects. A commit never changes, so
  // its entries, content hashes and recall terms are cached under its id (tier-items-<commit>-<code>.bin), and so is
  // its search index (tier-index-<commit>-<code>.*, merged with the project's at query time): a rebuild after a
  // project change does not parse, normalize, hash or index the tier's learnings again, nor take their recall terms.
  // Read before the project so that the project's learnings can be folded and indexed as they are read, and their
  // text dropped.
  const groups: { tier: string; weight: number; items: TierItem[] }[] = [
    { tier: sources.PROJECT_TIER, weight: 1, items: [] },
  ]
  /** Each tier's index, by group (none for the project). */
  const groupIndexes: ({ name: string; index: ScoringIndex } | undefined)[] = [undefined]
  const tierProblems: Problem[] = []
  let volatile = false
  const pinned: string[] = []
  // config.yaml that is a symbolic link: what lies behind it was never reviewed, so no tier it names is fetched or fed
  // (its other settings still apply: they feed agents nothing), and that is said, as a linked state folder is.
  const linkedConfig = storeDirProblem(root, 'config')
  if (linkedConfig) {
    problems.push(linkedConfig)
    projectFile.problems.push(linkedConfig)
  }
  if (config.tiers.length && !linkedConfig) {
    const [{ openRepo }, tiers, { loadLearningValidator }] = await Promise.all([
      import('../store/repo.js'),
      import('./tiers.js'),
      import('../store/validators.js'),
    ])
    const repo = await openRepo(root)
    const onWarning = (w: { path: string; reason: string }) => {
      const p = tiers.tierProblem(w)
      tierProblems.push({ path: p.path, reason: p.reason })
      if (w.path.startsWith(TIER_REF_PREFIX)) volatile = true
    }
    const pins = await tiers.readTierPins(repo, onWarning)
    pinned.push(...pins.map((p) => p.commit))
    const stamp = tierCacheStamp()
    for (const pin of pins) {
      const itemsName = `tier-items-${pin.commit}-${stamp}.bin`
      const indexName = `tier-index-${pin.commit}-${stamp}`
      const indexFiles = tierIndexFiles(join(dir, indexName))
      let cached = readTierItems(join(dir, itemsName), pin.commit)
      let index: ScoringIndex | undefined
      const terms = cached && readIndexTerms(indexFiles.terms)
      if (cached && terms && terms['commit'] === pin.commit && terms.header.nextId === cached.items.length)
        try {
          index = openIndex(indexFiles, terms, cached.items.length, true)
          markTierCacheUsed([
            join(dir, itemsName),
            indexFiles.terms,
            indexFiles.postings,
            indexFiles.docs,
            tierNameFile(dir, pin.commit, stamp),
          ])
        } catch {
          // Damaged: read the tier again.
        }
      if (!cached || !index) {
        let built: TierBuild
        try {
          const validator = await loadLearningValidator()
          // After `tier update` moved the pin: the blobs the last pin had too are taken from its build (tier-earlier.ts).
          const earlier = await earlierTierBuild(dir, repo.git, pin.tier, pin.commit, stamp)
          built =
            (earlier && (await buildTier(repo.git, pin, validator, compact, earlier))) ??
            (await buildTier(repo.git, pin, validator, compact))
        } catch (err) {
          // Skipped with a warning (tiers.ts unreadableTier), nothing of it cached: read again at the next rebuild.
          if (!(err instanceof GitCommandError)) throw err
          onWarning(tiers.unreadableTier(pin.tier, err))
          continue
        }
        const { items, warnings, parts } = built
        cached = {
          items,
          warnings: warnings.map((w) => ({ path: w.path.slice(w.path.indexOf(':') + 1), reason: w.reason })),
        }
        index = partsIndex(parts)
        try {
          mkdirSync(dir, { recursive: true })
          writeIndexFiles(indexFiles, parts, { commit: pin.commit })
        } catch {
          // A read-only git dir only costs speed.
        }
        writeTierItems(join(dir, itemsName), pin.commit, cached)
      }
      // The tier's name beside its commit's build: the build of its next pin starts from this one (tier-earlier.ts).
      noteTierName(dir, pin.commit, stamp, pin.tier)
      for (const w of cached.warnings) onWarning({ path: `${pin.tier}:${w.path}`, reason: w.reason })
      groups.push({
        tier: pin.tier,
        weight: pin.weight,
        // Entries are cached without their tier: its name and weight come from config.yaml, not from the commit.
        items: cached.items.map((it) => ({
          ...it,
          entry: { ...it.entry, tier: pin.tier, weight: pin.weight, path: `${pin.tier}:${it.entry.path}` },
        })),
      })
      groupIndexes.push({ name: indexName, index })
    }
  }
  // With no tier left (or one moved to another commit), its cached files go too: tier-cache.ts.
  pruneTierCache(dir, pinned)

  // Each content once, in the heaviest source (the project on ties), as sources.ts foldSources does: the tiers
  // heavier than the project claim their contents first, the project's learnings as they are read, then the others.
  const order = [...groups.keys()].sort(
    (a, b) => (groups[b] as (typeof groups)[number]).weight - (groups[a] as (typeof groups)[number]).weight || a - b,
  )
  const seen = new Set<string>()
  /** Whether each item of a tier is kept, by group. */
  const keptByGroup = new Map<number, boolean[]>()
  const claim = (g: number) =>
    keptByGroup.set(
      g,
      (groups[g] as (typeof groups)[number]).items.map((it) => {
        if (seen.has(it.hash)) return false
        seen.add(it.hash)
        return true
      }),
    )
  const projectAt = order.indexOf(0)
  for (const g of order.slice(0, projectAt)) claim(g)

  const catalog: CatalogEntry[] = []
  const index = new IndexBuilder()
  /** The source (position in groups) of each catalog entry. */
  const tierOf: number[] = []
  const push = (gi: number, entry: CatalogEntry) => {
    catalog.push(entry)
    tierOf.push(gi)
  }
  /** The recall terms of the entries, by catalog id: the project's computed with them (parse-file.ts), a tier's cached. */
  const recallTerms: (string[][] | undefined)[] = []
  const add = (entry: CatalogEntry, counted: CountedDoc, recall: string[][] | undefined) => {
    recallTerms[catalog.length] = recall
    index.addCounted(catalog.length, counted)
    push(0, entry)
  }

  // The project: a file git status calls clean is read from git's object store, in bulk (readBlobsInBulk), by its
  // blob id in the index; the others (edited, untracked, ignored) from the work tree. Each batch of files is parsed,
  // screened, folded and indexed as it comes, so only one chunk of texts is held at a time.
  type Slot = {
    path: string
    oid?: string
    problem?: string
    size?: number | undefined
    /** The line of the last rebuild's copy for its path and blob id (ReuseReader join), not yet read. */
    kept?: Buffer
    /** Its parse as that line holds it, from when its batch is made until it is settled. */
    reused?: Reusable
  }
  const slots: Slot[] = []
  for (const st of STATES) {
    // A state folder that is a symbolic link is left out (storeFiles), and said.
    const linked = storeDirProblem(root, st)
    if (linked) {
      problems.push(linked)
      projectFile.problems.push(linked)
    }
    for (const file of storeFiles(root, st)) {
      const path = `${STORE_DIR}/${st}/${file}`
      const clean = state.dirty && !state.dirty.has(path) ? indexed?.get(path) : undefined
      if (clean?.mode === '120000')
        slots.push({ path, problem: 'is a symbolic link; the store holds only regular files' })
      else slots.push({ path, oid: clean?.oid })
    }
  }
  indexed = undefined
  // The clean files whose blob the work tree's last rebuild parsed: their parse is taken as it was, nothing of them
  // read (reuse-file.ts). Its copy is read as this rebuild goes, a chunk of blobs ahead (`joinCopy`): only the lines of
  // the files about to be read are held. What this rebuild keeps for the next goes into `reusable`.
  const header = { format: CACHE_FORMAT, stamp: tierCacheStamp(), allow: JSON.stringify(config.secrets.allow) }
  // A work tree's first rebuild takes the parses another work tree's set kept (a new worktree of a clone in use).
  const previous = lastKey(dir, root) ?? otherLastKey(dir, root)
  const reader =
    previous !== undefined && previous !== state.key
      ? await ReuseReader.open(files(dir, previous).parsed, header, Math.max(MAX_INFLATED, slots.length * 4096))
      : undefined
  // A rebuild from nothing (no set of this work tree or another with a parse before: a fresh clone, the cache removed)
  // keeps no parse: at 10,000 learnings writing it cost that first search ~0.2 s (+11 %), which every agent's first
  // hook waits for. The next rebuild, after a change, keeps it (made once the cache directory is).
  let reusable: ReuseWriter | undefined
  /** Folds and indexes one project file, or records its problem. */
  const record = (path: string, result: ParsedFile) => {
    if (result.withheld) {
      problems.push({ path, reason: result.withheld })
      if (result.row)
        projectFile.rows.push({
          row: result.row,
          created: result.entry?.created ?? null,
          supersedes: result.entry?.supersedes ?? [],
        })
    } else if (result.entry && result.counted && result.hash) {
      if (!seen.has(result.hash)) {
        seen.add(result.hash)
        add(result.entry, result.counted, result.recall)
      }
      if (result.row)
        projectFile.rows.push({ row: result.row, created: result.entry.created, supersedes: result.entry.supersedes })
    } else {
      problems.push({ path, reason: result.problem ?? 'unreadable' })
      projectFile.problems.push({ path, reason: result.problem ?? 'unreadable' })
    }
  }
  /** A slot's text: its blob as in the work tree, else the file; or why it cannot be read. */
  type ReadText = { text?: string; problem?: string }
  const read = (slot: Slot, blob: Uint8Array | undefined): ReadText => {
    if (slot.problem) return { problem: slot.problem }
    const { path, oid } = slot
    try {
      let bytes = oid === undefined ? undefined : asInWorkTree(slot.size, blob)
      if (!bytes) {
        if (oid === undefined && lstatSync(join(root, path)).isSymbolicLink())
          throw new Error('is a symbolic link; the store holds only regular files')
        // At most one byte past the limit is read (a huge file is refused by its size), nothing of a FIFO or device.
        const r = readFileBounded(join(root, path), MAX_LEARNING_BYTES, { regularOnly: true })
        if (!r.regular) throw new Error('is not a regular file; the store holds only regular files')
        if (r.over) throw new Error(store.tooLargeReason(r.size ?? r.bytes.byteLength + 1))
        bytes = r.bytes
      }
      return { text: store.decodeLearningBytes(bytes, path) }
    } catch (err) {
      return { problem: reasonOf(err) }
    }
  }
  const allow = config.secrets.allow
  /** A batch parsed here: a file that could not be read keeps its problem. */
  const parseHere = (batch: readonly Slot[], texts: readonly ReadText[]): ParsedFile[] =>
    batch.map((slot, i) => {
      const t = texts[i] as ReadText
      return t.text === undefined
        ? { problem: t.problem ?? 'unreadable' }
        : compact(parseProjectFile(slot.path, t.text, allow), slot.path, true)
    })
  /** Whether some learning holds a directive: the screen then read the acceptances, which key the cache too. */
  let directiveMet = false
  /** Screens, folds and indexes a batch's files in store order. */
  const settle = async (batch: readonly Slot[], parsed: ParsedFile[]) => {
    for (const [i, slot] of batch.entries()) {
      let result = parsed[i] as ParsedFile
      if (result.name !== undefined && result.scan)
        try {
          if (result.scan.directives.length) directiveMet = true
          // The trust boundary (core/agent-safety.ts): what holds a credential or an unaccepted directive is listed
          // but never fed to an agent (search, context, recall).
          const withheld = await screen(result.name, result.scan)
          if (withheld) result.withheld = withheld
        } catch (err) {
          result = { problem: reasonOf(err) }
        }
      if (slot.oid !== undefined) reusable?.keep(slot.path, slot.oid, result, slot.reused)
      slot.reused = undefined
      record(slot.path, result)
    }
    // zlib compresses the copy on its threads: past its high-water mark, this thread waits for it.
    await reusable?.drained()
  }
  // A worker thread (a second core) parses batches while this one parses others; every batch is indexed here, in
  // store order (parse-pool.ts ParseQueue). With the last rebuild's copy, how many files are to be parsed is known
  // only as it is read: the worker is started once they are enough (most often they are not: a few learnings changed).
  let worker = reader ? undefined : startParseWorker(allow, slots.length)
  /** The files the join found no parse for so far, while the worker is not asked for yet. */
  let toParse = reader ? 0 : -Infinity
  const joinCopy =
    reader &&
    (async (from: number, to: number) => {
      const part = slots.slice(from, to)
      await reader.join(part)
      for (const s of part) if (s.kept === undefined) toParse++
      if (toParse >= MIN_WORKER_FILES) {
        toParse = -Infinity
        queue.worker = worker = startParseWorker(allow, MIN_WORKER_FILES)
      }
    })
  type Read = { slot: Slot; text: ReadText }
  const queue = new ParseQueue<Read>(worker, {
    ask: (w, files) =>
      w.parse(
        files.map((f) => f.slot.path),
        files.map((f) => f.text.text ?? ''),
      ),
    here: (files) =>
      parseHere(
        files.map((f) => f.slot),
        files.map((f) => f.text),
      ),
    fromWorker: (f, file) => compact(f, file.slot.path, false),
    // The worker was given '' for a file that could not be read: the file keeps the reason it could not.
    settle: (files, parsed) =>
      settle(
        files.map((f) => f.slot),
        parsed.map((f, i) => {
          const { slot, text: t } = files[i] as Read
          return slot.reused?.parsed ?? (t.text === undefined ? { problem: t.problem ?? 'unreadable' } : f)
        }),
      ),
    ready: (f) => f.slot.reused?.parsed,
  })
  try {
    try {
      mkdirSync(dir, { recursive: true })
      if (previous !== undefined) reusable = new ReuseWriter(files(dir, state.key).parsed, header)
    } catch {
      // A read-only git dir: git's output comes through pipes (tryGitAsyncSpooled), and no copy is kept.
    }
    const sizes = (f: string[]) => worker?.sizes(f) ?? Promise.resolve(undefined)
    for await (const { from, to, blobs } of readBlobsInBulk(root, dir, slots, sizes, joinCopy)) {
      // Read a batch at a time: one batch's texts beside the chunk's blobs.
      const chunk = slots.slice(from, to)
      for (let at = 0; at < chunk.length; at += PARSE_BATCH)
        await queue.add(
          chunk.slice(at, at + PARSE_BATCH).map((slot) => {
            // The copy's line, read whole now: one not of the file's path and blob id, or not of the rebuild's
            // shape, has the file read (from the work tree: its blob was not asked for) and parsed.
            const parsed = slot.kept === undefined ? undefined : parsedOf(slot.kept, slot.path, slot.oid as string)
            if (parsed) slot.reused = { parsed, line: slot.kept as Buffer }
            slot.kept = undefined
            return {
              slot,
              // A reused file in a batch with others is parsed as '' (in no time) and settled as it was kept; a
              // batch of reused files alone is not parsed at all (ParseQueue `ready`).
              text: slot.reused ? { text: '' } : read(slot, slot.oid === undefined ? undefined : blobs.get(slot.oid)),
            }
          }),
        )
    }
    await queue.finish()
  } catch (err) {
    reusable?.abort()
    throw err
  } finally {
    worker?.close()
    reader?.close()
  }
  problems.push(...tierProblems)

  for (const g of order.slice(projectAt + 1)) claim(g)
  // Each tier's entries after the project's; a tier's index maps its documents to them (-1: folded away).
  const tierIndexes: Built['tierIndexes'] = []
  const tierLines: Built['tierLines'] = []
  groups.forEach((g, gi) => {
    const ti = groupIndexes[gi]
    if (!ti) return
    const kept = keptByGroup.get(gi) ?? []
    const map = new Int32Array(g.items.length).fill(-1)
    g.items.forEach((it, j) => {
      if (!kept[j]) return
      map[j] = catalog.length
      recallTerms[catalog.length] = it.recall
      // Counted with the name left empty: the label holds it once (config.yaml refuses a tier named "project").
      tierLines[catalog.length] = [it.lines[0] + g.tier.length, it.lines[1] + g.tier.length]
      push(gi, it.entry)
    })
    tierIndexes.push({ ...ti, map })
  })
  const parts = index.finish()
  const { index: recall, ids: recallIds } = buildRecallIndex(catalog, (id) => recallTerms[id])
  const built: Built = { catalog, problems, parts, tierIndexes, recall, recallIds, tierLines, project: projectFile }
  await stampAcceptances(root, commonDir, directiveMet)
  // A key without this work tree's acceptances names the store's files alone: another worktree on the same files, on
  // a branch that does not accept the directive, computes it too (its first run) and would be fed this screen. The
  // next run's key holds them (the file just stamped), and that set is kept.
  if (directiveMet && !state.stamped) {
    reusable?.abort()
    return built
  }
  await writeCache(dir, root, state.key, {
    ...built,
    tierOf,
    tiers: groups.map((g) => ({ tier: g.tier, weight: g.weight })),
    volatile,
    ...(reusable ? { reusable } : {}),
  })
  return built
}
