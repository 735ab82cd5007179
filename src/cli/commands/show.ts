import { openRepo } from '../../adapters/store/repo.js'
import { readLearning } from '../../adapters/store/store.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { showText } from '../messages/lifecycle.js'
import { flag } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'show',
  summary: 'Print one learning, whichever state it is in.',
  usage: 'git learn show <name> [--json]',
  options: {
    json: { type: 'boolean', description: 'print {name, state, path, frontmatter, body}' },
  },
  positionals: { min: 1, max: 1, names: '<name>' },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const repo = await openRepo(ctx.cwd)
  const l = readLearning(repo.root, args.positionals[0] as string)
  if (flag(args, 'json'))
    ctx.stdout(`${JSON.stringify({ name: l.name, state: l.state, path: l.path, frontmatter: l.data, body: l.body })}\n`)
  else ctx.stdout(showText(l))
  return ExitCode.ok
}
