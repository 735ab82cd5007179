import { readMissingHooksPath } from '../../adapters/git/hooks.js'
import { openRepo } from '../../adapters/store/repo.js'
import { UsageError } from '../../core/errors.js'
import { abortRecovery, continueRecovery, inspectRecovery, toHalfDone } from '../../flows/recovery.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { doctorDone, doctorReport } from '../messages/recovery.js'
import { hooksPathMissing } from '../messages/guards.js'
import { flag } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'doctor',
  summary:
    'Find what a crash, a kill or an older git-learn left half done, and finish (--continue) or undo (--abort) it.',
  usage: 'git learn doctor [--continue | --abort] [--json]',
  details:
    'Looks for: a left .git/index.lock or lock of the current branch (refs/heads/<b>.lock); a lifecycle commit that\n' +
    'landed while the process stopped before your index and work tree followed (its journal under\n' +
    '<git-common-dir>/learn/transitions/); a move between state directories\n' +
    'staged but never committed, and learnings staged as new but not committed. Without options it only reports\n' +
    '(exit 1 when something is half done). --continue brings the index and work tree in line with a landed commit;\n' +
    '--abort moves the branch back (only while it still points at that commit) and puts the files back, moves a\n' +
    'staged move back and unstages it, unstages a staged new learning (its file is kept). Nothing else is touched.\n' +
    'It also finds a tier ref (refs/learn/tiers/<name>) that no config.yaml names, on any branch: what a `tier add`\n' +
    'killed between its fetch and its commit leaves; --abort deletes it, a rerun of that `tier add` pins it.\n' +
    'It also warns (exit code unchanged) when core.hooksPath names a folder this worktree lacks (husky in a new\n' +
    '`git worktree`): git then runs no hook, so no guard.',
  options: {
    continue: {
      type: 'boolean',
      description: 'finish what can be finished (an interrupted transition whose commit landed)',
    },
    abort: {
      type: 'boolean',
      description: 'undo what is half done (the branch back, staged moves back, staged files unstaged)',
    },
    json: { type: 'boolean', description: 'print {"ok":bool,"problems":[{kind,…}],"settled":[…],"left":[…]}' },
  },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const cont = flag(args, 'continue')
  const abort = flag(args, 'abort')
  if (cont && abort) throw new UsageError('choose one of --continue and --abort', 'doctor')
  const repo = await openRepo(ctx.cwd)
  const problems = await inspectRecovery(repo.git, { staged: true, tiers: true })
  // Not half done, but nothing guards this work tree: said as a warning, the exit code stays what recovery gives.
  const missingHooks = await readMissingHooksPath(repo.git)
  if (missingHooks) ctx.stderr(hooksPathMissing(missingHooks))
  const json = flag(args, 'json')
  if (!cont && !abort) {
    const shown = problems.map(toHalfDone)
    // `ok` as in every report that exits 1 on what it found (check, tier verify): false exactly when the exit is 1.
    const ok = !problems.some((p) => p.kind !== 'running')
    if (json) ctx.stdout(`${JSON.stringify({ ok, problems: shown, settled: [], left: [] })}\n`)
    else ctx.stdout(doctorReport(shown))
    return ok ? ExitCode.ok : ExitCode.refused
  }
  const action = cont ? 'continue' : 'abort'
  const r = cont ? await continueRecovery(repo.git, problems) : await abortRecovery(repo.git, problems, { tiers: true })
  const settled = r.settled.map(toHalfDone)
  const left = [
    ...('left' in r
      ? r.left.map((l) => ({
          problem: toHalfDone(l.problem),
          why: `your edits of ${l.paths.join(', ')} are kept; settle them by hand`,
        }))
      : []),
    ...('refused' in r ? r.refused.map((l) => ({ problem: toHalfDone(l.problem), why: l.why })) : []),
    ...problems
      .filter((p) => p.kind === 'index-lock' || p.kind === 'ref-lock')
      .map((p) => ({ problem: toHalfDone(p), why: "git's own lock: remove it by hand once no git process runs" })),
    // Nothing to finish: the URL it was fetched from is not known here.
    ...(cont ? problems.filter((p) => p.kind === 'orphan-tier-ref') : []).map((p) => ({
      problem: toHalfDone(p),
      why: 'only a rerun of `git learn tier add` can pin it',
    })),
    // Nothing to finish from: what it recorded is lost.
    ...(cont ? problems.filter((p) => p.kind === 'torn-journal') : []).map((p) => ({
      problem: toHalfDone(p),
      why: 'it cannot be read; `git learn doctor --abort` removes it',
    })),
  ]
  if (json) ctx.stdout(`${JSON.stringify({ ok: !left.length, problems: problems.map(toHalfDone), settled, left })}\n`)
  else ctx.stdout(doctorDone(action, settled, left))
  return left.length ? ExitCode.refused : ExitCode.ok
}
