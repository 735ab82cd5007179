/**
 * Every lifecycle commit of git-learn (add, approve, reject, restore, prune, evolve --write, retro --write, import,
 * tier add/update) goes through commitTransition, which makes it atomic by construction:
 *
 * 1. the commit is built from HEAD plus exactly the transition's paths in a temporary index (adapters/git/commit.ts);
 *    the user's index, work tree and other paths are not read or written, and no hook of the user runs (as for `git
 *    stash`'s commits): our own checks ran in-process on the very bytes committed, and nothing may rewrite them;
 * 2. a journal (adapters/state/journal.ts) records the commit and its paths;
 * 3. the branch moves by a compare-and-swap update-ref, under git's index lock (as `git commit` moves HEAD under it:
 *    adapters/git/index-lock.ts), taken first and held until step 4 is done, with HEAD checked to be still on that
 *    branch; when another process moved the branch first (a `git commit` beside us, a second `approve`), the commit is
 *    rebuilt on the new HEAD (its own paths re-checked there) and tried again, a few times, then refused with nothing
 *    changed;
 * 4. only then are the work tree and the user's index brought in line for those paths (a rename for a move, so the
 *    file that was reviewed is the file that arrives, byte for byte; the index prepared aside and renamed into
 *    place), the lock is released and the journal is removed.
 *
 * A kill before step 3 leaves everything as before (a journal whose commit never landed, ignored and removed); a kill
 * after it leaves the commit made and a journal that `git learn doctor --continue` finishes from. A kill while the
 * index lock is held leaves it, naming our process: the next command of ours removes it. SIGINT, SIGTERM and SIGHUP
 * (adapters/git/interrupt.ts) are deferred from the index lock until step 4 is done, and before it remove what this
 * transition holds: the repository is then exactly as before or as after.
 */
import { existsSync, lstatSync, readFileSync, readdirSync, renameSync, unlinkSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import {
  buildCommit,
  hashFileAs,
  readHeadRef,
  readHeadState,
  readTreeEntries,
  readUserIndex,
  refreshUserIndex,
  swapRef,
  updateUserIndex,
  writeBlobs,
} from '../adapters/git/commit.js'
import type { HeadState, IndexChange } from '../adapters/git/commit.js'
import { deferInterrupts, onInterrupt } from '../adapters/git/interrupt.js'
import {
  discardIndex,
  installIndex,
  locateIndex,
  prepareIndex,
  releaseIndexLock,
  takeIndexLock,
} from '../adapters/git/index-lock.js'
import type { IndexFiles, PreparedIndex } from '../adapters/git/index-lock.js'
import { gitAsync } from '../adapters/git/run.js'
import { assertStoreCheckedOut } from '../adapters/git/simple.js'
import type { Git } from '../adapters/git/simple.js'
import { removeJournal, removeOwnScratch, scratchDir, writeJournal } from '../adapters/state/journal.js'
import type { JournalPath } from '../adapters/state/journal.js'
import { isTemporaryBeside, makeDirs, writeFileNoClobber } from '../adapters/store/write-file.js'
import {
  ConcurrentChangeError,
  FileAccessError,
  GitCommandError,
  PathTakenError,
  RecoveryNeededError,
  RefLockedError,
  TransitionIncompleteError,
  UncommittedLearningError,
} from '../core/errors.js'
import { STORE_DIR, parseStorePath } from '../core/layout.js'
import { toLfLineEndings } from '../core/learning.js'
import { assertNoSecretInMessage } from '../core/trailers.js'

/** One path a transition changes: a new file, a tracked file replaced, or a file moved between state directories. */
export type Change =
  | { kind: 'create'; path: string; text: string }
  | { kind: 'replace'; path: string; text: string }
  | { kind: 'move'; from: string; to: string }

/** How many times a commit is rebuilt on a HEAD that moved under it before the transition is refused. */
const ATTEMPTS = 5
/** How long the user's index may stay locked by another git process before we stop waiting (ms). */
const INDEX_WAIT_MS = 3000

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function pathsOf(changes: readonly Change[]): string[] {
  return changes.flatMap((c) => (c.kind === 'move' ? [c.from, c.to] : [c.path]))
}

/** What HEAD must hold at each path for the transition to apply: a blob id, or null for "absent". */
type Expect = Map<string, string | null>

/**
 * Commit `changes` with `message` atomically (see the module comment) and return the new commit id. Throws
 * ConcurrentChangeError (nothing changed), GitCommandError from building the commit (nothing changed), or
 * TransitionIncompleteError (the commit landed; `git learn doctor --continue` finishes the index and work tree).
 */
export async function commitTransition(git: Git, given: readonly Change[], message: string): Promise<string> {
  assertNoSecretInMessage(message, 'the commit message')
  // What was read to plan this commit came from the work tree: a store a sparse checkout hides was not all read.
  await assertStoreCheckedOut(git)
  // A learning is written with LF line endings, whoever built its text (CONTRIBUTING.md, "Line endings").
  const changes = given.map((c) =>
    c.kind !== 'move' && parseStorePath(c.path) ? { ...c, text: toLfLineEndings(c.text) } : c,
  )
  const subject = message.split('\n')[0] ?? ''
  const root = git.root
  const first = await readHeadState(root)
  const paths = pathsOf(changes)
  const base = await readTreeEntries(root, first.oid, paths)
  const expect: Expect = new Map()
  for (const c of changes) {
    if (c.kind === 'move') {
      const from = base.get(c.from)
      if (!from) throw new ConcurrentChangeError(subject, `${c.from} is not committed on ${first.ref ?? 'HEAD'}`)
      expect.set(c.from, from.oid).set(c.to, null)
    } else expect.set(c.path, c.kind === 'create' ? null : (base.get(c.path)?.oid ?? null))
  }
  for (const [p, want] of expect)
    if (want === null && base.has(p)) throw new ConcurrentChangeError(subject, `${p} is already committed`)
  await assertFree(
    root,
    subject,
    [...expect].filter(([, want]) => want === null).map(([p]) => p),
  )

  // Scratch files (the prepared index, a temporary index, new files before they are linked) go under the git dir.
  const scratch = scratchDir(git.commonDir)
  const written = changes.filter((c): c is Extract<Change, { text: string }> => c.kind !== 'move')
  const blobs = await writeBlobs(
    root,
    written.map((c) => c.text),
    scratch,
  )
  const text = new Map<string, Buffer>()
  written.forEach((c, i) => text.set(blobs[i] as string, Buffer.from(c.text, 'utf8')))
  const journalPaths: JournalPath[] = []
  for (const c of changes) {
    if (c.kind === 'move') {
      const from = base.get(c.from)
      if (!from) continue
      journalPaths.push(
        { path: c.from, entry: null },
        { path: c.to, entry: { mode: from.mode, oid: from.oid }, from: c.from },
      )
    } else {
      const i = written.indexOf(c)
      const was = base.get(c.path)
      journalPaths.push({
        path: c.path,
        entry: { mode: was?.mode ?? '100644', oid: blobs[i] as string },
        ...(was ? { was: was.oid } : {}),
      })
    }
  }
  const index: IndexChange[] = journalPaths.map((p) => ({ path: p.path, entry: p.entry }))
  const zero = '0'.repeat((first.oid ?? blobs[0] ?? base.values().next().value?.oid ?? '').length || 40)
  const files = await locateIndex(root, git.gitDir)
  let prepared: PreparedIndex | undefined
  let commit: string | undefined
  let journal: string | undefined
  // A signal outside the critical section below (adapters/git/interrupt.ts) leaves the repository as before: the
  // commit never landed, and nothing of ours stays (lock, journal, prepared index, scratch files).
  const dropCleanup = onInterrupt(() => {
    releaseIndexLock(files)
    if (!commit) removeJournal(journal)
    if (prepared) discardIndex(prepared)
    removeOwnScratch(scratch)
  })
  // The critical section, from the index lock until the index and work tree followed the commit (or nothing moved):
  // a signal waits for its end.
  let endHeld: ((leftHalfDone?: boolean) => void) | undefined
  const release = (leftHalfDone = false) => {
    const end = endHeld
    endHeld = undefined
    end?.(leftHalfDone)
  }
  let done = false
  try {
    // The user's index with our entries, prepared aside now; renamed into place under the lock once the branch moved.
    prepared = await prepareIndex(root, files, scratch, index, zero)
    let head = first
    let locked: RefLockedError | undefined
    // Until the branch moved, every way out leaves nothing: the prepared index (a copy of the user's, beside it when
    // there is no scratch directory) is removed on each of them.
    try {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        if (attempt > 0) {
          await sleep(10 + Math.floor(Math.random() * 40 * attempt))
          head = await readHeadState(root)
          if (head.ref !== first.ref)
            throw new ConcurrentChangeError(
              subject,
              `HEAD moved to ${head.ref ?? 'a detached commit'} while the commit was being made`,
            )
          const now = await readTreeEntries(root, head.oid, paths)
          for (const [p, want] of expect) {
            const have = now.get(p)?.oid ?? null
            if (have !== want)
              throw new ConcurrentChangeError(
                subject,
                `another commit changed ${p} meanwhile (now ${head.oid?.slice(0, 12) ?? 'unborn'})`,
              )
          }
        }
        const built = await buildCommit(root, head.oid, index, message, zero, scratch)
        journal = writeJournal(git.commonDir, {
          version: 1,
          started: new Date().toISOString(),
          subject,
          ref: head.ref ?? 'HEAD',
          old: head.oid ?? null,
          commit: built.commit,
          paths: journalPaths,
          gitDir: git.gitDir,
        })
        endHeld = deferInterrupts()
        let swapped: boolean
        try {
          await lockIndexOn(root, files, head, subject, scratch)
          // A file the commit replaces (config.yaml of a tier command, a pending learning an import updates) that was
          // edited since it was read is refused here, nothing changed: replacing it would lose that edit. Unless the
          // branch moved meanwhile (another command of ours committed it): that is a lost swap, tried again below.
          const edited = await firstEdited(root, journalPaths)
          if (edited && (await readHeadState(root)).oid === head.oid)
            throw new UncommittedLearningError(basename(edited).replace(/\.md$/, ''), edited, 'unstaged changes')
          swapped = edited
            ? false
            : await swapRef(root, head.ref ?? 'HEAD', built.commit, head.oid, zero, `commit (git learn): ${subject}`)
          locked = undefined
        } catch (err) {
          releaseIndexLock(files)
          removeJournal(journal) // refused (a reference-transaction hook, a broken ref): the commit never landed
          journal = undefined
          // A lock on the branch (git waited core.filesRefLockTimeout for it): a git beside us may still be moving
          // it, so it is tried again like a lost swap; one left for good is reported as the lock it is, never as a
          // moving branch.
          if (!(err instanceof RefLockedError)) throw err
          locked = err
          swapped = false
        }
        if (swapped) {
          commit = built.commit
          break
        }
        releaseIndexLock(files)
        removeJournal(journal)
        journal = undefined
        release()
      }
      if (!commit)
        throw (
          locked ??
          new ConcurrentChangeError(subject, `${first.ref ?? 'HEAD'} kept moving under it (${ATTEMPTS} tries)`)
        )
    } catch (err) {
      discardIndex(prepared)
      throw err
    }

    let left: string[]
    const installed = prepared
    try {
      left = await bringInLine(
        root,
        journalPaths,
        async (oid) => text.get(oid) ?? (await gitAsync(['cat-file', 'blob', oid], { cwd: root })),
        { fresh: true, scratch, writeIndex: (changes) => installIndex(root, files, installed, changes, zero) },
      )
    } catch (err) {
      const reason =
        err instanceof GitCommandError ? (err.stderr.trim().split('\n')[0] ?? String(err)) : (err as Error).message
      throw new TransitionIncompleteError(
        subject,
        commit,
        journalPaths.map((p) => p.path),
        reason,
      )
    } finally {
      releaseIndexLock(files)
      discardIndex(prepared)
    }
    await refreshUserIndex(root)
    // A file of that name that appeared in the work tree meanwhile is never clobbered: the journal stays for doctor.
    if (left.length)
      throw new TransitionIncompleteError(
        subject,
        commit,
        left,
        'a file of that name with other content appeared in the work tree meanwhile; it was left as it is',
      )
    removeJournal(journal)
    done = true
    return commit
  } finally {
    // A signal that came during the critical section ends the process here, the repository as after (or, when the
    // section failed, as the error says: with the commit landed, its journal is left for doctor), once every cleanup
    // above has run.
    dropCleanup()
    release(commit !== undefined && !done)
  }
}

/**
 * Take the user's index lock for the branch move (waiting a moment for a git that holds it) and check that HEAD is
 * still on the branch the commit was built for: a `git checkout` since would have the work tree and index that follow
 * the commit be another branch's. Throws with nothing changed; the caller releases the lock.
 */
async function lockIndexOn(
  root: string,
  files: IndexFiles,
  head: HeadState,
  subject: string,
  scratch: string | undefined,
): Promise<void> {
  let taken: boolean
  try {
    taken = await takeIndexLock(files, INDEX_WAIT_MS, scratch)
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    throw new FileAccessError(e.path ?? files.lock, e.code ?? 'EIO', "git's index lock", true)
  }
  if (!taken) throw new RecoveryNeededError([{ kind: 'index-lock', path: files.lock }])
  const ref = await readHeadRef(root)
  if (ref !== head.ref)
    throw new ConcurrentChangeError(
      subject,
      `HEAD moved to ${ref ?? 'a detached commit'} while the commit was being made`,
    )
}

/**
 * Refuse, before anything is written, a transition whose new paths (a move's destination, a created file) the user
 * already has: a file in the work tree (untracked, ignored, a draft) or an entry in the index. Found after the commit,
 * it would leave the transition half done (bringInLine never clobbers a file), its commit landed.
 */
async function assertFree(root: string, subject: string, paths: readonly string[]): Promise<void> {
  if (!paths.length) return
  // A few paths are asked of git by name; an import's thousands, as the store's whole listing (one argument).
  const many = paths.length > 64
  const staged = await readUserIndex(root, many ? [STORE_DIR] : paths)
  for (const p of paths) {
    if (staged.has(p)) throw new PathTakenError(subject, p, 'staged')
    if (lstatSync(join(root, p), { throwIfNoEntry: false })) throw new PathTakenError(subject, p, 'untracked')
  }
}

/**
 * Bring the work tree and the user's index in line with a landed commit for exactly `paths`. Work tree first: a move
 * renames the reviewed file itself; a written file is created whole (link of a temporary file) and never replaces
 * a file with other content (an edit of the user's since: reported, not clobbered). Then the user's index, in one
 * `update-index` (atomic under git's index.lock; waited for while another git holds it). Returns the paths left.
 * `fresh`: called by the transition itself, which checked the paths clean a moment ago (no comparisons through git;
 * a replaced file is hashed first, so an edit made since is never overwritten).
 * `scratch`: where files are written before they are linked in (scratchDir); a copy an earlier, killed run left
 * beside a path (`.<name>.<hex>.tmp`, older versions wrote there) is removed when it holds exactly the committed bytes.
 * `writeIndex`: how the transition itself, holding the index lock, sets the index entries (instead of update-index).
 */
export async function bringInLine(
  root: string,
  paths: readonly JournalPath[],
  content: (oid: string) => Promise<Buffer>,
  opts: {
    fresh?: boolean
    scratch?: string | undefined
    writeIndex?: ((changes: IndexChange[]) => Promise<void>) | undefined
  } = {},
): Promise<string[]> {
  const { fresh = false, scratch, writeIndex } = opts
  const left: string[] = []
  for (const p of paths) {
    if (!p.entry) continue
    const abs = join(root, p.path)
    if (!fresh) await removeOwnTemporaries(abs, () => content((p.entry as { oid: string }).oid))
    if (existsSync(abs)) {
      if (
        fresh
          ? readFileSync(abs).equals(await content(p.entry.oid))
          : await holdsBlob(root, p.path, p.entry.oid, content)
      )
        continue
      if (p.was && (fresh ? await stillHolds(root, p.path, p.was) : await holdsBlob(root, p.path, p.was, content)))
        writeFileNoClobber(abs, (await content(p.entry.oid)).toString('utf8'), true, scratch)
      else left.push(p.path)
      continue
    }
    makeDirs(dirname(abs))
    const from = p.from ? join(root, p.from) : undefined
    if (from && existsSync(from) && (fresh || (await holdsBlob(root, p.from as string, p.entry.oid, content))))
      renameSync(from, abs)
    else writeFileNoClobber(abs, (await content(p.entry.oid)).toString('utf8'), false, scratch)
  }
  const wanted = paths.filter((p) => !left.includes(p.path))
  const have = fresh
    ? undefined
    : await readUserIndex(
        root,
        wanted.map((p) => p.path),
      )
  const todo = have
    ? wanted.filter((p) =>
        p.entry ? have.get(p.path)?.oid !== p.entry.oid || have.get(p.path)?.mode !== p.entry.mode : have.has(p.path),
      )
    : wanted
  if (todo.length && writeIndex) await writeIndex(todo.map((p) => ({ path: p.path, entry: p.entry })))
  else if (todo.length) {
    const deadline = Date.now() + INDEX_WAIT_MS
    for (;;) {
      try {
        await updateUserIndex(
          root,
          todo.map((p) => ({ path: p.path, entry: p.entry })),
          '0'.repeat(todo.find((p) => p.entry)?.entry?.oid.length ?? 40),
        )
        break
      } catch (err) {
        if (!(err instanceof GitCommandError) || !/index\.lock/.test(err.stderr) || Date.now() > deadline) throw err
        await sleep(50)
      }
    }
  }
  return left
}

/**
 * Whether the work-tree file at `path` holds blob `oid` as git sees it (what `git status` calls unchanged): the same
 * bytes, or bytes that `git add` turns into that blob (line endings converted by .gitattributes `eol=crlf` or
 * core.autocrlf, a clean filter). git runs only when the bytes differ.
 */
export async function holdsBlob(
  root: string,
  path: string,
  oid: string,
  content: (oid: string) => Promise<Buffer>,
): Promise<boolean> {
  const file = join(root, path)
  if (readFileSync(file).equals(await content(oid))) return true
  return (await hashFileAs(root, path, file)) === oid
}

/** The first file a transition replaces whose work-tree copy no longer holds what it replaces (undefined: none). */
async function firstEdited(root: string, paths: readonly JournalPath[]): Promise<string | undefined> {
  for (const p of paths) if (p.was && !(await stillHolds(root, p.path, p.was))) return p.path
  return undefined
}

/**
 * Whether the work-tree file at `path` still holds blob `oid`: its bytes hashed here as git hashes a blob, git asked
 * (hashFileAs) only when they differ, for a line ending or filter git converts. False when there is no such file.
 */
async function stillHolds(root: string, path: string, oid: string): Promise<boolean> {
  const file = join(root, path)
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch {
    return false
  }
  const { createHash } = await import('node:crypto')
  const id = createHash(oid.length === 64 ? 'sha256' : 'sha1')
    .update(`blob ${bytes.length}\0`)
    .update(bytes)
    .digest('hex')
  return id === oid || (await hashFileAs(root, path, file)) === oid
}

/**
 * Remove the temporary copies a killed write left beside `abs` that hold exactly `committed` (anything else stays).
 * Compared byte for byte, not as git sees them: such a copy was written from the blob itself, never converted.
 */
export async function removeOwnTemporaries(abs: string, committed: () => Promise<Buffer>): Promise<void> {
  let names: string[]
  try {
    names = readdirSync(dirname(abs)).filter((n) => isTemporaryBeside(abs, n))
  } catch {
    return
  }
  for (const n of names) {
    const tmp = join(dirname(abs), n)
    if (readFileSync(tmp).equals(await committed())) unlinkSync(tmp)
  }
}
