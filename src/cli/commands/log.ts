import { openRepo } from '../../adapters/store/repo.js'
import { readHead } from '../../adapters/git/simple.js'
import { PARSED_LOG } from '../../adapters/git/run.js'
import { requireLearningPath } from '../../adapters/store/store.js'
import { UsageError } from '../../core/errors.js'
import { STORE_DIR } from '../../core/learning.js'
import { explainBadName } from '../../core/names.js'
import { RAW_LOG_FORMAT, parseAuditTrail, parseRawLog } from '../../core/trailers.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { logLines } from '../messages/lifecycle.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'log',
  summary:
    'The audit trail: every lifecycle commit, newest first, read back from its trailers (squash-merge bodies included).',
  usage: 'git learn log [<name>] [-n <count>] [--json]',
  options: {
    'max-count': { type: 'string', short: 'n', value: 'count', description: 'show at most this many events' },
    json: {
      type: 'boolean',
      description: 'print {"events":[{commit,date,author,name,action,from,to,by,reason,trailers}]}',
    },
  },
  positionals: { min: 0, max: 1, names: '[<name>]' },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const name = args.positionals[0]
  if (name) {
    const bad = explainBadName(name)
    if (bad) throw new UsageError(`not a learning name: ${bad}`, 'log')
  }
  const max = stringOpt(args, 'max-count')
  if (max !== undefined && !/^\d+$/.test(max)) throw new UsageError(`-n takes a whole number, not "${max}"`, 'log')
  const repo = await openRepo(ctx.cwd)
  let events: ReturnType<typeof parseAuditTrail> = []
  if (await readHead(repo.git)) {
    // --full-history: a path-limited log otherwise simplifies history and follows only the side of a merge whose
    // tree the result equals, dropping the other side's lifecycle commits (a reject merged away by an approve).
    // Merge commits it then lists carry no trailers and give no event.
    const out = await repo.git.run([...PARSED_LOG, '--full-history', `--format=${RAW_LOG_FORMAT}`, '--', STORE_DIR])
    events = parseAuditTrail(parseRawLog(out), name)
  }
  // A name that no commit and no state directory knows is a learning not found, as in every command that takes one.
  if (name && !events.length) requireLearningPath(repo.root, name)
  if (max !== undefined) events = events.slice(0, Number(max))
  if (flag(args, 'json')) ctx.stdout(`${JSON.stringify({ events })}\n`)
  else ctx.stdout(logLines(events))
  return ExitCode.ok
}
