/**
 * `git learn hook …`: the commit-msg guard (`commit-msg <file>`), the post-merge refresh, and installing or
 * removing the hooks. commit-msg runs on every commit, so like `check --staged` it answers after one
 * `git diff --cached` when nothing under .learnings/ is staged.
 */
import { isAbsolute, join, relative } from 'node:path'
import { findRoot, readStagedChanges } from '../../adapters/git/index-reader.js'
import { FileAccessError, RefusedError, UsageError } from '../../core/errors.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { flag, jsonOption } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'hook',
  summary: 'Install or remove the git hooks, and run the commit-msg and post-merge guards.',
  usage: 'git learn hook install [--force] | uninstall | commit-msg <message-file> | post-merge',
  details:
    'install: with husky (core.hooksPath = .husky/_) append one marked line to .husky/pre-commit, pre-merge-commit,\n' +
    'commit-msg, post-merge and post-checkout; otherwise write those five shims into the hooks dir where none exists\n' +
    '(--force replaces yours and keeps it as <hook>.git-learn-backup). uninstall removes exactly what install added\n' +
    '(with husky, the marked line alone).\n' +
    'A core.hooksPath that every repository shares (an absolute folder set in the global or system config) is\n' +
    'refused, since its hooks run in every repository: set one for this repository, or install there with --force.\n' +
    'The hooks do nothing in a repository without .learnings/.\n' +
    'commit-msg: a staged move into .learnings/active/ or archived/ needs its trailers (git learn approve, reject and\n' +
    'prune write them); a directive in a staged learning needs a Learning-Directives-Allowed trailer naming its\n' +
    "fingerprint, in the message or in HEAD's history.\n" +
    'post-merge (also run by the post-checkout shim when a checkout changed .learnings/): refresh the files\n' +
    '`git learn render` wrote, only if it has been run in this repository.\n' +
    'A husky line goes before a final top-level exit/exec (after it nothing runs); what may still end a hook first is\n' +
    'a warning with file:line, as is a core.hooksPath this worktree lacks (run `npx husky` there). Warnings exit 0.\n' +
    'HUSKY=0 or GIT_LEARN_HOOKS=0 skips the hooks.',
  options: {
    force: {
      type: 'boolean',
      description: 'install: replace hooks that are not ours (a backup is kept), also in a shared core.hooksPath',
      only: { subcommands: ['install'] },
    },
    // post-merge prints nothing to put in an object: its warnings go to stderr.
    json: {
      ...jsonOption('install, uninstall, commit-msg: print one JSON object'),
      only: { subcommands: ['install', 'uninstall', 'commit-msg'] },
    },
  },
  positionals: { min: 1, max: 2, names: 'install|uninstall|commit-msg <file>|post-merge' },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const [sub, file] = args.positionals
  switch (sub) {
    case 'commit-msg':
      if (!file) throw new UsageError('commit-msg needs the message file git passes to the hook ("$1")', 'hook')
      return commitMsg(ctx, file, flag(args, 'json'))
    case 'post-merge':
      if (file) throw new UsageError(`unexpected argument "${file}"`, 'hook')
      return postMerge(ctx)
    case 'install':
    case 'uninstall': {
      if (file) throw new UsageError(`unexpected argument "${file}"`, 'hook')
      const { openGit } = await import('../../adapters/git/simple.js')
      const { installHooks, readMissingHooksPath, uninstallHooks } = await import('../../adapters/git/hooks.js')
      const { hookReport, hookWarnings, hooksPathMissing } = await import('../messages/guards.js')
      const git = await openGit(ctx.cwd)
      const { layout, changes, managed } =
        sub === 'install'
          ? await installHooks(git, { force: flag(args, 'force') })
          : { ...(await uninstallHooks(git)), managed: [] }
      // After install: a hooks dir install wrote into exists now; husky's `.husky/_` is husky's to make.
      const missing = sub === 'install' ? await readMissingHooksPath(git) : undefined
      // The folder as its files are named: from the repository's root when inside it, else absolute.
      const rel = relative(git.root, layout.dir)
      const dir = rel.startsWith('..') || isAbsolute(rel) ? layout.dir : rel
      if (flag(args, 'json'))
        ctx.stdout(
          `${JSON.stringify({ kind: layout.kind, dir, changes, ...(managed.length ? { managed } : {}), ...(missing ? { missingHooksPath: missing } : {}) })}\n`,
        )
      else ctx.stdout(hookReport(layout.kind, changes, sub === 'uninstall', managed))
      const warnings = hookWarnings(changes) + (missing ? hooksPathMissing(missing) : '')
      if (warnings) ctx.stderr(warnings)
      return ExitCode.ok
    }
    default:
      throw new UsageError(
        `unknown hook subcommand "${sub ?? ''}"; use install, uninstall, commit-msg or post-merge`,
        'hook',
      )
  }
}

/** Largest commit message the commit-msg guard reads. */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024

async function commitMsg(ctx: Ctx, file: string, json: boolean): Promise<ExitCode> {
  const root = findRoot(ctx.cwd, ctx.env)
  const staged = readStagedChanges(root, ctx.env)
  const store = staged.filter((e) => e.path.startsWith('.learnings/') || e.oldPath?.startsWith('.learnings/'))
  const passed = () => {
    if (json) ctx.stdout('{"ok":true,"findings":[]}\n')
    return ExitCode.ok
  }
  if (!store.length) return passed()
  const reader = await import('../../adapters/git/index-reader.js')
  if (reader.isMerging(root, ctx.env)) return passed() // the other side's moves were checked where they were made
  const engine = await import('../../core/check.js')
  const { directiveAcceptance, parseDirectivesAllowed } = await import('../../core/directive-trailer.js')
  const { learningDirectives } = await import('../../core/agent-safety.js')
  const { parseLearning, parseStorePath } = await import('../../core/learning.js')
  const { readFileBounded } = await import('../../adapters/store/read-bounded.js')
  let read: { bytes: Buffer; over: boolean; size: number | undefined }
  try {
    read = readFileBounded(isAbsolute(file) ? file : join(ctx.cwd, file), MAX_MESSAGE_BYTES)
  } catch (err) {
    throw new FileAccessError(file, (err as NodeJS.ErrnoException).code ?? 'EIO', 'the commit message file')
  }
  if (read.over) {
    const { tooLarge } = await import('../messages/errors.js')
    throw new RefusedError(tooLarge('the commit message file', file, read.size, MAX_MESSAGE_BYTES))
  }
  // git cleans the message after the hook has run: what is read is what git will record (core/trailers.ts).
  const { committedMessage } = await import('../../core/trailers.js')
  const message = committedMessage(read.bytes.toString('utf8'), reader.readCommentPrefix(root, ctx.env))
  // The distinct-approver rule reads the commit's own config (the index), as the pre-commit check does.
  const approval = async () => {
    const { configFromBytes } = await import('../../adapters/store/config.js')
    const { proposerReader } = await import('../../adapters/git/proposers.js')
    const { ConfigError } = await import('../../core/errors.js')
    // An invalid config is the pre-commit check's to report; the rule then stays on, its default.
    const config = await configFromBytes(reader.readStagedConfig(root, ctx.env)).catch((err: unknown) => {
      if (err instanceof ConfigError) return undefined
      throw err
    })
    return {
      distinct: config?.approval.distinct_approver ?? true,
      ...proposerReader(root, ctx.env, 'HEAD', intoActive),
    }
  }
  // Only a move or an add into active/ is an approval to judge: an edit in place reads no config for it.
  const intoActive = store.flatMap((e) => {
    const to = 'RAC'.includes(e.status) ? parseStorePath(e.path) : undefined
    return to?.state === 'active' ? [to.name] : []
  })
  const findings = engine.checkCommitMessage(store, message, intoActive.length ? await approval() : undefined)

  const added = store.filter((e) => e.status !== 'D' && e.newMode !== '120000' && parseStorePath(e.path))
  const blobs = reader.readBlobs(
    root,
    ctx.env,
    added.map((e) => e.newSha),
  )
  const hits = added.flatMap((e) => {
    const text = blobs.get(e.newSha)?.text
    if (!text) return []
    let data: Record<string, unknown> | undefined
    try {
      data = parseLearning(text, e.path).data
    } catch {
      data = undefined // not a learning: the pre-commit check says why; its text as written is still read
    }
    const name = parseStorePath(e.path)?.name ?? ''
    return learningDirectives(text, data).map((d) => engine.directiveFinding(e.path, name, d))
  })
  if (hits.length) {
    // The message's trailers first; HEAD's history only when they do not accept every one by its fingerprint.
    let accepted = parseDirectivesAllowed(message)
    const byMessage = (f: (typeof hits)[number]) =>
      directiveAcceptance(accepted, parseStorePath(f.path)?.name ?? '', f.fingerprint) === 'fingerprint'
    if (!hits.every(byMessage))
      accepted = parseDirectivesAllowed(reader.readDirectiveOverrides(root, ctx.env), accepted)
    findings.push(...engine.acceptDirectives(hits, accepted))
  }
  const report = engine.buildReport(findings)
  if (json) ctx.stdout(`${JSON.stringify(report)}\n`)
  else if (report.findings.length) {
    ctx.stderr(engine.formatText(report))
    if (!report.ok) {
      const { commitMsgStopped, squashMessageDropped } = await import('../messages/guards.js')
      const moves = report.findings.some((f) => f.rule === 'transition' && f.severity === 'error')
      ctx.stderr(commitMsgStopped(moves))
      // `git merge --squash` then `git commit -m …`: the message git prepared (.git/SQUASH_MSG) held the branch's
      // trailers, which are the review, and -m replaced it.
      if (moves && reader.isSquashing(root, ctx.env)) ctx.stderr(squashMessageDropped)
      // A move staged because the index lags an interrupted lifecycle commit of ours: `doctor --continue` finishes it.
      if (moves) await (await import('../half-done.js')).noteHalfDone(ctx, 'unfinished')
    }
  }
  return report.ok ? ExitCode.ok : ExitCode.refused
}

/** After a merge or a checkout: re-render what the user rendered (src/cli/refresh.ts); never fails the merge. */
async function postMerge(ctx: Ctx): Promise<ExitCode> {
  await (await import('../refresh.js')).refreshRendered(ctx, 'post-merge')
  return ExitCode.ok
}
