import { applyRender } from '../../adapters/agents/render.js'
import { readHandSkills } from '../../adapters/agents/skills.js'
import { openRepo } from '../../adapters/store/repo.js'
import { PROJECT_TIER, readSources } from '../../adapters/store/sources.js'
import { readLearningText } from '../../adapters/store/store.js'
import { projectScreen } from '../../adapters/feed/agent-screen.js'
import { openScanCache } from '../../adapters/feed/scan-cache.js'
import type { AgentHazard } from '../../core/agent-safety.js'
import { fingerprintsOf } from '../../core/directive-trailer.js'
import type { Learning } from '../../core/learning.js'
import { loadLearningValidator } from '../../adapters/store/validators.js'
import { LISTING_BUDGET_CHARS } from '../../core/check.js'
import { UsageError } from '../../core/errors.js'
import { RENDER_TARGETS, planRender, selectRenderable } from '../../core/render.js'
import type { RenderTarget } from '../../core/render.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { renderLeftAlone, renderOverBudget, renderReport, warnProblems } from '../messages/feed.js'
import { renderNoSuchSkill, renderSkippedInvalid, renderUnbalanced, renderWithheld } from '../messages/feed.js'
import { skillOf } from '../../core/skills.js'
import { warning } from '../messages/lifecycle.js'
import { flag } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'render',
  summary:
    'Write the active learnings where agents discover them: Claude skills, AGENTS.md, Cursor rules, Copilot instructions.',
  usage: 'git learn render [--target claude|agents|cursor|copilot|claude-md]… [--dry-run] [--quiet | --json]',
  details:
    'Targets default to render.targets in .learnings/config.yaml (claude); the targets given are the whole set (files\n' +
    'of a target no longer rendered are removed). Deterministic: the same store gives the same bytes. Only files the\n' +
    'render manifest lists with the hash of their content (or rendered files HEAD holds unchanged) are rewritten or\n' +
    'removed, read as git reads them (line endings), never through a symbolic link; a hand-written or edited file at\n' +
    'a target path is left alone and reported. AGENTS.md changes only between\n' +
    '<!-- git-learn:begin/end -->. claude-md writes .learnings/INDEX.md (name, description, trigger of each active\n' +
    'learning, within context.max_tokens) and a marked section of CLAUDE.md that imports it (@.learnings/INDEX.md).\n' +
    'What the feed withholds from agents (a credential, an unaccepted directive) is not rendered, with a warning; a\n' +
    "tier's learnings are marked with their tier, as the context marks them.",
  options: {
    target: {
      type: 'string',
      multiple: true,
      value: 'target',
      description: 'claude, agents, cursor, copilot or claude-md (repeat, or comma-separate)',
    },
    'dry-run': { type: 'boolean', description: 'say what would change; write nothing' },
    quiet: {
      type: 'boolean',
      description: 'print only warnings (for the post-checkout hook); not with --json',
      only: { without: 'json' },
    },
    json: { type: 'boolean', description: 'print {written, removed, unchanged, skipped, warnings}' },
  },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const raw = args.values['target']
  const dryRun = flag(args, 'dry-run')
  // A dry run writes nothing at all: no rendered file, no manifest, and no cache or fetch of what it reads.
  const repo = await openRepo(ctx.cwd, { readOnly: dryRun })
  const config = await repo.config()
  const asked = (Array.isArray(raw) ? raw : [])
    .flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter(Boolean)
  for (const t of asked)
    if (!(RENDER_TARGETS as readonly string[]).includes(t))
      throw new UsageError(`unknown --target "${t}"; use ${RENDER_TARGETS.join(', ')}`, 'render')
  const targets = [...new Set(asked.length ? asked : config.render.targets)] as RenderTarget[]
  const texts = new Map<string, string>()
  const { sources, problems } = await readSources(repo, { states: ['active'], texts })
  ctx.stderr(warnProblems(problems))
  // The feed's screen (context, recall and search withhold the same learnings): this project's files are scanned
  // here, in the text they were read from, with secrets.allow and accepted directives; a tier's were screened as they
  // were read (tier-screen.ts).
  const screen = projectScreen(repo.root, ctx.env)
  // Scanned again only when its text changed since the last run (scan-cache.ts).
  const scans = openScanCache(repo.git.commonDir, config.secrets.allow)
  const hazards = new Map<Learning, AgentHazard[]>()
  const tierOf = new Map<Learning, string>()
  for (const s of sources)
    for (const l of s.learnings) {
      tierOf.set(l, s.tier)
      if (s.tier === PROJECT_TIER)
        hazards.set(
          l,
          await screen(l.name, scans.scan(texts.get(l.path) ?? readLearningText(repo.root, l.path), l.data)),
        )
    }
  if (!dryRun) scans.save()
  const { learnings, rejected } = selectRenderable(
    sources.flatMap((s) => s.learnings),
    await loadLearningValidator(),
    (l) => hazards.get(l) ?? [],
  )
  const handSkills = targets.includes('claude')
    ? new Set(readHandSkills(repo.root, repo.git.commonDir).map((sk) => sk.name))
    : new Set<string>()
  const plan = planRender(learnings, targets, {
    indexTokens: config.context.max_tokens,
    handSkills,
    tierOf: (l) => tierOf.get(l) ?? PROJECT_TIER,
  })
  const { unbalanced, ...result } = await applyRender(repo.root, repo.git.commonDir, plan, targets, dryRun)
  const warnings: string[] = rejected.map((r) =>
    r.hazards
      ? renderWithheld(
          r.path,
          r.reason,
          r.hazards.map((h) => h.detail),
          fingerprintsOf(r.hazards),
          r.name,
        )
      : renderSkippedInvalid(r.path, r.reason),
  )
  if (targets.includes('claude'))
    for (const l of learnings) {
      const skill = skillOf(l)
      if (skill !== undefined && !handSkills.has(skill)) warnings.push(renderNoSuchSkill(l.path, skill))
    }
  warnings.push(...result.skipped.filter((p) => !unbalanced.includes(p)).map(renderLeftAlone))
  warnings.push(...unbalanced.map(renderUnbalanced))
  if (plan.descriptionChars > LISTING_BUDGET_CHARS)
    warnings.push(renderOverBudget(plan.descriptionChars, LISTING_BUDGET_CHARS))
  for (const w of warnings) ctx.stderr(warning(w))
  if (flag(args, 'json')) ctx.stdout(`${JSON.stringify({ targets, ...result, warnings, dryRun })}\n`)
  else if (!flag(args, 'quiet')) ctx.stdout(renderReport(result, dryRun))
  return ExitCode.ok
}
