import { openRepo } from '../../adapters/store/repo.js'
import { projectScreen } from '../../adapters/feed/agent-screen.js'
import { readLearningText, requireLearningPath } from '../../adapters/store/store.js'
import { scanForAgents } from '../../core/agent-safety.js'
import { WithheldError } from '../../core/errors.js'
import { parseLearning } from '../../core/learning.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { showText } from '../messages/lifecycle.js'
import { flag } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'show',
  summary: 'Print one learning, whichever state it is in.',
  usage: 'git learn show <name> [--json]',
  details:
    'A learning the feed withholds from agents (a credential, an instruction aimed at agents that nobody accepted) is\n' +
    'not printed: show names its path, its state and the findings, secrets masked, and exits 1; open the file to read it.',
  options: {
    json: { type: 'boolean', description: 'print {name, state, path, frontmatter, body}' },
  },
  positionals: { min: 1, max: 1, names: '<name>' },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const repo = await openRepo(ctx.cwd)
  const { path } = requireLearningPath(repo.root, args.positionals[0] as string)
  const text = readLearningText(repo.root, path)
  const l = parseLearning(text, path)
  // Agents are told to run `git learn show <name>`: what the feed withholds from them is not printed here either
  // (the same screen: secrets.allow, accepted directives), in any state.
  // A config.yaml that does not load does not stop show: without secrets.allow the screen only withholds more.
  const allow = await repo.config().then(
    (c) => c.secrets.allow,
    () => [],
  )
  const hazards = await projectScreen(repo.root, ctx.env)(l.name, scanForAgents(text, allow, l.data))
  if (hazards.length)
    throw new WithheldError(
      l.name,
      l.path,
      l.state,
      hazards.map((h) => h.brief),
    )
  if (flag(args, 'json'))
    ctx.stdout(`${JSON.stringify({ name: l.name, state: l.state, path: l.path, frontmatter: l.data, body: l.body })}\n`)
  else ctx.stdout(showText(l))
  return ExitCode.ok
}
