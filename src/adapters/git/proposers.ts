/**
 * Who proposed a learning, by the record of a commit's history, for the distinct-approver rule of the commit-msg hook
 * and `check --base` (core/check.ts `ApprovalRecord`): read as `git learn approve` reads it (src/flows/move.ts).
 */
import { learningPath, parseStorePath } from '../../core/layout.js'
import { RAW_LOG_FORMAT, proposersOf } from '../../core/trailers.js'
import type { RawCommit } from '../../core/trailers.js'
import { PARSED_LOG, runGitSync } from './run.js'
import type { Env } from './run.js'

/** More names than this are asked of git as the whole pending/ folder (one argument), as a transition asks its paths. */
const MANY = 64

/**
 * The proposers of each of `names` in the history of `head`: the `Proposed-by`/`Restored-by` of every commit that added
 * its pending file, else that commit's author (a `git revert` of its approval, or of a reject, puts it back too). One
 * `git log` for all of them (a range that approves a hundred learnings asks git once, not a hundred times), read at
 * the first question; none on an unborn branch. --full-history: both sides of a merge, as approve reads them.
 */
export function proposerReader(
  root: string,
  env: Env,
  head: string,
  names: readonly string[],
): (name: string) => string[] {
  const listed = new Set(names)
  let batch: Map<string, string[]> | undefined
  return (name) =>
    listed.has(name)
      ? ((batch ??= readProposers(root, env, head, [...listed])).get(name) ?? [])
      : (readProposers(root, env, head, [name]).get(name) ?? [])
}

function readProposers(root: string, env: Env, head: string, names: readonly string[]): Map<string, string[]> {
  const found = new Map<string, string[]>()
  if (!names.length) return found
  const paths = names.length > MANY ? ['.learnings/pending'] : names.map((n) => learningPath('pending', n))
  // Each commit as RAW_LOG_FORMAT after a record mark, then the pending files it added (--name-only, one a line).
  const r = runGitSync(
    [
      ...PARSED_LOG,
      '--full-history',
      '--diff-filter=A',
      '--name-only',
      `--format=%x1d${RAW_LOG_FORMAT}`,
      head,
      '--',
      ...paths,
    ],
    { cwd: root, env },
  )
  if (r.code !== 0) return found
  const wanted = new Set(names)
  for (const record of r.stdout.toString('utf8').split('\x1d')) {
    const end = record.indexOf('\x1e')
    if (end < 0) continue
    const [commit = '', date = '', author = '', message = ''] = record.slice(0, end).split('\x1f')
    const raw: RawCommit = { commit, date, author, message }
    for (const line of record.slice(end + 1).split('\n')) {
      const name = parseStorePath(line)?.name
      if (name === undefined || !wanted.has(name)) continue
      found.set(name, [...(found.get(name) ?? []), ...proposersOf(name, [raw])])
    }
  }
  return found
}
