import { storeExists, storeOutsideSparseCheckout } from '../../adapters/store/exists.js'
import { readProjectFeed } from '../../adapters/feed/search-index.js'
import { UsageError } from '../../core/errors.js'
import type { LearningState } from '../../core/errors.js'
import { STATES, STORE_DIR, parseStorePath } from '../../core/layout.js'
import { filterSummaries } from '../../core/query.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { listTable, noStore, warnUnreadable } from '../messages/lifecycle.js'
import { flag, stringOpt, typeOpt } from '../spec.js'
import { findGitDirs } from '../../adapters/git/locate.js'
import { readJournaledPaths, readStagedStore, toHalfDone } from '../../flows/recovery.js'
import { halfDoneNote } from '../messages/recovery.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'list',
  summary: 'List learnings with their state, type and description.',
  usage: 'git learn list [--state pending|active|archived|all] [--type <type>] [--tag <tag>] [--json]',
  options: {
    state: { type: 'string', value: 'state', description: 'pending, active, archived or all (default: all)' },
    type: {
      type: 'string',
      value: 'type',
      description: 'only this type (error-solution, pattern, anti-pattern, decision, instinct, skill)',
    },
    tag: { type: 'string', value: 'tag', description: 'only learnings with this tag' },
    json: { type: 'boolean', description: 'print {"learnings":[{name,state,type,domain,tags,description,path}]}' },
  },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const state = stringOpt(args, 'state') ?? 'all'
  if (state !== 'all' && !STATES.includes(state as LearningState))
    throw new UsageError(`--state must be pending, active, archived or all, not "${state}"`, 'list')
  // The rows come from the feed cache (src/adapters/search-index.ts): at 10,000 learnings, one file instead of 10,000.
  const feed = await readProjectFeed(ctx.cwd)
  // A move or a new learning staged but never committed is not done: its row says so (and `git learn doctor` settles it).
  // Not the paths of an unfinished transition of ours: the note before the command names it and `doctor --continue`.
  const staged = await readStagedStore(
    feed.root,
    readJournaledPaths(feed.commonDir, findGitDirs(ctx.cwd, ctx.env)?.gitDir),
  ).catch(() => [])
  // A move between state folders is listed in the state HEAD has it in (nothing approved, rejected or archived it), as
  // `status` counts it: `--state` filters by that state, the row names the folder it was moved to and its path.
  const uncommitted = new Map<string, { state?: string; note: string }>()
  for (const p of staged) {
    const from = p.kind === 'staged-move' ? parseStorePath(p.from) : undefined
    const to = p.kind === 'staged-move' ? parseStorePath(p.to) : undefined
    if (p.kind === 'staged-move')
      uncommitted.set(
        p.to,
        from && to
          ? { state: from.state, note: `staged move to ${to.state}, not committed` }
          : { note: `staged move from ${p.from}, not committed` },
      )
    else if (p.kind === 'staged-new') uncommitted.set(p.path, { note: 'staged, not committed' })
  }
  if (staged.some((p) => p.kind !== 'staged-new'))
    ctx.stderr(halfDoneNote(staged.filter((p) => p.kind !== 'staged-new').map(toHalfDone)))
  const inState = (path: string) => state === 'all' || path.startsWith(`${STORE_DIR}/${state}/`)
  for (const p of feed.problems) if (inState(p.path)) ctx.stderr(warnUnreadable(p.path, p.reason))
  if (!storeExists(feed.root)) ctx.stderr(noStore(await storeOutsideSparseCheckout(ctx.cwd)))
  const rows = filterSummaries(
    feed.rows
      .map(({ row }) => {
        const was = uncommitted.get(row.path)?.state
        return was ? { ...row, state: was } : row
      })
      .filter((r) => state === 'all' || r.state === state),
    { type: typeOpt(args, 'list'), tag: stringOpt(args, 'tag') },
  ).map((r) => {
    const u = uncommitted.get(r.path)
    return u ? { ...r, state: `${r.state} (${u.note})`, committed: false } : r
  })
  if (flag(args, 'json')) ctx.stdout(`${JSON.stringify({ learnings: rows })}\n`)
  else ctx.stdout(listTable(rows))
  return ExitCode.ok
}
