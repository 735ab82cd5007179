import { appendEvent, readEvents } from '../../adapters/state/events.js'
import { readStatusFeed } from '../../adapters/feed/search-index.js'
import { readConfig } from '../../adapters/store/config.js'
import { baseConfidence, effectiveConfidence } from '../../core/confidence.js'
import { storeExists } from '../../adapters/store/exists.js'
import { LearningNotFoundError, UsageError } from '../../core/errors.js'
import { explainBadName } from '../../core/names.js'
import { EMPTY_USAGE, summarizeUsage } from '../../core/usage.js'
import type { UsageEvent } from '../../core/usage.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { feedbackDone, feedbackNotRecorded, stateNotWritten } from '../messages/feed.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'feedback',
  summary: 'Record that a learning helped or misled: a usage event that moves its effective confidence.',
  usage: 'git learn feedback <name> --helpful|--harmful [--note "…"] [--json]',
  details:
    'Each --helpful adds confidence.confirm (0.05), each --harmful takes confidence.contradict (0.10); the\n' +
    'events live in $(git rev-parse --git-common-dir)/learn/events.jsonl, never committed.',
  options: {
    helpful: { type: 'boolean', description: 'the learning helped (confirms it)' },
    harmful: { type: 'boolean', description: 'the learning was wrong or misleading (contradicts it)' },
    note: { type: 'string', value: 'text', description: 'why, in a sentence (kept in the event)', emptyIsNone: true },
    session: { type: 'string', value: 'id', description: 'the agent session this happened in' },
    json: { type: 'boolean', description: 'print {name, kind, previous, confidence}' },
  },
  positionals: { min: 1, max: 1, names: '<name>' },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const name = args.positionals[0] as string
  const bad = explainBadName(name)
  if (bad) throw new UsageError(`not a learning name: ${bad}`, 'feedback')
  const helpful = flag(args, 'helpful')
  if (helpful === flag(args, 'harmful'))
    throw new UsageError('say either --helpful or --harmful (exactly one)', 'feedback')
  const kind = helpful ? 'helpful' : 'harmful'

  // The status rows hold what the confidence needs (name, tier, confidence, date): no catalog block is read.
  const feed = await readStatusFeed(ctx.cwd)
  const entry =
    feed.entries.find((e) => e.name === name && e.tier === 'project') ?? feed.entries.find((e) => e.name === name)
  if (!entry) throw new LearningNotFoundError(name, !storeExists(feed.root))
  const config = (await readConfig(feed.root, feed.commonDir)).confidence
  const mine: UsageEvent[] = []
  for await (const e of readEvents(feed.commonDir)) if (e.name === name) mine.push(e)
  const now = ctx.now()
  const confidenceOf = (events: UsageEvent[]) =>
    effectiveConfidence(
      baseConfidence(entry.confidence),
      summarizeUsage(events).get(name) ?? EMPTY_USAGE,
      now,
      config,
      entry.created,
    )
  const previous = confidenceOf(mine)
  const note = stringOpt(args, 'note')
  const session = stringOpt(args, 'session')
  const event: UsageEvent = {
    ts: now.toISOString(),
    kind,
    name,
    ...(session ? { session } : {}),
    ...(note ? { note } : {}),
  }
  try {
    appendEvent(feed.commonDir, event)
  } catch (err) {
    // A read-only or full state directory costs the record, not the command: say so and go on.
    const code = (err as NodeJS.ErrnoException).code ?? String(err)
    ctx.stderr(stateNotWritten(`${feed.commonDir}/learn/events.jsonl`, code))
    if (flag(args, 'json'))
      ctx.stdout(`${JSON.stringify({ name, kind, previous, confidence: previous, recorded: false })}\n`)
    else ctx.stdout(feedbackNotRecorded(name, kind, previous))
    return ExitCode.ok
  }
  const confidence = confidenceOf([...mine, event])
  if (flag(args, 'json')) ctx.stdout(`${JSON.stringify({ name, kind, previous, confidence })}\n`)
  else ctx.stdout(feedbackDone(name, kind, previous, confidence))
  return ExitCode.ok
}
