import { DEFAULT_TIER_WEIGHT, tierRef } from '../../adapters/feed/tiers.js'
import { UsageError } from '../../core/errors.js'
import { explainBadName } from '../../core/names.js'
import { addTier, listTiers, removeTier, updateTier, verifyTiers } from '../../flows/tier.js'
import { ExitCode } from '../context.js'
import { noteDetached } from '../detached.js'
import type { Ctx } from '../context.js'
import { tierAdded, tierList, tierRemoved, tierUpdated, tierVerified, tierVerifyProblem } from '../messages/scale.js'
import { flag, jsonOption, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'tier',
  summary: "Share learnings across repositories: another repository's active learnings, pinned by commit, read-only.",
  usage:
    'git learn tier add <name> <git-url> [--ref main] [--weight 0.9]   ·   git learn tier list   ·   git learn tier update <name>   ·   git learn tier remove <name>   ·   git learn tier verify [<name>]',
  details:
    'add fetches <ref> of <git-url> into refs/learn/tiers/<name> (git fetch --no-tags; nothing is checked out), pins the\n' +
    'fetched commit in .learnings/config.yaml and commits that file alone. update fetches again, shows the learnings\n' +
    'added, removed and changed, and commits the new pin (a reviewed change). remove takes the tier out of config.yaml\n' +
    'in a commit of that file alone (its URL and pin stay in the history) and deletes its ref; its cached files go a\n' +
    'day after their last use. verify fetches a pinned commit that is not here (at once), then checks that each tier\n' +
    'ref still holds its pinned commit and that the objects are intact ' +
    "(exit 1 otherwise). search, context and recall read the tiers' active learnings straight from git objects, with\n" +
    "the tier's weight.",
  options: {
    ref: {
      type: 'string',
      value: 'ref',
      description: 'add: branch, tag or ref of the tier repository to fetch (default: main)',
      only: { subcommands: ['add'] },
    },
    weight: {
      type: 'string',
      value: '0..1',
      description: `add: how much its learnings count in search against the project's 1.0 (default ${DEFAULT_TIER_WEIGHT})`,
      only: { subcommands: ['add'] },
    },
    json: jsonOption(),
  },
  positionals: { min: 1, max: 3, names: 'add|list|update|remove|verify [<name>] [<git-url>]' },
}

function parseWeight(text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const w = Number(text)
  if (!/^\s*\d*\.?\d+\s*$/.test(text) || !(w >= 0 && w <= 1))
    throw new UsageError(`--weight must be a number from 0 to 1, not "${text}"`, 'tier')
  return w
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const [sub, name, url, ...extra] = args.positionals
  const json = flag(args, 'json')
  const expect = (n: number, usage: string) => {
    if (args.positionals.length !== n || extra.length || args.positionals.some((p) => !p.trim()))
      throw new UsageError(`usage: git learn tier ${usage}`, 'tier')
  }

  if (sub === 'add') {
    expect(3, 'add <name> <git-url> [--ref main] [--weight 0.9]')
    const bad =
      explainBadName(name as string) ??
      // An agent is told which learnings were reviewed elsewhere by their tier's name: "project" would pass for ours.
      (name === 'project' ? '"project" names this repository\'s own learnings; pick another name' : undefined)
    if (bad) throw new UsageError(`not a tier name: ${bad}`, 'tier')
    const weight = parseWeight(stringOpt(args, 'weight'))
    const ref = stringOpt(args, 'ref') ?? 'main'
    const { tier, learnings, configCommit } = await addTier(ctx.cwd, name as string, url as string, ref, weight)
    const result = {
      ...tier,
      weight: tier.weight ?? DEFAULT_TIER_WEIGHT,
      ref: tierRef(tier.name),
      learnings,
      configCommit,
    }
    const detached = await noteDetached(ctx, [configCommit])
    if (json) ctx.stdout(`${JSON.stringify({ ...result, tracked: ref, ...detached })}\n`)
    else ctx.stdout(tierAdded(tier, learnings, configCommit))
    return ExitCode.ok
  }

  if (sub === 'list') {
    expect(1, 'list')
    const rows = await listTiers(ctx.cwd)
    if (json) ctx.stdout(`${JSON.stringify({ tiers: rows })}\n`)
    else ctx.stdout(tierList(rows))
    return ExitCode.ok
  }

  if (sub === 'update') {
    expect(2, 'update <name>')
    const u = await updateTier(ctx.cwd, name as string)
    const changed = u.configCommit !== null
    const detached = await noteDetached(ctx, [u.configCommit])
    if (json)
      ctx.stdout(
        `${JSON.stringify(
          changed
            ? {
                name: u.name,
                from: u.from ?? null,
                to: u.to,
                changed,
                added: u.diff?.added ?? null,
                removed: u.diff?.removed ?? null,
                updated: u.diff?.changed ?? null,
                commit: u.configCommit,
                ...detached,
              }
            : { name: u.name, from: u.from, to: u.to, changed, added: [], removed: [], updated: [], commit: null },
        )}\n`,
      )
    else ctx.stdout(tierUpdated(u.name, u.from, u.to, u.diff, u.configCommit))
    return ExitCode.ok
  }

  if (sub === 'remove') {
    expect(2, 'remove <name>')
    const r = await removeTier(ctx.cwd, name as string)
    const detached = await noteDetached(ctx, [r.configCommit])
    if (json)
      ctx.stdout(
        `${JSON.stringify({ name: r.name, pin: r.pin, commit: r.configCommit, ref: tierRef(r.name), refDeleted: r.refDeleted, ...detached })}\n`,
      )
    else ctx.stdout(tierRemoved(r))
    return ExitCode.ok
  }

  if (sub === 'verify') {
    if (args.positionals.length > 2) throw new UsageError('usage: git learn tier verify [<name>]', 'tier')
    const results = (await verifyTiers(ctx.cwd, name)).map((t) => ({
      name: t.name,
      commit: t.commit,
      ok: t.problems.length === 0,
      problems: t.problems.map((p) => tierVerifyProblem(t.name, p)),
    }))
    const ok = results.every((r) => r.ok)
    if (json) ctx.stdout(`${JSON.stringify({ ok, tiers: results })}\n`)
    else ctx.stdout(tierVerified(results))
    return ok ? ExitCode.ok : ExitCode.refused
  }

  throw new UsageError(`unknown tier subcommand "${sub ?? ''}"; use add, list, update, remove or verify`, 'tier')
}
