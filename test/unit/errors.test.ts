import { expect, test } from 'vitest'
import { describeError } from '../../src/cli/messages/errors.js'
import { GitCommandError, IllegalTransitionError, LearningNotFoundError, NotARepositoryError, OperationInProgressError, UsageError } from '../../src/core/errors.js'

test.each([
  [new UsageError('missing <name>', 'approve'), 2, /missing <name>\nRun `git learn approve -h`/],
  [new LearningNotFoundError('x'), 2, /no learning named "x"/],
  [new IllegalTransitionError('x', 'archived', 'approve'), 1, /git learn restore x/],
  [new NotARepositoryError('/tmp/q'), 3, /not inside a git repository: \/tmp\/q/],
  [new OperationInProgressError('rebase'), 3, /git rebase --abort/],
  [new GitCommandError(['commit', '-m', 'x'], 'fatal: nope'), 3, /git said:\nfatal: nope/],
  [new TypeError('undefined is not a function'), 70, /internal error: undefined is not a function[\s\S]*This is a bug in git-learn/],
])('%s → exit %i', (err, code, message) => {
  const d = describeError(err)
  expect(d.code).toBe(code)
  expect(d.message).toMatch(message)
})
