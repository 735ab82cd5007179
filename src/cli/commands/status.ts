import { storeExists, storeOutsideSparseCheckout } from '../../adapters/store/exists.js'
import { readUsageSummary } from '../../adapters/state/events.js'
import { readStale } from '../../adapters/git/fast.js'
import { readStatusFeed } from '../../adapters/feed/search-index.js'
import { readConfig } from '../../adapters/store/config.js'
import { asCommitted, buildStatus, formatBar } from '../../core/status.js'
import type { StagedMove } from '../../core/status.js'
import { readLearningFile } from '../../adapters/store/store.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { staleUnread, statusText, usageUnread, warnProblems } from '../messages/feed.js'
import { noStore } from '../messages/lifecycle.js'
import { flag } from '../spec.js'
import { findGitDirs } from '../../adapters/git/locate.js'
import { readJournaledPaths, readStagedStore, toHalfDone } from '../../flows/recovery.js'
import { halfDoneNote } from '../messages/recovery.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'status',
  summary:
    'The dashboard: counts per state and tier, active learnings by domain with confidence and use, stale, prune, pending.',
  usage: 'git learn status [--all] [--json]',
  details:
    'At most about 60 lines unless --all. Confidence bars use █░ when LANG/LC_ALL/LC_CTYPE say UTF-8, #- otherwise.\n' +
    'Stale: active learnings whose evidence.paths changed since evidence.commit (one git cat-file for all of them).',
  options: {
    all: { type: 'boolean', description: 'every row, however many' },
    json: { type: 'boolean', description: 'print {counts, tiers, domains, stale, prune, pending}' },
  },
}

/** Whether the locale says UTF-8 (LC_ALL over LC_CTYPE over LANG, as setlocale does). */
export function isUtf8Locale(env: Readonly<Record<string, string | undefined>>): boolean {
  const v = env['LC_ALL'] || env['LC_CTYPE'] || env['LANG'] || ''
  return /utf-?8/i.test(v)
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const feed = await readStatusFeed(ctx.cwd)
  // Staged and never committed is not done: said before the counts, which follow the work tree except for a move
  // between state folders, counted where HEAD has it (a `git mv` to active/ approved nothing; the note says so).
  // Not the paths of an unfinished transition of ours: the note before the command names it and `doctor --continue`.
  const journaled = readJournaledPaths(feed.commonDir, findGitDirs(ctx.cwd, ctx.env)?.gitDir)
  const staged = (await readStagedStore(feed.root, journaled).catch(() => [])).map(toHalfDone)
  if (staged.length) ctx.stderr(halfDoneNote(staged))
  ctx.stderr(warnProblems(feed.problems))
  if (!storeExists(feed.root)) ctx.stderr(noStore(await storeOutsideSparseCheckout(ctx.cwd)))
  const moves = staged.filter((p): p is StagedMove & { kind: 'staged-move' } => p.kind === 'staged-move')
  const entries = asCommitted(feed.entries, moves, (path) => describeFile(feed.root, path))
  const config = await readConfig(feed.root, feed.commonDir)
  const active = entries.filter((e) => e.state === 'active' && e.tier === 'project')
  const { stale, unread } = readStale(
    feed.root,
    active.map((e) => ({ name: e.name, commit: e.evidenceCommit, paths: e.evidencePaths })),
  )
  if (unread !== undefined) ctx.stderr(`warning: ${staleUnread(unread)}\n`)
  // The usage counts only add to the report: a log that cannot be read costs them, with a warning.
  let usage: ReturnType<typeof readUsageSummary>
  try {
    usage = readUsageSummary(feed.commonDir)
  } catch (err) {
    ctx.stderr(usageUnread(err))
    usage = new Map()
  }
  const report = buildStatus(entries, usage, stale, ctx.now(), config)
  if (flag(args, 'json'))
    ctx.stdout(
      `${JSON.stringify({
        ...report,
        ...(unread !== undefined ? { staleUnknown: true } : {}),
        ...(staged.length ? { uncommitted: staged } : {}),
      })}\n`,
    )
  else {
    const utf8 = isUtf8Locale(ctx.env)
    ctx.stdout(statusText(report, { all: flag(args, 'all'), bar: (v) => formatBar(v, utf8) }))
  }
  return ExitCode.ok
}

/** The description of the learning file at `path`, or '' when it cannot be read (its problem is warned of already). */
function describeFile(root: string, path: string): string {
  try {
    const d = readLearningFile(root, path).data.description
    return typeof d === 'string' ? d : ''
  } catch {
    return ''
  }
}
