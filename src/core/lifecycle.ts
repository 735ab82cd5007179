/** The lifecycle (DESIGN section 3): which action moves a learning from which state to which. */
import { IllegalTransitionError, SelfApprovalError } from './errors.js'
import type { LearningState } from './errors.js'

export const ACTIONS = [
  'add',
  'approve',
  'reject',
  'prune',
  'restore',
  'evolve',
  'import',
  'edit',
  'supersede',
] as const
export type Action = (typeof ACTIONS)[number]

/** Actions that move an existing learning, with the one state they start from and the state they end in. */
export const MOVES = {
  approve: { from: 'pending', to: 'active', by: 'Approved-by' },
  reject: { from: 'pending', to: 'archived', by: 'Rejected-by' },
  prune: { from: 'active', to: 'archived', by: 'Pruned-by' },
  supersede: { from: 'active', to: 'archived', by: 'Superseded-by' },
  restore: { from: 'archived', to: 'pending', by: 'Restored-by' },
} as const satisfies Record<string, { from: LearningState; to: LearningState; by: string }>
export type MoveAction = keyof typeof MOVES

export interface Transition {
  name: string
  action: Action
  from: LearningState | null
  to: LearningState
}

/** The transition an action makes on a learning in `from`; throws IllegalTransitionError when the lifecycle forbids it. */
export function planTransition(name: string, from: LearningState, action: MoveAction): Transition {
  const move = MOVES[action]
  if (move.from !== from) throw new IllegalTransitionError(name, from, action)
  return { name, action, from, to: move.to }
}

/** True when the lifecycle allows moving a file from one state directory to another (used by the transition check). */
export function isAllowedMove(from: LearningState, to: LearningState): boolean {
  return Object.values(MOVES).some((m) => m.from === from && m.to === to)
}

/** The commands that do apply to a learning in `state`, for messages that say what would work instead. */
export function actionsFrom(state: LearningState): MoveAction[] {
  return (Object.keys(MOVES) as MoveAction[]).filter((a) => MOVES[a].from === state && a !== 'supersede')
}

/** The e-mail of "Name <email>", lower-cased, or the whole identity when it has none. */
export function identityKey(identity: string): string {
  const m = /<([^>]*)>/.exec(identity)
  return (m?.[1] ?? identity).trim().toLowerCase()
}

/** Refuse self-approval when the config asks for a distinct approver: the approver is none of the proposers. */
export function assertDistinctApprover(
  name: string,
  approver: string,
  proposers: readonly string[],
  distinct: boolean,
): void {
  const proposer = distinct ? proposers.find((p) => identityKey(p) === identityKey(approver)) : undefined
  if (proposer !== undefined) throw new SelfApprovalError(name, approver, proposer)
}
