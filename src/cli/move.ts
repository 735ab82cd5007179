/** The shared body of approve, reject and restore: check every name first, then one commit per transition. */
import { assertNoOperationInProgress, readIdentity } from '../adapters/git/simple.js'
import { assertPathClean, commitMove, commitMoves } from '../adapters/git/commit.js'
import { openRepo } from '../adapters/store/repo.js'
import { findLearningPath, readLearning } from '../adapters/store/store.js'
import { loadLearningValidator } from '../adapters/store/validators.js'
import { LearningInvalidError, PartialMoveError, UsageError } from '../core/errors.js'
import { learningPath, validateLearning } from '../core/learning.js'
import { MOVES, assertDistinctApprover, planTransition } from '../core/lifecycle.js'
import type { MoveAction, Transition } from '../core/lifecycle.js'
import { RAW_LOG_FORMAT, assertNoSecretInMessage, buildCommitMessage, parseRawLog, proposersOf } from '../core/trailers.js'
import { ExitCode } from './context.js'
import type { Ctx } from './context.js'
import { moved } from './messages/lifecycle.js'
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
export async function runMoves(ctx: Ctx, names: readonly string[], action: MoveAction, opts: MoveOptions): Promise<ExitCode> {
  const repo = await openRepo(ctx.cwd)
  const { git } = repo
  assertNoOperationInProgress(git)
  const config = await repo.config()
  const validator = await loadLearningValidator()
  const identity = await readIdentity(git)
  if (opts.reason) assertNoSecretInMessage(opts.reason, '--reason')
  const plans: Transition[] = []
  // approve: a skill's `supersedes` names active learnings that are archived in the approval's own commit.
  const supersedes = new Map<string, string[]>()
  const claimed = new Set<string>()
  for (const name of new Set(names)) {
    const learning = readLearning(git.root, name)
    const plan = planTransition(name, learning.state, action)
    if (action === 'approve') {
      const { errors } = validateLearning(learning, validator)
      if (errors.length) throw new LearningInvalidError(learning.path, errors)
      // Everyone who ever put it into pending/ (a restore too) counts as a proposer: a restore must not launder it.
      const added = parseRawLog(await git.run(['log', '--diff-filter=A', `--format=${RAW_LOG_FORMAT}`, '--', learning.path]))
      const proposers = proposersOf(name, added)
      assertDistinctApprover(name, identity, proposers, config.approval.distinct_approver)
      const listed = Array.isArray(learning.data['supersedes']) ? (learning.data['supersedes'] as unknown[]) : []
      const old: string[] = []
      for (const s of listed) {
        if (typeof s !== 'string' || s === name || claimed.has(s) || findLearningPath(git.root, s)?.state !== 'active') continue
        await assertPathClean(git, s, learningPath('active', s))
        claimed.add(s)
        old.push(s)
      }
      if (old.length) supersedes.set(name, old)
    }
    await assertPathClean(git, name, learning.path)
    plans.push(plan)
  }
  const results: MoveResult[] = []
  for (const plan of plans) {
    const from = learningPath(plan.from ?? 'pending', plan.name)
    const to = learningPath(plan.to, plan.name)
    const old = supersedes.get(plan.name) ?? []
    const extra = old.flatMap((s) => [
      { token: 'Learning', value: s },
      { token: 'Learning-Action', value: 'supersede' },
      { token: 'Learning-From', value: 'active' },
      { token: 'Learning-To', value: 'archived' },
      { token: MOVES.supersede.by, value: identity },
      { token: 'Learning-Reason', value: `superseded by ${plan.name}` },
    ])
    const message = buildCommitMessage({
      action: plan.action,
      names: [plan.name],
      from: plan.from,
      to: plan.to,
      by: { token: MOVES[action].by, value: identity },
      ...(opts.reason ? { reason: opts.reason } : {}),
      ...(old.length ? { extra } : {}),
    })
    const moves = [{ from, to }, ...old.map((s) => ({ from: learningPath('active', s), to: learningPath('archived', s) }))]
    let commit: string | null = null
    try {
      if (!opts.dryRun) commit = old.length ? await commitMoves(git, moves, message) : await commitMove(git, from, to, message)
    } catch (err) {
      // Earlier names are committed already: say so, rather than let the error claim nothing happened.
      if (results.length) throw new PartialMoveError(action, results.map((r) => ({ name: r.name, commit: r.commit })), plan.name, plans.slice(plans.indexOf(plan) + 1).map((p) => p.name), err)
      throw err
    }
    const result: MoveResult & { superseded?: string[] } = { name: plan.name, from: plan.from, to: plan.to, path: to, commit }
    if (old.length) result.superseded = old
    results.push(result)
    if (!opts.json) ctx.stdout(moved(action, result, opts.dryRun) + (old.length ? supersededNote(plan.name, old, opts.dryRun) : ''))
  }
  if (opts.json) {
    const out = results.length === 1 ? { ...results[0], dryRun: opts.dryRun } : { results, dryRun: opts.dryRun }
    ctx.stdout(`${JSON.stringify(out)}\n`)
  }
  // What agents read follows the store: an approval adds to active/, a superseded learning leaves it.
  if (!opts.dryRun && results.length) await (await import('./refresh.js')).refreshRendered(ctx, action)
  return ExitCode.ok
}

/** reject, restore: one learning, a reason (required or not), --dry-run and --json. */
export function singleMoveCommand(action: 'reject' | 'restore', text: { summary: string; details?: string; reason: string; reasonRequired: boolean }): CommandModule {
  const spec: CommandSpec = {
    name: action,
    summary: text.summary,
    usage: `git learn ${action} <name> ${text.reasonRequired ? '--reason "…"' : '[--reason "…"]'} [--dry-run] [--json]`,
    ...(text.details ? { details: text.details } : {}),
    options: {
      reason: { type: 'string', value: 'text', description: text.reason },
      'dry-run': DRY_RUN_OPTION,
      json: MOVE_JSON_OPTION,
    },
    positionals: { min: 1, max: 1, names: '<name>' },
  }
  async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
    const reason = stringOpt(args, 'reason')?.trim()
    if (text.reasonRequired && !reason) throw new UsageError(`--reason "…" is required: say why the learning is ${action}ed`, action)
    return runMoves(ctx, args.positionals, action, { ...(reason ? { reason } : {}), dryRun: flag(args, 'dry-run'), json: flag(args, 'json') })
  }
  return { spec, run }
}
