import { assertNoOperationInProgress, readIdentity } from '../../adapters/git/simple.js'
import type { Git } from '../../adapters/git/simple.js'
import { assertPathClean, commitMove } from '../../adapters/git/commit.js'
import { readEvents, readUsageLog } from '../../adapters/state/events.js'
import { openRepo } from '../../adapters/store/repo.js'
import { readProjectFeed } from '../../adapters/feed/search-index.js'
import { readLearning } from '../../adapters/store/store.js'
import { UsageError } from '../../core/errors.js'
import { STORE_DIR, learningPath } from '../../core/learning.js'
import { MOVES, planTransition } from '../../core/lifecycle.js'
import { buildSupersededBy, daysSince, planPrune, tallyFromTotals, tallyUsageEvent, totalsSuffice } from '../../core/prune.js'
import type { PruneCandidate, PruneFacts, UsageTally } from '../../core/prune.js'
import { RAW_LOG_FORMAT, buildCommitMessage, parseAuditTrail, parseRawLog } from '../../core/trailers.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { warnUnreadable } from '../messages/lifecycle.js'
import { pruneReport, shallowWarning } from '../messages/scale.js'
import type { MoveResult } from '../messages/lifecycle.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'prune',
  summary: 'Propose (and with --yes commit) archiving active learnings that are unused, rarely matched or superseded.',
  usage: 'git learn prune [--yes] [--json]   or   git learn prune <name>… --reason "…" [--yes] [--json]',
  details:
    'Without names: a report of the active learnings to archive, each with its reason — unused for prune.after_days\n' +
    '(last use from the usage log, else the approval date from git history), matched fewer than prune.min_matches\n' +
    'times since approval, or listed in another active learning\'s `supersedes`. With names: retire those active\n' +
    'learnings, with --reason. Nothing changes without --yes; with it, one commit per learning (Learning-Action: prune,\n' +
    'Pruned-by, Learning-Reason). `git learn restore <name>` brings a pruned learning back to pending.',
  options: {
    yes: { type: 'boolean', short: 'y', description: 'archive them now: one commit per learning' },
    reason: { type: 'string', value: 'text', description: 'why the named learnings are retired (required with names)' },
    json: { type: 'boolean', description: 'print {"candidates":[{name,reason,reasons,path}],"pruned":[…],"shallow":bool,"dryRun":bool}' },
  },
  positionals: { min: 0, max: 1000, names: '<name>…' },
}

/** The date each learning last entered active/, from the audit trail (newest first, so the first one wins). */
async function readApprovalDates(git: Git): Promise<Map<string, string>> {
  const out = await git.run(['log', `--format=${RAW_LOG_FORMAT}`, '--', '.learnings/active'])
  const dates = new Map<string, string>()
  for (const e of parseAuditTrail(parseRawLog(out))) if (e.to === 'active' && !dates.has(e.name)) dates.set(e.name, e.date)
  return dates
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const json = flag(args, 'json')
  const yes = flag(args, 'yes')
  const reasonOpt = stringOpt(args, 'reason')?.trim()
  const repo = await openRepo(ctx.cwd)
  const { git } = repo
  if (yes) assertNoOperationInProgress(git)
  const config = await repo.config()
  let shallow = false
  let candidates: PruneCandidate[]

  if (args.positionals.length) {
    if (!reasonOpt) throw new UsageError('--reason "…" is required when you name learnings to retire: say why', 'prune')
    candidates = []
    for (const name of new Set(args.positionals)) {
      planTransition(name, readLearning(git.root, name).state, 'prune')
      candidates.push({ name, reasons: [], reason: reasonOpt })
    }
  } else {
    if (reasonOpt) throw new UsageError('--reason goes with named learnings: `git learn prune <name>… --reason "…"`', 'prune')
    // The active learnings from the feed cache (one file, not 10,000), the approval dates from one `git log`,
    // the usage from the usage-summary cache (only the events appended since it was written are read).
    const activeDir = `${STORE_DIR}/active/`
    const [feed, isShallow] = await Promise.all([readProjectFeed(git.root), git.run(['rev-parse', '--is-shallow-repository'])])
    for (const p of feed.problems) if (p.path.startsWith(activeDir)) ctx.stderr(warnUnreadable(p.path, p.reason))
    const active = feed.rows.filter((r) => r.row.state === 'active')
    shallow = isShallow.trim() === 'true'
    if (shallow && !json) ctx.stderr(shallowWarning())
    const approvals = shallow ? new Map<string, string>() : await readApprovalDates(git)
    const since = new Map<string, number>()
    const base = active.map(({ row, created }) => {
      const approved = approvals.get(row.name)
      const activeSince = approved ?? created
      const from: PruneFacts['activeSinceFrom'] = approved ? 'approval' : created ? 'created' : 'unknown'
      if (activeSince !== null && daysSince(activeSince, ctx.now()) !== undefined)
        since.set(row.name, Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(activeSince) ? `${activeSince}T00:00:00Z` : activeSince))
      return { name: row.name, activeSince, activeSinceFrom: from }
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
    candidates = planPrune(facts, config.prune, ctx.now())
  }

  const pruned: MoveResult[] = []
  if (yes && candidates.length) {
    const identity = await readIdentity(git)
    for (const c of candidates) await assertPathClean(git, c.name, learningPath('active', c.name))
    for (const c of candidates) {
      const from = learningPath('active', c.name)
      const to = learningPath('archived', c.name)
      const message = buildCommitMessage({ action: 'prune', names: [c.name], from: 'active', to: 'archived', by: { token: MOVES.prune.by, value: identity }, reason: c.reason })
      const commit = await commitMove(git, from, to, message)
      pruned.push({ name: c.name, from: 'active', to: 'archived', path: to, commit })
    }
  }
  const rows = candidates.map((c) => ({ name: c.name, reason: c.reason, reasons: c.reasons, path: learningPath('active', c.name) }))
  if (json) ctx.stdout(`${JSON.stringify({ candidates: rows, pruned, shallow, dryRun: !yes })}\n`)
  else ctx.stdout(pruneReport(rows, pruned, { yes, named: args.positionals.length > 0, settings: config.prune }))
  if (pruned.length) await (await import('../refresh.js')).refreshRendered(ctx, 'prune')
  return ExitCode.ok
}
