/**
 * Lifecycle commits on a detached HEAD (a checkout of a tag or a commit, a bisect): the commit is made as git makes
 * one there, and it is on no branch, so switching away leaves it behind. `git commit` says `[detached HEAD …]`; ours
 * print no such line, so the command says it, with the commit and the command that keeps it.
 */
import { readHeadState } from '../adapters/git/commit.js'
import type { Ctx } from './context.js'
import { detachedCommits } from './messages/lifecycle.js'

/**
 * After a command committed `commits` (null for none made): when HEAD is detached, the warning on stderr and
 * `{ detached: true }` for its --json; `{}` otherwise (also when nothing was committed).
 */
export async function noteDetached(
  ctx: Ctx,
  commits: readonly (string | null | undefined)[],
): Promise<{ detached?: true }> {
  const made = commits.filter((c): c is string => !!c)
  if (!made.length || (await readHeadState(ctx.cwd)).ref !== undefined) return {}
  ctx.stderr(detachedCommits(made))
  return { detached: true }
}
