import { singleMoveCommand } from '../move.js'

export const { spec, run } = singleMoveCommand('reject', {
  summary:
    'Reject a pending learning: move it into .learnings/archived/ in a commit of its own with Rejected-by and the reason.',
  details: 'Nothing is deleted: `git learn restore <name>` brings a rejected learning back to pending.',
  reason: 'why it is rejected (required; recorded as Learning-Reason, newlines folded)',
  reasonRequired: true,
})
