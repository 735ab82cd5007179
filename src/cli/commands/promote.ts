import { UsageError } from '../../core/errors.js'
import { promote } from '../../flows/promote.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { promoted } from '../messages/scale.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'promote',
  summary:
    'Propose an active learning to a tier repository: a pending entry on a new branch there, for its own review.',
  usage:
    'git learn promote <name> --to <tier> [--branch learn/promote-<name>] [--json]   ·   git learn promote <name> --to <tier> --print',
  details:
    "The commit is built with plumbing on top of the tier's pinned commit (hash-object, a temporary index, commit-tree)\n" +
    "in this repository's object store — no work tree is touched — and pushed to the tier's URL as a new branch.\n" +
    'Open a pull request from that branch in the tier repository. With --print, nothing is pushed: the learning is\n' +
    'printed as a bundle (stripped as by `git learn export`) for `git learn import` there.',
  options: {
    to: { type: 'string', value: 'tier', description: 'the configured tier to propose it to (required)' },
    branch: {
      type: 'string',
      value: 'branch',
      description: 'the branch to create in the tier repository (default learn/promote-<name>); not with --print',
      only: { without: 'print' },
    },
    print: { type: 'boolean', description: 'print the bundle (JSON) instead of pushing' },
    json: {
      type: 'boolean',
      description: 'print {"name","tier","url","branch","commit","path"}; not with --print (the bundle is JSON)',
      only: { without: 'print' },
    },
  },
  positionals: { min: 1, max: 1, names: '<name>' },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const name = args.positionals[0] as string
  const to = stringOpt(args, 'to')
  if (!to) throw new UsageError('--to <tier> is required: the tier repository to propose the learning to', 'promote')
  const outcome = await promote(ctx.cwd, name, {
    tier: to,
    branch: stringOpt(args, 'branch'),
    print: flag(args, 'print'),
    now: ctx.now(),
    env: ctx.env,
  })
  if ('bundle' in outcome) ctx.stdout(`${JSON.stringify(outcome.bundle, null, 2)}\n`)
  else if (flag(args, 'json')) ctx.stdout(`${JSON.stringify(outcome.pushed)}\n`)
  else ctx.stdout(promoted(outcome.pushed))
  return ExitCode.ok
}
