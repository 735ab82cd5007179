import type { LearningState } from '../../core/errors.js'
import { UsageError } from '../../core/errors.js'
import { readSearchFeed } from '../../adapters/feed/search-index.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { searchResults, warnProblems } from '../messages/feed.js'
import { flag, stringOpt, typeOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'search',
  summary: 'Ranked full-text search over learnings (name, description, trigger, tags, body), error text normalized.',
  usage: 'git learn search <query…>|- [--state active|pending|archived|all] [--type <type>] [--limit <n>] [--json]',
  details:
    'The query is words, never a regular expression. Paste an error or a whole failing test run ("-" reads it\n' +
    'from stdin): numbers, paths, hex ids, line:column, quotes, colours and timestamps are dropped before matching,\n' +
    'and a long log is cut to its error lines. Tiers are searched too, their scores multiplied by their weight.',
  options: {
    state: { type: 'string', value: 'state', description: 'active (default), pending, archived or all' },
    type: {
      type: 'string',
      value: 'type',
      description: 'only this type (error-solution, pattern, anti-pattern, decision, instinct, skill)',
    },
    limit: { type: 'string', value: 'n', description: 'at most n results (default 10)' },
    json: { type: 'boolean', description: 'print {"results":[{name,tier,type,state,score,path,description}]}' },
  },
  positionals: { min: 0, max: 10000, names: '<query…>' },
}

const STATE_VALUES = ['active', 'pending', 'archived', 'all']

/** Parse --limit: a positive integer. */
export function parseLimit(value: string | undefined, command: string, fallback = 10, option = '--limit'): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new UsageError(`${option} must be a whole number from 1 to 1000, not "${value}"`, command)
  return n
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const state = stringOpt(args, 'state') ?? 'active'
  if (!STATE_VALUES.includes(state))
    throw new UsageError(`--state must be active, pending, archived or all, not "${state}"`, 'search')
  const limit = parseLimit(stringOpt(args, 'limit'), 'search')
  const type = typeOpt(args, 'search')
  let query = args.positionals.join(' ')
  const piped = query === '-'
  if (piped) query = (await ctx.readStdin()).toString('utf8')
  if (!query.trim())
    throw new UsageError(
      piped
        ? '"-" reads the query from stdin, and stdin was empty: pipe the error or log in (`npm test 2>&1 | git learn search -`)'
        : 'give a query: words, an error message, or "-" to read a pasted log from stdin',
      'search',
    )

  const feed = await readSearchFeed(ctx.cwd)
  ctx.stderr(warnProblems(feed.problems))
  const hits = await feed.rank(
    query,
    { ...(state === 'all' ? {} : { states: [state as LearningState] }), ...(type ? { types: [type] } : {}) },
    limit,
  )
  const results = hits.map((h) => ({
    name: h.entry.name,
    tier: h.entry.tier,
    type: h.entry.type,
    state: h.entry.state,
    score: h.score,
    path: h.entry.path,
    description: h.entry.description,
  }))
  if (flag(args, 'json')) ctx.stdout(`${JSON.stringify({ results })}\n`)
  else ctx.stdout(searchResults(results, state))
  return ExitCode.ok
}
