/**
 * What the guards read, through plain child_process (no simple-git to load on every commit): the staged changes
 * and blobs of the index, the store's files in the work tree, and a few history questions. GIT_INDEX_FILE is
 * passed through untouched: `git commit --only` runs hooks against a temporary index named by it.
 */
import { parseCatFileBatch, parseCatFileBatchCheck, parseLsTree, pathLine } from '../../core/git-output.js'
import type { ObjectInfo } from '../../core/git-output.js'
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readFileSync, readSync } from 'node:fs'
import { join } from 'node:path'
import { writeCacheFile } from '../state/cache-file.js'
import { findGitDirs, isWorkTreeTop, readHeadCommit } from './locate.js'
import { parseRawDiff } from '../../core/check-diff.js'
import { LOCAL_STATE_PATHSPECS } from '../../core/check-zones.js'
import type { DiffEntry } from '../../core/check-diff.js'
import { GitCommandError, NoWorkTreeError } from '../../core/errors.js'
import { noWorkTreeError } from './no-work-tree.js'
import { PARSED_LOG, gitAsync, gitSync, runGitAsync, runGitAsyncFiles, runGitSync } from './run.js'

import type { Env, GitResult } from './run.js'

/** Largest file the guards read; larger (and binary) files are skipped with a note. */
export const MAX_CHECK_BYTES = 1024 * 1024

const CONFIG_PATH = '.learnings/config.yaml'

/**
 * The work-tree root. In a hook git runs us at the top of the work tree, where `.git` is: no process needed then.
 * NotARepositoryError outside a repository, NoWorkTreeError in one without a work tree (bare).
 */
export function findRoot(cwd: string, env: Env): string {
  if (!env['GIT_DIR'] && !env['GIT_WORK_TREE'] && isWorkTreeTop(cwd)) return cwd
  const r = runGitSync(['rev-parse', '--show-toplevel'], { cwd, env })
  const root = pathLine(r.stdout.toString('utf8'))
  if (r.code !== 0 || !root) throw noWorkTreeError(cwd, env, r.stderr)
  return root
}

/**
 * Where a command that reads only commits (`check --head`, `log`) runs git: the work tree's root, or in a repository
 * without one (a bare repository: a server's pre-receive hook, a mirror) its git directory. NotARepositoryError
 * outside any repository.
 */
export function findRepositoryDir(cwd: string, env: Env): string {
  try {
    return findRoot(cwd, env)
  } catch (err) {
    if (err instanceof NoWorkTreeError) return err.gitDir
    throw err
  }
}

/** The staged changes (index against HEAD, or against the empty tree before the first commit), renames detected. */
export function readStagedChanges(root: string, env: Env): DiffEntry[] {
  return stagedChangesOf(runGitSync(STAGED_DIFF, { cwd: root, env }))
}

/**
 * `git diff --cached` on an unborn branch compares with the empty tree, so the first commit works too. With
 * `--no-relative` its paths are the whole repository's whatever the directory it runs in (`diff.relative=true` would
 * otherwise list only what is under a subdirectory, and a staged learning elsewhere would go unchecked).
 */
const STAGED_DIFF = [
  'diff',
  '--cached',
  '--raw',
  '-z',
  '-M',
  '--no-abbrev',
  '--no-ext-diff',
  '--ignore-submodules',
  '--no-relative',
]

function stagedChangesOf(r: GitResult): DiffEntry[] {
  if (r.code !== 0) throw new GitCommandError(['diff', '--cached', '--raw'], r.stderr)
  return parseRawDiff(r.stdout.toString('utf8'))
}

/** readStagedChanges' git process, started by bin.ts for the pre-commit hook (prefetchStagedChanges). */
let prefetched: { cwd: string; run: Promise<GitResult | undefined> } | undefined

/**
 * Starts readStagedChanges' git process in `cwd` with this process's environment, before the hook's modules load:
 * git reads the index (10.9 MB at 100,000 learnings) while node loads the command. Taken by stagedChanges.
 */
export function prefetchStagedChanges(cwd: string): void {
  prefetched = { cwd, run: runGitAsync(STAGED_DIFF, { cwd }).catch(() => undefined) }
}

/**
 * readStagedChanges for the repository at `root` found from `cwd`: the prefetched answer when it was asked in `cwd`
 * with this process's environment (the hook's command line), else git is asked now. A prefetched run git could not
 * start is asked again, so its error is the one reported.
 */
export async function stagedChanges(root: string, cwd: string, env: Env): Promise<DiffEntry[]> {
  const p = prefetched
  prefetched = undefined
  const r = p && p.cwd === cwd && env === process.env ? await p.run : undefined
  return r ? stagedChangesOf(r) : readStagedChanges(root, env)
}

/**
 * The bytes of `.learnings/config.yaml` as staged (its entry in the index, stage 0), or undefined when the index has
 * none: the hook checks the commit being made, so an unstaged edit of the config must neither break nor loosen it.
 * Sample of `git cat-file --batch` for ":.learnings/config.yaml": "<sha> blob 42\n<42 bytes>\n", or
 * ":.learnings/config.yaml missing\n".
 */
export function readStagedConfig(root: string, env: Env): Buffer | undefined {
  return readConfigObject(root, env, `:${CONFIG_PATH}`)
}

function readConfigObject(root: string, env: Env, name: string): Buffer | undefined {
  const r = runGitSync(['cat-file', '--batch'], { cwd: root, env, input: `${name}\n` })
  if (r.code !== 0) throw new GitCommandError(['cat-file', '--batch'], r.stderr)
  const [o] = parseCatFileBatch(r.stdout)
  return o?.type === 'blob' && o.bytes ? Buffer.from(o.bytes) : undefined
}

/** HEAD's config.yaml, base64, or null when HEAD has none. */
type StagedConfigEntry = { head: string; config: string | null }

/**
 * How many HEADs staged-config.json remembers: worktrees of one clone share it, and each worktree's pre-commit asks for
 * its own HEAD's config (one entry for all made every commit in one worktree read the index after one in another).
 */
const STAGED_CONFIG_HEADS = 8

/**
 * readStagedConfig for the pre-commit hook's common case, without a git process: when the staged changes leave
 * config.yaml alone, the index holds HEAD's config, and HEAD's config is cached by HEAD's commit id (content
 * addressed: it never changes) in `learn/cache/staged-config.json`, with the configs of the last HEADs before it
 * (STAGED_CONFIG_HEADS). A commit that changes config.yaml, an unborn
 * branch, GIT_DIR and the like, or a HEAD that cannot be read from the files: asked of the index as before.
 */
export function readStagedConfigFor(root: string, env: Env, staged: readonly DiffEntry[]): Buffer | undefined {
  const touched = staged.some((e) => e.path === CONFIG_PATH || e.oldPath === CONFIG_PATH)
  const dirs = touched ? undefined : findGitDirs(root, env)
  const head = dirs && readHeadCommit(dirs)
  if (!dirs || !head) return readStagedConfig(root, env)
  const file = join(dirs.commonDir, 'learn', 'cache', 'staged-config.json')
  let kept: StagedConfigEntry[] = []
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as StagedConfigEntry & { earlier?: unknown }
    kept = [c, ...(Array.isArray(c.earlier) ? (c.earlier as StagedConfigEntry[]) : [])].filter(
      (e) =>
        typeof e === 'object' &&
        e !== null &&
        typeof e.head === 'string' &&
        (e.config === null || typeof e.config === 'string'),
    )
  } catch {
    // No cache yet, or a damaged one: read it from the index and write it again.
  }
  const hit = kept.find((e) => e.head === head)
  if (hit) return hit.config === null ? undefined : Buffer.from(hit.config, 'base64')
  const config = readStagedConfig(root, env)
  const earlier = kept.slice(0, STAGED_CONFIG_HEADS - 1).map(({ head: h, config: c }) => ({ head: h, config: c }))
  writeCacheFile(file, JSON.stringify({ head, config: config ? config.toString('base64') : null, earlier }))
  return config
}

/** The `zones.system` globs of a config's bytes (absent: the fallback), read without YAML when it does not set them. */
export async function readZones(config: Buffer | undefined, fallback: readonly string[]): Promise<readonly string[]> {
  if (config === undefined) return fallback
  const text = config.toString('utf8')
  if (!/^zones\s*:/m.test(text)) return fallback
  try {
    const { parse } = await import('../../vendor/yaml.js')
    const data = parse(text, { maxAliasCount: 50 }) as { zones?: { system?: unknown } } | null
    const system = data?.zones?.system
    return Array.isArray(system) ? system.filter((s): s is string => typeof s === 'string') : fallback
  } catch {
    return fallback // a malformed config is reported by the full check, which validates it
  }
}

export interface BlobText {
  text?: string
  skipped?: string
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Decode bytes as text, or say why not (binary, not UTF-8, too large). */
export function decodeForCheck(bytes: Uint8Array, size = bytes.length): BlobText {
  if (size > MAX_CHECK_BYTES) return { skipped: `larger than 1 MB (${size} bytes)` }
  if (bytes.subarray(0, 8000).includes(0)) return { skipped: 'binary' }
  try {
    return { text: utf8.decode(bytes) }
  } catch {
    return { skipped: 'not valid UTF-8 text' }
  }
}

/** Type and size of objects by name (a blob id, or `:<path>` for a path's entry in the index), in order, through one
 * `git cat-file --batch-check`; undefined for a name git does not have. */
export function statObjects(root: string, env: Env, names: readonly string[]): (ObjectInfo | undefined)[] {
  if (!names.length) return []
  return parseCatFileBatchCheck(
    gitSync(['cat-file', '--batch-check'], { cwd: root, env, input: `${names.join('\n')}\n` }),
  )
}

/** Sort stat answers into blobs small enough to read and the skipped ones (with why). */
function sortBySize(
  shas: readonly string[],
  infos: readonly (ObjectInfo | undefined)[],
  out: Map<string, BlobText>,
): string[] {
  const small: string[] = []
  shas.forEach((sha, i) => {
    const info = infos[i]
    if (info?.type !== 'blob') out.set(sha, { skipped: `not a blob (${info?.type ?? 'missing'})` })
    else if (info.size > MAX_CHECK_BYTES) out.set(sha, { skipped: `larger than 1 MB (${info.size} bytes)` })
    else small.push(sha)
  })
  return small
}

/** The bytes of objects by id through one `git cat-file --batch` (callers pass only ids known to be small). */
function readObjects(root: string, env: Env, ids: readonly string[]): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>()
  if (!ids.length) return out
  const r = runGitSync(['cat-file', '--batch'], { cwd: root, env, input: `${ids.join('\n')}\n` })
  if (r.code !== 0) throw new GitCommandError(['cat-file', '--batch'], r.stderr)
  for (const o of parseCatFileBatch(r.stdout)) if (o.bytes) out.set(o.oid, o.bytes)
  return out
}

/** Blobs by id through one `git cat-file --batch`, after a `--batch-check` so huge blobs are never loaded. */
export function readBlobs(root: string, env: Env, shas: readonly string[]): Map<string, BlobText> {
  const out = new Map<string, BlobText>()
  const unique = [...new Set(shas)]
  if (!unique.length) return out
  const small = sortBySize(unique, statObjects(root, env, unique), out)
  for (const [sha, bytes] of readObjects(root, env, small)) out.set(sha, decodeForCheck(bytes))
  return out
}

export interface StagedForCheck {
  /** `.learnings/config.yaml` as staged; undefined when the index has none. */
  config: Buffer | undefined
  blobs: Map<string, BlobText>
  /** The asked index paths that the index holds. */
  inIndex: string[]
}

/**
 * What the pre-commit check of staged learnings reads of the index, in at most two git processes whatever their
 * number: one `--batch-check` for the staged config, the blobs' sizes and which of `indexPaths` exist, then one
 * `--batch` for the config and the blobs small enough to check that the work tree does not hold (readIfBlob). No
 * process at all when there is nothing to ask.
 *
 * The `--batch-check` is started at once and not waited for: with a `:<path>` name git reads the whole index (10.9 MB
 * and ~15 ms at 100,000 learnings), which it does on the other core while the caller loads the check's engine. Its
 * stdin, stdout and stderr are files of `spoolDir` (runGitAsyncFiles: pipes cost more than the overlap saves at 1,000
 * learnings); where that directory takes no file, or none is given, git is asked synchronously, as before.
 */
export async function readStagedForCheck(
  root: string,
  env: Env,
  staged: readonly { sha: string; path: string }[],
  indexPaths: readonly string[],
  withConfig = true,
  spoolDir?: string,
): Promise<StagedForCheck> {
  const pathOf = new Map<string, string>()
  for (const { sha, path } of staged) if (!pathOf.has(sha)) pathOf.set(sha, path)
  const unique = [...pathOf.keys()]
  const first = withConfig ? 1 : 0
  const names = [...(withConfig ? [`:${CONFIG_PATH}`] : []), ...unique, ...indexPaths.map((p) => `:${p}`)]
  const infos = names.length ? parseCatFileBatchCheck(await batchCheck(root, env, names, spoolDir)) : []
  const configInfo = withConfig ? infos[0] : undefined
  const blobs = new Map<string, BlobText>()
  const small = sortBySize(unique, infos.slice(first, first + unique.length), blobs)
  const inIndex = indexPaths.filter((_, i) => infos[first + unique.length + i] !== undefined)
  const configSha = configInfo?.type === 'blob' ? configInfo.oid : undefined
  // The blobs the work tree holds as staged are read from there; git is asked for the rest.
  const { createHash } = await import('node:crypto')
  const bytes = new Map<string, Uint8Array>()
  const sizes = new Map(infos.slice(0, first + unique.length).map((o) => [o?.oid, o?.size]))
  if (configSha) pathOf.set(configSha, CONFIG_PATH)
  const wanted = [...new Set([...(configSha ? [configSha] : []), ...small])]
  for (const sha of wanted) {
    const b = readIfBlob(join(root, pathOf.get(sha) as string), sha, sizes.get(sha) as number, createHash)
    if (b) bytes.set(sha, b)
  }
  const rest = wanted.filter((sha) => !bytes.has(sha))
  for (const [sha, b] of readObjects(root, env, rest)) bytes.set(sha, b)
  for (const sha of small) {
    const b = bytes.get(sha)
    if (b) blobs.set(sha, decodeForCheck(b))
  }
  const config = configSha ? bytes.get(configSha) : undefined
  return { config: config ? Buffer.from(config) : undefined, blobs, inIndex }
}

/**
 * The work tree's file at `abs` when it holds exactly blob `oid` of `size` bytes (its git blob id, SHA-1 or SHA-256
 * by the id's length, computed here), else undefined: a blob id names its bytes, so these are the staged bytes
 * whatever the file's name, mode or checkout filters, and git need not be asked for them. A file edited after
 * `git add`, a symbolic link, a FIFO or anything but a regular file of that size is left to git. Read without
 * following a link (O_NOFOLLOW; where the platform has none, git is asked).
 */
function readIfBlob(
  abs: string,
  oid: string,
  size: number,
  createHash: typeof import('node:crypto').createHash,
): Uint8Array | undefined {
  const algorithm = oid.length === 40 ? 'sha1' : oid.length === 64 ? 'sha256' : undefined
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants
  if (!algorithm || O_NOFOLLOW === undefined || O_NONBLOCK === undefined || !(size <= MAX_CHECK_BYTES)) return undefined
  let fd: number
  try {
    fd = openSync(abs, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch {
    return undefined
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile() || st.size !== size) return undefined
    const bytes = Buffer.allocUnsafe(size)
    let read = 0
    for (let n = -1; n !== 0 && read < size; read += n) n = readSync(fd, bytes, read, size - read, null)
    if (read !== size) return undefined
    const id = createHash(algorithm).update(`blob ${size}\0`).update(bytes).digest('hex')
    return id === oid ? bytes : undefined
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/**
 * `git cat-file --batch-check` of `names`: through spool files of `dir` without waiting, else synchronously. A spooled
 * run that fails is asked again synchronously, through pipes: a disk that took the question but not git's answer
 * (full, or past a file size limit) is no error of the index, and a real one is then git's own answer.
 */
async function batchCheck(root: string, env: Env, names: readonly string[], dir: string | undefined): Promise<string> {
  const args = ['cat-file', '--batch-check']
  const input = `${names.join('\n')}\n`
  let spooled: GitResult | undefined
  try {
    if (dir !== undefined) spooled = await runGitAsyncFiles(args, { cwd: root, env, input, dir })
  } catch {
    // No spool file in `dir`, or git could not start: asked synchronously.
  }
  const r = spooled?.code === 0 ? spooled : runGitSync(args, { cwd: root, env, input })
  if (r.code !== 0) throw new GitCommandError(args, r.stderr || `(git exited with code ${r.code})`)
  return r.stdout.toString('utf8')
}

/** Paths in the index under a pathspec (`git ls-files -z`). */
export function readIndexPaths(root: string, env: Env, pathspecs: readonly string[]): string[] {
  return gitSync(['ls-files', '-z', '--', ...pathspecs], { cwd: root, env })
    .split('\0')
    .filter(Boolean)
}

export interface TreeFile {
  path: string
  mode: string
  text?: string
  skipped?: string
}

/**
 * One work-tree file for the check: a symbolic link is reported as one (mode 120000, never followed), anything else
 * that is not a regular file is left out, as is a tracked file deleted from the work tree. Where the platform has
 * O_NOFOLLOW the file is opened without following a link and stat'ed through its descriptor: one system call fewer
 * per file than lstat, then open (a full check of 10,000 without cache: 623 → 609 ms, medians of 11 interleaved runs);
 * O_NONBLOCK keeps a FIFO from blocking the open.
 */
function readTreeFile(abs: string, path: string): TreeFile | undefined {
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants
  if (O_NOFOLLOW === undefined || O_NONBLOCK === undefined) return readTreeFileByLstat(abs, path)
  let fd: number
  try {
    fd = openSync(abs, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ELOOP') return { path, mode: '120000' }
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined // tracked but deleted in the work tree
    throw err
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) return undefined
    if (st.size > MAX_CHECK_BYTES) return { path, mode: '100644', skipped: `larger than 1 MB (${st.size} bytes)` }
    return { path, mode: '100644', ...decodeForCheck(readWhole(fd, st.size)) }
  } finally {
    closeSync(fd)
  }
}

/** One buffer for every file read (decoding copies the text out): no buffer, and no second fstat, per file. */
let readBuffer: Buffer | undefined

/** The `size` bytes of an open file, or fewer when it ends first, as a view valid until the next call. */
function readWhole(fd: number, size: number): Uint8Array {
  const buffer = (readBuffer ??= Buffer.allocUnsafe(MAX_CHECK_BYTES))
  let read = 0
  for (let n = -1; n !== 0 && read < size; read += n) n = readSync(fd, buffer, read, size - read, null)
  return buffer.subarray(0, read)
}

/** readTreeFile where O_NOFOLLOW is missing (Windows): lstat, then read. */
function readTreeFileByLstat(abs: string, path: string): TreeFile | undefined {
  let st
  try {
    st = lstatSync(abs)
  } catch {
    return undefined // tracked but deleted in the work tree
  }
  if (st.isSymbolicLink()) return { path, mode: '120000' }
  if (!st.isFile()) return undefined
  if (st.size > MAX_CHECK_BYTES) return { path, mode: '100644', skipped: `larger than 1 MB (${st.size} bytes)` }
  return { path, mode: '100644', ...decodeForCheck(readFileSync(abs)) }
}

/**
 * The work tree's paths under the store and the zones, and the copies of the local state (check-zones.ts), sorted:
 * tracked and untracked-but-not-ignored (`git ls-files -c -o --exclude-standard`). Asked without waiting, so git lists while the caller loads its rules.
 */
export async function listTreeFiles(root: string, env: Env, zones: readonly string[]): Promise<string[]> {
  const specs = ['.learnings', ...zones.map((z) => `:(glob)${z}`), ...LOCAL_STATE_PATHSPECS.atRoot]
  const [out, state] = await Promise.all([
    gitAsync(['ls-files', '-z', '-c', '-o', '--exclude-standard', '--', ...specs], { cwd: root, env }),
    // Copies of the local state deeper in the tree: the index only (untracked, they would cost a walk of it all).
    gitAsync(['ls-files', '-z', '-c', '--', ...LOCAL_STATE_PATHSPECS.tracked], { cwd: root, env }),
  ])
  return [...new Set(`${out.toString('utf8')}\0${state.toString('utf8')}`.split('\0').filter(Boolean))].sort()
}

/** The files at `paths` (listTreeFiles), read from disk; a symbolic link gets mode 120000 and no text. */
export function readTreeFiles(root: string, paths: readonly string[]): TreeFile[] {
  const out: TreeFile[] = []
  for (const path of paths) {
    const file = readTreeFile(join(root, path), path)
    if (file) out.push(file)
  }
  return out
}

/**
 * A commit's files that `keep` takes, read from its objects rather than a work tree (`check --head`: a CI job or a
 * bare repository's pre-receive hook): one `git ls-tree -r` of the whole tree (its pathspecs take no globs, which
 * the zones are), then one `--batch-check` and one `--batch`. As in the work tree, a submodule is left out and a
 * symbolic link is mode 120000 without text. Sample entry: "100644 blob 8f3b…\t.learnings/active/x.md\0".
 */
export async function readCommitFiles(
  root: string,
  env: Env,
  commit: string,
  keep: (path: string) => boolean,
): Promise<TreeFile[]> {
  const out = await gitAsync(['ls-tree', '-r', '-z', '--full-tree', commit], { cwd: root, env })
  const entries = parseLsTree(out.toString('utf8')).filter((e) => e.type === 'blob' && e.mode && e.oid && keep(e.path))
  const blobs = readBlobs(
    root,
    env,
    entries.filter((e) => e.mode !== '120000').map((e) => e.oid),
  )
  return entries
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((e) =>
      e.mode === '120000'
        ? { path: e.path, mode: e.mode }
        : { path: e.path, mode: e.mode, ...(blobs.get(e.oid) ?? { skipped: 'unreadable' }) },
    )
}

/** The bytes of `.learnings/config.yaml` in `commit`, or undefined when it has none. */
export function readCommitConfig(root: string, env: Env, commit: string): Buffer | undefined {
  return readConfigObject(root, env, `${commit}:${CONFIG_PATH}`)
}

/**
 * The messages of commits that carry `Learning-Directives-Allowed` (squash-merge bodies included), in the history of
 * `head` (HEAD unless a commit is checked).
 */
export function readDirectiveOverrides(root: string, env: Env, head = 'HEAD'): string {
  const r = runGitSync(directiveOverridesLog(head), { cwd: root, env })
  return r.code === 0 ? r.stdout.toString('utf8') : ''
}

/**
 * The history an accepted directive is read from: HEAD's, never `--all`, which takes in every fetched ref (a tier's
 * `refs/learn/tiers/*`, another repository's text; a pushed branch nobody reviewed) and would let any of them accept a
 * directive for a project learning of the same name. A squash merge keeps the trailer in its message, on HEAD.
 */
function directiveOverridesLog(head: string): string[] {
  return [
    ...PARSED_LOG,
    head,
    '--format=%B%x00',
    '-E',
    '--grep=^[[:space:]]*[-*]?[[:space:]]*Learning-Directives-Allowed:',
  ]
}
export const DIRECTIVE_OVERRIDES_LOG: readonly string[] = directiveOverridesLog('HEAD')

/**
 * git's comment prefix in commit messages: `core.commentChar`, or `core.commentString` (git 2.45 reads the two as one
 * setting, the last one set winning), which may be `auto`; `#` when neither is set. `git -c …` reaches a hook too.
 */
export function readCommentPrefix(root: string, env: Env): string {
  const r = runGitSync(['config', '-z', '--get-regexp', '^core\\.comment(char|string)$'], { cwd: root, env })
  const last = r.code === 0 ? r.stdout.toString('utf8').split('\0').filter(Boolean).pop() : undefined
  return last?.slice(last.indexOf('\n') + 1) || '#'
}

/** True while a `git merge --squash` is being committed: git's prepared message, SQUASH_MSG, is in the git dir. */
export function isSquashing(root: string, env: Env): boolean {
  const r = runGitSync(['rev-parse', '--path-format=absolute', '--git-path', 'SQUASH_MSG'], { cwd: root, env })
  return r.code === 0 && existsSync(pathLine(r.stdout.toString('utf8')))
}

/** True while a merge is being concluded (MERGE_HEAD exists): its diff against HEAD carries the other side's work. */
export function isMerging(root: string, env: Env): boolean {
  return runGitSync(['rev-parse', '-q', '--verify', 'MERGE_HEAD'], { cwd: root, env }).code === 0
}
