/**
 * Lifecycle commits that contain only the learning's own paths. `git commit --only -- <paths>` commits exactly
 * those paths from the work tree and leaves the rest of the index as it was (git-commit(1), "--only"), so a file
 * the user staged stays staged and out of our commit. On failure (a user's hook refuses, no identity) the index
 * and work tree are put back before the error travels on.
 */
import { existsSync, mkdirSync, readdirSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { RefusedError, UncommittedLearningError } from '../../core/errors.js'
import { assertNoSecretInMessage } from '../../core/trailers.js'
import type { Git } from './simple.js'

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

/** Commit `paths` only, with `message`; returns the new commit id. */
export async function commitOnly(git: Git, paths: readonly string[], message: string): Promise<string> {
  // Last line of defence: a reason or an origin with a credential in it never reaches a commit message.
  assertNoSecretInMessage(message, 'the commit message')
  await git.run(['commit', '--quiet', '--only', '-m', message, '--', ...paths])
  await settle(git, paths)
  return (await git.run(['rev-parse', 'HEAD'])).trim()
}

/**
 * After our commit, the index and work tree of its paths equal the commit, whatever the user's pre-commit did: a
 * formatter run by lint-staged rewrites the file in git's temporary index and the work tree, while `--only` puts the
 * real index back as it was before the hook ran (status `MM`, and the next checkout refuses). The paths were clean
 * before the command started, so what differs now came from the commit or the hook.
 */
async function settle(git: Git, paths: readonly string[]): Promise<void> {
  await git.run(['reset', '--quiet', 'HEAD', '--', ...paths])
  const differ = (await git.run(['diff', '--name-only', '-z', 'HEAD', '--', ...paths])).split('\0').filter(Boolean)
  if (differ.length) await git.run(['checkout', '--quiet', 'HEAD', '--', ...differ])
}

/**
 * A move commits the reviewed bytes or nothing: when the user's pre-commit hook (a formatter) rewrote a moved file,
 * the commit is taken back (index and work tree as before the command) and the command refuses, naming the way out.
 */
async function assertMovedAsReviewed(git: Git, moves: readonly { from: string; to: string }[], before: readonly string[]): Promise<void> {
  const after = await Promise.all(moves.map(async (m) => (await git.run(['rev-parse', `HEAD:${m.to}`])).trim()))
  const rewritten = moves.filter((_, i) => after[i] !== before[i])
  if (!rewritten.length) return
  await git.run(['reset', '--quiet', '--soft', 'HEAD^'])
  await git.run(['reset', '--quiet', 'HEAD', '--', ...moves.flatMap((m) => [m.from, m.to])])
  await git.run(['checkout', '--quiet', 'HEAD', '--', ...moves.map((m) => m.from)])
  for (const m of moves) if (existsSync(join(git.root, m.to))) unlinkSync(join(git.root, m.to))
  throw new RefusedError(
    `a pre-commit hook rewrote ${rewritten.map((m) => m.from).join(', ')} while git learn moved it, so what would reach ${rewritten.map((m) => dirname(m.to)).join(', ')} is not what was reviewed; nothing was committed`,
    [
      'format the learning in its own commit first (your formatter, then `git commit`), and have it reviewed as formatted, or',
      'let the formatter skip the store: add .learnings/ to .prettierignore (or to lint-staged\'s ignore)',
    ],
  )
}

/** The blob ids of the moves' sources in HEAD, to compare with what the move commits. */
async function blobsAt(git: Git, paths: readonly string[]): Promise<string[]> {
  return Promise.all(paths.map(async (p) => (await git.run(['rev-parse', `HEAD:${p}`])).trim()))
}

function ensureDir(root: string, dir: string): string[] {
  const created: string[] = []
  let d = dir
  while (!existsSync(join(root, d))) {
    created.unshift(d)
    d = dirname(d)
  }
  if (created.length) mkdirSync(join(root, dir), { recursive: true })
  return created
}

function removeEmptyDirs(root: string, dirs: readonly string[]): void {
  for (const d of [...dirs].reverse()) {
    try {
      if (readdirSync(join(root, d)).length === 0) rmdirSync(join(root, d))
    } catch {
      /* already gone */
    }
  }
}

/** `git mv from to` and a commit of both paths; undone (index and work tree) when the commit fails. */
export async function commitMove(git: Git, from: string, to: string, message: string): Promise<string> {
  const created = ensureDir(git.root, dirname(to))
  try {
    await git.run(['mv', '--', from, to])
  } catch (err) {
    removeEmptyDirs(git.root, created)
    throw err
  }
  let before: string[]
  try {
    before = await blobsAt(git, [from])
    const commit = await commitOnly(git, [from, to], message)
    await assertMovedAsReviewed(git, [{ from, to }], before)
    return commit
  } catch (err) {
    if (err instanceof RefusedError) {
      removeEmptyDirs(git.root, created)
      throw err
    }
    await git.run(['mv', '--', to, from])
    removeEmptyDirs(git.root, created)
    throw err
  }
}

/** `git mv` each move, then one commit of all their paths; every move is undone (in reverse) when a step fails. */
export async function commitMoves(git: Git, moves: readonly { from: string; to: string }[], message: string): Promise<string> {
  const created: string[] = []
  const done: { from: string; to: string }[] = []
  const undo = async () => {
    for (const m of [...done].reverse()) await git.run(['mv', '--', m.to, m.from])
    removeEmptyDirs(git.root, created)
  }
  try {
    for (const m of moves) {
      created.push(...ensureDir(git.root, dirname(m.to)))
      await git.run(['mv', '--', m.from, m.to])
      done.push(m)
    }
  } catch (err) {
    await undo()
    throw err
  }
  try {
    const before = await blobsAt(git, moves.map((m) => m.from))
    const commit = await commitOnly(git, moves.flatMap((m) => [m.from, m.to]), message)
    await assertMovedAsReviewed(git, moves, before)
    return commit
  } catch (err) {
    if (err instanceof RefusedError) {
      removeEmptyDirs(git.root, created)
      throw err
    }
    await undo()
    throw err
  }
}

/** Write a new file, stage it and (unless `commit` is false) commit it alone; undone when any step fails. */
export async function commitNewFile(git: Git, path: string, text: string, message: string, commit: boolean): Promise<string | null> {
  const created = ensureDir(git.root, dirname(path))
  const file = join(git.root, path)
  writeFileSync(file, text, { flag: 'wx' })
  try {
    await git.run(['add', '--', path])
    if (!commit) return null
    return await commitOnly(git, [path], message)
  } catch (err) {
    await git.tryRun(['rm', '--cached', '--quiet', '--force', '--', path])
    unlinkSync(file)
    removeEmptyDirs(git.root, created)
    throw err
  }
}

/** Write several new files, stage them and commit them alone in one commit; all undone when any step fails. */
export async function commitNewFiles(git: Git, files: readonly { path: string; text: string }[], message: string): Promise<string> {
  const created: string[] = []
  const written: string[] = []
  try {
    for (const f of files) {
      created.push(...ensureDir(git.root, dirname(f.path)))
      writeFileSync(join(git.root, f.path), f.text, { flag: 'wx' })
      written.push(f.path)
    }
    await git.run(['add', '--', ...written])
    return await commitOnly(git, written, message)
  } catch (err) {
    if (written.length) await git.tryRun(['rm', '--cached', '--quiet', '--force', '--ignore-unmatch', '--', ...written])
    for (const p of written) unlinkSync(join(git.root, p))
    removeEmptyDirs(git.root, created)
    throw err
  }
}
