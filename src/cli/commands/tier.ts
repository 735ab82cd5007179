import { assertNoOperationInProgress } from '../../adapters/git/simple.js'
import { openRepo } from '../../adapters/store/repo.js'
import {
  DEFAULT_TIER_WEIGHT,
  buildTierCommitMessage,
  planTierConfig,
  countTierLearnings,
  diffTierLearnings,
  fetchTier,
  readTierRef,
  tierRef,
  verifyTier,
} from '../../adapters/feed/tiers.js'
import type { TierConfig } from '../../adapters/feed/tiers.js'
import { RefusedError, UsageError } from '../../core/errors.js'
import type { Git } from '../../adapters/git/simple.js'
import { commitTransition } from '../../flows/transition.js'
import { assertNothingHalfDone } from '../../flows/recovery.js'
import { explainBadName } from '../../core/names.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { tierAdded, tierList, tierUpdated, tierVerified, tierVerifyProblem } from '../messages/scale.js'
import { flag, jsonOption, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

/** config.yaml with the tier set, committed alone and atomically. */
async function commitTierConfig(git: Git, tier: TierConfig, message: string): Promise<string> {
  await assertNothingHalfDone(git)
  const c = await planTierConfig(git, tier)
  return commitTransition(git, [{ kind: c.existed ? 'replace' : 'create', path: c.path, text: c.text }], message)
}

export const spec: CommandSpec = {
  name: 'tier',
  summary: "Share learnings across repositories: another repository's active learnings, pinned by commit, read-only.",
  usage:
    'git learn tier add <name> <git-url> [--ref main] [--weight 0.9]   ·   git learn tier list   ·   git learn tier update <name>   ·   git learn tier verify [<name>]',
  details:
    'add fetches <ref> of <git-url> into refs/learn/tiers/<name> (git fetch --no-tags; nothing is checked out), pins the\n' +
    'fetched commit in .learnings/config.yaml and commits that file alone. update fetches again, shows the learnings\n' +
    'added, removed and changed, and commits the new pin (a reviewed change). verify checks that each tier ref still\n' +
    'holds its pinned commit and that the objects are intact (exit 1 otherwise). search, context and recall read the\n' +
    "tiers' active learnings straight from git objects, with the tier's weight.",
  options: {
    ref: { type: 'string', value: 'ref', description: 'branch, tag or ref of the tier repository to fetch (default: main)' },
    weight: { type: 'string', value: '0..1', description: `how much its learnings count in search against the project's 1.0 (default ${DEFAULT_TIER_WEIGHT})` },
    json: jsonOption(),
  },
  positionals: { min: 1, max: 3, names: 'add|list|update|verify [<name>] [<git-url>]' },
}

function parseWeight(text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const w = Number(text)
  if (!/^\s*\d*\.?\d+\s*$/.test(text) || !(w >= 0 && w <= 1)) throw new UsageError(`--weight must be a number from 0 to 1, not "${text}"`, 'tier')
  return w
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const [sub, name, url, ...extra] = args.positionals
  const json = flag(args, 'json')
  const expect = (n: number, usage: string) => {
    if (args.positionals.length !== n || extra.length) throw new UsageError(`usage: git learn tier ${usage}`, 'tier')
  }
  const repo = await openRepo(ctx.cwd)
  const { git } = repo
  const config = await repo.config()
  const find = (n: string): TierConfig => {
    const t = config.tiers.find((x) => x.name === n)
    if (!t) throw new UsageError(`no tier named "${n}" in .learnings/config.yaml; the tiers are: ${config.tiers.map((x) => x.name).join(', ') || 'none'}`, 'tier')
    return t
  }

  if (sub === 'add') {
    expect(3, 'add <name> <git-url> [--ref main] [--weight 0.9]')
    const bad = explainBadName(name as string)
    if (bad) throw new UsageError(`not a tier name: ${bad}`, 'tier')
    if (config.tiers.some((t) => t.name === name)) throw new RefusedError(`a tier named "${name}" is already configured`, [`run \`git learn tier update ${name}\` to move its pin, or pick another name`])
    const weight = parseWeight(stringOpt(args, 'weight'))
    const ref = stringOpt(args, 'ref') ?? 'main'
    assertNoOperationInProgress(git)
    const before = await readTierRef(git, name as string)
    const commit = await fetchTier(git, name as string, url as string, ref)
    const tier: TierConfig = { name: name as string, url: url as string, ref, commit, ...(weight !== undefined ? { weight } : {}) }
    let configCommit: string
    try {
      configCommit = await commitTierConfig(git, tier, buildTierCommitMessage('add', tier))
    } catch (err) {
      await git.tryRun(before ? ['update-ref', tierRef(name as string), before] : ['update-ref', '-d', tierRef(name as string)])
      throw err
    }
    const count = await countTierLearnings(git, commit)
    const result = { ...tier, weight: tier.weight ?? DEFAULT_TIER_WEIGHT, ref: tierRef(tier.name), learnings: count, configCommit }
    if (json) ctx.stdout(`${JSON.stringify({ ...result, tracked: ref })}\n`)
    else ctx.stdout(tierAdded(tier, count, configCommit))
    return ExitCode.ok
  }

  if (sub === 'list') {
    expect(1, 'list')
    const rows = []
    for (const t of config.tiers) {
      const present = t.commit ? (await git.tryRun(['cat-file', '-e', `${t.commit}^{commit}`])) !== undefined : false
      rows.push({ name: t.name, url: t.url, ref: t.ref ?? 'main', commit: t.commit ?? null, weight: t.weight ?? DEFAULT_TIER_WEIGHT, learnings: present && t.commit ? await countTierLearnings(git, t.commit) : null })
    }
    if (json) ctx.stdout(`${JSON.stringify({ tiers: rows })}\n`)
    else ctx.stdout(tierList(rows))
    return ExitCode.ok
  }

  if (sub === 'update') {
    expect(2, 'update <name>')
    const tier = find(name as string)
    assertNoOperationInProgress(git)
    const before = await readTierRef(git, tier.name)
    const commit = await fetchTier(git, tier.name, tier.url, tier.ref ?? 'main')
    const old = tier.commit
    if (old === commit) {
      if (json) ctx.stdout(`${JSON.stringify({ name: tier.name, from: old, to: commit, changed: false, added: [], removed: [], updated: [], commit: null })}\n`)
      else ctx.stdout(tierUpdated(tier.name, old, commit, null, null))
      return ExitCode.ok
    }
    const diff = old && (await git.tryRun(['cat-file', '-e', `${old}^{commit}`])) !== undefined ? await diffTierLearnings(git, old, commit) : null
    const next: TierConfig = { ...tier, commit }
    let configCommit: string
    try {
      configCommit = await commitTierConfig(git, next, buildTierCommitMessage('update', next, old))
    } catch (err) {
      await git.tryRun(before ? ['update-ref', tierRef(tier.name), before] : ['update-ref', '-d', tierRef(tier.name)])
      throw err
    }
    if (json)
      ctx.stdout(`${JSON.stringify({ name: tier.name, from: old ?? null, to: commit, changed: true, added: diff?.added ?? null, removed: diff?.removed ?? null, updated: diff?.changed ?? null, commit: configCommit })}\n`)
    else ctx.stdout(tierUpdated(tier.name, old, commit, diff, configCommit))
    return ExitCode.ok
  }

  if (sub === 'verify') {
    if (args.positionals.length > 2) throw new UsageError('usage: git learn tier verify [<name>]', 'tier')
    const tiers = name ? [find(name)] : config.tiers
    const results = []
    for (const t of tiers) results.push({ name: t.name, commit: t.commit ?? null, ok: false, problems: (await verifyTier(git, t)).map((p) => tierVerifyProblem(t.name, p)) })
    for (const r of results) r.ok = r.problems.length === 0
    const ok = results.every((r) => r.ok)
    if (json) ctx.stdout(`${JSON.stringify({ ok, tiers: results })}\n`)
    else ctx.stdout(tierVerified(results))
    return ok ? ExitCode.ok : ExitCode.refused
  }

  throw new UsageError(`unknown tier subcommand "${sub ?? ''}"; use add, list, update or verify`, 'tier')
}
