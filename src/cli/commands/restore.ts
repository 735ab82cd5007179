import { singleMoveCommand } from '../move.js'

export const { spec, run } = singleMoveCommand('restore', {
  summary: 'Restore an archived learning to .learnings/pending/ for review again, in a commit of its own.',
  reason: 'why it comes back (recorded as Learning-Reason)',
  reasonRequired: false,
})
