import type { Ctx, ExitCode } from '../context.js'
import { runMoves } from '../move.js'
import { DRY_RUN_OPTION, flag } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'approve',
  summary:
    'Approve pending learnings: move each into .learnings/active/ in a commit of its own with the approval trailers.',
  usage: 'git learn approve <name>… [--dry-run] [--json]',
  details:
    'Every name is checked first (exists, is pending, is valid, has no uncommitted edits, was proposed by someone else);\n' +
    'only then is each moved in its own commit. Other staged work stays staged and out of the commits.\n' +
    'With approval.distinct_approver (default true) whoever proposed it cannot approve it: the Proposed-by trailer of\n' +
    "the commit that added it (through squash bodies too), or that commit's author when it has none.",
  options: {
    'dry-run': DRY_RUN_OPTION,
    json: {
      type: 'boolean',
      description: 'print one JSON object: {name, from, to, path, commit} (or {results: […]} for several names)',
    },
  },
  positionals: { min: 1, max: 100, names: '<name>…' },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  return runMoves(ctx, args.positionals, 'approve', { dryRun: flag(args, 'dry-run'), json: flag(args, 'json') })
}
