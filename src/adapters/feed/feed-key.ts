/**
 * The key of the feed cache (see search-index.ts), and the git processes it comes from. Kept apart from the cache
 * readers so that bin.ts and recall can start those processes (prefetchKeying) after loading only this module and
 * the repository walk: node:crypto and the readers load while git works.
 *
 * The key hashes the format and the build, config.yaml's bytes, the index's entries of the store (`git ls-files -s`,
 * or the alias of the index file's stat), the sorted records of `git status` over the store (tracked changes,
 * untracked `??` and ignored `!!` files) and the lstat of each path those records name. A cache must never serve an
 * edited file: a tracked file edited in place shows in the status (git stats every index entry); an untracked or
 * ignored one in its lstat; one added, removed or renamed in the status's listing. That listing (a walk of the store
 * against the ignore rules, half the status at 100,000 files) is taken from the last full status while the index
 * file and each state directory keep the stat they had before it ran (readWatch): the untracked files are the
 * directories' entries less the index's, and neither changed. docs/performance.md "The feed cache" says more.
 */
import type { Hash } from 'node:crypto'
import { lstatSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { UnsafeRepositoryError } from '../../core/errors.js'
import { parseDubiousOwnership, parseRevParsePaths, pathLine } from '../../core/git-output.js'
import { STATES, STORE_DIR } from '../../core/layout.js'
import { writeCacheFile, writeCacheFileAlone } from '../state/cache-file.js'
import { runGitAsync, tryGitAsync } from '../git/run.js'
import { findGitDirs, readHeadCommit } from '../git/locate.js'
import { readConfigBytes } from '../store/config.js'
import { storeDirProblem } from '../store/store-dirs.js'
import type { LearningState } from '../../core/errors.js'

/** Bump when a cache file's format changes: old caches are then ignored. */
export const CACHE_FORMAT = 10

export function cacheDir(commonDir: string): string {
  return join(commonDir, 'learn', 'cache')
}

// ---------------------------------------------------------------------------------------------------------------
// The key

/**
 * The build's identity, part of every key: any change of code (a tokenizer, a ranking, a vendor bundle) is a new
 * key. The build writes a hash of dist/ to dist/generated/build-hash.txt (scripts/build-hash.mjs); running from
 * source (vitest: this file is .ts) a hash of the src/ tree stands in. A built package without the file is broken:
 * an error says so, rather than a key that would not change with the code.
 */
let stamp: string | undefined
export function codeStamp(createHash: typeof import('node:crypto').createHash): string {
  if (stamp !== undefined) return stamp
  const top = join(__dirname, '..', '..')
  if (__filename.endsWith('.ts')) stamp = treeHash(top, createHash('sha256'))
  else {
    const file = join(top, 'generated', 'build-hash.txt')
    let text = ''
    try {
      text = readFileSync(file, 'utf8').trim()
    } catch {
      // Reported below.
    }
    if (!/^[0-9a-f]{16,}$/.test(text))
      throw new Error(
        `${file} is missing or damaged: this git-learn build is incomplete. Reinstall it, or run \`npm run build\` in a checkout.`,
      )
    stamp = text
  }
  return stamp
}

/** A hash of every file under `dir`, by relative path and content, in a fixed order. */
function treeHash(dir: string, h: Hash, rel = ''): string {
  for (const e of readdirSync(join(dir, rel), { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  )) {
    const path = rel ? `${rel}/${e.name}` : e.name
    if (e.isDirectory()) treeHash(dir, h, path)
    else
      h.update(`${path}\0`)
        .update(readFileSync(join(dir, path)))
        .update('\0')
  }
  return rel ? '' : h.digest('hex')
}

export interface StoreState {
  key: string
  /** `git ls-files -s -z` output of the store, when git answered (or `lsLater` to ask for it: see the alias key). */
  lsFiles?: string
  lsLater?: () => Promise<string | undefined>
  /** Paths whose work-tree file differs from the index, untracked or ignored ones included (git status), when git answered. */
  dirty?: Set<string>
  /**
   * Whether the key holds this work tree's directive acceptances (acceptanceStamp): without them it stands for the
   * store's files alone, which another worktree, on a branch without the same acceptances, has too.
   */
  stamped: boolean
}

/**
 * The `.md` files of one state directory of the store, sorted; none when the directory cannot be read, or is a
 * symbolic link (store-dirs.ts storeDirProblem: what lies behind one was never reviewed, and is never fed to an agent).
 */
export function storeFiles(root: string, state: LearningState): string[] {
  if (storeDirProblem(root, state)) return []
  try {
    return readdirSync(join(root, STORE_DIR, state))
      .filter((f) => f.endsWith('.md'))
      .sort()
  } catch {
    return []
  }
}

/** The key from stat'ing every learning file (when git cannot answer). */
function statKey(root: string, h: Hash): string {
  for (const state of STATES) {
    for (const f of storeFiles(root, state)) {
      const st = lstatSync(join(root, STORE_DIR, state, f), { throwIfNoEntry: false })
      h.update(st ? `${state}/${f}\0${st.size}\0${st.mtimeMs}\0${st.ino}\n` : `${state}/${f}\0gone\n`)
    }
  }
  return h.digest('hex').slice(0, 20)
}

/** Where the repository is, and its store's key being computed (git still running). */
export interface Keying {
  root: string
  commonDir: string
  state: Promise<StoreState>
}

// The store from anywhere in the work tree (paths from the top); run.ts runs git without GIT_LITERAL_PATHSPECS.
const STORE_SPEC = ['--', `:(top)${STORE_DIR}`]

// --ignored (traditional) with --untracked-files=all lists each ignored file ("!! path"), even inside an ignored
// directory: the rebuild reads the directories, so a gitignored learning is indexed and must be in the key too.
const FULL_STATUS = ['--untracked-files=all', '--ignored']
// Tracked paths only: the untracked and ignored ones come from the last full status (see readWatch).
const TRACKED_STATUS = ['--untracked-files=no']

/**
 * A directory's or file's stat older than this (ms, before the status that listed it started) is trusted to change
 * when its content does; a newer one may share its timestamp with a change made right after it was read (a coarse
 * clock, a file system keeping seconds or two), so the full status runs until it is this old.
 */
export const RACY_MS = 2000

/**
 * What the last full status said of the paths git does not track (untracked and ignored), and when it stays true:
 * the untracked and ignored files of the store are its directories' entries less the index's, so while the index
 * file and each state directory (the directories the rebuild reads) keep their stat, no such file came or went, and
 * an edit in place of one shows in its own lstat (which the key holds, as it does every changed path's). Kept per
 * work tree (each has its index) in `untracked-<hash of its git dir>.json` in the cache directory.
 */
interface Watch {
  file: string
  gitDir: string
  /** The stat (inode, size, mtime, ctime, in ns) of the index and of each state directory, taken before git ran. */
  stats: string
  /** Whether those stats are all older than RACY_MS: only then is the listing kept for the next run. */
  settled: boolean
  /** The untracked and ignored records ("?? path", "!! path") of the last full status, when they still hold. */
  saved?: string[]
}

const WATCH_FORMAT = 1

/** A short, stable name for a git dir or work tree (not a secret: the files named so hold it, checked on reading). */
function nameOf(s: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0
  return h.toString(16).padStart(8, '0')
}

/**
 * The name of a work tree's own files in the cache directory, which every worktree of a clone shares (it is under the
 * common dir): its last key, its alias files and its directive acceptances. Two worktrees on different branches have
 * different keys; with one file of each for the whole clone, a search in one removed the other's and each rebuilt
 * the cache at every turn (parallel agents, one worktree each).
 */
export function worktreeName(root: string): string {
  return nameOf(root)
}

/** The stats the untracked listing depends on, and the saved listing when they have not moved since it was made. */
export function readWatch(root: string, commonDir: string, gitDir: string, index: string, now: number): Watch {
  let settled = true
  const line = (p: string) => {
    const s = statSync(p, { throwIfNoEntry: false, bigint: true })
    if (!s) return `${p}\0none\n`
    // Any entry added, removed or renamed sets the mtime to the present; the ctime is compared too (an mtime set back).
    if (Number(s.mtimeMs) >= now - RACY_MS) settled = false
    return `${p}\0${s.ino}\0${s.size}\0${s.mtimeNs}\0${s.ctimeNs}\n`
  }
  const stats = line(index) + STATES.map((st) => line(join(root, STORE_DIR, st))).join('')
  const file = join(cacheDir(commonDir), `untracked-${nameOf(gitDir)}.json`)
  const watch: Watch = { file, gitDir, stats, settled }
  try {
    const w = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
    const saved = w['untracked']
    if (
      w['format'] === WATCH_FORMAT &&
      w['gitDir'] === gitDir &&
      w['root'] === root &&
      w['stats'] === stats &&
      Array.isArray(saved) &&
      saved.every((r) => typeof r === 'string' && /^(\?\?|!!) ./.test(r))
    )
      watch.saved = saved as string[]
  } catch {
    // No listing yet, or a damaged one: the full status.
  }
  return watch
}

/**
 * Start the git processes of the key and say where the repository is: found by walking up to `.git`
 * (src/adapters/locate.ts), or by `git rev-parse` when the environment redirects discovery or there is no `.git` to
 * find. The key needs `git status` (the work tree's changes) and the index's entries of the store (`git ls-files
 * -s`); when the repository was found by the walk, ls-files waits until the alias key (finishKey) misses, and the
 * status lists only tracked paths while the saved untracked listing holds (readWatch). Sample outputs: ls-files
 * "100644 3f2c…e1 0\t.learnings/active/x.md\0"; status " M .learnings/active/x.md\0?? .learnings/pending/y.md\0!!
 * .learnings/pending/z.md\0" (porcelain paths are from the top).
 */
async function startKeying(cwd: string): Promise<Keying> {
  const now = Date.now()
  const found = findGitDirs(cwd, process.env)
  const where = found
    ? undefined
    : tryGitAsync(['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir'], { cwd })
  let lsRun: Promise<Buffer | undefined> | undefined
  const ls = () => (lsRun ??= tryGitAsync(['ls-files', '-s', '-z', '--full-name', ...STORE_SPEC], { cwd }))
  const index = found && !process.env['GIT_INDEX_FILE'] ? join(found.gitDir, 'index') : undefined
  const watch = found && index ? readWatch(found.root, found.commonDir, found.gitDir, index, now) : undefined
  const st = statusOrRefusal(
    [
      '--no-optional-locks',
      'status',
      '--porcelain=v1',
      '-z',
      ...(watch?.saved ? TRACKED_STATUS : FULL_STATUS),
      '--no-renames',
      ...STORE_SPEC,
    ],
    cwd,
  )
  if (!index) void ls()
  const [root, commonDir] = found ? [found.root, found.commonDir] : await whereFrom(cwd, await where)
  if (!root || !commonDir) {
    await Promise.all([ls(), st])
    // Loaded only here: a bare repository or a git directory is named as one without a work tree.
    throw (await import('../git/no-work-tree.js')).noWorkTreeError(cwd, process.env)
  }
  const state = finishKey(root, commonDir, index, ls, st, watch, found?.gitDir)
  state.catch(() => undefined) // awaited by the command's reader, which reports a refusal
  return { root, commonDir, state }
}

/**
 * The key's `git status`: its stdout, or undefined when git fails (the key is then the files' stat). A repository git
 * refuses for its owner (safe.directory) rejects with UnsafeRepositoryError instead: git runs nothing of a repository
 * it does not trust (its configuration could run commands: core.fsmonitor), and the feed serves nothing from it.
 */
async function statusOrRefusal(args: readonly string[], cwd: string): Promise<Buffer | undefined> {
  let r: Awaited<ReturnType<typeof runGitAsync>>
  try {
    r = await runGitAsync(args, { cwd })
  } catch {
    return undefined
  }
  if (r.code === 0) return r.stdout
  const refused = parseDubiousOwnership(r.stderr)
  if (refused !== undefined) throw new UnsafeRepositoryError(refused)
  return undefined
}

/**
 * The root and common dir `git rev-parse --show-toplevel --git-common-dir` printed ("/r\n/r/.git\n"); a path holding
 * a newline makes more lines than two, and is then asked one question at a time. [] when git did not answer.
 */
async function whereFrom(cwd: string, out: Buffer | undefined): Promise<(string | undefined)[]> {
  if (out === undefined) return []
  const ask = async (q: string) =>
    pathLine((await tryGitAsync(['rev-parse', '--path-format=absolute', q], { cwd }))?.toString('utf8') ?? '')
  return (
    parseRevParsePaths(out.toString('utf8'), 2) ??
    (await Promise.all([ask('--show-toplevel'), ask('--git-common-dir')]))
  )
}

/**
 * The directive acceptances the feed's screen read (`Learning-Directives-Allowed` trailers in HEAD's history), as a
 * part of the key, when the last rebuild met a directive: a commit that adds or a reset that drops an acceptance
 * changes what agents may be fed, and the store's files do not change with it. The rebuild leaves
 * `directive-acceptances-<work tree>.json` (HEAD's id, the hash of the trailers it read and the work tree's root, so
 * that the file goes with its work tree: write-cache.ts) only when some learning
 * holds a directive; the trailers are read again only once HEAD has moved. Without the file (no directive anywhere):
 * ''.
 */
export function acceptancesFile(commonDir: string, root: string): string {
  return join(cacheDir(commonDir), `directive-acceptances-${worktreeName(root)}.json`)
}

async function acceptanceStamp(
  root: string,
  commonDir: string,
  gitDir: string | undefined,
  createHash: typeof import('node:crypto').createHash,
): Promise<string> {
  const file = acceptancesFile(commonDir, root)
  let saved: { head?: unknown; log?: unknown }
  try {
    saved = JSON.parse(readFileSync(file, 'utf8')) as typeof saved
  } catch {
    return ''
  }
  const head = gitDir ? readHeadCommit({ root, gitDir, commonDir }) : undefined
  if (head && saved.head === head && typeof saved.log === 'string') return saved.log
  const log = await acceptanceLogHash(root, createHash)
  if (head) writeCacheFile(file, JSON.stringify({ head, log, root })) // root: write-cache.ts sweeps a gone one's
  return log
}

/** The hash of the acceptance trailers in HEAD's history (index-reader.ts readDirectiveOverrides). */
export async function acceptanceLogHash(
  root: string,
  createHash: typeof import('node:crypto').createHash,
): Promise<string> {
  // Loaded only where a directive was met.
  const { readDirectiveOverrides } = await import('../git/index-reader.js')
  return createHash('sha1').update(readDirectiveOverrides(root, process.env)).digest('hex')
}

let prefetched: { cwd: string; keying: Promise<Keying> } | undefined

/**
 * Start the key's git processes now, before the command's modules are loaded (bin.ts does this first thing for the
 * commands that read the feed), so that git works while Node compiles; the command's reader then takes them over.
 * Once per directory: a second call for the same one (bin.ts, then the recall command) keeps the first processes.
 */
export function prefetchKeying(cwd: string): void {
  if (prefetched?.cwd === cwd) return
  const keying = startKeying(cwd)
  keying.catch(() => undefined) // not a repository: the command's own reader reports it
  prefetched = { cwd, keying }
}

/** The keying for `cwd`: the prefetched one (once), else a new one. */
export function keyingFor(cwd: string): Promise<Keying> {
  const p = prefetched
  prefetched = undefined
  return p && p.cwd === cwd ? p.keying : startKeying(cwd)
}

/**
 * The key. Its full form hashes the index's entries of the store (ls-files), the work tree's changes (status: its
 * records sorted, so a tracked-only status plus the saved untracked records hashes as the full status would) and the
 * lstat of each changed path (an edit in place of an untracked or ignored file shows there). The index file changes
 * whenever those entries can, so its stat (size, mtime, ctime, inode) stands in for them: the alias key (index stat +
 * status + stats) names a file holding the full key it was last seen with, and only when that alias is missing is
 * ls-files run (an index refresh or any `git add` makes a new alias, costing one ls-files, not a rebuild). That saves
 * a git process on most runs.
 */
async function finishKey(
  root: string,
  commonDir: string,
  index: string | undefined,
  ls: () => Promise<Buffer | undefined>,
  stRun: Promise<Buffer | undefined>,
  watch: Watch | undefined,
  gitDir: string | undefined,
): Promise<StoreState> {
  const st = await stRun
  const { createHash } = await import('node:crypto') // after git has answered: not on the way to starting it
  const base = createHash('sha1').update(`format ${CACHE_FORMAT}\n${codeStamp(createHash)}\n`)
  base.update(readConfigBytes(root) ?? 'no config').update('\0\0')
  const stamp = await acceptanceStamp(root, commonDir, gitDir, createHash)
  base.update(stamp).update('\0\0')
  const stamped = stamp !== ''
  if (st === undefined) return { key: statKey(root, base), stamped }
  const records = st
    .toString('utf8')
    .split('\0')
    .filter((r) => r.length > 3)
  if (watch?.saved) records.push(...watch.saved)
  else if (watch?.settled)
    writeCacheFile(
      watch.file,
      JSON.stringify({
        format: WATCH_FORMAT,
        gitDir: watch.gitDir,
        root,
        stats: watch.stats,
        untracked: records.filter((r) => r.startsWith('?? ') || r.startsWith('!! ')),
      }),
    )
  records.sort()
  const dirty = new Set(records.map((r) => r.slice(3)))
  const changes = createHash('sha1').update(records.join('\0')).update('\0\0')
  for (const p of [...dirty].sort()) {
    const s = lstatSync(join(root, p), { throwIfNoEntry: false })
    changes.update(s ? `${p}\0${s.size}\0${s.mtimeMs}\0${s.ctimeMs}\0${s.ino}\n` : `${p}\0gone\n`)
  }
  const changed = changes.digest('hex')
  const lsLater = async () => (await ls())?.toString('utf8')
  const ist = index ? statSync(index, { throwIfNoEntry: false, bigint: true }) : undefined
  const alias =
    ist &&
    base
      .copy()
      .update(`alias\0${ist.size}\0${ist.mtimeNs}\0${ist.ctimeNs}\0${ist.ino}\0${changed}`)
      .digest('hex')
      .slice(0, 20)
  // Each work tree's own: its index is its own file (worktreeName).
  const aliasOf = `alias-${worktreeName(root)}-`
  const aliasFile = alias && join(cacheDir(commonDir), `${aliasOf}${alias}`)
  if (aliasFile) {
    try {
      const key = readFileSync(aliasFile, 'utf8')
      if (/^[0-9a-f]{20}$/.test(key)) return { key, dirty, lsLater, stamped }
    } catch {
      // No alias yet: compute the full key below.
    }
  }
  const out = await ls()
  if (out === undefined) return { key: statKey(root, base), stamped }
  const key = base.update(out).update('\0\0').update(changed).digest('hex').slice(0, 20)
  if (aliasFile) writeCacheFileAlone(aliasFile, key, aliasOf) // this work tree's old aliases go: an index changes often
  return { key, lsFiles: out.toString('utf8'), dirty, stamped }
}
