/** The note of what a crash or a killed command left half done, for main and for the hooks' refusals. */
import type { Ctx } from './context.js'

/**
 * Warn on stderr when a lock or an interrupted transition is left (files only; git only when there is one). With
 * `unfinished`, only the transitions whose commit landed and whose index did not follow, said as the cause of the
 * staged changes a hook refused (a `git commit` after a killed `git learn approve` shows its move reversed).
 */
export async function noteHalfDone(ctx: Ctx, only?: 'unfinished'): Promise<void> {
  try {
    const { findGitDirs } = await import('../adapters/git/locate.js')
    const dirs = findGitDirs(ctx.cwd, ctx.env)
    if (!dirs || !(await import('../adapters/state/journal.js')).mayBeHalfDone(dirs.gitDir, dirs.commonDir)) return
    const { quickRecoveryCheck } = await import('../flows/recovery.js')
    const problems = (await quickRecoveryCheck(ctx.cwd, ctx.env)).filter((p) => !only || p.kind === only)
    if (!problems.length) return
    const { halfDoneNote, unfinishedBeforeCommit } = await import('./messages/recovery.js')
    ctx.stderr(only ? unfinishedBeforeCommit(problems) : halfDoneNote(problems))
  } catch {
    // A warning only: the command itself reports what is wrong with the repository.
  }
}
