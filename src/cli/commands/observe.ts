import { mapAgentPayload } from '../../adapters/agents/agent-payloads.js'
import { appendObservation, locateRepo, logObserveError } from '../../adapters/state/observations.js'
import { readObserveSettings } from '../../adapters/store/config.js'
import { formatObservationLine, planObservation } from '../../core/observation.js'
import { scanSecrets } from '../../core/secrets.js'
import { ExitCode, MAX_STDIN_BYTES } from '../context.js'
import type { Ctx } from '../context.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'observe',
  hook: true,
  summary:
    'Agent hook: record one tool call or session event (JSON on stdin) as a line of <git-common-dir>/learn/observations.jsonl.',
  usage: 'git learn observe   (reads the hook payload on stdin)',
  details:
    "Registered by `git learn init --agent claude` for every hook event. The event comes from the payload's\n" +
    'hook_event_name; the agent (Claude Code, Codex, Cursor, Gemini CLI, Copilot CLI) from its shape. Fields are\n' +
    'cut to observe.max_field_bytes and secrets are redacted before anything is written. It prints nothing and\n' +
    'always exits 0; problems go to <git-common-dir>/learn/observe.log.',
  options: {},
}

export async function run(_args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const now = ctx.now()
  let stateDir: string | undefined
  try {
    const loc = await locateRepo(ctx.cwd, ctx.env)
    if (!loc) return ExitCode.ok
    stateDir = loc.stateDir
    const settings = await readObserveSettings(loc.root, loc.commonDir, (m) => logObserveError(stateDir, m, now))
    if (!settings.enabled) return ExitCode.ok
    const bytes = await ctx.readStdin()
    if (bytes.length === 0 || (bytes.length < 4096 && bytes.toString('latin1').trim() === '')) {
      logObserveError(stateDir, 'empty payload on stdin; nothing recorded', now)
      return ExitCode.ok
    }
    const record = planObservation(bytes, settings, now.toISOString(), {
      mapPayload: mapAgentPayload,
      scan: (s) => scanSecrets(s, { allow: settings.secrets_allow }),
      maxBytes: MAX_STDIN_BYTES,
    })
    if (!record) return ExitCode.ok
    if (record.parse_error) logObserveError(stateDir, `${record.parse_error} (recorded with an excerpt)`, now)
    appendObservation(stateDir, formatObservationLine(record), settings.rotate_bytes, now)
  } catch (err) {
    logObserveError(stateDir, `observe failed: ${(err as Error).stack ?? String(err)}`, now)
  }
  return ExitCode.ok
}
