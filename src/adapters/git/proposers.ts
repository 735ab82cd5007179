/**
 * Who proposed a learning, by the record of a commit's history, for the distinct-approver rule of the commit-msg hook
 * and `check --base` (core/check.ts `ApprovalRecord`): read as `git learn approve` reads it (src/flows/move.ts).
 */
import { learningPath } from '../../core/layout.js'
import { RAW_LOG_FORMAT, parseRawLog, proposersOf } from '../../core/trailers.js'
import { PARSED_LOG, runGitSync } from './run.js'
import type { Env } from './run.js'

/**
 * The proposers of `name` in the history of `head`: the `Proposed-by`/`Restored-by` of every commit that added its
 * pending file, else that commit's author (a `git revert` of its approval, or of a reject, puts it back too). None on
 * an unborn branch. --full-history: both sides of a merge, as approve reads them.
 */
export function readProposers(root: string, env: Env, head: string, name: string): string[] {
  const r = runGitSync(
    [
      ...PARSED_LOG,
      '--full-history',
      '--diff-filter=A',
      `--format=${RAW_LOG_FORMAT}`,
      head,
      '--',
      learningPath('pending', name),
    ],
    { cwd: root, env },
  )
  return r.code === 0 ? proposersOf(name, parseRawLog(r.stdout.toString('utf8'))) : []
}
