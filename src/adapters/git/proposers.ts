/**
 * Who proposed a learning, by the record of a commit's history, for the distinct-approver rule of `git learn approve`
 * (src/flows/move.ts), the commit-msg hook and `check --base` (core/check.ts `ApprovalRecord`).
 */
import { GitCommandError } from '../../core/errors.js'
import { STATES, learningPath, parseStorePath } from '../../core/layout.js'
import { RAW_LOG_FORMAT, proposalRecord } from '../../core/trailers.js'
import type { ProposalRecord, RawCommit } from '../../core/trailers.js'
import { PARSED_LOG, runGitSync } from './run.js'
import type { Env } from './run.js'
import { readShallowCommitsAt } from './shallow.js'

/** More names than this are asked of git as whole folders (one argument each), as a transition asks its paths. */
const MANY = 64

/** The questions the distinct-approver rule asks of the history, answered from one `git log` at the first of them. */
export interface ProposerReader {
  proposers(name: string): string[]
  /** Whether the clone is shallow and its history cut before the learning's beginning: a proposer may be missing. */
  cutShort(name: string): boolean
}

/**
 * The proposers of each of `names` in the history of `head`: the `Proposed-by`/`Restored-by` of every commit that added
 * its pending file, else that commit's author (a `git revert` of its approval, or of a reject, puts it back too). One
 * `git log` for all of them (a range that approves a hundred learnings asks git once, not a hundred times), read at
 * the first question; none on an unborn branch. --full-history: both sides of a merge, as approve reads them.
 */
export function proposerReader(root: string, env: Env, head: string, names: readonly string[]): ProposerReader {
  const listed = new Set(names)
  let batch: Map<string, ProposalRecord> | undefined
  const record = (name: string) =>
    (listed.has(name)
      ? (batch ??= readProposalRecords(root, env, head, [...listed])).get(name)
      : readProposalRecords(root, env, head, [name]).get(name)) ?? { proposers: [], complete: true }
  return { proposers: (name) => record(name).proposers, cutShort: (name) => !record(name).complete }
}

/**
 * The proposal record of each of `names` in the history of `head` (core/trailers.ts proposalRecord). In a shallow
 * clone the log also asks for the learnings' active/ and archived/ files, to find the boundary commits that hold them.
 * --no-renames: a pending file restored from archived/ is an add of it, with both folders asked as without them.
 */
export function readProposalRecords(
  root: string,
  env: Env = process.env,
  head: string,
  names: readonly string[],
  /** Throw git's failure (approve's own reading) rather than answer "nobody" (the hooks', on an unborn branch too). */
  strict = false,
): Map<string, ProposalRecord> {
  const found = new Map<string, ProposalRecord>()
  if (!names.length) return found
  const shallow = readShallowCommitsAt(root, env)
  const states = shallow.size ? STATES : (['pending'] as const)
  const paths =
    names.length > MANY
      ? states.map((s) => `.learnings/${s}`)
      : names.flatMap((n) => states.map((s) => learningPath(s, n)))
  // Each commit as RAW_LOG_FORMAT after a record mark, then the files it added (--name-only, one a line).
  const args = [
    ...PARSED_LOG,
    '--full-history',
    '--no-renames',
    '--diff-filter=A',
    '--name-only',
    `--format=%x1d${RAW_LOG_FORMAT}`,
    head,
    '--',
    ...paths,
  ]
  const r = runGitSync(args, { cwd: root, env })
  if (r.code !== 0) {
    if (strict) throw new GitCommandError(args, r.stderr || `(git exited with code ${r.code})`)
    return found
  }
  const wanted = new Set(names)
  const proposed = new Map<string, RawCommit[]>()
  const held = new Map<string, string[]>()
  for (const record of r.stdout.toString('utf8').split('\x1d')) {
    const end = record.indexOf('\x1e')
    if (end < 0) continue
    const [commit = '', date = '', author = '', message = ''] = record.slice(0, end).split('\x1f')
    const raw: RawCommit = { commit, date, author, message }
    for (const line of record.slice(end + 1).split('\n')) {
      const at = parseStorePath(line)
      if (at === undefined || !wanted.has(at.name)) continue
      if (at.state === 'pending') proposed.set(at.name, [...(proposed.get(at.name) ?? []), raw])
      if (shallow.has(commit)) held.set(at.name, [...(held.get(at.name) ?? []), commit])
    }
  }
  for (const name of names)
    found.set(name, proposalRecord(name, proposed.get(name) ?? [], shallow, held.get(name) ?? []))
  return found
}
