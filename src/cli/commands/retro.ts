import { UsageError } from '../../core/errors.js'
import { parseSince } from '../../core/retro/analyze.js'
import { retro } from '../../flows/retro.js'
import { ExitCode } from '../context.js'
import { noteDetached } from '../detached.js'
import type { Ctx } from '../context.js'
import { describeError } from '../messages/errors.js'
import { warningAt } from '../messages/lifecycle.js'
import {
  retroNearTwin,
  retroNoObservations,
  retroReading,
  retroReport,
  retroSameName,
  retroWritten,
} from '../messages/retro.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'retro',
  summary:
    'Retrospective: find error→solution pairs, retry loops, repeated workflows, user corrections and tool preferences in the observations.',
  usage: 'git learn retro [--session <id>] [--since <date>] [--json] [--write]',
  details:
    'Reads <git-common-dir>/learn/observations.archive/*.jsonl then observations.jsonl, oldest first, streamed.\n' +
    "The analysis counts; judging is yours (or your agent's): `/retrospective` has the agent turn good candidates\n" +
    'into learnings with `git learn add`. --write proposes every candidate through the same gates, secret scan and\n' +
    'duplicate check as `add`, into .learnings/pending/ with confidence 0.3, in one commit. Observations are never\n' +
    'deleted or marked as processed.',
  options: {
    session: { type: 'string', value: 'id', description: 'only this session' },
    since: {
      type: 'string',
      value: 'date',
      description: 'only observations at or after this date (YYYY-MM-DD or ISO 8601)',
    },
    write: { type: 'boolean', description: 'propose the candidates as learnings in .learnings/pending/ (one commit)' },
    json: {
      type: 'boolean',
      description:
        'print one JSON object: {candidates: [{kind, name, type, trigger, description, evidence}], skipped_lines}',
    },
  },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const sinceText = stringOpt(args, 'since')
  const since = sinceText === undefined ? undefined : parseSince(sinceText)
  if (sinceText !== undefined && since === undefined)
    throw new UsageError(`--since "${sinceText}" is not a date; use YYYY-MM-DD or an ISO 8601 time`, 'retro')
  const json = flag(args, 'json')
  const { result, files, stateDir, write } = await retro(ctx.cwd, {
    session: stringOpt(args, 'session'),
    since,
    write: flag(args, 'write'),
    now: ctx.now(),
    reading: (bytes, n) => ctx.stderr(retroReading(bytes, n)),
    warn: (path, w) => ctx.stderr(warningAt(path, w)),
  })
  const report = { ...result, files }
  if (!write) {
    if (json)
      ctx.stdout(
        `${JSON.stringify({ candidates: result.candidates, records: result.records, skipped_lines: result.skipped_lines })}\n`,
      )
    else ctx.stdout(files ? retroReport(report) : retroNoObservations(stateDir))
    return ExitCode.ok
  }
  // The reason of a refusal is the error's message without its "Run …"/"Fix …" advice, on one line.
  const reasonOf = (err: unknown) =>
    describeError(err, 'retro')
      .message.split('\n')
      .filter((l) => !/^Run `|^Fix /.test(l))
      .join(' ')
  const refused = write.refused.map((r) => ({ name: r.name, reason: reasonOf(r.error) }))
  const skipped = write.skipped.map((t) => ({
    name: t.name,
    reason: t.kind === 'same-name' ? retroSameName(t.name) : retroNearTwin(t.of, t.similarity),
  }))
  const out = {
    written: write.written,
    refused,
    skipped,
    commit: write.commit,
    ...(await noteDetached(ctx, [write.commit])),
  }
  if (json)
    ctx.stdout(
      `${JSON.stringify({ candidates: result.candidates, records: result.records, skipped_lines: result.skipped_lines, ...out })}\n`,
    )
  else ctx.stdout(`${retroReport(report)}\n${retroWritten(out)}`)
  return write.written.length || !refused.length ? ExitCode.ok : ExitCode.refused
}
