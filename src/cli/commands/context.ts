import { UsageError } from '../../core/errors.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

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
  let text = MINIMAL
  try {
    const [{ readFeed }, { readConfig }, { readUsageSummary }, { readBranchChanges }, { buildContext }] =
      await Promise.all([
        import('../../adapters/feed/search-index.js'),
        import('../../adapters/store/config.js'),
        import('../../adapters/state/events.js'),
        import('../../adapters/git/fast.js'),
        import('../../core/context.js'),
      ])
    const feed = await readFeed(ctx.cwd)
    const config = await readConfig(feed.root, feed.commonDir)
    const built = buildContext({
      entries: feed.catalog.filter((e) => e.state === 'active'),
      usage: readUsageSummary(feed.commonDir),
      changedFiles: readBranchChanges(feed.root),
      now: ctx.now(),
      config,
    })
    // A tier that could not be read is said, never silently left out.
    const missing = feed.problems.filter((p) => p.path.startsWith('refs/learn/tiers/'))
    text =
      built.text +
      missing
        .map(
          (p) =>
            `\ngit-learn: tier ${p.path.slice('refs/learn/tiers/'.length)} is missing from this context: ${p.reason}`,
        )
        .join('')
  } catch (err) {
    const { logHookError } = await import('../../adapters/state/hooks-log.js')
    logHookError(ctx.cwd, 'context', err, ctx.now())
  }
  if (format === 'text' && !flag(args, 'json')) ctx.stdout(`${text}\n`)
  else
    ctx.stdout(
      `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } })}\n`,
    )
  return ExitCode.ok
}
