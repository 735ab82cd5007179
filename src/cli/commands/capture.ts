// The Stop, SubagentStop, PreCompact and SessionEnd hook: the agent's transcript, read from where the last read
// stopped, into observation records (src/flows/capture.ts).
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'capture',
  hook: true,
  summary:
    'Agent hook (Stop, SubagentStop, PreCompact, SessionEnd): record the new part of the session transcript as observations.',
  usage: 'git learn capture   (reads the hook payload on stdin)',
  details:
    'Registered by `git learn init --agent claude`. Reads the transcript the payload names (transcript_path; for\n' +
    'SubagentStop agent_transcript_path) from where the last read of it stopped, and appends to\n' +
    '<git-common-dir>/learn/observations.jsonl, in transcript order, one record per prompt and per tool result (with\n' +
    "the call's input), cut and redacted as `git learn observe` does, then one record of the hook event. It prints\n" +
    'nothing and always exits 0; a missing, rotated, truncated or unreadable transcript is a warning in\n' +
    '<git-common-dir>/learn/hooks.log.',
  options: {},
}

export async function run(_args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const now = ctx.now()
  const [{ runCapture }, { appendHookLog, logHookError }, { sweepSessionFilesDaily }] = await Promise.all([
    import('../../flows/capture.js'),
    import('../../adapters/state/hooks-log.js'),
    import('../../adapters/state/daily-sweep.js'),
  ])
  try {
    const result = await runCapture(await ctx.readStdin(), ctx.cwd, ctx.env, now)
    if (result.stateDir) for (const w of result.warnings) appendHookLog(result.stateDir, 'capture', w, now)
    // Once a day: the offsets of transcripts that are gone, the pending recalls of sessions long idle.
    const sweeping = result.stateDir ? sweepSessionFilesDaily(result.stateDir) : undefined
    if (sweeping) await sweeping
  } catch (err) {
    logHookError(ctx.cwd, 'capture', (err as Error).stack ?? err, now)
  }
  return ExitCode.ok
}
