import { UsageError } from '../../core/errors.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'
import type { Problem } from '../../adapters/feed/search-index.js'
import type { Config } from '../../core/config-schema.js'
import type { BuiltContext } from '../../core/context.js'
import type { StatusEntry } from '../../core/status.js'
import type { UsageSummary } from '../../core/usage.js'

export const spec: CommandSpec = {
  name: 'context',
  hook: true,
  summary:
    'Agent hook (SessionStart): print the learnings to apply and an index of the rest, within context.max_tokens.',
  usage: 'git learn context [--format json|text]',
  details:
    'Prints {"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"…"}} for Claude Code.\n' +
    'Active learnings with effective confidence ≥ confidence.apply come first as one-line directives; then the\n' +
    'others (name: description), those touching files changed on this branch first. Tokens are estimated as\n' +
    'characters / 4. Never fails the session: on any problem it prints a minimal context, exits 0 and logs to\n' +
    '$(git rev-parse --git-common-dir)/learn/hooks.log.',
  options: {
    format: {
      type: 'string',
      value: 'json|text',
      description: 'json: the hook JSON (default); text: the plain context',
    },
    json: { type: 'boolean', description: 'the same as --format json' },
  },
}

const MINIMAL =
  'git-learn: learnings are under .learnings/active/; look an error up with `git learn search "<error text>"`.'

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const format = stringOpt(args, 'format') ?? 'json'
  if (format !== 'json' && format !== 'text')
    throw new UsageError(`--format must be json or text, not "${format}"`, 'context')
  if (flag(args, 'json') && format !== 'json')
    throw new UsageError(`--json is --format json, and --format says ${format}; use one of them`, 'context')
  let text = MINIMAL
  let unread: unknown
  try {
    const [{ readUsageSummary }, { readConfig }] = await Promise.all([
      import('../../adapters/state/events.js'),
      import('../../adapters/store/config.js'),
    ])
    // The usage counts only rank: a log that cannot be read (a directory, a file another user owns) costs them, not
    // the context; hooks.log says why.
    const usage = (commonDir: string) => {
      try {
        return readUsageSummary(commonDir)
      } catch (err) {
        unread = err
        return new Map<string, UsageSummary>()
      }
    }
    const { built, problems } = await contextAt(ctx.cwd, ctx.now(), usage, readConfig)
    // A tier that could not be read is said, never silently left out; why (config.yaml's URL, git's words) is for a
    // person at `tier verify`, not for the agent: a URL is a config value any commit can set, not reviewed text.
    const missing = new Set(
      problems
        .filter((p) => p.path.startsWith('refs/learn/tiers/'))
        .map((p) => p.path.slice('refs/learn/tiers/'.length)),
    )
    text = built.text
    // The messages are loaded only when a tier is missing: this is the SessionStart hook's path.
    if (missing.size) {
      const { tierMissing } = await import('../messages/feed.js')
      text += [...missing].map((name) => tierMissing(name)).join('')
    }
  } catch (err) {
    const { logHookError } = await import('../../adapters/state/hooks-log.js')
    logHookError(ctx.cwd, 'context', err, ctx.now())
  }
  if (format === 'text') ctx.stdout(`${text}\n`)
  else
    ctx.stdout(
      `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } })}\n`,
    )
  if (unread !== undefined) {
    const [{ logHookError }, { usageNotRecorded }] = await Promise.all([
      import('../../adapters/state/hooks-log.js'),
      import('../messages/feed.js'),
    ])
    logHookError(ctx.cwd, 'context', new Error(usageNotRecorded('context', unread)), ctx.now())
  }
  return ExitCode.ok
}

/**
 * The context of the store at `cwd`. Its active learnings are ranked by their status rows, and only the catalog
 * entries of the lines that can fit are read (`readContextFeed`); a catalog block that does not read back (a torn
 * cache) sends it to the whole catalog, which rebuilds what is damaged.
 */
export async function contextAt(
  cwd: string,
  now: Date,
  usageOf: (commonDir: string) => ReadonlyMap<string, UsageSummary>,
  configOf: (root: string, commonDir: string) => Promise<Config>,
): Promise<{ built: BuiltContext; problems: Problem[] }> {
  const [{ readContextFeed, readFeed }, { readBranchChanges }, { buildContext }] = await Promise.all([
    import('../../adapters/feed/search-index.js'),
    import('../../adapters/git/fast.js'),
    import('../../core/context.js'),
  ])
  // git diffs the branch while the cache is read, from the root the feed's key found (walking up to .git, or git
  // itself under GIT_DIR and the like).
  let branch: Promise<string[]> = Promise.resolve([])
  const feed = await readContextFeed(cwd, (root) => void (branch = readBranchChanges(root)))
  const config = await configOf(feed.root, feed.commonDir)
  const usage = usageOf(feed.commonDir)
  const changedFiles = await branch
  try {
    const { lengths } = feed
    const rows: number[] = []
    feed.entries.forEach((e, row) => {
      if (e.state === 'active') rows.push(row)
    })
    const built = buildContext({
      entries: rows.map((row) => feed.entries[row] as StatusEntry),
      detail: (i) => {
        const row = rows[i] as number
        const e = feed.entry(row)
        const ranked = feed.entries[row] as StatusEntry
        if (!e || e.name !== ranked.name || e.tier !== ranked.tier)
          throw new Error('a catalog entry does not match its status row')
        return e
      },
      ...(lengths ? { lengths: (i: number) => lengths(rows[i] as number) } : {}),
      usage,
      changedFiles,
      now,
      config,
    })
    return { built, problems: feed.problems }
  } catch (err) {
    if (!feed.cached) throw err
    const whole = await readFeed(cwd)
    const entries = whole.catalog.filter((e) => e.state === 'active')
    return { built: buildContext({ entries, usage, changedFiles, now, config }), problems: whole.problems }
  } finally {
    feed.close()
  }
}
