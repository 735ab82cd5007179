/**
 * approve, reject, restore and prune by name: every name is checked first (exists, may make this move, is valid,
 * is clean, was proposed by someone else, and for approve carries no credential or agent directive edited in since
 * it was proposed); only then is each moved, one atomic commit each (flows/transition.ts). No printing here.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { assertPathClean } from '../adapters/git/commit.js'
import { DIRECTIVE_OVERRIDES_LOG } from '../adapters/git/index-reader.js'
import { readIdentity } from '../adapters/git/simple.js'
import { readProposalRecords } from '../adapters/git/proposers.js'
import type { Repo } from '../adapters/store/repo.js'
import { findLearningPath, readLearning } from '../adapters/store/store.js'
import { loadLearningValidator } from '../adapters/store/validators.js'
import { hazardsOf, scanForAgents } from '../core/agent-safety.js'
import { acceptedFor, fingerprintsOf, parseDirectivesAllowed } from '../core/directive-trailer.js'
import type { DirectiveAcceptances } from '../core/directive-trailer.js'
import { FOR_THE_REVIEWER, sectionsForTheReviewer } from '../core/gates.js'
import { LearningInvalidError, ProposerUnknownError, RefusedError } from '../core/errors.js'
import type { LearningState } from '../core/errors.js'
import { learningPath, validateLearning } from '../core/learning.js'
import { MOVES, assertDistinctApprover, planTransition } from '../core/lifecycle.js'
import type { MoveAction } from '../core/lifecycle.js'
import { assertNoSecretInMessage, buildCommitMessage } from '../core/trailers.js'
import { commitTransition } from './transition.js'

export interface PlannedMove {
  name: string
  action: MoveAction
  from: LearningState | null
  to: LearningState
  path: string
  /** Active learnings a skill supersedes, archived in the approval's own commit. */
  superseded: string[]
  moves: { from: string; to: string }[]
  message: string
}

/** Check every name and plan its commit; throws the first refusal before anything moves. */
export async function planMoves(
  repo: Repo,
  names: readonly string[],
  action: MoveAction,
  opts: {
    reason?: string | undefined
    /** The refusal of a learning that holds what must not reach an agent (`fingerprints`: its unaccepted directives'). */
    hazardReason: (name: string, path: string, fingerprints: readonly string[]) => string
  },
): Promise<PlannedMove[]> {
  const { git } = repo
  const config = await repo.config()
  const validator = await loadLearningValidator()
  const identity = await readIdentity(git)
  if (opts.reason) assertNoSecretInMessage(opts.reason, '--reason')
  const plans: PlannedMove[] = []
  const claimed = new Set<string>()
  let overrides: DirectiveAcceptances | undefined
  for (const name of new Set(names)) {
    const learning = readLearning(git.root, name)
    const plan = planTransition(name, learning.state, action)
    const old: string[] = []
    if (action === 'approve') {
      const { errors } = validateLearning(learning, validator)
      if (errors.length) throw new LearningInvalidError(learning.path, errors)
      // A draft's section left for the reviewer (retro cannot know a root cause) is written before agents read it.
      const unwritten = sectionsForTheReviewer(learning.body)
      if (unwritten.length)
        throw new LearningInvalidError(
          learning.path,
          unwritten.map(
            (h) =>
              `"## ${h}" still says "${FOR_THE_REVIEWER}…": write it in ${learning.path}, commit the edit, then run \`git learn approve ${name}\` again`,
          ),
        )
      // Everyone who ever put it into pending/ (a restore too) counts as a proposer: a restore must not launder it.
      // By the record: the Proposed-by trailers (through squash bodies too), not whoever pressed merge.
      // --full-history: a simplified log follows one side of a merge that equals both and misses the other's restore;
      // merge commits show no diff here, so --diff-filter=A never lists one (its author would count as a proposer).
      // In a shallow clone the record may stop after the proposal: then nobody is known to be a second person.
      const record = readProposalRecords(git.root, undefined, 'HEAD', [name], true).get(name)
      assertDistinctApprover(name, identity, record?.proposers ?? [], config.approval.distinct_approver)
      if (config.approval.distinct_approver && record?.complete === false) throw new ProposerUnknownError(name)
      // The file that moves is checked again: hooks are optional, so a token or a directive edited into a pending
      // file after it was proposed would otherwise reach recall and the rendered skills.
      const text = readFileSync(join(git.root, learning.path), 'utf8')
      const scan = scanForAgents(text, config.secrets.allow, learning.data)
      let hazards = hazardsOf(scan)
      if (hazards.some((h) => h.kind === 'directive')) {
        // An unborn branch has no history to accept anything.
        overrides ??= parseDirectivesAllowed((await git.tryRun([...DIRECTIVE_OVERRIDES_LOG])) ?? '')
        hazards = hazardsOf(scan, acceptedFor(overrides, name))
      }
      if (hazards.length)
        throw new RefusedError(
          opts.hazardReason(name, learning.path, fingerprintsOf(hazards)),
          hazards.map((h) => h.detail),
        )
      const listed = Array.isArray(learning.data['supersedes']) ? (learning.data['supersedes'] as unknown[]) : []
      for (const s of listed) {
        if (typeof s !== 'string' || s === name || claimed.has(s) || findLearningPath(git.root, s)?.state !== 'active')
          continue
        await assertPathClean(git, s, learningPath('active', s))
        claimed.add(s)
        old.push(s)
      }
    }
    await assertPathClean(git, name, learning.path)
    const from = learningPath(plan.from ?? 'pending', plan.name)
    const to = learningPath(plan.to, plan.name)
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
    const moves = [
      { from, to },
      ...old.map((s) => ({ from: learningPath('active', s), to: learningPath('archived', s) })),
    ]
    plans.push({ name, action, from: plan.from, to: plan.to, path: to, superseded: old, moves, message })
  }
  return plans
}

/** Commit one planned move (and the moves of what it supersedes) atomically; the new commit id. */
export function commitPlannedMove(repo: Repo, p: PlannedMove): Promise<string> {
  return commitTransition(
    repo.git,
    p.moves.map((m) => ({ kind: 'move' as const, ...m })),
    p.message,
  )
}
