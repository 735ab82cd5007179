import { readHandSkills } from '../../adapters/agents/skills.js'
import { openRepo } from '../../adapters/store/repo.js'
import { readLearning } from '../../adapters/store/store.js'
import { skillOf, suggestSkill } from '../../core/skills.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { suggestSkillReport } from '../messages/feed.js'
import { flag } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'suggest-skill',
  summary:
    'Name the hand-written skill (.claude/skills/<skill>/) a learning belongs to, with a score, or say none stands out.',
  usage: 'git learn suggest-skill <name> [--json]',
  details:
    "Compares the learning's name, description, trigger, tags and solution with each skill's name and description.\n" +
    "A person decides: set `skill: <dir>` in the learning's frontmatter, and `git learn render` folds it into that\n" +
    "skill's references/learnings.md with one marked line in its SKILL.md.",
  options: {
    json: {
      type: 'boolean',
      description: 'print {name, skill (its current skill:), best: {skill, score} | null, ranked: [{skill, score}]}',
    },
  },
  positionals: { min: 1, max: 1, names: '<name>' },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const repo = await openRepo(ctx.cwd)
  const l = readLearning(repo.root, args.positionals[0] as string)
  const s = suggestSkill(l, readHandSkills(repo.root, repo.git.commonDir))
  if (flag(args, 'json'))
    ctx.stdout(
      `${JSON.stringify({ name: l.name, skill: skillOf(l) ?? null, best: s.best ?? null, ranked: s.ranked })}\n`,
    )
  else ctx.stdout(suggestSkillReport(l.name, skillOf(l), s))
  return ExitCode.ok
}
