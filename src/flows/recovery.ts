/**
 * Recovery that tells the truth: what a crash, a kill or an older version left half done, found from the journal of
 * our transitions (adapters/state/journal.ts) and from what git shows, and the one command that settles it.
 *
 * - a left `index.lock`, or the current branch's lock (`refs/heads/<b>.lock`): git's own; removed by the user once no
 *   git runs (we cannot know that); an index lock of ours whose process is gone (a transition killed while it held
 *   it) is removed without a word;
 * - a transition whose commit landed but whose index and work tree were not brought in line: `--continue` finishes
 *   it, `--abort` moves the branch back (only while it still points at that commit) and puts the paths back;
 * - a journal whose commit never landed: nothing changed; the note is removed without a word;
 * - a journal of a linked work tree removed since, or of a work tree on another branch now: nothing is left there to
 *   finish (git built that index from the branch checked out); removed without a word;
 * - a move between state directories staged in the index but never committed (git-learn before atomic commits,
 *   or by hand), and learnings staged as new but not committed: `--abort` unstages them (a staged move is moved back);
 * - a tier ref that no config.yaml names (a `tier add` killed between its fetch and its commit): `--abort` deletes
 *   it; a rerun of the `tier add` pins it instead;
 * - a journal that cannot be read (torn by a power loss, or another version's): reported with what to look at, never
 *   read as "nothing half done"; `--abort` removes it.
 */
import { existsSync, renameSync, unlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { readHeadRef, readUserIndex, swapRef, updateUserIndex } from '../adapters/git/commit.js'
import { gitAsync, tryGitAsync } from '../adapters/git/run.js'
import type { Git } from '../adapters/git/simple.js'
import { findGitDirs } from '../adapters/git/locate.js'
import { clearStaleIndexLock } from '../adapters/git/index-lock.js'
import { onThisSide } from '../adapters/state/process-tag.js'
import {
  isProcessAlive,
  readBranchLock,
  readJournals,
  readTornJournals,
  removeJournal,
  scratchDir,
} from '../adapters/state/journal.js'
import type { Journal } from '../adapters/state/journal.js'
import { RecoveryNeededError } from '../core/errors.js'
import type { HalfDone } from '../core/errors.js'
import { STATES, STORE_DIR } from '../core/layout.js'
import { readOrphanTierRefs } from '../adapters/feed/tier-orphans.js'
import { bringInLine, holdsBlob, removeOwnTemporaries } from './transition.js'
import { makeDirs } from '../adapters/store/write-file.js'

/** A half-done state, and for an unfinished transition the journal it was found from. */
export type RecoveryProblem =
  | Exclude<HalfDone, { kind: 'unfinished' }>
  | (Extract<HalfDone, { kind: 'unfinished' }> & { file: string; journal: Journal })

const blocking = (p: RecoveryProblem) =>
  p.kind === 'index-lock' ||
  p.kind === 'ref-lock' ||
  p.kind === 'unfinished' ||
  p.kind === 'staged-move' ||
  p.kind === 'staged-removal'

async function landed(root: string, j: Journal): Promise<boolean> {
  return (await tryGitAsync(['merge-base', '--is-ancestor', j.commit, j.ref], { cwd: root })) !== undefined
}

/** How long a killed transition's own git processes may still be running: a ref update takes milliseconds. */
export const ORPHAN_GRACE_MS = 30_000

/** Whether an unlanded journal's commit could still land: the ref still holds `old` and the journal is young. */
async function mayStillLand(root: string, j: Journal): Promise<boolean> {
  if (Date.now() - Date.parse(j.started) > ORPHAN_GRACE_MS) return false
  const now = (await tryGitAsync(['rev-parse', '-q', '--verify', j.ref], { cwd: root }))?.toString().trim() || null
  return now === j.old
}

/** Whether the user's index and work tree hold what a journal's commit has at its paths. */
async function inLine(root: string, j: Journal): Promise<boolean> {
  const have = await readUserIndex(
    root,
    j.paths.map((p) => p.path),
  )
  for (const p of j.paths) {
    const e = have.get(p.path)
    if (p.entry ? e?.oid !== p.entry.oid : e !== undefined) return false
    if (p.entry ? !existsSync(join(root, p.path)) : existsSync(join(root, p.path))) return false
  }
  return true
}

/**
 * What is half done in this work tree. `staged` also reads the index for learnings staged and never committed (a
 * git process); without it only the lock and the journals are looked at (files, plus git only when a journal is left).
 * `tiers` (doctor) also looks for tier refs that no config.yaml names (git processes: never before a commit).
 */
export async function inspectRecovery(
  git: Git,
  opts: { staged: boolean; tiers?: boolean },
): Promise<RecoveryProblem[]> {
  const problems: RecoveryProblem[] = []
  const lock = join(git.gitDir, 'index.lock')
  if (existsSync(lock) && !clearStaleIndexLock(lock)) problems.push({ kind: 'index-lock', path: lock })
  const branchLock = readBranchLock(git.gitDir, git.commonDir)
  if (branchLock) problems.push({ kind: 'ref-lock', ...branchLock })
  let headRef: string | undefined
  for (const { file, journal } of readJournals(git.commonDir)) {
    if (journal.gitDir !== git.gitDir) {
      // A linked work tree removed since (`git worktree remove --force`, or its folder deleted and pruned) took its
      // index and HEAD with it: its commit is on its branch, and nothing is left that could follow it.
      if (!existsSync(journal.gitDir) && !isProcessAlive(journal.pid, journal.tag, file)) removeJournal(file)
      continue
    }
    if (isProcessAlive(journal.pid, journal.tag, file)) {
      // Of another side (a dev container and its host: process-tag.ts), its process cannot be asked from here.
      const elsewhere = !onThisSide(journal.tag)
      problems.push({
        kind: 'running',
        pid: journal.pid,
        subject: journal.subject,
        ...(elsewhere ? { elsewhere } : {}),
      })
      continue
    }
    // A journal is this work tree's only while it is on the branch the commit was made for. A `git switch` since, or
    // a new worktree given the git dir of a removed one (`git worktree add` reuses a free name), rebuilt the index
    // from the branch checked out now: following the commit here would stage another branch's move, and --abort
    // would move that other branch back. The branch has the commit; checking it out brings it.
    headRef ??= (await readHeadRef(git.root)) ?? 'HEAD'
    if (journal.ref !== headRef) {
      if ((await landed(git.root, journal)) || !(await mayStillLand(git.root, journal))) removeJournal(file)
      continue
    }
    if (!(await landed(git.root, journal))) {
      // Its process is gone, but a git it started may outlive it: an `update-ref` still moving the branch would land
      // the commit after we dropped the record that finishes it. While the ref still holds the value the commit was
      // built on and the journal is young, leave it; once the ref moved elsewhere, the compare-and-swap cannot land.
      if (!(await mayStillLand(git.root, journal))) removeJournal(file)
      continue
    }
    if (await inLine(git.root, journal)) {
      removeJournal(file)
      continue
    }
    problems.push({
      kind: 'unfinished',
      subject: journal.subject,
      commit: journal.commit,
      paths: journal.paths.map((p) => p.path),
      file,
      journal,
    })
  }
  // Not blocking: nothing can be finished from it; doctor says what to look at, and --abort removes it.
  if (opts.staged) for (const path of readTornJournals(git.commonDir)) problems.push({ kind: 'torn-journal', path })
  if (opts.staged)
    problems.push(
      ...(await readStagedStore(
        git.root,
        problems.flatMap((p) => (p.kind === 'unfinished' ? p.paths : [])),
      )),
    )
  if (opts.tiers)
    for (const o of await readOrphanTierRefs(git))
      problems.push({ kind: 'orphan-tier-ref', ref: o.ref, commit: o.commit })
  return problems
}

/**
 * Learnings staged in the index but not committed: moves between state directories, new files, removals. `mine`:
 * the paths of our unfinished transitions, whose index entries wait for `doctor --continue` (not a staged move).
 */
export async function readStagedStore(root: string, mine: Iterable<string> = []): Promise<RecoveryProblem[]> {
  const ours = new Set(mine)
  // Sample: "R100\0.learnings/pending/x.md\0.learnings/active/x.md\0A\0.learnings/pending/y.md\0"; fails on an unborn branch.
  const raw = await tryGitAsync(
    ['diff', '--cached', '--name-status', '-z', '-M', 'HEAD', '--', ...STATES.map((s) => `:(top)${STORE_DIR}/${s}`)],
    { cwd: root },
  )
  if (!raw) return []
  const out = raw.toString('utf8').split('\0')
  const found: RecoveryProblem[] = []
  for (let i = 0; i < out.length - 1;) {
    const status = out[i++] as string
    const a = out[i++] as string
    if (status.startsWith('R') || status.startsWith('C')) {
      const b = out[i++] as string
      if (!ours.has(a) && !ours.has(b) && status.startsWith('R')) found.push({ kind: 'staged-move', from: a, to: b })
    } else if (ours.has(a)) continue
    else if (status === 'A') found.push({ kind: 'staged-new', path: a })
    else if (status === 'D') found.push({ kind: 'staged-removal', path: a })
  }
  return found
}

/**
 * The paths of the transitions journaled for this work tree (files only, for read-only commands): while one is left,
 * its paths differ between HEAD and the index because the index has not followed its commit yet. Every journal of
 * the common dir when `gitDir` is unknown.
 */
export function readJournaledPaths(commonDir: string, gitDir: string | undefined): string[] {
  return readJournals(commonDir)
    .filter(({ journal }) => gitDir === undefined || journal.gitDir === gitDir)
    .flatMap(({ journal }) => journal.paths.map((p) => p.path))
}

/**
 * How long a lock of git's (index.lock, the branch's lock) is waited for before a lifecycle commit refuses over it: a
 * git beside us (an editor's `git status`, the user's `git add`) holds one for milliseconds, and one left by a killed
 * git stays. The transition waits as long for the index lock it takes.
 */
const LOCK_WAIT_MS = 3000

/**
 * Refuse to start a lifecycle commit over a half-done state (the problems and `git learn doctor` in the error). When
 * all there is are git's locks, they are waited for a moment first (LOCK_WAIT_MS).
 */
export async function assertNothingHalfDone(git: Git): Promise<void> {
  const deadline = Date.now() + LOCK_WAIT_MS
  for (;;) {
    const problems = (await inspectRecovery(git, { staged: true })).filter(blocking)
    if (!problems.length) return
    const locks = problems.flatMap((p) => (p.kind === 'index-lock' || p.kind === 'ref-lock' ? [p.path] : []))
    if (locks.length < problems.length) throw new RecoveryNeededError(problems.map(toHalfDone))
    while (locks.some((l) => existsSync(l))) {
      if (Date.now() > deadline) throw new RecoveryNeededError(problems.map(toHalfDone))
      await new Promise((r) => setTimeout(r, 50))
    }
  }
}

/**
 * A cheap look for every command (files only, git only when a journal is left): the problems to warn about, from
 * the repository around `cwd`; none outside a repository.
 */
export async function quickRecoveryCheck(
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<HalfDone[]> {
  const dirs = findGitDirs(cwd, env)
  if (!dirs) return []
  const git = { root: dirs.root, gitDir: dirs.gitDir, commonDir: dirs.commonDir } as Git
  return (await inspectRecovery(git, { staged: false })).filter(blocking).map(toHalfDone)
}

/** The problem without its journal (for messages and --json). */
export function toHalfDone(p: RecoveryProblem): HalfDone {
  if (p.kind !== 'unfinished') return p
  return { kind: p.kind, subject: p.subject, commit: p.commit, paths: p.paths }
}

/** Finish every unfinished transition: bring the index and work tree in line with its commit. */
export async function continueRecovery(
  git: Git,
  problems: readonly RecoveryProblem[],
): Promise<{ settled: RecoveryProblem[]; left: { problem: RecoveryProblem; paths: string[] }[] }> {
  const settled: RecoveryProblem[] = []
  const left: { problem: RecoveryProblem; paths: string[] }[] = []
  for (const p of problems) {
    if (p.kind !== 'unfinished') continue
    const rest = await bringInLine(
      git.root,
      p.journal.paths,
      async (oid) => gitAsync(['cat-file', 'blob', oid], { cwd: git.root }),
      { scratch: scratchDir(git.commonDir) },
    )
    if (rest.length) left.push({ problem: p, paths: rest })
    else {
      removeJournal(p.file)
      settled.push(p)
    }
  }
  return { settled, left }
}

/**
 * Undo: an unfinished transition's branch moves back to where it was (only if it still points at our commit: a
 * commit made on top of it is never thrown away) and its paths go back in the work tree and index (a moved file to
 * where it was, a replaced file to its old content, a created file removed; a path edited since is left); a staged move is
 * moved back and unstaged; a staged new learning is unstaged (its file is kept); a staged removal is unstaged and
 * its file restored; a tier ref that no config.yaml names is deleted (with `tiers`, also one that an undone `tier add`
 * leaves unpinned).
 */
export async function abortRecovery(
  git: Git,
  problems: readonly RecoveryProblem[],
  opts: { tiers?: boolean } = {},
): Promise<{ settled: RecoveryProblem[]; refused: { problem: RecoveryProblem; why: string }[] }> {
  const root = git.root
  const settled: RecoveryProblem[] = []
  const refused: { problem: RecoveryProblem; why: string }[] = []
  for (const p of problems) {
    if (p.kind === 'unfinished') {
      const j = p.journal
      const at = (await tryGitAsync(['rev-parse', '-q', '--verify', j.ref], { cwd: root }))?.toString('utf8').trim()
      if (at !== j.commit) {
        refused.push({ problem: p, why: 'other commits were made on top of it; finish it with --continue instead' })
        continue
      }
      const zero = '0'.repeat(j.commit.length)
      if (!(await swapRef(root, j.ref, j.old ?? zero, j.commit, zero, `git learn doctor --abort: ${j.subject}`))) {
        refused.push({ problem: p, why: 'the branch moved while undoing it; run `git learn doctor` again' })
        continue
      }
      // The work tree back, only where a path still holds exactly what was committed: a moved file goes back to
      // where it came from, a replaced file gets its old content back (below, from the index once it is reset), a
      // file the commit created is removed.
      const content = (oid: string) => gitAsync(['cat-file', 'blob', oid], { cwd: root })
      const replaced: string[] = []
      for (const e of j.paths) {
        if (!e.entry) continue
        const abs = join(root, e.path)
        await removeOwnTemporaries(abs, () => content((e.entry as { oid: string }).oid))
        if (!existsSync(abs)) continue
        if (!(await holdsBlob(root, e.path, e.entry.oid, content))) continue
        if (e.from) {
          if (existsSync(join(root, e.from))) continue
          makeDirs(dirname(join(root, e.from)))
          renameSync(abs, join(root, e.from))
        } else if (e.was) replaced.push(e.path)
        else unlinkSync(abs)
      }
      if (j.old)
        await gitAsync(['reset', '-q', j.old, '--', ...j.paths.map((e) => `:(top,literal)${e.path}`)], { cwd: root })
      else
        await updateUserIndex(
          root,
          j.paths.map((e) => ({ path: e.path, entry: null })),
          zero,
        )
      // The index now holds the old blob of a replaced file: checked out from there, as git writes it (its
      // attributes and line endings), with the index's stat data recorded.
      if (replaced.length)
        await gitAsync(['checkout', '-q', '--', ...replaced.map((p) => `:(top,literal)${p}`)], { cwd: root })
      removeJournal(p.file)
      settled.push(p)
    } else if (p.kind === 'staged-move') {
      if (existsSync(join(root, p.to)) && !existsSync(join(root, p.from))) {
        makeDirs(dirname(join(root, p.from)))
        renameSync(join(root, p.to), join(root, p.from))
      }
      await gitAsync(['reset', '-q', 'HEAD', '--', `:(top,literal)${p.from}`, `:(top,literal)${p.to}`], { cwd: root })
      settled.push(p)
    } else if (p.kind === 'staged-new' || p.kind === 'staged-removal') {
      await gitAsync(['reset', '-q', 'HEAD', '--', `:(top,literal)${p.path}`], { cwd: root })
      if (p.kind === 'staged-removal' && !existsSync(join(root, p.path)))
        await gitAsync(['checkout', 'HEAD', '--', `:(top,literal)${p.path}`], { cwd: root })
      settled.push(p)
    } else if (p.kind === 'torn-journal') {
      removeJournal(p.path)
      settled.push(p)
    } else if (p.kind === 'orphan-tier-ref') {
      // Only while it still points where it did: a `tier add` fetching into it now, or since, keeps its ref.
      if ((await tryGitAsync(['update-ref', '-d', p.ref, p.commit], { cwd: root })) === undefined)
        refused.push({ problem: p, why: 'it moved while undoing it; run `git learn doctor` again' })
      else settled.push(p)
    }
  }
  // An undone `tier add` (its config.yaml put back) leaves its fetch unpinned: with `tiers`, that ref goes too.
  if (opts.tiers && settled.some((p) => p.kind === 'unfinished')) {
    const known = new Set(problems.map((p) => (p.kind === 'orphan-tier-ref' ? p.ref : '')))
    const left = (await readOrphanTierRefs(git)).filter((o) => !known.has(o.ref))
    const more = await abortRecovery(
      git,
      left.map((o) => ({ kind: 'orphan-tier-ref', ref: o.ref, commit: o.commit })),
    )
    settled.push(...more.settled)
    refused.push(...more.refused)
  }
  return { settled, refused }
}
