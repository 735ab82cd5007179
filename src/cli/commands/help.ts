import { UsageError } from '../../core/errors.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { formatUsage } from '../main.js'
import { COMMANDS } from '../registry.js'
import { formatHelp } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'help',
  summary: "Show a command's help (git learn --help opens the man page instead: git routes --help to man git-learn).",
  usage: 'git learn help [<command>]',
  options: {},
  positionals: { min: 0, max: 1, names: '[<command>]' },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const name = args.positionals[0]
  if (!name) {
    ctx.stdout(formatUsage())
    return ExitCode.ok
  }
  const load = COMMANDS[name]
  if (!load)
    throw new UsageError(`unknown command "${name}"; the commands are: ${Object.keys(COMMANDS).join(', ')}`, 'help')
  ctx.stdout(formatHelp((await load()).spec))
  return ExitCode.ok
}
