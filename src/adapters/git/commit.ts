/**
 * Lifecycle commits built with plumbing, never through the user's index: a temporary index (GIT_INDEX_FILE) is read
 * from HEAD, given exactly the learning's own paths, written as a tree and committed with commit-tree; the branch
 * then moves by a compare-and-swap `git update-ref <ref> <new> <old>` (git-update-ref(1): "verifies that the current
 * value of the <ref> matches <old-oid>"). Only after that are the user's index and work tree brought in line, for
 * those paths only. The orchestration (retries, the journal, recovery) is src/flows/transition.ts.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { GitCommandError, RefLockedError, UncommittedLearningError } from '../../core/errors.js'
import { onInterrupt } from './interrupt.js'
import { gitAsync, runGitAsync, tryGitAsync } from './run.js'
import type { Env } from './run.js'
import type { Git } from './simple.js'
import { parseLsTree } from '../../core/git-output.js'
import { scratchOwner } from '../state/process-tag.js'

/** Refuse when a learning's file differs between HEAD, the index and the work tree, or is untracked. */
export async function assertPathClean(git: Git, name: string, path: string): Promise<void> {
  // Sample of `git status --porcelain=v1 -z -- p`: " M .learnings/pending/x.md\0" or "?? …\0"; empty when clean.
  const out = await git.run(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', path])
  const code = out.slice(0, 2)
  if (out.length) {
    const status = code === '??' ? 'not committed yet' : code[0] !== ' ' ? 'staged changes' : 'unstaged changes'
    throw new UncommittedLearningError(name, path, status)
  }
}

/** Where HEAD points: the branch ref (undefined when detached) and its commit (undefined on an unborn branch). */
export interface HeadState {
  ref: string | undefined
  oid: string | undefined
}

/** Read HEAD: `git symbolic-ref -q HEAD` ("refs/heads/main") and the commit it names. */
export async function readHeadState(root: string): Promise<HeadState> {
  const ref = await readHeadRef(root)
  const oid =
    (await tryGitAsync(['rev-parse', '-q', '--verify', `${ref ?? 'HEAD'}^{commit}`], { cwd: root }))
      ?.toString('utf8')
      .trim() || undefined
  return { ref, oid }
}

/** The branch HEAD is on (`git symbolic-ref -q HEAD`: "refs/heads/main"), undefined when detached. */
export async function readHeadRef(root: string): Promise<string | undefined> {
  return (await tryGitAsync(['symbolic-ref', '-q', 'HEAD'], { cwd: root }))?.toString('utf8').trim() || undefined
}

/** One entry of a tree: mode, blob id, path (from `git ls-tree -z`). */
export interface TreeEntry {
  mode: string
  oid: string
  path: string
}

/** The entries of `commit`'s tree at exactly these paths (absent paths are left out). */
export async function readTreeEntries(
  root: string,
  commit: string | undefined,
  paths: readonly string[],
): Promise<Map<string, TreeEntry>> {
  const found = new Map<string, TreeEntry>()
  if (!commit || !paths.length) return found
  const out = await gitAsync(['ls-tree', '-z', '--full-tree', commit, '--', ...paths.map((p) => `:(literal)${p}`)], {
    cwd: root,
  })
  for (const { mode, type, oid, path } of parseLsTree(out.toString('utf8')))
    if (type === 'blob') found.set(path, { mode, oid, path })
  return found
}

/**
 * Write blobs for these texts into the object store; their ids in order. One text: `hash-object -w --stdin`; many:
 * one `git fast-import` (a blob per record, ids from its marks file), so 10,000 entries cost one process.
 */
export async function writeBlobs(root: string, texts: readonly string[], scratch?: string): Promise<string[]> {
  if (texts.length === 0) return []
  if (texts.length === 1)
    return [(await gitAsync(['hash-object', '-w', '--stdin'], { cwd: root, input: texts[0] })).toString('utf8').trim()]
  const tmp = makeTempDir('blobs', scratch)
  const remove = () => rmSync(tmp, { recursive: true, force: true })
  // A signal while fast-import runs ends the process: its marks go first (buildCommit's temporary index likewise).
  const dropCleanup = onInterrupt(remove)
  try {
    const marks = join(tmp, 'marks')
    const parts: Buffer[] = []
    texts.forEach((t, i) => {
      const b = Buffer.from(t, 'utf8')
      parts.push(Buffer.from(`blob\nmark :${i + 1}\ndata ${b.length}\n`), b, Buffer.from('\n'))
    })
    const args = ['fast-import', '--quiet', `--export-marks=${marks}`]
    const r = await runGitAsync(args, { cwd: root, input: Buffer.concat(parts) })
    if (r.code !== 0) throw removeCrashReport(root, args, r.stderr || `(git exited with code ${r.code})`)
    const { readFileSync } = await import('node:fs')
    // Sample of the marks file: ":1 3f2c…e1\n:2 9a0b…77\n"
    const ids = new Map<number, string>()
    for (const line of readFileSync(marks, 'utf8').split('\n')) {
      const m = /^:(\d+) ([0-9a-f]+)$/.exec(line)
      if (m) ids.set(Number(m[1]), m[2] as string)
    }
    return texts.map((_, i) => {
      const id = ids.get(i + 1)
      if (!id) throw new Error(`git fast-import wrote no blob for entry ${i + 1}`)
      return id
    })
  } finally {
    dropCleanup()
    remove()
  }
}

/**
 * A directory for a commit's own scratch files (a temporary index, fast-import's marks): in `scratch`, the git dir's
 * `learn/tmp` (journal.ts scratchDir: named by this process, swept once it is gone), when there is one, so that a
 * lifecycle commit needs neither TMPDIR nor room there, as `git commit` does not; else in the system's temporary
 * directory. A TMPDIR that names no folder, or a full /tmp, failed every add and approve.
 */
export function makeTempDir(prefix: string, scratch?: string): string {
  return mkdtempSync(scratch ? join(scratch, `${scratchOwner()}.${prefix}-`) : join(tmpdir(), `git-learn-${prefix}-`))
}

/**
 * A fast-import that dies (a full disk) leaves a crash report in the git dir and says where: "fast-import: dumping
 * crash report to .git/fast_import_crash_3390" (relative to its cwd). Ours, for a failure reported whole: removed, and
 * the error to throw returned without that line.
 */
function removeCrashReport(root: string, args: readonly string[], stderr: string): Error {
  const said = /^fast-import: dumping crash report to (.+)$/m.exec(stderr)
  const report = said?.[1]?.trim()
  if (report && /(^|[\\/])fast_import_crash_\d+$/.test(report)) rmSync(resolve(root, report), { force: true })
  return new GitCommandError(args, report ? stderr.replace(/^fast-import: dumping crash report to .+\n?/m, '') : stderr)
}

/** A path's new content in the commit: a blob with its mode, or null to remove it. */
export interface IndexChange {
  path: string
  entry: { mode: string; oid: string } | null
}

/** `git update-index -z --index-info` input: "<mode> <oid>\t<path>\0"; mode 0 removes the path. */
export function formatIndexInfo(changes: readonly IndexChange[], zeroOid: string): string {
  return changes
    .map((c) => (c.entry ? `${c.entry.mode} ${c.entry.oid}\t${c.path}\0` : `0 ${zeroOid}\t${c.path}\0`))
    .join('')
}

/**
 * commit-tree's signing flag as the user's commit.gpgsign asks: commit-tree signs only when told to with -S (which
 * then uses user.signingkey and gpg.format as `git commit` does). Every commit-tree of git-learn passes it.
 */
export async function signFlag(root: string): Promise<string[]> {
  const sign = (await tryGitAsync(['config', '--type=bool', '--get', 'commit.gpgsign'], { cwd: root }))
    ?.toString('utf8')
    .trim()
  return sign === 'true' ? ['-S'] : []
}

/**
 * Build a commit of `parent`'s tree plus `changes`, in a temporary index: the user's index is never read or written.
 * The author and committer come from git's own configuration and environment, as for `git commit`; commit.gpgsign
 * is honoured with -S (which then uses user.signingkey and gpg.format as `git commit` does).
 */
export async function buildCommit(
  root: string,
  parent: string | undefined,
  changes: readonly IndexChange[],
  message: string,
  zeroOid: string,
  scratch?: string,
): Promise<{ tree: string; commit: string }> {
  const tmp = makeTempDir('index', scratch)
  const env: Env = { ...process.env, GIT_INDEX_FILE: join(tmp, 'index') }
  const remove = () => rmSync(tmp, { recursive: true, force: true })
  const dropCleanup = onInterrupt(remove)
  try {
    await gitAsync(parent ? ['read-tree', parent] : ['read-tree', '--empty'], { cwd: root, env })
    await gitAsync(['update-index', '-z', '--index-info'], { cwd: root, env, input: formatIndexInfo(changes, zeroOid) })
    const tree = (await gitAsync(['write-tree'], { cwd: root, env })).toString('utf8').trim()
    const args = ['commit-tree', tree, ...(parent ? ['-p', parent] : []), ...(await signFlag(root)), '-F', '-']
    const commit = (await gitAsync(args, { cwd: root, env, input: message })).toString('utf8').trim()
    return { tree, commit }
  } finally {
    dropCleanup()
    remove()
  }
}

/**
 * Move `ref` from `old` to `next` only if it still points at `old` (undefined: only if it does not exist yet).
 * False when another process moved it first (git says "cannot lock ref … but expected …"). A lock file that exists
 * ("cannot lock ref 'refs/heads/main': Unable to create '/r/.git/refs/heads/main.lock': File exists.", after git
 * waited core.filesRefLockTimeout for it) throws RefLockedError: no retry helps while it is there. Other failures throw.
 */
export async function swapRef(
  root: string,
  ref: string,
  next: string,
  old: string | undefined,
  zeroOid: string,
  reflog: string,
): Promise<boolean> {
  const args = ['update-ref', '-m', reflog, ...(ref === 'HEAD' ? ['--no-deref'] : []), ref, next, old ?? zeroOid]
  const r = await runGitAsync(args, { cwd: root })
  if (r.code === 0) return true
  // The lock's path is quoted in git's message whatever the language of the sentence around it. git names it too when
  // it could not write its own lock (a full or read-only disk: "cannot update ref 'refs/heads/main': couldn't write
  // '/r/.git/refs/heads/main.lock'", the lock then removed): no lock is left there, and "remove the lock" would send
  // the user after a file that does not exist. That is git failing, reported with its words.
  const lock = /'([^'\n]+\.lock)'/.exec(r.stderr)?.[1]
  const unwritten = lock !== undefined && /couldn't write/.test(r.stderr) && !existsSync(resolve(root, lock))
  if (lock && !unwritten) throw new RefLockedError(ref, lock)
  if (
    /but expected|is at .* but expected|reference already exists|unable to resolve reference|cannot lock ref/i.test(
      r.stderr,
    )
  )
    return false
  throw new GitCommandError(args, r.stderr || `(git exited with code ${r.code})`)
}

/**
 * The blob id `git add` would give the file `file` at `path` (relative to the root): `git hash-object --path`, which
 * applies that path's attributes and core.autocrlf (line endings, clean filters) as git does, and writes nothing.
 */
export async function hashFileAs(root: string, path: string, file: string): Promise<string> {
  return (await gitAsync(['hash-object', `--path=${path}`, '--', file], { cwd: root })).toString('utf8').trim()
}

/**
 * Work-tree files as git would commit them, in one `git hash-object --stdin-paths` (each path's attributes and
 * core.autocrlf applied, as `git add` and hashFileAs do): each file's blob id, and its text as git reads it, which is
 * the LF form of a CRLF text when that is the blob git would store (core.autocrlf=true, `eol=crlf`, `text`), else the
 * text as it is. Paths are from the root; a path with a newline (which the batch cannot carry) is left out.
 */
export async function readAsGitSees(
  root: string,
  files: readonly { path: string; text: string }[],
): Promise<Map<string, { blob: string; text: string }>> {
  const seen = new Map<string, { blob: string; text: string }>()
  const asked = files.filter((f) => !f.path.includes('\n'))
  if (!asked.length) return seen
  const out = await gitAsync(['hash-object', '--stdin-paths'], {
    cwd: root,
    input: `${asked.map((f) => f.path).join('\n')}\n`,
  })
  const blobs = out.toString('utf8').split('\n')
  const { createHash } = await import('node:crypto')
  asked.forEach((f, i) => {
    const blob = blobs[i] ?? ''
    const lf = f.text.replace(/\r\n/g, '\n')
    const algorithm = blob.length === 64 ? 'sha256' : 'sha1'
    const lfBlob =
      lf === f.text
        ? undefined
        : createHash(algorithm)
            .update(`blob ${Buffer.byteLength(lf)}\0`)
            .update(lf)
            .digest('hex')
    seen.set(f.path, { blob, text: lfBlob === blob ? lf : f.text })
  })
  return seen
}

/** Set the user's index entries for exactly these paths (`update-index --index-info`), then refresh their stat data. */
export async function updateUserIndex(root: string, changes: readonly IndexChange[], zeroOid: string): Promise<void> {
  await gitAsync(['update-index', '-z', '--index-info'], { cwd: root, input: formatIndexInfo(changes, zeroOid) })
  await refreshUserIndex(root)
}

/**
 * Entries written from --index-info carry no stat data; a refresh records it (content unchanged, so nothing else
 * moves). Best effort: an index another git holds locked at that moment is refreshed by that git's next reader.
 */
export async function refreshUserIndex(root: string): Promise<void> {
  await tryGitAsync(['update-index', '-q', '--refresh'], { cwd: root })
}

/** The index entries (stage 0) of these paths in the user's index: "<mode> <oid> 0\t<path>". */
export async function readUserIndex(root: string, paths: readonly string[]): Promise<Map<string, TreeEntry>> {
  const found = new Map<string, TreeEntry>()
  if (!paths.length) return found
  const out = await gitAsync(['ls-files', '-s', '-z', '--full-name', '--', ...paths.map((p) => `:(top,literal)${p}`)], {
    cwd: root,
  })
  for (const rec of out.toString('utf8').split('\0')) {
    const m = /^(\d+) ([0-9a-f]+) (\d)\t(.*)$/s.exec(rec)
    if (m && m[3] === '0')
      found.set(m[4] as string, { mode: m[1] as string, oid: m[2] as string, path: m[4] as string })
  }
  return found
}
