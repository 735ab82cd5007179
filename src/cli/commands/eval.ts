import { isAbsolute, join } from 'node:path'
import { readEventsSync } from '../../adapters/state/events.js'
import { readBranchChanges } from '../../adapters/git/fast.js'
import { readFileBounded } from '../../adapters/store/read-bounded.js'
import { readFeed, readSearchFeed } from '../../adapters/feed/search-index.js'
import { readConfig } from '../../adapters/store/config.js'
import { buildContext } from '../../core/context.js'
import { UsageError } from '../../core/errors.js'
import { parseEvalSet, scoreEval } from '../../core/eval.js'
import type { EvalCase } from '../../core/eval.js'
import { summarizeUsage } from '../../core/usage.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { evalReport, warnProblems } from '../messages/feed.js'
import { tooLarge } from '../messages/errors.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'
import { parseLimit } from './search.js'

export const spec: CommandSpec = {
  name: 'eval',
  summary: 'Measure retrieval on your own queries: top-1, precision@k, MRR, the misses, and the tokens context injects.',
  usage: 'git learn eval --set <queries.yaml> [--k <n>] [--json]',
  details: 'The set is a YAML list of {query, expect}: expect names the learning that should rank first (or a list of names).\nQueries run like `git learn search` over active learnings.',
  options: {
    set: { type: 'string', value: 'file', description: 'the queries file (required)' },
    k: { type: 'string', value: 'n', description: 'precision@k and hit@k cut-off (default 3)' },
    json: { type: 'boolean', description: 'print {queries, k, top1, precisionAtK, hitAtK, mrr, misses, contextTokens}' },
  },
}

/** Largest queries file read. */
export const MAX_EVAL_SET_BYTES = 4 * 1024 * 1024

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const set = stringOpt(args, 'set')
  if (!set) throw new UsageError('give the queries file with --set <queries.yaml>', 'eval')
  const k = parseLimit(stringOpt(args, 'k'), 'eval', 3)
  let cases: EvalCase[]
  try {
    const r = readFileBounded(isAbsolute(set) ? set : join(ctx.cwd, set), MAX_EVAL_SET_BYTES)
    if (r.over) throw new UsageError(tooLarge('the queries file', set, r.size, MAX_EVAL_SET_BYTES), 'eval')
    cases = parseEvalSet(r.bytes.toString('utf8'))
  } catch (err) {
    if (err instanceof UsageError) throw err
    const e = err as NodeJS.ErrnoException
    throw new UsageError(`${set}: ${e.code === 'ENOENT' ? 'no such file' : String(e.message).split('\n')[0]}`, 'eval')
  }
  const feed = await readSearchFeed(ctx.cwd)
  ctx.stderr(warnProblems(feed.problems))
  const outcomes = []
  for (const c of cases) outcomes.push({ ...c, ranked: (await feed.rank(c.query, { states: ['active'] }, Math.max(k, 10))).map((h) => h.entry.name) })
  const report = scoreEval(outcomes, k)
  const config = await readConfig(feed.root, feed.commonDir)
  const { catalog } = await readFeed(ctx.cwd)
  const context = buildContext({
    entries: catalog.filter((e) => e.state === 'active'),
    usage: summarizeUsage(readEventsSync(feed.commonDir)),
    changedFiles: readBranchChanges(feed.root),
    now: ctx.now(),
    config,
  })
  const out = { ...report, contextTokens: context.tokens }
  if (flag(args, 'json')) ctx.stdout(`${JSON.stringify(out)}\n`)
  else ctx.stdout(evalReport(out))
  return ExitCode.ok
}
