/**
 * Tiers (DESIGN section 9): another repository's learnings fetched into `refs/learn/tiers/<name>`, pinned by commit
 * in `.learnings/config.yaml`, and read straight from git objects (`ls-tree` + `cat-file --batch`), never checked out.
 *
 * Why over 300 lines: fetch, verify and read share the ref and pin checks of one tier; the index of a tier lives in
 * feed/rebuild.ts.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, statSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { writeCacheFile } from '../state/cache-file.js'
import type { Config } from '../../core/config-schema.js'
import { GitCommandError, LearningParseError, UsageError, reasonOf } from '../../core/errors.js'
import { findUrlCredentials, shownUrl } from '../../core/git-args.js'
import {
  chunkBounds,
  groupBySize,
  parseCatFileBatch,
  parseCatFileBatchCheck,
  parseLsTree,
} from '../../core/git-output.js'
import type { TreeEntry } from '../../core/git-output.js'
import { TIER_REF_PREFIX } from '../../core/layout.js'
import { removeTierFromConfig, setTierInConfig } from '../../core/tier-config.js'
import { MAX_LEARNING_BYTES, parseStorePath } from '../../core/learning.js'
import type { Learning } from '../../core/learning.js'
import type { SchemaValidator } from '../../core/validate.js'
import { assertPathClean } from '../git/commit.js'
import type { Git } from '../git/simple.js'
import type { Repo } from '../store/repo.js'
import { TIMED_OUT, gitAsync, gitAsyncSpooled, runGitAsync } from '../git/run.js'
import { CONFIG_PATH } from '../store/config.js'
import { decodeLearningBytes, tooLargeReason } from '../store/store.js'
import { deflateJson, readDeflatedJson } from './cache-files.js'
import { cacheDir } from './feed-key.js'
import { PINNED_RETRY_MS, UNFETCHED_PREFIX, markTierCacheUsed, pruneTierCache, tierCacheStamp } from './tier-cache.js'
import { tierSkipReason } from './tier-screen.js'

export type TierConfig = Config['tiers'][number]
export const DEFAULT_TIER_WEIGHT = 0.9
const ACTIVE_DIR = '.learnings/active'

export const tierRef = (name: string) => `${TIER_REF_PREFIX}${name}`

/**
 * How a tier is fetched: quietly, no tags, no FETCH_HEAD, and never the submodules of this repository, which
 * `submodule.recurse=true` or `fetch.recurseSubmodules=true` would fetch too (from every submodule's remote, one that
 * cannot be reached failing the tier's fetch with "Errors during submodule fetch").
 */
const TIER_FETCH = ['--quiet', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules']

/** Something skipped while reading a tier: `path` is `<tier>:<path in the tier>` or the tier's ref. */
export interface TierWarning {
  path: string
  reason: string
}

export interface TierScan {
  learnings: Learning[]
  warnings: TierWarning[]
}

/** Blobs read per `git cat-file --batch`: what a tier read holds at once is one chunk's bytes (and the next's). */
const TIER_CHUNK = 10000
/**
 * At most this many bytes of blobs per `git cat-file --batch` (at least one blob): a tier of learnings near the 1 MB
 * limit would otherwise be read 10,000 MB at a time (its pack can be small: such blobs delta-compress to nothing).
 */
const TIER_READ_BYTES = 64 << 20
/** The first chunk is smaller: nothing is parsed until it is read (10,000 sizes and blobs were ~0.6 s of git). */
const TIER_FIRST_CHUNK = 1000
/** Learnings parsed between two turns of the event loop (each turn drains the next chunk's pipe). */
const YIELD_EVERY = 200

/** A file of a tier as read: its text, or why it could not be read (its warning). */
export type TierText =
  { path: string; text: string; problem?: undefined } | { path: string; text?: undefined; problem: string }

/** A file of a tier not read: an earlier build parsed its blob, its item `kept` there (forEachTierFile `keep`). */
export interface TierKept {
  path: string
  kept: number
}

/**
 * The `.md` files of a tier commit's active learnings, read from git objects and handed to `on.files` in tree order a
 * group at a time (`on.start` is told how many first); returns the warnings of the tree's entries and of the blobs'
 * sizes (those of parsing are the caller's, after them). The blobs are read in chunks (TIER_FIRST_CHUNK, then
 * TIER_CHUNK each), the next one's git processes running while `on.files` works on this one; a chunk's sizes come first
 * (`cat-file --batch-check`), so a blob over the 1 MB limit of a learning is never loaded and no read holds more than
 * `bytes` of blobs: a hostile tier cannot make this read a huge object, nor many large ones at once. `on.files` should
 * yield to the event loop now and then while it works: each turn drains the next chunk's pipe.
 */
export async function forEachTierFile(
  git: Git,
  tier: string,
  commit: string,
  on: {
    /** The number of blobs to read, before the first is asked of git (a caller can start its workers meanwhile). */
    start?: (total: number) => void
    /** A group of files, in tree order. */
    files: (files: (TierText | TierKept)[]) => Promise<void>
    /**
     * The item an earlier build made of this blob at this path, if any: such a file is neither sized nor read, and
     * comes to `files` in its place as a TierKept.
     */
    keep?: (path: string, oid: string) => number | undefined
    /** The commit's entries under .learnings/active when the caller listed them already (tier-earlier.ts). */
    tree?: TreeEntry[]
  },
  chunk = TIER_CHUNK,
  bytes = TIER_READ_BYTES,
  spool = true,
): Promise<TierWarning[]> {
  const entries =
    on.tree ?? parseLsTree(await git.run(['ls-tree', '-r', '-z', '--full-tree', commit, '--', ACTIVE_DIR]))
  const warnings: TierWarning[] = []
  // Each chunk's sizes, then its readable blobs; the warnings of entries come before those of sizes, as when every
  // size was asked first.
  const sizeWarnings: TierWarning[] = []
  const warnIn = (list: TierWarning[]) => (path: string, reason: string) =>
    list.push({ path: `${tier}:${path}`, reason })
  const warn = warnIn(warnings)
  const warnSize = warnIn(sizeWarnings)
  const blobs: TreeEntry[] = []
  for (const e of entries) {
    if (!e.path.endsWith('.md')) continue
    if (e.type !== 'blob' || e.mode === '120000') warn(e.path, 'not a regular file')
    else if (!parseStorePath(e.path)) warn(e.path, 'invalid learning: it is not directly inside .learnings/active/')
    else blobs.push(e)
  }
  if (!blobs.length) return warnings
  const kept = blobs.map((b) => on.keep?.(b.path, b.oid))
  on.start?.(kept.filter((k) => k === undefined).length)
  const cwd = git.root
  // git's output through files in the cache directory, not pipes (run.ts runGitAsyncSpooled): through a pipe git waits
  // at every 64 KiB for this thread's event loop, which parses between its turns, and the next chunk came late; a
  // directory that takes no file (read-only) leaves the pipes, as does a dry run (`spool` false: it writes nothing).
  const dir = spool ? cacheDir(git.commonDir) : undefined
  try {
    if (dir) mkdirSync(dir, { recursive: true })
  } catch {
    // The pipes, then.
  }
  const run = (args: string[], o: { input: string; maxBuffer?: number }) =>
    dir ? gitAsyncSpooled(args, { cwd, dir, ...o }) : gitAsync(args, { cwd, ...o })
  /**
   * The readable blobs, a group at a time: a chunk's sizes asked, then its blobs cut where they pass `bytes`. A kept
   * blob is neither sized nor read: it goes with the group it falls in, at its place in tree order.
   */
  async function* groups(): AsyncGenerator<{ items: { b: TreeEntry; kept?: number }[]; bytes: number }> {
    for (const [from, to] of chunkBounds(blobs.length, Math.min(TIER_FIRST_CHUNK, chunk), chunk)) {
      const part = blobs.slice(from, to).map((b, i) => ({ b, kept: kept[from + i] }))
      const asked = part.filter((p) => p.kept === undefined)
      const input = `${asked.map((p) => p.b.oid).join('\n')}\n`
      const sizes = asked.length
        ? parseCatFileBatchCheck((await run(['cat-file', '--batch-check'], { input })).toString('utf8'))
        : []
      const readable: { b: TreeEntry; kept?: number; size: number }[] = []
      let at = 0
      for (const p of part) {
        if (p.kept !== undefined) {
          readable.push({ ...p, size: 0 })
          continue
        }
        const info = sizes[at++]
        if (!info) warnSize(p.b.path, `invalid learning: ${MISSING_OBJECT}`)
        else if (info.size > MAX_LEARNING_BYTES) warnSize(p.b.path, `invalid learning: ${tooLargeReason(info.size)}`)
        else readable.push({ b: p.b, size: info.size })
      }
      for (const g of groupBySize(readable, (r) => r.size, bytes)) yield { items: g.items, bytes: g.bytes }
    }
  }
  const each = groups()
  /** The next group with its blobs, or undefined when none is left. */
  const read = async () => {
    const g = await each.next()
    if (g.done) return undefined
    const { items, bytes: size } = g.value
    const asked = items.filter((r) => r.kept === undefined)
    if (!asked.length) return { readable: items, contents: [] }
    const input = `${asked.map((r) => r.b.oid).join('\n')}\n`
    // Bounded by the sizes git gave: each blob, its header line (`<oid> blob <size>`, a SHA-256 id is 64) and newline.
    const maxBuffer = size + asked.length * 128
    const out = await run(['cat-file', '--batch'], { input, maxBuffer })
    return { readable: items, contents: parseCatFileBatch(out) }
  }
  // The next group is read while this one is parsed. Its failure is raised where it is awaited, and handled meanwhile:
  // a read-ahead promise that rejects while this loop yields would otherwise end the process as an unhandled rejection.
  const ask = () => {
    const p = read()
    p.catch(() => undefined)
    return p
  }
  let next = ask()
  for (let got = await next; got; got = await next) {
    next = ask()
    const { readable, contents } = got
    let at = 0
    await on.files(
      readable.map(({ b, kept: k }): TierText | TierKept => {
        if (k !== undefined) return { path: b.path, kept: k }
        const bytes = contents[at++]?.bytes
        try {
          if (!bytes) throw new Error(MISSING_OBJECT)
          return { path: b.path, text: decodeLearningBytes(bytes, b.path) }
        } catch (err) {
          return { path: b.path, problem: `invalid learning: ${reasonOf(err)}` }
        }
      }),
    )
  }
  warnings.push(...sizeWarnings)
  return warnings
}

/**
 * Each valid active learning of a tier commit, read from git objects (forEachTierFile) and screened (tier-screen.ts
 * tierSkipReason), handed to `onLearning` in tree order a chunk at a time (a caller that indexes them keeps none of
 * the texts; parsing a whole chunk, then indexing it, measured 17.8 s against 19.5 s for one learning at a time on a
 * 100k tier); invalid ones are skipped with one warning each, returned after those of the tree and the sizes.
 */
export async function forEachTierLearning(
  git: Git,
  tier: string,
  commit: string,
  validator: SchemaValidator,
  onLearning: (learning: Learning) => void,
  chunk = TIER_CHUNK,
  bytes = TIER_READ_BYTES,
  spool = true,
): Promise<TierWarning[]> {
  const parseWarnings: TierWarning[] = []
  const warnings = await forEachTierFile(
    git,
    tier,
    commit,
    {
      files: async (read) => {
        const parsed: Learning[] = []
        // Nothing is kept here (no `keep`): every file comes read.
        const files = read.filter((f): f is TierText => !('kept' in f))
        for (const [i, f] of files.entries()) {
          // Let the next chunk's output in now and then: where it comes through a pipe (a git dir that takes no spool
          // file), nothing drains the pipe while this loop runs, and git waits.
          if (i % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((resolve) => setImmediate(resolve))
          const l = f.problem ?? tierSkipReason(f.text, f.path, validator)
          if (typeof l === 'string') parseWarnings.push({ path: `${tier}:${f.path}`, reason: l })
          else parsed.push(l)
        }
        for (const l of parsed) onLearning(l)
      },
    },
    chunk,
    bytes,
    spool,
  )
  return [...warnings, ...parseWarnings]
}

const MISSING_OBJECT = 'its object is missing from this repository (run `git learn tier update`)'

/**
 * The valid active learnings of a tier commit, read from git objects; invalid ones are skipped with one warning each.
 * `spool` false: git's output through pipes only, no file written (forEachTierFile).
 */
export async function readTierLearnings(
  git: Git,
  tier: string,
  commit: string,
  validator: SchemaValidator,
  spool = true,
): Promise<TierScan> {
  const learnings: Learning[] = []
  const warnings = await forEachTierLearning(
    git,
    tier,
    commit,
    validator,
    (l) => learnings.push(l),
    TIER_CHUNK,
    TIER_READ_BYTES,
    spool,
  )
  return { learnings, warnings }
}

interface CachedTier {
  /** The tier's commit: a file of another commit under this name is not used. */
  commit: string
  learnings: Learning[]
  warnings: TierWarning[]
}

/**
 * readTierLearnings, cached per commit and build under <common dir>/learn/cache/ (tier-cache.ts): a commit never
 * changes, and the build part re-screens its learnings when the rules of core/agent-safety.ts change. `readOnly` (a
 * dry run): the cache is read, never written nor marked used.
 */
export async function readTierLearningsCached(
  git: Git,
  tier: string,
  commit: string,
  validator: () => Promise<SchemaValidator>,
  readOnly = false,
): Promise<TierScan> {
  const file = join(cacheDir(git.commonDir), `tier-learnings-${commit}-${tierCacheStamp()}.json.deflate`)
  const c = readDeflatedJson(file) as Partial<CachedTier> | undefined
  if (c?.commit === commit && Array.isArray(c.learnings) && Array.isArray(c.warnings)) {
    if (!readOnly) markTierCacheUsed([file])
    return {
      learnings: c.learnings,
      warnings: c.warnings.map((w) => ({ ...w, path: w.path.replace(/^[^:]*:/, `${tier}:`) })),
    }
  }
  const scan = await readTierLearnings(git, tier, commit, await validator(), !readOnly)
  if (!readOnly) writeCacheFile(file, deflateJson({ commit, ...scan } satisfies CachedTier))
  return scan
}

export interface TierSource {
  tier: string
  weight: number
  learnings: Learning[]
}

/**
 * One source per configured tier, in config order, read from its pinned commit. A tier whose commit is not
 * pinned or whose objects are missing is skipped with a warning; `onWarning` gets every warning.
 */
export async function readTierSources(
  repo: Repo,
  onWarning: (w: TierWarning) => void = () => undefined,
): Promise<TierSource[]> {
  const pins = await readTierPins(repo, onWarning)
  if (!repo.readOnly)
    pruneTierCache(
      cacheDir(repo.git.commonDir),
      pins.map((p) => p.commit),
    )
  if (!pins.length) return []
  const { loadLearningValidator } = await import('../store/validators.js')
  const out: TierSource[] = []
  for (const t of pins) {
    let scan: TierScan
    try {
      scan = await readTierLearningsCached(repo.git, t.tier, t.commit, loadLearningValidator, repo.readOnly)
    } catch (err) {
      if (!(err instanceof GitCommandError)) throw err
      onWarning(unreadableTier(t.tier, err))
      continue
    }
    for (const w of scan.warnings) onWarning(w)
    out.push({ tier: t.tier, weight: t.weight, learnings: scan.learnings })
  }
  return out
}

export interface TierPin {
  tier: string
  weight: number
  commit: string
}

/**
 * The configured tiers whose pinned commit is in this repository, in config order; a tier with no pin or a
 * missing commit is skipped with a warning to `onWarning`. The missing commits are fetched at once, in parallel,
 * within one bound (pinnedFetchMs); a commit whose fetch failed is not fetched again for PINNED_RETRY_MS (a marker
 * file): every hook run would otherwise wait for the same dead remote, and a missing tier rebuilds the feed at each.
 */
export async function readTierPins(
  repo: Repo,
  onWarning: (w: TierWarning) => void = () => undefined,
): Promise<TierPin[]> {
  const { tiers } = await repo.config()
  const git = repo.git
  const present = await Promise.all(tiers.map((t) => (t.commit ? hasCommit(git, t.commit) : false)))
  const deadline = Date.now() + pinnedFetchMs()
  // For each tier whose commit is still missing: when it may be fetched again.
  const retryAt = await Promise.all(
    tiers.map(async (t, i): Promise<number | undefined> => {
      if (!t.commit || present[i]) return undefined
      // A dry run fetches nothing (objects, a ref, a marker of a failed fetch): the tier is left out, and said so.
      if (repo.readOnly) return NOT_FETCHED
      const until = unfetchedUntil(git, t)
      if (until !== undefined) return until
      return (await fetchPinned(git, t, deadline)) === undefined ? undefined : markUnfetched(git, t)
    }),
  )
  const out: TierPin[] = []
  tiers.forEach((t, i) => {
    const until = retryAt[i]
    if (!t.commit)
      onWarning({
        path: tierRef(t.name),
        reason: `no pinned commit in ${CONFIG_PATH}; run \`git learn tier update ${t.name}\``,
      })
    else if (until === NOT_FETCHED) onWarning({ path: tierRef(t.name), reason: unfetchedInDryRun(t) })
    else if (until !== undefined) onWarning({ path: tierRef(t.name), reason: missingPin(t, until) })
    else out.push({ tier: t.name, weight: t.weight ?? DEFAULT_TIER_WEIGHT, commit: t.commit })
  })
  return out
}

const hasCommit = async (git: Git, commit: string) =>
  (await git.tryRun(['cat-file', '-e', `${commit}^{commit}`])) !== undefined

/**
 * A tier whose objects git cannot read (a truncated or corrupt object, a store half-removed by hand) is skipped with
 * this warning rather than failing the command: it is another repository's data layered over the project's, so the
 * project's own learnings are still searched, listed and recalled, as when a tier's commit is missing.
 */
export function unreadableTier(tier: string, err: GitCommandError): TierWarning {
  const said = err.stderr.trim().split('\n').pop()?.trim() || 'no message'
  return {
    path: tierRef(tier),
    reason: `its objects cannot be read (git said: ${said}); run \`git learn tier verify ${tier}\` to see what is damaged`,
  }
}

/**
 * Why a pinned commit is not here and what to do, `retryAt` being when the feed fetches it again. The URL is shown
 * masked, so it is never put in a command to run: a masked URL cannot be fetched from.
 */
export function missingPin(t: TierConfig, retryAt: number): string {
  const at = new Date(retryAt).toTimeString().slice(0, 5)
  return (
    `the pinned commit ${(t.commit ?? '').slice(0, 12)} is not in this repository and fetching it from ${shownUrl(t.url)} failed; ` +
    `not fetched again before ${at}; \`git learn tier verify ${t.name}\` tries now (or fetch it yourself with the ` +
    `tier's URL in ${CONFIG_PATH}: \`git fetch --no-tags <url> ${t.ref ?? 'HEAD'}:${tierRef(t.name)}\`, or ask for access)`
  )
}

/** readTierPins: a missing pinned commit a dry run did not fetch. */
const NOT_FETCHED = -1

/** Why a dry run left out a tier whose pinned commit is not here yet. */
function unfetchedInDryRun(t: TierConfig): string {
  return (
    `the pinned commit ${(t.commit ?? '').slice(0, 12)} is not in this repository yet, and a dry run fetches nothing: ` +
    `its learnings are left out here; \`git learn tier verify ${t.name}\` fetches it`
  )
}

/**
 * The marker of a failed fetch of a tier's pinned commit, under <common dir>/learn/cache/ (shared by worktrees): its
 * mtime is when the fetch failed. Named by the commit and a hash of the URL and ref, so a URL put right in
 * config.yaml is tried at once; not a `tier-` name, which pruneTierCache would take for a stale cache file.
 */
function unfetchedFile(git: Git, t: TierConfig): string {
  const where = createHash('sha1')
    .update(`${t.url}\0${t.ref ?? ''}`)
    .digest('hex')
    .slice(0, 12)
  return join(cacheDir(git.commonDir), `${UNFETCHED_PREFIX}${t.commit ?? ''}-${where}`)
}

/** When the pinned commit of `t` may be fetched again, if a fetch of it failed within PINNED_RETRY_MS. */
function unfetchedUntil(git: Git, t: TierConfig, now = Date.now()): number | undefined {
  const file = unfetchedFile(git, t)
  try {
    const until = statSync(file).mtimeMs + PINNED_RETRY_MS
    if (until > now && until - now <= PINNED_RETRY_MS) return until
    unlinkSync(file) // past its time (or from a clock set back): tried now
  } catch {
    // No marker: the usual case.
  }
  return undefined
}

/** Forget a failed fetch of the pinned commit of `t` (it came, or verify is trying it now). */
function clearUnfetched(git: Git, t: TierConfig): void {
  try {
    unlinkSync(unfetchedFile(git, t))
  } catch {
    // None.
  }
}

/** Record that the fetch of the pinned commit of `t` failed now; returns when it may be tried again. */
function markUnfetched(git: Git, t: TierConfig): number {
  writeCacheFile(unfetchedFile(git, t), '')
  return Date.now() + PINNED_RETRY_MS
}

/**
 * A fresh clone (or CI) has the pin in config.yaml but not the tier's objects: fetch the tier's ref once into its
 * ref (and, when the pin is no longer in that ref's history, the pinned commit itself), then keep the tier only when
 * the pinned commit is here; the tier's ref is then set to the pin (what `tier verify` holds it to). The pin is the
 * commit id, so what is read from it is what was reviewed. Never prompts; gives up at `deadline` (ms since the
 * epoch). Returns undefined when the commit is here, else what went wrong (git's lines of failure, URLs masked).
 */
async function fetchPinned(git: Git, t: TierConfig, deadline: number): Promise<string | undefined> {
  if (!t.commit) return 'no pinned commit'
  const commit = t.commit
  // A silent http(s) remote is also left by curl itself, should git outlive its bound (run.ts kills its group).
  const lowSpeedTime = Math.max(1, Math.ceil((deadline - Date.now()) / 1000))
  const fetch = async (spec: string): Promise<{ code: number; said: string }> => {
    const ms = deadline - Date.now()
    if (ms <= 0) return { code: TIMED_OUT, said: '' }
    const r = await runGitAsync(
      [
        ...['-c', 'http.lowSpeedLimit=1000', '-c', `http.lowSpeedTime=${lowSpeedTime}`],
        ...['fetch', ...TIER_FETCH, '--', t.url, spec],
      ],
      { cwd: git.root, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' }, timeoutMs: ms },
    ).catch((err: unknown) => ({ code: 1, stderr: reasonOf(err) }))
    return { code: r.code, said: r.stderr }
  }
  const byRef = await fetch(`+${t.ref ?? 'HEAD'}:${tierRef(t.name)}`)
  let last = byRef
  if (byRef.code === 0 && (await hasCommit(git, commit))) return settlePin(git, t.name, commit)
  // A remote that did not answer is not asked a second time: each run of a hook would wait twice.
  if (byRef.code !== TIMED_OUT) {
    last = await fetch(commit)
    if (last.code === 0 && (await hasCommit(git, commit))) return settlePin(git, t.name, commit)
  }
  if (last.code === TIMED_OUT)
    return `the remote did not answer within ${pinnedFetchMs()} ms (GIT_LEARN_TIER_FETCH_MS sets another bound)`
  if (last.code === 0) return `the remote does not have it under ${t.ref ?? 'HEAD'}, nor by its id`
  // git's own lines of failure ("fatal: …", "error: …"), not its advice after them ("Please make sure you have …").
  const lines = last.said.split('\n').map((l) => l.trim())
  const failures = lines.filter((l) => /^(fatal|error):/.test(l))
  const said =
    (failures.length ? failures : lines.filter(Boolean)).slice(0, 3).join(' / ') || `git exited with code ${last.code}`
  return shownUrl(said)
}

/** The tier's ref at its pinned commit, once that commit is here; undefined (the commit is here). */
async function settlePin(git: Git, name: string, commit: string): Promise<undefined> {
  await git.tryRun(['update-ref', tierRef(name), commit])
  return undefined
}

/**
 * How long the feed waits for tiers' pinned commits to arrive (a fresh clone's first search, context or check), all
 * fetched at once: the SessionStart hook has 10 s in all, and a remote that accepts and never answers held every
 * command until killed. `git learn tier update` and `tier add` fetch without this bound. GIT_LEARN_TIER_FETCH_MS sets
 * another (a slow link).
 */
export const PINNED_FETCH_MS = 8000

const pinnedFetchMs = (): number => {
  const ms = Number(process.env['GIT_LEARN_TIER_FETCH_MS'])
  return Number.isSafeInteger(ms) && ms > 0 ? ms : PINNED_FETCH_MS
}

/** A tier warning as the LearningParseError that readSources reports for unreadable files. */
export function tierProblem(w: TierWarning): LearningParseError {
  return new LearningParseError(w.path, w.reason)
}

/** `git fetch --no-tags <url> +<ref>:refs/learn/tiers/<name>` (no checkout); returns the fetched commit. */
export async function fetchTier(git: Git, name: string, url: string, ref: string): Promise<string> {
  if (url.startsWith('-') || ref.startsWith('-'))
    throw new UsageError('a tier URL or ref cannot start with "-"', 'tier')
  await git.run(['fetch', ...TIER_FETCH, '--', url, `+${ref}:${tierRef(name)}`])
  return (await git.run(['rev-parse', '--verify', `${tierRef(name)}^{commit}`])).trim()
}

/** The commit a tier ref points at now, or undefined. */
export async function readTierRef(git: Git, name: string): Promise<string | undefined> {
  return (await git.tryRun(['rev-parse', '--verify', '-q', `${tierRef(name)}^{commit}`]))?.trim() || undefined
}

/** Count of learning files under `.learnings/active/` of a commit. */
export async function countTierLearnings(git: Git, commit: string): Promise<number> {
  return parseLsTree(await git.run(['ls-tree', '-r', '-z', '--full-tree', commit, '--', ACTIVE_DIR])).filter((e) =>
    e.path.endsWith('.md'),
  ).length
}

export interface TierDiff {
  added: string[]
  removed: string[]
  changed: string[]
}

/** Learnings added, removed and changed under `.learnings/active/` between two commits. */
export async function diffTierLearnings(git: Git, from: string, to: string): Promise<TierDiff> {
  // Sample of `git diff-tree -r -z --name-status --no-renames a b`: "A\0.learnings/active/x.md\0M\0.learnings/active/y.md\0"
  const out = await git.run(['diff-tree', '-r', '-z', '--name-status', '--no-renames', from, to, '--', ACTIVE_DIR])
  const parts = out.split('\0').filter((p) => p.length)
  const diff: TierDiff = { added: [], removed: [], changed: [] }
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const status = parts[i] as string
    const name = parseStorePath(parts[i + 1] as string)?.name
    if (!name) continue
    if (status === 'A') diff.added.push(name)
    else if (status === 'D') diff.removed.push(name)
    else diff.changed.push(name)
  }
  return diff
}

/**
 * config.yaml's new text with the tier set (or, given `{ remove: name }`, removed), and whether the file is already
 * there (clean: refused otherwise).
 */
export async function planTierConfig(
  git: Git,
  change: TierConfig | { remove: string },
): Promise<{ path: string; text: string; existed: boolean }> {
  const file = join(git.root, CONFIG_PATH)
  const before = existsSync(file) ? readFileSync(file, 'utf8') : undefined
  if (before !== undefined) await assertPathClean(git, 'config', CONFIG_PATH)
  const text =
    'remove' in change
      ? removeTierFromConfig(before ?? '', change.remove, CONFIG_PATH)
      : setTierInConfig(before, change, CONFIG_PATH)
  return { path: CONFIG_PATH, text, existed: before !== undefined }
}

/** A reason not to trust a tier (messages: tierVerifyProblem). */
export type TierProblem =
  | { kind: 'no-pin' }
  | { kind: 'no-ref'; ref: string }
  | { kind: 'ref-moved'; ref: string; at: string; pin: string }
  | { kind: 'pin-missing'; pin: string; url: string; fetch: string }
  | { kind: 'object-missing'; oid: string; path: string }
  | { kind: 'object-tampered'; oid: string; path: string }
  | { kind: 'fsck'; detail: string }

/**
 * Problems that make a tier untrustworthy: the ref moved off the pin, objects missing or corrupt. A pinned commit not
 * here is fetched first (fetchPinned, at once: the feed's marker of a failed fetch is not waited for, and is renewed
 * or cleared by the outcome).
 */
export async function verifyTier(git: Git, tier: TierConfig): Promise<TierProblem[]> {
  const problems: TierProblem[] = []
  if (!tier.commit) return [{ kind: 'no-pin' }]
  let fetch: string | undefined
  if (!(await hasCommit(git, tier.commit))) {
    fetch = await fetchPinned(git, tier, Date.now() + pinnedFetchMs())
    if (fetch === undefined) clearUnfetched(git, tier)
    else markUnfetched(git, tier)
  }
  let ref = await readTierRef(git, tier.name)
  // The pinned commit is here and its ref is not (a clone of a local path copies objects, not refs/learn/*; a ref
  // deleted by hand): the ref is made again at the pin, which is what was reviewed. Never anything but the pin, and
  // only where no ref is.
  if (!ref && (await hasCommit(git, tier.commit))) {
    await git.tryRun(['update-ref', tierRef(tier.name), tier.commit, ''])
    ref = await readTierRef(git, tier.name)
  }
  if (!ref) problems.push({ kind: 'no-ref', ref: tierRef(tier.name) })
  else if (ref !== tier.commit) problems.push({ kind: 'ref-moved', ref: tierRef(tier.name), at: ref, pin: tier.commit })
  if ((await git.tryRun(['cat-file', '-e', `${tier.commit}^{commit}`])) === undefined)
    problems.push({ kind: 'pin-missing', pin: tier.commit, url: shownUrl(tier.url), fetch: fetch ?? 'not fetched' })
  else {
    try {
      await git.run(['fsck', '--no-progress', '--no-dangling', '--connectivity-only', tier.commit])
      // --connectivity-only skips blob contents; hash every learning blob of the pin to catch a swapped object.
      const entries = parseLsTree(await git.run(['ls-tree', '-r', '-z', '--full-tree', tier.commit, '--', ACTIVE_DIR]))
      const blobs = entries.filter((e) => e.type === 'blob')
      if (blobs.length) {
        const contents = parseCatFileBatch(
          await gitAsync(['cat-file', '--batch'], { cwd: git.root, input: `${blobs.map((b) => b.oid).join('\n')}\n` }),
        )
        blobs.forEach((b, i) => {
          const c = contents[i]?.bytes
          if (!c) return void problems.push({ kind: 'object-missing', oid: b.oid, path: b.path })
          const algo = b.oid.length === 64 ? 'sha256' : 'sha1'
          const h = createHash(algo).update(`blob ${c.length}\0`).update(c).digest('hex')
          if (h !== b.oid) problems.push({ kind: 'object-tampered', oid: b.oid, path: b.path })
        })
      }
    } catch (err) {
      problems.push({
        kind: 'fsck',
        detail: ((err as GitCommandError).stderr ?? String(err)).trim().split('\n').slice(0, 5).join(' / '),
      })
    }
  }
  return problems
}

/**
 * The commit message of a tier pin change (config.yaml alone). It names the URL as it is (`tier add` can bring a
 * removed tier back from it): add and update refuse a URL with a credential; a tier that came into config.yaml with
 * one by hand is removed with its URL masked, as commitTransition refuses a credential in a message.
 */
export function buildTierCommitMessage(action: 'add' | 'update' | 'remove', tier: TierConfig, from?: string): string {
  const url = findUrlCredentials(tier.url).length ? shownUrl(tier.url) : tier.url
  const where = `tier ${tier.name} (${url}${tier.ref ? ` ${tier.ref}` : ''})`
  const what = {
    add: `Pin ${where} to ${tier.commit}.`,
    update: `Move the pin of ${where}${from ? ` from ${from.slice(0, 12)}` : ''} to ${tier.commit}.`,
    remove: `Remove ${where}, pinned at ${tier.commit ?? '(no commit)'}: its learnings no longer reach this project's agents.`,
  }[action]
  const lines = [`learn: tier ${action} ${tier.name}`, '', what, '', `Learning-Tier: ${tier.name}`]
  if (tier.commit) lines.push(`Learning-Tier-Commit: ${tier.commit}`)
  return `${lines.join('\n')}\n`
}
