/** The shared body of approve, reject and restore: check every name first, then one commit per transition. */
import { assertNoOperationInProgress, readIdentity } from '../adapters/git.js'
import { assertPathClean, commitMove } from '../adapters/commit.js'
import { openRepo } from '../adapters/repo.js'
import { readLearning } from '../adapters/store.js'
import { loadLearningValidator } from '../adapters/validators.js'
import { LearningInvalidError } from '../core/errors.js'
import { learningPath, validateLearning } from '../core/learning.js'
import { MOVES, assertDistinctApprover, planTransition } from '../core/lifecycle.js'
import type { MoveAction, Transition } from '../core/lifecycle.js'
import { buildCommitMessage } from '../core/trailers.js'
import { ExitCode } from './context.js'
import type { Ctx } from './context.js'
import { moved } from './messages/index.js'
import type { MoveResult } from './messages/index.js'

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
  const plans: Transition[] = []
  for (const name of new Set(names)) {
    const learning = readLearning(git.root, name)
    const plan = planTransition(name, learning.state, action)
    if (action === 'approve') {
      const { errors } = validateLearning(learning, validator)
      if (errors.length) throw new LearningInvalidError(learning.path, errors)
      const proposer = (await git.run(['log', '-1', '--diff-filter=A', '--format=%an <%ae>', '--', learning.path])).trim()
      assertDistinctApprover(name, identity, proposer || undefined, config.approval.distinct_approver)
    }
    await assertPathClean(git, name, learning.path)
    plans.push(plan)
  }
  const results: MoveResult[] = []
  for (const plan of plans) {
    const from = learningPath(plan.from ?? 'pending', plan.name)
    const to = learningPath(plan.to, plan.name)
    const message = buildCommitMessage({
      action: plan.action,
      names: [plan.name],
      from: plan.from,
      to: plan.to,
      by: { token: MOVES[action].by, value: identity },
      ...(opts.reason ? { reason: opts.reason } : {}),
    })
    const commit = opts.dryRun ? null : await commitMove(git, from, to, message)
    const result = { name: plan.name, from: plan.from, to: plan.to, path: to, commit }
    results.push(result)
    if (!opts.json) ctx.stdout(moved(action, result, opts.dryRun))
  }
  if (opts.json) {
    const out = results.length === 1 ? { ...results[0], dryRun: opts.dryRun } : { results, dryRun: opts.dryRun }
    ctx.stdout(`${JSON.stringify(out)}\n`)
  }
  return ExitCode.ok
}
