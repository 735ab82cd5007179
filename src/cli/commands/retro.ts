import { statSync } from 'node:fs'
import { join } from 'node:path'
import { commitTransition } from '../../flows/transition.js'
import { assertNothingHalfDone } from '../../flows/recovery.js'
import { assertNoOperationInProgress, readHead, readIdentity } from '../../adapters/git/simple.js'
import { listObservationFiles, readObservationLines } from '../../adapters/state/observations.js'
import { openRepo } from '../../adapters/store/repo.js'
import { findLearningPath } from '../../adapters/store/store.js'
import { UsageError } from '../../core/errors.js'
import { learningPath, parseLearning } from '../../core/learning.js'
import type { Learning } from '../../core/learning.js'
import { createRetroAnalysis, parseSince } from '../../core/retro/analyze.js'
import { dedupeDrafts } from '../../core/retro/dedupe-drafts.js'
import { RETRO_CONFIDENCE, formatCandidateLearning } from '../../core/retro/drafts.js'
import { buildCommitMessage } from '../../core/trailers.js'
import type { Trailer } from '../../core/trailers.js'
import { admitLearning } from '../admit.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { describeError } from '../messages/errors.js'
import { warningAt } from '../messages/lifecycle.js'
import { retroNearTwin, retroNoObservations, retroReading, retroReport, retroSameName, retroWritten } from '../messages/retro.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'retro',
  summary: 'Retrospective: find error→solution pairs, retry loops, repeated workflows, user corrections and tool preferences in the observations.',
  usage: 'git learn retro [--session <id>] [--since <date>] [--json] [--write]',
  details:
    'Reads <git-common-dir>/learn/observations.archive/*.jsonl then observations.jsonl, oldest first, streamed.\n' +
    'The analysis counts; judging is yours (or your agent\'s): `/retrospective` has the agent turn good candidates\n' +
    'into learnings with `git learn add`. --write proposes every candidate through the same gates, secret scan and\n' +
    'duplicate check as `add`, into .learnings/pending/ with confidence 0.3, in one commit. Observations are never\n' +
    'deleted or marked as processed.',
  options: {
    session: { type: 'string', value: 'id', description: 'only this session' },
    since: { type: 'string', value: 'date', description: 'only observations at or after this date (YYYY-MM-DD or ISO 8601)' },
    write: { type: 'boolean', description: 'propose the candidates as learnings in .learnings/pending/ (one commit)' },
    json: { type: 'boolean', description: 'print one JSON object: {candidates: [{kind, name, type, trigger, description, evidence}], skipped_lines}' },
  },
}

/** Logs larger than this get a progress line on stderr. */
const PROGRESS_BYTES = 32 * 1024 * 1024

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const sinceText = stringOpt(args, 'since')
  const since = sinceText === undefined ? undefined : parseSince(sinceText)
  if (sinceText !== undefined && since === undefined) throw new UsageError(`--since "${sinceText}" is not a date; use YYYY-MM-DD or an ISO 8601 time`, 'retro')
  const json = flag(args, 'json')
  const repo = await openRepo(ctx.cwd)
  const { git } = repo
  const stateDir = join(git.commonDir, 'learn')
  const files = listObservationFiles(stateDir)
  const bytes = files.reduce((n, f) => n + (statSync(f, { throwIfNoEntry: false })?.size ?? 0), 0)
  if (bytes > PROGRESS_BYTES) ctx.stderr(retroReading(bytes, files.length))
  const analysis = createRetroAnalysis({ session: stringOpt(args, 'session'), since })
  for await (const line of readObservationLines(files)) analysis.feedLine(line)
  const result = analysis.finish()
  const report = { ...result, files: files.length }

  if (!flag(args, 'write')) {
    if (json) ctx.stdout(`${JSON.stringify({ candidates: result.candidates, records: result.records, skipped_lines: result.skipped_lines })}\n`)
    else ctx.stdout(files.length ? retroReport(report) : retroNoObservations(stateDir))
    return ExitCode.ok
  }

  assertNoOperationInProgress(git)
  await assertNothingHalfDone(git)
  const config = await repo.config()
  const commit = await readHead(git)
  const identity = await readIdentity(git)
  const written: { name: string; path: string; text: string }[] = []
  const refused: { name: string; reason: string }[] = []
  const reasonOf = (err: unknown) => {
    const d = describeError(err, 'retro')
    if (d.code === ExitCode.internal) throw err
    return d.message.split('\n').filter((l) => !/^Run `|^Fix /.test(l)).join(' ')
  }
  const drafts: Learning[] = []
  for (const c of result.candidates) {
    try {
      drafts.push(parseLearning(formatCandidateLearning(c, { now: ctx.now(), commit, root: git.root }), learningPath('pending', c.name)))
    } catch (err) {
      refused.push({ name: c.name, reason: reasonOf(err) })
    }
  }
  // Compared with each other first: the store's check cannot see the drafts of this run.
  const { kept, skipped: twins } = dedupeDrafts(drafts, config.dedupe)
  const skipped = twins.map((t) => ({ name: t.name, reason: t.kind === 'same-name' ? retroSameName(t.name) : retroNearTwin(t.of, t.similarity) }))
  const perName: Record<string, Trailer[]> = {}
  for (const learning of kept) {
    const existing = findLearningPath(git.root, learning.name)
    if (existing) {
      refused.push({ name: learning.name, reason: `a learning named ${learning.name} already exists: ${existing.path}` })
      continue
    }
    try {
      const admitted = await admitLearning(repo, learning, {})
      for (const w of admitted.warnings) ctx.stderr(warningAt(learning.path, w))
      perName[learning.name] = admitted.trailers
      written.push({ name: learning.name, path: learning.path, text: admitted.text })
    } catch (err) {
      refused.push({ name: learning.name, reason: reasonOf(err) })
    }
  }
  let sha: string | null = null
  if (written.length) {
    const message = buildCommitMessage({
      action: 'add',
      names: written.map((w) => w.name),
      from: null,
      to: 'pending',
      by: { token: 'Proposed-by', value: identity },
      body: `Proposed by git learn retro from ${result.records} observation(s); confidence ${RETRO_CONFIDENCE}.`,
      perName,
    })
    sha = await commitTransition(git, written.map((w) => ({ kind: 'create' as const, path: w.path, text: w.text })), message)
  }
  const out = { written: written.map(({ name, path }) => ({ name, path })), refused, skipped, commit: sha }
  if (json) ctx.stdout(`${JSON.stringify({ candidates: result.candidates, records: result.records, skipped_lines: result.skipped_lines, ...out })}\n`)
  else ctx.stdout(`${retroReport(report)}\n${retroWritten(out)}`)
  return written.length || !refused.length ? ExitCode.ok : ExitCode.refused
}
