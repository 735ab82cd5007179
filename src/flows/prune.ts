/**
 * `git learn prune`: which active learnings to archive and why — named by hand, or found from the feed cache (one
 * file, not 10,000), the approval dates of one `git log` and the usage summary — and, with `yes`, one commit each.
 */
import { assertNoOperationInProgress, assertStoreCheckedOut, readHead, readIdentity } from '../adapters/git/simple.js'
import type { Git } from '../adapters/git/simple.js'
import { assertPathClean } from '../adapters/git/commit.js'
import { PARSED_LOG } from '../adapters/git/run.js'
import { commitTransition } from './transition.js'
import { assertNothingHalfDone } from './recovery.js'
import { readEvents, readUsageLog } from '../adapters/state/events.js'
import { openRepo } from '../adapters/store/repo.js'
import { readProjectFeed } from '../adapters/feed/search-index.js'
import { readLearning } from '../adapters/store/store.js'
import type { Config } from '../core/config-schema.js'
import { STORE_DIR, learningPath } from '../core/learning.js'
import { MOVES, planTransition } from '../core/lifecycle.js'
import {
  buildSupersededBy,
  formatPruneReason,
  planActiveSince,
  planPrune,
  tallyFromTotals,
  tallyUsageEvent,
  totalsSuffice,
} from '../core/prune.js'
import type { PruneCandidate, PruneFacts, PruneReason, UsageTally } from '../core/prune.js'
import { isoTime } from '../core/iso-time.js'
import { COMMITTED_LOG_FORMAT, buildCommitMessage, parseAuditTrail, parseRawLog } from '../core/trailers.js'

export interface PruneOptions {
  /** Learnings named by hand (retired with `reason`); none: find the candidates. */
  names: readonly string[]
  reason: string | undefined
  /** Archive them now, one commit each. */
  yes: boolean
  now: Date
  /** An active learning file that could not be read (skipped). */
  unreadable: (path: string, reason: string) => void
}

export interface PrunedMove {
  name: string
  from: 'active'
  to: 'archived'
  path: string
  commit: string
}

export interface PruneOutcome {
  candidates: PruneCandidate[]
  pruned: PrunedMove[]
  /**
   * A shallow clone's learnings that only their `created` date makes candidates: their approval is past the cut, so
   * how long they have been active is unknown. Neither proposed nor archived; `git fetch --unshallow` dates them.
   */
  heldBack: PruneCandidate[]
  shallow: boolean
  settings: Config['prune']
}

/**
 * The date each learning last entered active/, from the audit trail (newest first, so the first one wins): the
 * committer date, when the approval reached the branch (a rebase or cherry-pick keeps the author's, months old).
 */
async function readApprovalDates(git: Git): Promise<Map<string, string>> {
  // Before the first commit there is no trail, and `git log` fails on the unborn branch: no dates, as when shallow.
  if ((await readHead(git)) === undefined) return new Map()
  // --full-history: without it a merge whose active/ equals its first parent's hides a re-approval on the other side.
  const out = await git.run([
    ...PARSED_LOG,
    '--full-history',
    `--format=${COMMITTED_LOG_FORMAT}`,
    '--',
    '.learnings/active',
  ])
  const dates = new Map<string, string>()
  for (const e of parseAuditTrail(parseRawLog(out)))
    if (e.to === 'active' && !dates.has(e.name)) dates.set(e.name, e.date)
  return dates
}

export async function prune(cwd: string, opts: PruneOptions): Promise<PruneOutcome> {
  const repo = await openRepo(cwd)
  const { git } = repo
  if (opts.yes) {
    assertNoOperationInProgress(git)
    await assertNothingHalfDone(git)
    await assertStoreCheckedOut(git)
  }
  const config = await repo.config()
  let shallow = false
  let candidates: PruneCandidate[]
  const heldBack: PruneCandidate[] = []

  if (opts.names.length) {
    candidates = []
    for (const name of new Set(opts.names)) {
      planTransition(name, readLearning(git.root, name).state, 'prune')
      const reasons: PruneReason[] = [{ kind: 'manual', text: opts.reason ?? '' }]
      candidates.push({ name, reasons, reason: formatPruneReason(reasons) })
    }
  } else {
    // The active learnings from the feed cache (one file, not 10,000), the approval dates from one `git log`,
    // the usage from the usage-summary cache (only the events appended since it was written are read).
    const activeDir = `${STORE_DIR}/active/`
    const [feed, isShallow] = await Promise.all([
      readProjectFeed(git.root),
      git.run(['rev-parse', '--is-shallow-repository']),
    ])
    for (const p of feed.problems) if (p.path.startsWith(activeDir)) opts.unreadable(p.path, p.reason)
    const active = feed.rows.filter((r) => r.row.state === 'active')
    shallow = isShallow.trim() === 'true'
    // A shallow clone holds the approvals since its cut (the newest of each, the one that counts, when it is there):
    // they are used, and `created` stands in only for a learning approved before the cut.
    const approvals = await readApprovalDates(git)
    const since = new Map<string, number>()
    const base = active.map(({ row, created }) => {
      const { activeSince, activeSinceFrom } = planActiveSince(approvals.get(row.name), created, opts.now)
      const start = activeSince === null ? NaN : isoTime(activeSince)
      if (!Number.isNaN(start)) since.set(row.name, start)
      return { name: row.name, activeSince, activeSinceFrom }
    })
    const tallies = new Map<string, UsageTally>()
    if (totalsSuffice(config.prune.min_matches)) {
      const { totals } = readUsageLog(git.commonDir)
      for (const [name, start] of since) {
        const t = tallyFromTotals(totals.get(name), start)
        if (t) tallies.set(name, t)
      }
    } else for await (const e of readEvents(git.commonDir)) tallyUsageEvent(tallies, since, e)
    const supersededBy = buildSupersededBy(active.map((r) => ({ name: r.row.name, supersedes: r.supersedes })))
    const facts: PruneFacts[] = base.map((b) => ({
      ...b,
      lastUsed: tallies.get(b.name)?.lastUsed ?? null,
      matches: tallies.get(b.name)?.matches ?? 0,
      supersededBy: supersededBy.get(b.name) ?? [],
    }))
    candidates = planPrune(facts, config.prune, opts.now)
    // In a shallow clone a learning approved before the cut has only its `created` date, which may be long before its
    // approval (a scheduled prune in CI with fetch-depth: 1 would archive last week's approvals). The reasons that
    // count days (unused, rarely matched) do not stand on it: such a learning is held back, or kept for its
    // date-free reason alone (superseded).
    if (shallow) {
      // Undated: no approval in the clone. One it holds, behind a later `created` (planActiveSince), is dated.
      const undated = new Set(base.filter((b) => !approvals.has(b.name)).map((b) => b.name))
      candidates = candidates.flatMap((c) => {
        if (!undated.has(c.name)) return [c]
        const reasons = c.reasons.filter((r) => r.kind === 'superseded')
        if (!reasons.length) {
          heldBack.push(c)
          return []
        }
        return [{ name: c.name, reasons, reason: formatPruneReason(reasons) }]
      })
    }
  }

  const pruned: PrunedMove[] = []
  if (opts.yes && candidates.length) {
    const identity = await readIdentity(git)
    for (const c of candidates) await assertPathClean(git, c.name, learningPath('active', c.name))
    for (const c of candidates) {
      const from = learningPath('active', c.name)
      const to = learningPath('archived', c.name)
      const message = buildCommitMessage({
        action: 'prune',
        names: [c.name],
        from: 'active',
        to: 'archived',
        by: { token: MOVES.prune.by, value: identity },
        reason: c.reason,
      })
      const commit = await commitTransition(git, [{ kind: 'move', from, to }], message)
      pruned.push({ name: c.name, from: 'active', to: 'archived', path: to, commit })
    }
  }
  return { candidates, pruned, heldBack, shallow, settings: config.prune }
}
