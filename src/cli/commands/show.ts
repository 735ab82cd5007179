import { openRepo } from '../../adapters/store/repo.js'
import { projectScreen } from '../../adapters/feed/agent-screen.js'
import { findLearningPath, readLearningText, requireLearningPath } from '../../adapters/store/store.js'
import type { Repo } from '../../adapters/store/repo.js'
import { scanForAgents } from '../../core/agent-safety.js'
import { fingerprintsOf } from '../../core/directive-trailer.js'
import { WithheldError } from '../../core/errors.js'
import { parseLearning } from '../../core/learning.js'
import type { Learning } from '../../core/learning.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { showText, tierState } from '../messages/lifecycle.js'
import { flag } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'show',
  summary: 'Print one learning, whichever state it is in.',
  usage: 'git learn show <name> [--json]',
  details:
    'A learning the feed withholds from agents (a credential, an instruction aimed at agents that nobody accepted) is\n' +
    'not printed: show names its path, its state and the findings, secrets masked, and exits 1; open the file to read it.\n' +
    "A name this repository does not hold is looked for among the pinned tiers' active learnings, shown with its tier.",
  options: {
    json: { type: 'boolean', description: 'print {name, state, path, frontmatter, body}' },
  },
  positionals: { min: 1, max: 1, names: '<name>' },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const repo = await openRepo(ctx.cwd)
  const name = args.positionals[0] as string
  // Context and recall name a tier's learnings with `git learn show <name>` too: one this repository does not hold is
  // looked for among the tiers' (screened as they were read), labelled with its tier.
  if (!findLearningPath(repo.root, name)) {
    const tier = await findTierLearning(repo, name)
    if (tier) {
      const l = tier.learning
      const where = { ...l, path: `${tier.tier}:${l.path}`, state: tierState(tier.tier) }
      if (flag(args, 'json'))
        ctx.stdout(
          `${JSON.stringify({ name: l.name, state: l.state, tier: tier.tier, path: where.path, frontmatter: l.data, body: l.body })}\n`,
        )
      else ctx.stdout(showText(where))
      return ExitCode.ok
    }
  }
  const { path } = requireLearningPath(repo.root, name)
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
      fingerprintsOf(hazards),
    )
  if (flag(args, 'json'))
    ctx.stdout(`${JSON.stringify({ name: l.name, state: l.state, path: l.path, frontmatter: l.data, body: l.body })}\n`)
  else ctx.stdout(showText(l))
  return ExitCode.ok
}

/**
 * The active learning `name` of a pinned tier, or undefined. One the tier screen withheld (a credential, a directive)
 * is refused as a project's is: WithheldError, its reasons without the text.
 */
async function findTierLearning(repo: Repo, name: string): Promise<{ tier: string; learning: Learning } | undefined> {
  const config = await repo.config().catch(() => undefined)
  if (!config?.tiers.length) return undefined
  const [{ readTierSources }, { WITHHELD_FROM_AGENTS: WITHHELD }] = await Promise.all([
    import('../../adapters/feed/tiers.js'),
    import('../../adapters/feed/tier-screen.js'),
  ])
  const warnings: { path: string; reason: string }[] = []
  for (const s of await readTierSources(repo, (w) => warnings.push(w))) {
    const learning = s.learnings.find((l) => l.name === name)
    if (learning) return { tier: s.tier, learning }
  }
  const withheld = warnings.find((w) => w.path.endsWith(`/active/${name}.md`) && w.reason.startsWith(WITHHELD))
  if (withheld) throw new WithheldError(name, withheld.path, 'active', [withheld.reason.slice(WITHHELD.length)])
  return undefined
}
