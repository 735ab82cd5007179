/**
 * Lifecycle commits that contain only the learning's own paths. `git commit --only -- <paths>` commits exactly
 * those paths from the work tree and leaves the rest of the index as it was (git-commit(1), "--only"), so a file
 * the user staged stays staged and out of our commit. On failure (a user's hook refuses, no identity) the index
 * and work tree are put back before the error travels on.
 */
import { existsSync, mkdirSync, readdirSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { UncommittedLearningError } from '../../core/errors.js'
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
  return (await git.run(['rev-parse', 'HEAD'])).trim()
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
  try {
    return await commitOnly(git, [from, to], message)
  } catch (err) {
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
    return await commitOnly(git, moves.flatMap((m) => [m.from, m.to]), message)
  } catch (err) {
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
