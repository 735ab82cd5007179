import { UsageError } from '../../core/errors.js'
import type { Ctx, ExitCode } from '../context.js'
import { runMoves } from '../move.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'reject',
  summary: 'Reject a pending learning: git mv it into .learnings/archived/ and commit it alone with Rejected-by and the reason.',
  usage: 'git learn reject <name> --reason "…" [--dry-run] [--json]',
  details: 'Nothing is deleted: `git learn restore <name>` brings a rejected learning back to pending.',
  options: {
    reason: { type: 'string', value: 'text', description: 'why it is rejected (required; recorded as Learning-Reason, newlines folded)' },
    'dry-run': { type: 'boolean', description: 'say what would happen; change nothing' },
    json: { type: 'boolean', description: 'print one JSON object: {name, from, to, path, commit}' },
  },
  positionals: { min: 1, max: 1, names: '<name>' },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const reason = stringOpt(args, 'reason')?.trim()
  if (!reason) throw new UsageError('--reason "…" is required: say why the learning is rejected', 'reject')
  return runMoves(ctx, args.positionals, 'reject', { reason, dryRun: flag(args, 'dry-run'), json: flag(args, 'json') })
}
