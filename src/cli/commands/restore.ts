import type { Ctx, ExitCode } from '../context.js'
import { runMoves } from '../move.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'restore',
  summary: 'Restore an archived learning to .learnings/pending/ for review again, in a commit of its own.',
  usage: 'git learn restore <name> [--reason "…"] [--dry-run] [--json]',
  options: {
    reason: { type: 'string', value: 'text', description: 'why it comes back (recorded as Learning-Reason)' },
    'dry-run': { type: 'boolean', description: 'say what would happen; change nothing' },
    json: { type: 'boolean', description: 'print one JSON object: {name, from, to, path, commit}' },
  },
  positionals: { min: 1, max: 1, names: '<name>' },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const reason = stringOpt(args, 'reason')?.trim()
  return runMoves(ctx, args.positionals, 'restore', { ...(reason ? { reason } : {}), dryRun: flag(args, 'dry-run'), json: flag(args, 'json') })
}
