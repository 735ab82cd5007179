// The PostToolUse / PostToolUseFailure hook. Only light modules are imported here: a successful tool call costs
// one JSON.parse; the search index is loaded only when the tool failed.
import { detectToolFailure } from '../../core/search-recall.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'recall',
  hook: true,
  summary: "Agent hook (PostToolUse, PostToolUseFailure): when a tool failed, return the matching learning's fix.",
  usage: 'git learn recall [--json] < hook-payload.json',
  details:
    "Reads the agent's hook JSON on stdin. When the tool failed (an error, a non-zero exit, a failing test run),\n" +
    'looks the normalized error up among active error-solution and anti-pattern learnings and, when the error holds\n' +
    'most of a learning\'s trigger, prints {"hookSpecificOutput":{"hookEventName":…,"additionalContext":…}}.\n' +
    'Otherwise prints nothing. Always exits 0; problems go to $(git rev-parse --git-common-dir)/learn/hooks.log.',
  options: {
    json: {
      type: 'boolean',
      description:
        'print one JSON object, always: {"failed":bool,"recalled":[{name,description,fix}]} (for scripts, not the hook)',
    },
  },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const json = args.values['json'] === true
  const answer = (failed: boolean, recalled: readonly { name: string; description: string; fix: string }[]) => {
    if (json)
      ctx.stdout(
        `${JSON.stringify({ failed, recalled: recalled.map(({ name, description, fix }) => ({ name, description, fix })) })}\n`,
      )
    return ExitCode.ok
  }
  let payload: unknown
  try {
    payload = JSON.parse((await ctx.readStdin()).toString('utf8'))
  } catch {
    return answer(false, [])
  }
  const failure = detectToolFailure(payload)
  if (!failure || !failure.text.trim()) return answer(false, [])
  let unrecorded: unknown
  try {
    // The feed's git processes start before the rest of the failure path is loaded.
    // In the hook's own directory, never the payload's `cwd`: git run in a directory a payload names would run that
    // repository's configured commands (core.fsmonitor, a credential helper…), and its learnings are not this one's.
    ;(await import('../../adapters/feed/feed-key.js')).prefetchKeying(ctx.cwd)
    const [{ recallFailure }, { recallContext }] = await Promise.all([
      import('../../adapters/feed/recall.js'),
      import('../messages/feed.js'),
    ])
    // Not recorded (events.jsonl cannot be appended): the fix still goes out, and hooks.log says why.
    const recalled = await recallFailure(failure, ctx.cwd, ctx.now(), (err) => void (unrecorded = err))
    if (json) answer(true, recalled)
    else if (recalled.length)
      ctx.stdout(
        `${JSON.stringify({ hookSpecificOutput: { hookEventName: failure.event, additionalContext: recallContext(recalled) } })}\n`,
      )
  } catch (err) {
    const { logHookError } = await import('../../adapters/state/hooks-log.js')
    logHookError(ctx.cwd, 'recall', err, ctx.now())
    if (json) return answer(true, [])
  }
  if (unrecorded !== undefined) {
    const [{ logHookError }, { usageNotRecorded }] = await Promise.all([
      import('../../adapters/state/hooks-log.js'),
      import('../messages/feed.js'),
    ])
    logHookError(ctx.cwd, 'recall', new Error(usageNotRecorded('recall', unrecorded)), ctx.now())
  }
  return ExitCode.ok
}
