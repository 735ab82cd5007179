import { isAbsolute, join } from 'node:path'
import { readEventsSync } from '../../adapters/state/events.js'
import { readFileBounded } from '../../adapters/store/read-bounded.js'
import { readSearchFeed } from '../../adapters/feed/search-index.js'
import { readRecallFeed } from '../../adapters/feed/recall.js'
import { readConfig } from '../../adapters/store/config.js'
import { readLearningFolder } from '../../adapters/store/folder.js'
import { DEFAULT_CONFIG } from '../../core/config-schema.js'
import { buildContext } from '../../core/context.js'
import { FileAccessError, RefusedError, UsageError } from '../../core/errors.js'
import { FAILURE_FORMS, parseEvalSet, scoreEval } from '../../core/eval.js'
import type { EvalCase, EvalOutcome } from '../../core/eval.js'
import { RECALL_MAX_ITEMS, buildRecallIndex, rankRecall, recallQueryTerms } from '../../core/recall-rank.js'
import type { RecallIndex } from '../../core/recall-rank.js'
import { summarizeUsage } from '../../core/usage.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { evalReport, noLearningsInFolder, warnProblems } from '../messages/feed.js'
import { tooLarge } from '../messages/errors.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'
import { parseLimit } from './search.js'

export const spec: CommandSpec = {
  name: 'eval',
  summary:
    'Measure retrieval on your own queries: top-1, precision@k, MRR, recall, the misses, and the tokens context injects.',
  usage: 'git learn eval --set <queries.yaml> [--learnings <dir>] [--k <n>] [--json]',
  details:
    'The set is a YAML list of {query, expect, form}: expect names the learning that should rank first (or a list\n' +
    'of names), or is `none` when nothing should be found; form (optional) labels the query (pasted, symptom,\n' +
    'keywords, unrelated) and the figures are printed per form too. Queries run like `git learn search` over the\n' +
    "active learnings of this repository, or with --learnings over the *.md files of a folder (an evaluation set's\n" +
    'own learnings, read as if active; no repository needed). Recall is measured on the queries of form pasted or\n' +
    'unrelated (tool output): the right fix named first when a learning is expected, silence when none is.',
  options: {
    set: { type: 'string', value: 'file', description: 'the queries file (required)' },
    learnings: {
      type: 'string',
      value: 'dir',
      description: 'evaluate over the learnings in this folder instead of the store',
    },
    k: { type: 'string', value: 'n', description: 'precision@k and hit@k cut-off (default 3)' },
    json: {
      type: 'boolean',
      description:
        'print {queries, k, top1, precisionAtK, hitAtK, mrr, none, recall, forms, misses, recallMisses, contextTokens}',
    },
  },
}

/** Largest queries file read. */
export const MAX_EVAL_SET_BYTES = 4 * 1024 * 1024
/** Most learnings read from a --learnings folder. */
const MAX_FOLDER_LEARNINGS = 5000

function readCases(ctx: Ctx, set: string): EvalCase[] {
  let r: ReturnType<typeof readFileBounded>
  try {
    r = readFileBounded(isAbsolute(set) ? set : join(ctx.cwd, set), MAX_EVAL_SET_BYTES)
  } catch (err) {
    throw new FileAccessError(set, (err as NodeJS.ErrnoException).code ?? 'EIO', 'the queries file')
  }
  if (r.over) throw new RefusedError(tooLarge('the queries file', set, r.size, MAX_EVAL_SET_BYTES))
  try {
    return parseEvalSet(r.bytes.toString('utf8'))
  } catch (err) {
    throw new RefusedError(`${set} is not a queries file: ${String((err as Error).message).split('\n')[0]}`)
  }
}

const recallOf = (index: RecallIndex, query: string) => {
  const chosen = rankRecall(index, recallQueryTerms(query), RECALL_MAX_ITEMS)
  return chosen.map((c) => index.names[c.doc] as string)
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const set = stringOpt(args, 'set')
  if (!set) throw new UsageError('give the queries file with --set <queries.yaml>', 'eval')
  const k = parseLimit(stringOpt(args, 'k'), 'eval', 3, '--k')
  const cases = readCases(ctx, set)
  const folder = stringOpt(args, 'learnings')
  const limit = Math.max(k, 10)
  const outcomes: EvalOutcome[] = []
  const measuresRecall = (c: EvalCase) => c.form !== null && FAILURE_FORMS.includes(c.form)
  let contextTokens: number
  if (folder !== undefined) {
    const { learnings, problems } = readLearningFolder(
      isAbsolute(folder) ? folder : join(ctx.cwd, folder),
      MAX_FOLDER_LEARNINGS,
    )
    if (!learnings.length && !problems.length) throw new UsageError(noLearningsInFolder(folder), 'eval')
    ctx.stderr(warnProblems(problems))
    const [{ rankLearnings }, { buildFeed }] = await Promise.all([
      import('../../core/search.js'),
      import('../../core/search-parts.js'),
    ])
    const feed = buildFeed(learnings)
    const recall = buildRecallIndex(feed.catalog).index
    for (const c of cases)
      outcomes.push({
        ...c,
        ranked: rankLearnings(feed.index, feed.catalog, c.query, { states: ['active'] }, limit).map(
          (h) => h.entry.name,
        ),
        ...(measuresRecall(c) ? { recalled: recallOf(recall, c.query) } : {}),
      })
    contextTokens = buildContext({
      entries: feed.catalog,
      usage: new Map(),
      changedFiles: [],
      now: ctx.now(),
      config: DEFAULT_CONFIG,
    }).tokens
  } else {
    const feed = await readSearchFeed(ctx.cwd)
    ctx.stderr(warnProblems(feed.problems))
    const recall = cases.some(measuresRecall) ? await readRecallFeed(ctx.cwd) : undefined
    for (const c of cases)
      outcomes.push({
        ...c,
        ranked: (await feed.rank(c.query, { states: ['active'] }, limit)).map((h) => h.entry.name),
        ...(recall && measuresRecall(c)
          ? {
              recalled: (await recall.rank(recallQueryTerms(c.query), RECALL_MAX_ITEMS)).map((r) => r.name),
            }
          : {}),
      })
    recall?.close()
    const config = await readConfig(feed.root, feed.commonDir)
    const { contextAt } = await import('./context.js')
    contextTokens = (
      await contextAt(
        ctx.cwd,
        ctx.now(),
        (commonDir) => summarizeUsage(readEventsSync(commonDir)),
        async () => config,
      )
    ).built.tokens
  }
  const out = { ...scoreEval(outcomes, k), contextTokens }
  if (flag(args, 'json')) ctx.stdout(`${JSON.stringify(out)}\n`)
  else ctx.stdout(evalReport(out))
  return ExitCode.ok
}
