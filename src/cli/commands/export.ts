import { isAbsolute, join, relative, resolve } from 'node:path'
import { UsageError } from '../../core/errors.js'
import type { LearningState } from '../../core/errors.js'
import { STATES } from '../../core/learning.js'
import { exportLearnings } from '../../flows/export.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { warnUnreadable } from '../messages/lifecycle.js'
import { exportReport, strippedLines } from '../messages/scale.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'export',
  summary: 'Write a bundle of learnings (one JSON document) stripped of what must not leave the repository.',
  usage: 'git learn export [--out <file> [--force]] [--state active|pending|archived|all] [--keep-code] [--json]',
  details:
    'Stripped from every learning: fenced code blocks (unless --keep-code), absolute paths (the file name is kept),\n' +
    'session ids (source.session), e-mail addresses, timestamps older than a week, and secrets. What was stripped\n' +
    'is listed per learning on stderr (or in the --json report). Without --out the bundle goes to stdout.\n' +
    'Bring it into another repository with `git learn import <file>`.',
  options: {
    out: {
      type: 'string',
      value: 'file',
      description: 'write the bundle here (an existing file needs --force; never inside .learnings/)',
    },
    state: {
      type: 'string',
      value: 'state',
      description: 'which learnings: active (default), pending, archived or all',
    },
    'keep-code': { type: 'boolean', description: 'keep fenced code blocks' },
    force: { type: 'boolean', description: 'overwrite an existing --out file', only: { with: 'out' } },
    json: {
      type: 'boolean',
      description: 'print {"out","count","stripped":[{name,stripped}]} (and "bundle" when there is no --out)',
    },
  },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const state = stringOpt(args, 'state') ?? 'active'
  if (state !== 'all' && !STATES.includes(state as LearningState))
    throw new UsageError(`--state must be active, pending, archived or all, not "${state}"`, 'export')
  const out = stringOpt(args, 'out')
  const outPath = out === undefined ? undefined : isAbsolute(out) ? out : resolve(ctx.cwd, out)
  const shown = outPath ? relative(ctx.cwd, outPath) || outPath : null
  const { bundle, text, report } = await exportLearnings(ctx.cwd, {
    states: state === 'all' ? STATES : [state as LearningState],
    out: outPath,
    ...(shown ? { outShown: shown } : {}),
    keepCode: flag(args, 'keep-code'),
    force: flag(args, 'force'),
    now: ctx.now(),
    unreadable: (path, reason) => ctx.stderr(warnUnreadable(path, reason)),
  })
  if (flag(args, 'json'))
    ctx.stdout(
      `${JSON.stringify({ out: shown, count: bundle.learnings.length, stripped: report, ...(outPath ? {} : { bundle }) })}\n`,
    )
  else {
    if (!outPath) ctx.stdout(text)
    ctx.stderr(strippedLines(report))
    if (outPath) ctx.stdout(exportReport(bundle.learnings.length, shown ?? join(outPath)))
  }
  return ExitCode.ok
}
