import { findRoot } from '../../adapters/git/index-reader.js'
import { PARSED_LOG, gitAsync, runGitSync } from '../../adapters/git/run.js'
import { readShallowCommitsAt } from '../../adapters/git/shallow.js'
import { requireLearningPath } from '../../adapters/store/store.js'
import { LearningNotFoundError, NoWorkTreeError, UsageError } from '../../core/errors.js'
import { STATES, STORE_DIR, learningPath } from '../../core/learning.js'
import { explainBadName } from '../../core/names.js'
import { RAW_LOG_FORMAT, parseAuditTrail, parseRawLog } from '../../core/trailers.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { logLines, shallowTrail } from '../messages/lifecycle.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'log',
  summary:
    'The audit trail: every lifecycle commit, newest first, read back from its trailers (squash-merge bodies included).',
  usage: 'git learn log [<name>] [-n <count>] [--json]',
  details:
    'A `git revert` of a lifecycle commit (and a revert of that revert) is listed too, as a `revert` event: the move\n' +
    'it undid, reversed, by whoever reverted, and "reverted <action> of <name> (<commit>)" (`reverts` in --json). CI\n' +
    'refuses a revert of an approval or a prune (`git learn check --base`); the log still shows it happened.',
  options: {
    'max-count': { type: 'string', short: 'n', value: 'count', description: 'show at most this many events' },
    json: {
      type: 'boolean',
      description:
        'print {"events":[{commit,date,author,name,action,from,to,by,reason,trailers,reverts?}],"shallow":bool}',
    },
  },
  positionals: { min: 0, max: 1, names: '[<name>]' },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const name = args.positionals[0]
  // `git learn log ""` (a name from an unset variable) is a name that is empty, as in show: not the whole trail.
  if (name !== undefined) {
    const bad = explainBadName(name)
    if (bad) throw new UsageError(`not a learning name: ${bad}`, 'log')
  }
  const max = stringOpt(args, 'max-count')
  if (max !== undefined && !/^\d+$/.test(max)) throw new UsageError(`-n takes a whole number, not "${max}"`, 'log')
  // The trail is read from commits only, so a bare repository (a server, a mirror) has one too: git runs in its git
  // directory there, and a name is looked up in HEAD's tree instead of the work tree.
  let root: string | undefined
  let dir: string
  try {
    root = dir = findRoot(ctx.cwd, ctx.env)
  } catch (err) {
    if (!(err instanceof NoWorkTreeError)) throw err
    dir = err.gitDir
  }
  const git = { cwd: dir, env: ctx.env }
  let events: ReturnType<typeof parseAuditTrail> = []
  if (runGitSync(['rev-parse', '--verify', '-q', 'HEAD'], git).code === 0) {
    // --full-history: a path-limited log otherwise simplifies history and follows only the side of a merge whose
    // tree the result equals, dropping the other side's lifecycle commits (a reject merged away by an approve).
    // Merge commits it then lists carry no trailers and give no event.
    const out = await gitAsync([...PARSED_LOG, '--full-history', `--format=${RAW_LOG_FORMAT}`, '--', STORE_DIR], git)
    events = parseAuditTrail(parseRawLog(out.toString('utf8')), name, true)
  }
  // A name that no commit and no state directory knows is a learning not found, as in every command that takes one.
  if (name && !events.length) {
    if (root !== undefined) requireLearningPath(root, name)
    else if (!inHeadTree(dir, ctx, name)) throw new LearningNotFoundError(name)
  }
  if (max !== undefined) events = events.slice(0, Number(max))
  // A shallow clone's trail stops at its cut: what is here is shown, and the cut is said, never "no commits" as fact.
  const cut = [...readShallowCommitsAt(dir, ctx.env)]
  if (flag(args, 'json')) ctx.stdout(`${JSON.stringify({ events, shallow: cut.length > 0 })}\n`)
  else {
    ctx.stdout(logLines(events, cut.length > 0))
    if (cut.length) ctx.stderr(shallowTrail(cut))
  }
  return ExitCode.ok
}

/** Whether HEAD's tree holds the learning `name` in any state (a bare repository has no work tree to look in). */
function inHeadTree(dir: string, ctx: Ctx, name: string): boolean {
  const paths = STATES.map((state) => learningPath(state, name))
  const r = runGitSync(['ls-tree', '--name-only', 'HEAD', '--', ...paths], { cwd: dir, env: ctx.env })
  return r.code === 0 && r.stdout.length > 0
}
