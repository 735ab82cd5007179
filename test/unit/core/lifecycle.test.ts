import { describe, expect, test } from 'vitest'
import { IllegalTransitionError, SelfApprovalError } from '../../../src/core/errors.js'
import type { LearningState } from '../../../src/core/errors.js'
import {
  MOVES,
  actionsFrom,
  assertDistinctApprover,
  identityKey,
  isAllowedMove,
  planTransition,
} from '../../../src/core/lifecycle.js'
import type { MoveAction } from '../../../src/core/lifecycle.js'

const states: LearningState[] = ['pending', 'active', 'archived']
const actions = Object.keys(MOVES) as MoveAction[]
const allowed: Record<string, LearningState> = {
  'pending/approve': 'active',
  'pending/reject': 'archived',
  'active/prune': 'archived',
  'active/supersede': 'archived',
  'archived/restore': 'pending',
}
const cases = states.flatMap((from) => actions.map((action) => ({ from, action, to: allowed[`${from}/${action}`] })))

describe('planTransition: every state × action', () => {
  test.each(cases)('$action from $from', ({ from, action, to }) => {
    if (to) expect(planTransition('x', from, action)).toEqual({ name: 'x', action, from, to })
    else {
      expect(() => planTransition('x', from, action)).toThrow(IllegalTransitionError)
      try {
        planTransition('x', from, action)
      } catch (e) {
        expect(e).toMatchObject({ learningName: 'x', from, action })
      }
    }
  })
})

describe('isAllowedMove', () => {
  test.each(states.flatMap((from) => states.map((to) => ({ from, to }))))('$from → $to', ({ from, to }) => {
    const expected = Object.entries(allowed).some(([k, v]) => k.startsWith(`${from}/`) && v === to)
    expect(isAllowedMove(from, to)).toBe(expected)
  })
})

test('actionsFrom names what works in each state', () => {
  expect(actionsFrom('pending')).toEqual(['approve', 'reject'])
  expect(actionsFrom('active')).toEqual(['prune'])
  expect(actionsFrom('archived')).toEqual(['restore'])
})

describe('distinct approver', () => {
  test('identityKey compares e-mails case-insensitively', () => {
    expect(identityKey('Jane Doe <Jane@Example.com>')).toBe('jane@example.com')
    expect(identityKey('no-email')).toBe('no-email')
  })
  test('the proposer cannot approve when distinct_approver is on', () => {
    expect(() => assertDistinctApprover('x', 'Jane <jane@x.org>', ['J. Doe <JANE@x.org>'], true)).toThrow(
      SelfApprovalError,
    )
    expect(() =>
      assertDistinctApprover('x', 'Jane <jane@x.org>', ['Bob <bob@x.org>', 'Jane <jane@x.org>'], true),
    ).toThrow(SelfApprovalError)
  })
  test.each([
    ['another person', 'Bob <bob@x.org>', ['Jane <jane@x.org>'], true],
    ['setting off', 'Jane <jane@x.org>', ['Jane <jane@x.org>'], false],
    ['unknown proposer', 'Jane <jane@x.org>', [], true],
  ] as const)('allowed: %s', (_label, approver, proposer, distinct) => {
    expect(() => assertDistinctApprover('x', approver, proposer, distinct)).not.toThrow()
  })
})
