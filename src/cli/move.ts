/** The shared body of approve, reject and restore: parse, call the move flow, print. */
import { assertNoOperationInProgress, assertStoreCheckedOut } from '../adapters/git/simple.js'
import { openRepo } from '../adapters/store/repo.js'
import { PartialMoveError, UsageError } from '../core/errors.js'
import type { MoveAction } from '../core/lifecycle.js'
import { commitPlannedMove, planMoves } from '../flows/move.js'
import { assertNothingHalfDone } from '../flows/recovery.js'
import { ExitCode } from './context.js'
import { noteDetached } from './detached.js'
import type { Ctx } from './context.js'
import { approveHazard, moved } from './messages/lifecycle.js'
import { supersededNote } from './messages/scale.js'
import type { MoveResult } from './messages/lifecycle.js'
import { DRY_RUN_OPTION, MOVE_JSON_OPTION, flag, stringOpt } from './spec.js'
import type { CommandModule, CommandSpec, ParsedArgs } from './spec.js'

export interface MoveOptions {
  reason?: string
  dryRun: boolean
  json: boolean
}

/** Move each named learning with `action`; nothing is committed unless every name passes its checks. */
export async function runMoves(
  ctx: Ctx,
  names: readonly string[],
  action: MoveAction,
  opts: MoveOptions,
): Promise<ExitCode> {
  const repo = await openRepo(ctx.cwd, { readOnly: opts.dryRun })
  assertNoOperationInProgress(repo.git)
  await assertNothingHalfDone(repo.git)
  await assertStoreCheckedOut(repo.git)
  const plans = await planMoves(repo, names, action, { reason: opts.reason, hazardReason: approveHazard })
  const results: MoveResult[] = []
  for (const plan of plans) {
    let commit: string | null = null
    try {
      if (!opts.dryRun) commit = await commitPlannedMove(repo, plan)
    } catch (err) {
      // Earlier names are committed already: say so, rather than let the error claim nothing happened.
      if (results.length)
        throw new PartialMoveError(
          action,
          results.map((r) => ({ name: r.name, commit: r.commit })),
          plan.name,
          plans.slice(plans.indexOf(plan) + 1).map((p) => p.name),
          err,
        )
      throw err
    }
    const old = plan.superseded
    const result: MoveResult & { superseded?: string[] } = {
      name: plan.name,
      from: plan.from,
      to: plan.to,
      path: plan.path,
      commit,
    }
    if (old.length) result.superseded = old
    results.push(result)
    if (!opts.json)
      ctx.stdout(moved(action, result, opts.dryRun) + (old.length ? supersededNote(plan.name, old, opts.dryRun) : ''))
  }
  const detached = await noteDetached(
    ctx,
    results.map((r) => r.commit),
  )
  if (opts.json) {
    const out =
      results.length === 1
        ? { ...results[0], dryRun: opts.dryRun, ...detached }
        : { results, dryRun: opts.dryRun, ...detached }
    ctx.stdout(`${JSON.stringify(out)}\n`)
  }
  // What agents read follows the store: an approval adds to active/, a superseded learning leaves it.
  if (!opts.dryRun && results.length) await (await import('./refresh.js')).refreshRendered(ctx, action)
  return ExitCode.ok
}

/** reject, restore: one learning, a reason (required or not), --dry-run and --json. */
export function singleMoveCommand(
  action: 'reject' | 'restore',
  text: { summary: string; details?: string; reason: string; reasonRequired: boolean },
): CommandModule {
  const spec: CommandSpec = {
    name: action,
    summary: text.summary,
    usage: `git learn ${action} <name> ${text.reasonRequired ? '--reason "…"' : '[--reason "…"]'} [--dry-run] [--json]`,
    ...(text.details ? { details: text.details } : {}),
    options: {
      reason: { type: 'string', value: 'text', description: text.reason, emptyIsNone: true },
      'dry-run': DRY_RUN_OPTION,
      json: MOVE_JSON_OPTION,
    },
    positionals: { min: 1, max: 1, names: '<name>' },
  }
  async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
    const reason = stringOpt(args, 'reason')?.trim()
    if (text.reasonRequired && !reason)
      throw new UsageError(`--reason "…" is required: say why the learning is ${action}ed`, action)
    return runMoves(ctx, args.positionals, action, {
      ...(reason ? { reason } : {}),
      dryRun: flag(args, 'dry-run'),
      json: flag(args, 'json'),
    })
  }
  return { spec, run }
}
