import { UsageError } from '../../core/errors.js'
import { learningPath } from '../../core/learning.js'
import { prune } from '../../flows/prune.js'
import { ExitCode } from '../context.js'
import { noteDetached } from '../detached.js'
import type { Ctx } from '../context.js'
import { warnUnreadable } from '../messages/lifecycle.js'
import { pruneReport } from '../messages/scale.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'prune',
  summary: 'Propose (and with --yes commit) archiving active learnings that are unused, rarely matched or superseded.',
  usage: 'git learn prune [--yes] [--json]   or   git learn prune <name>… --reason "…" [--yes] [--json]',
  details:
    'Without names: a report of the active learnings to archive, each with its reason — unused for prune.after_days\n' +
    '(last use from the usage log, else the approval date from git history), matched fewer than prune.min_matches\n' +
    "times since approval, or listed in another active learning's `supersedes`. With names: retire those active\n" +
    'learnings, with --reason. Nothing changes without --yes; with it, one commit per learning (Learning-Action: prune,\n' +
    'Pruned-by, Learning-Reason). `git learn restore <name>` brings a pruned learning back to pending.',
  options: {
    yes: { type: 'boolean', short: 'y', description: 'archive them now: one commit per learning' },
    reason: {
      type: 'string',
      value: 'text',
      description: 'why the named learnings are retired (required with names)',
      emptyIsNone: true,
    },
    json: {
      type: 'boolean',
      description:
        'print {"candidates":[{name,reason,reasons,path}],"pruned":[…],"heldBack":[{name,reason,reasons,path}],"shallow":bool,"dryRun":bool}',
    },
  },
  positionals: { min: 0, max: 1000, names: '<name>…' },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const json = flag(args, 'json')
  const yes = flag(args, 'yes')
  const reason = stringOpt(args, 'reason')?.trim()
  if (args.positionals.length && !reason)
    throw new UsageError('--reason "…" is required when you name learnings to retire: say why', 'prune')
  if (!args.positionals.length && reason)
    throw new UsageError('--reason goes with named learnings: `git learn prune <name>… --reason "…"`', 'prune')
  const { candidates, pruned, heldBack, shallow, settings } = await prune(ctx.cwd, {
    names: args.positionals,
    reason,
    yes,
    now: ctx.now(),
    unreadable: (path, why) => ctx.stderr(warnUnreadable(path, why)),
  })
  const row = (c: (typeof candidates)[number]) => ({
    name: c.name,
    reason: c.reason,
    reasons: c.reasons,
    path: learningPath('active', c.name),
  })
  const rows = candidates.map(row)
  const held = heldBack.map(row)
  const detached = await noteDetached(
    ctx,
    pruned.map((p) => p.commit),
  )
  if (json)
    ctx.stdout(`${JSON.stringify({ candidates: rows, pruned, heldBack: held, shallow, dryRun: !yes, ...detached })}\n`)
  else ctx.stdout(pruneReport(rows, pruned, { yes, named: args.positionals.length > 0, settings, held }))
  if (pruned.length) await (await import('../refresh.js')).refreshRendered(ctx, 'prune')
  return ExitCode.ok
}
