/** Sentences for every error a command can end with: what happened, where, and what to run next. */
import {
  BaseUnreachableError,
  RangeCutShortError,
  BundleRefusedError,
  ConcurrentChangeError,
  RefLockedError,
  RecoveryNeededError,
  TransitionIncompleteError,
  BundleUnreachableError,
  ConfigError,
  FileAccessError,
  GitCommandError,
  IllegalTransitionError,
  LearningInvalidError,
  LearningNotFoundError,
  LearningParseError,
  NameTakenError,
  NoCommitsError,
  NoIdentityError,
  NoWorkTreeError,
  NotARepositoryError,
  SparseStoreError,
  LinkedStoreError,
  OperationInProgressError,
  PartialMoveError,
  SecretInMessageError,
  RefusedError,
  TierUrlCredentialError,
  WithheldError,
  SelfApprovalError,
  ProposerUnknownError,
  SharedHooksPathError,
  PathTakenError,
  UncommittedLearningError,
  UnsafeRepositoryError,
  UsageError,
} from '../../core/errors.js'
import { parseDubiousOwnership } from '../../core/git-output.js'
import { dirname, join, relative, isAbsolute } from 'node:path'
import { actionsFrom } from '../../core/lifecycle.js'
import { ExitCode } from '../context.js'
import { partialMove, secretInMessage, showWithheld } from './lifecycle.js'
import { concurrentChange, describeHalfDone, refLocked, transitionIncomplete } from './recovery.js'
import { tierUrlCredential } from './scale.js'

export interface DescribedError {
  code: ExitCode
  kind: string
  message: string
  /** Extra data for `--json` consumers. */
  data: Record<string, unknown>
}

const bullet = (lines: readonly string[]) => lines.map((l) => `  - ${l}`).join('\n')

const NEXT_FOR_ACTION: Record<string, (n: string) => string> = {
  approve: (n) => `git learn approve ${n}`,
  reject: (n) => `git learn reject ${n} --reason "…"`,
  restore: (n) => `git learn restore ${n}`,
  prune: (n) => `git learn prune ${n} --reason "…" --yes`,
}

/** Map any thrown value to an exit code and a message; unknown errors are internal (70) with their stack. */
export function describeError(err: unknown, command?: string): DescribedError {
  const d = (code: ExitCode, message: string, data: Record<string, unknown> = {}): DescribedError => ({
    code,
    kind: err instanceof Error ? err.name : 'Error',
    message,
    data,
  })
  if (err instanceof UsageError) {
    const cmd = err.command ?? command
    return d(ExitCode.usage, `${err.reason}\nRun \`git learn ${cmd ? `${cmd} ` : ''}-h\` for usage.`, {
      command: cmd ?? null,
    })
  }
  if (err instanceof LearningNotFoundError)
    return d(
      ExitCode.usage,
      err.sparse
        ? `no learning named "${err.learningName}" in this work tree, which is a sparse checkout: .learnings/ (or part of it) may be outside it.\nAdd it with \`git sparse-checkout add .learnings\`, then run the command again.`
        : err.storeMissing
          ? `no learning named "${err.learningName}": this repository has no .learnings/ yet.\nRun \`git learn init\` to set up the store.`
          : `no learning named "${err.learningName}" in .learnings/pending, active or archived.\nRun \`git learn list --state all\` to see the names.`,
      { name: err.learningName },
    )
  if (err instanceof LearningParseError)
    return d(
      ExitCode.refused,
      `${err.path}${err.line ? `:${err.line}` : ''}: ${err.reason}\nFix the file, then run the command again.`,
      { path: err.path, line: err.line ?? null },
    )
  if (err instanceof LearningInvalidError)
    return d(
      ExitCode.refused,
      `${err.path} is not a valid learning:\n${bullet(err.problems)}\nFix these, then run the command again (\`git learn add -h\` lists a learning's fields).`,
      { path: err.path, problems: err.problems },
    )
  if (err instanceof NameTakenError)
    return d(
      ExitCode.refused,
      `a learning named "${err.learningName}" already exists: ${err.existingPath}\nPick another --name, or edit the existing learning.`,
      { name: err.learningName, path: err.existingPath },
    )
  if (err instanceof IllegalTransitionError) {
    const would = actionsFrom(err.from)
      .map((a) => NEXT_FOR_ACTION[a]?.(err.learningName))
      .filter(Boolean)
    return d(
      ExitCode.refused,
      `cannot ${err.action} "${err.learningName}": it is ${err.from} (.learnings/${err.from}/${err.learningName}.md), and ${err.action} applies to ${requiredState(err.action)} learnings only.\n${would.length ? `What works from ${err.from}: ${would.map((w) => `\`${w}\``).join(', ')}` : ''}`.trim(),
      { name: err.learningName, from: err.from, action: err.action },
    )
  }
  if (err instanceof SelfApprovalError)
    return d(
      ExitCode.refused,
      `${err.proposer} proposed "${err.learningName}" (or restored it to pending/, which counts as proposing it) and cannot approve it too${err.proposer === err.identity ? '' : ` (you are approving as ${err.identity}, the same e-mail)`}: approval is a second person's review.\nAsk a teammate to run \`git learn approve ${err.learningName}\`, or for solo use set approval.distinct_approver: false in .learnings/config.yaml.`,
      { name: err.learningName, identity: err.identity, proposer: err.proposer },
    )
  if (err instanceof ProposerUnknownError)
    return d(
      ExitCode.environment,
      `cannot tell who proposed "${err.learningName}": this clone is shallow and its history stops after the learning was proposed, so approval.distinct_approver (a second person approves) cannot be checked; nothing was changed.\nFetch the rest of the history (\`git fetch --unshallow\`), then run \`git learn approve ${err.learningName}\` again.`,
      { name: err.learningName, shallow: true },
    )
  if (err instanceof PathTakenError)
    return d(
      ExitCode.refused,
      `${err.path} is already there (${err.where === 'staged' ? 'staged, not committed' : 'not committed'}), and "${err.subject}" would put a file at that path; nothing was changed.\nMove that file out of ${dirname(err.path)}/ (or commit it under another name), then run the command again.`,
      { subject: err.subject, path: err.path, where: err.where },
    )
  if (err instanceof UncommittedLearningError)
    return d(
      ExitCode.refused,
      // A file git does not track yet: `git restore` cannot discard it (it knows no such path), rm does.
      err.status === 'not committed yet'
        ? `${err.path} is not committed yet: a lifecycle commit would take it along unseen.\nCommit it first (\`git add ${err.path} && git commit\`), or remove it (\`rm ${err.path}\`).`
        : `${err.path} has ${err.status}: a lifecycle commit would take them along unseen.\nCommit them first (\`git add ${err.path} && git commit\`), or discard them (\`git restore --staged --worktree ${err.path}\`).`,
      { name: err.learningName, path: err.path, status: err.status },
    )
  if (err instanceof SecretInMessageError)
    return d(
      ExitCode.refused,
      `${secretInMessage(err.what)}\n${bullet(err.findings.map((f) => `${f.description} (${f.rule}): ${f.masked}`))}`,
      { what: err.what, findings: err.findings },
    )
  if (err instanceof TierUrlCredentialError)
    return d(
      ExitCode.refused,
      tierUrlCredential(
        err.tier,
        err.url,
        err.inConfig,
        bullet(err.findings.map((f) => `${f.description} (${f.rule}): ${f.masked}`)),
      ),
      { tier: err.tier, url: err.url, findings: err.findings },
    )
  if (err instanceof PartialMoveError) {
    const inner = describeError(err.cause, command)
    const unfinished = err.cause instanceof TransitionIncompleteError ? err.cause.commit : undefined
    return d(
      inner.code,
      partialMove(err.action, err.done, err.failed, err.notAttempted, inner.message, unfinished !== undefined),
      {
        done: err.done,
        failed: err.failed,
        notAttempted: err.notAttempted,
        // The failed one's commit when it landed unfinished (`git learn doctor` finishes or undoes it).
        ...(unfinished !== undefined ? { unfinished } : {}),
      },
    )
  }
  if (err instanceof RangeCutShortError)
    return d(
      ExitCode.environment,
      `this clone is shallow: its history between ${err.base} and ${err.head} stops at ${err.boundary.slice(0, 12)} (git has not got its parents), so the commits that approved or moved learnings there cannot be read.\nFetch more history (\`git fetch --deepen=100\`, or all of it: \`git fetch --unshallow\`; in CI, actions/checkout with fetch-depth: 0), then run the check again.`,
      { base: err.base, shallow: true, boundary: err.boundary },
    )
  if (err instanceof BaseUnreachableError)
    return d(
      ExitCode.environment,
      !err.known
        ? err.shallow && /[~^@:]|^[0-9a-f]{7,64}$/.test(err.base)
          ? // HEAD~3, a commit id: no branch to fetch by name, the history itself is short.
            `${err.base} names no commit here: this clone is shallow and its history does not reach it.\nFetch more history (\`git fetch --deepen=100\`, or all of it: \`git fetch --unshallow\`; in CI, actions/checkout with fetch-depth: 0), then run the check again.`
          : `${err.base} names no commit here${err.shallow ? ' (this clone is shallow)' : ''}.\nFetch it first (\`git fetch origin ${err.base.replace(/^origin\//, '')}\`), then run the check again.`
        : err.shallow
          ? `this clone is shallow: its history stops before ${err.head} and ${err.base} meet, so the transitions since their merge base cannot be read.\nFetch more history (\`git fetch --deepen=100\`, or all of it: \`git fetch --unshallow\`; in CI, actions/checkout with fetch-depth: 0), then run the check again.`
          : `${err.base} and ${err.head} have no commit in common.${err.stderr ? `\ngit said: ${err.stderr}` : ''}`,
      { base: err.base, shallow: err.shallow },
    )
  if (err instanceof RefLockedError)
    return d(ExitCode.environment, refLocked(err.ref, err.lock), { ref: err.ref, lock: err.lock })
  if (err instanceof ConcurrentChangeError)
    return d(ExitCode.refused, concurrentChange(err.subject, err.reason), { subject: err.subject })
  if (err instanceof TransitionIncompleteError)
    return d(ExitCode.environment, transitionIncomplete(err.subject, err.commit, err.paths, err.reason), {
      commit: err.commit,
      paths: err.paths,
    })
  if (err instanceof RecoveryNeededError)
    return d(
      ExitCode.environment,
      `something is half done here; nothing was changed:\n${bullet(err.problems.map(describeHalfDone))}\nRun \`git learn doctor\` for the details.`,
      { problems: err.problems },
    )
  if (err instanceof WithheldError)
    return d(ExitCode.refused, showWithheld(err.learningName, err.path, err.state, err.hazards, err.fingerprints), {
      name: err.learningName,
      path: err.path,
      state: err.state,
      reasons: err.hazards,
      ...(err.fingerprints.length ? { fingerprints: err.fingerprints } : {}),
    })
  if (err instanceof RefusedError)
    return d(ExitCode.refused, `${err.reason}${err.details.length ? `\n${bullet(err.details)}` : ''}`, {
      details: err.details,
    })
  if (err instanceof ConfigError)
    return d(
      ExitCode.refused,
      /(^|[\\/])\.learnings[\\/]config\.yaml$/.test(err.path)
        ? `${err.path} is not a valid configuration:\n${bullet(err.problems)}\nFix it; every key is optional, and ${DEFAULT_CONFIG_FILE} lists each with its default (it is the file \`git learn init\` writes).`
        : `${err.path} is not a settings file git learn can merge its hooks into:\n${bullet(err.problems)}\nFix it, then run the command again.`,
      { path: err.path, problems: err.problems },
    )
  if (err instanceof SharedHooksPathError)
    return d(ExitCode.refused, sharedHooksPath(err, command), {
      hooksPath: err.hooksPath,
      dir: err.dir,
      scope: err.scope,
      file: err.file,
    })
  // git refused the repository for its owner, whichever command asked it first: one message, with git's fix.
  const refused =
    err instanceof NotARepositoryError || err instanceof GitCommandError ? parseDubiousOwnership(err.stderr) : undefined
  if (refused !== undefined) return describeError(new UnsafeRepositoryError(refused), command)
  if (err instanceof UnsafeRepositoryError)
    return d(ExitCode.environment, unsafeRepository(err.path), { path: err.path })
  if (err instanceof SparseStoreError)
    return d(
      ExitCode.environment,
      `this work tree is a sparse checkout that leaves out ${err.hidden.length === 1 ? '' : `${err.hidden.length} files of `}.learnings/ (${err.hidden.slice(0, 3).join(', ')}${err.hidden.length > 3 ? ', …' : ''}): git learn reads the store and its config.yaml from the work tree, and would miss the names, duplicates and settings kept there. Nothing was changed.\nAdd the store to the checkout: \`git sparse-checkout add .learnings\`, then run the command again.`,
      { hidden: err.hidden },
    )
  if (err instanceof LinkedStoreError)
    return d(
      ExitCode.environment,
      `${err.path} ${err.reason}: the store is the folders and files git tracks in this work tree, and git tracks a link, not what lies behind it, so that was never reviewed (\`git learn check\` refuses it too). Nothing was changed.\nPut the folder or file itself in its place (move what the link points at into the repository, then \`rm\` the link and \`git mv\` or \`git add\` the real one), then run the command again.`,
      { path: err.path },
    )
  if (err instanceof NoWorkTreeError)
    return d(
      ExitCode.environment,
      err.bare
        ? `needs a work tree, and ${err.cwd} is a bare repository (no checked-out files).\nRun it in a clone with a work tree: \`git clone ${err.gitDir} <dir>\`, then cd into <dir>. In a bare repository \`git learn log\` and \`git learn check --base <old> --head <new>\` work: they read commits only.`
        : `needs a work tree, and ${err.cwd} is inside the git directory ${err.gitDir}.\ncd into the work tree (the directory that holds .git), then run the command again.`,
      { cwd: err.cwd, gitDir: err.gitDir, bare: err.bare },
    )
  if (err instanceof NotARepositoryError)
    return d(
      ExitCode.environment,
      `not inside a git repository: ${err.cwd}\nRun \`git init\` first, or cd into your repository.${err.stderr ? `\ngit said: ${err.stderr.trim()}` : ''}`,
      { cwd: err.cwd },
    )
  if (err instanceof OperationInProgressError)
    return d(
      ExitCode.environment,
      `${err.operation === 'am' ? '`git am`' : `a ${err.operation}`} is in progress; git learn will not commit in the middle of it.\nFinish it (\`git ${err.operation} --continue\`) or abort it (\`git ${err.operation} --abort\`), then run the command again.`,
      { operation: err.operation },
    )
  if (err instanceof NoCommitsError)
    return d(
      ExitCode.environment,
      `the repository at ${err.cwd} has no commits yet.\nMake a first commit, then run the command again.`,
    )
  if (err instanceof NoIdentityError)
    return d(
      ExitCode.environment,
      `git does not know who you are, and lifecycle commits record it.\nRun \`git config user.name "Your Name"\` and \`git config user.email you@example.com\`.\ngit said: ${err.stderr.trim()}`,
    )
  if (err instanceof BundleRefusedError)
    return d(ExitCode.refused, `refused ${err.source}; nothing was written:\n${bullet(err.problems)}`, {
      source: err.source,
      problems: err.problems,
    })
  if (err instanceof BundleUnreachableError)
    return d(
      ExitCode.environment,
      `cannot read ${err.source}: ${err.reason}\nNothing was written. Check the path or URL and your network, then run the command again.`,
      { source: err.source, reason: err.reason },
    )
  if (err instanceof FileAccessError)
    return d(
      ExitCode.environment,
      `cannot use ${err.what ? `${err.what} "${err.path}"` : err.path}: ${FS_REASONS[err.code] ?? err.code}.${err.nothingChanged ? ' Nothing changed.' : ''}\n${FS_NEXT[err.code] ?? 'Check that path'}, then run the command again.`,
      { path: err.path, errno: err.code },
    )
  // A file the system refused outside git-learn's own package is the environment's doing, as with FileAccessError;
  // one inside the package (a damaged install) stays an internal error below.
  const sys = systemError(err)
  if (sys && !insidePackage(sys.path)) return describeError(new FileAccessError(sys.path, sys.code), command)
  // A resource that ran out under a call that names no path (write(2) to an open file on a full disk, a process or
  // file descriptor limit): the machine's doing, not a bug, whichever file it was.
  const spent = exhaustedResource(err)
  if (spent)
    return d(
      ExitCode.environment,
      `${spent.syscall} failed: ${FS_REASONS[spent.code] ?? spent.code}.\n${FS_NEXT[spent.code] ?? 'Check the disk and the limits of this shell (`ulimit -a`)'}, then run the command again.`,
      { errno: spent.code, syscall: spent.syscall },
    )
  // commit.gpgsign asked for a signature and git could not make one (no gpg, no key, a pinentry that cannot ask).
  if (err instanceof GitCommandError && err.args[0] === 'commit-tree' && err.args.includes('-S'))
    return d(ExitCode.environment, signingFailed(command, err.stderr.trim()), { args: err.args, stderr: err.stderr })
  if (err instanceof GitCommandError)
    return d(
      ExitCode.environment,
      `git ${formatGitArgs(err.args)} failed.\ngit said:\n${err.stderr.trim()}${gitWriteHint(err.stderr)}`,
      {
        args: err.args,
        stderr: err.stderr,
      },
    )
  const e = err instanceof Error ? err : new Error(String(err))
  return d(
    ExitCode.internal,
    `internal error: ${e.message}\n${e.stack ?? ''}\nThis is a bug in git-learn; please report it with the command you ran and the text above.`,
  )
}

/**
 * The next step when git could not write the repository: its own words for a full disk ("unable to write loose object
 * file: No space left on device", "sha1 file '…' write error. Out of diskspace"), a read-only one, or objects another
 * user owns ("insufficient permission for adding an object to repository database .git/objects").
 */
function gitWriteHint(stderr: string): string {
  if (/No space left on device|Out of diskspace|Disk quota exceeded/i.test(stderr))
    return '\nFree some space on the disk that holds the repository, then run the command again.'
  if (/couldn't write '/.test(stderr))
    return '\nCheck that the disk that holds the repository has room and is writable, then run the command again.'
  if (/Read-only file system/i.test(stderr))
    return '\nThe repository is on a read-only file system: run the command in a writable clone.'
  if (/insufficient permission for adding an object/i.test(stderr))
    return "\nThe repository's objects belong to another user: run the command as that user, or in a clone of your own."
  return ''
}

/** A commit git-learn builds could not be signed as commit.gpgsign asks; nothing was changed (the ref never moved). */
function signingFailed(command: string | undefined, stderr: string): string {
  const cmd = command ? `learn ${command}` : 'learn <command>'
  return `git could not sign the commit (commit.gpgsign is set), so nothing was changed.\ngit said:\n${stderr}\nFix signing as for \`git commit\` (gpg.program, user.signingkey, gpg.format; \`git commit --allow-empty -m test\` shows it working), then run the command again; or, for this once, without a signature: \`git -c commit.gpgsign=false ${cmd} …\`.`
}

/** What an errno code means, as the end of "cannot use <path>: …". */
const FS_REASONS: Record<string, string> = {
  ENOENT: 'it does not exist (or a folder on its way does not)',
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a part of that path is a file, not a folder',
  EEXIST: 'a file of that name is in the way',
  EACCES: 'permission denied',
  EPERM: 'the operation is not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space is left on the device',
  EDQUOT: 'the disk quota is exhausted',
  EMFILE: 'too many files are open',
  ENFILE: 'too many files are open on this system',
  EFBIG: 'the file is larger than this shell allows (`ulimit -f`)',
  EAGAIN: 'the system is out of processes or memory for now',
  ENOMEM: 'the system is out of memory',
  ELOOP: 'too many symbolic links on the way',
  ENAMETOOLONG: 'the name is too long',
}

/** What to do about an errno code, before ", then run the command again." (the default: "Check that path"). */
const FS_NEXT: Record<string, string> = {
  ENOSPC: 'Free some space on the disk',
  EDQUOT: 'Free some space within your disk quota',
  EFBIG: 'Raise the limit (`ulimit -f unlimited`)',
  EROFS: 'Remount it read-write, or run the command in a writable clone',
  EMFILE: 'Raise the limit of open files (`ulimit -n`)',
  ENFILE: 'Close some programs',
  EAGAIN: 'Wait a moment or raise the limit of processes (`ulimit -u`)',
  ENOMEM: 'Close some programs',
}

/** Output to stdout (a file) that could not be written: it is incomplete, and why. */
export function outputLost(code: string): string {
  return `could not write its output to stdout: ${FS_REASONS[code] ?? code}. What was written there is incomplete.\n${FS_NEXT[code] ?? 'Check where stdout goes'}, then run the command again.`
}

/** Codes of a resource that ran out, whatever the path: reported as the environment's doing (exit 3). */
const EXHAUSTED = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EROFS', 'EMFILE', 'ENFILE', 'EAGAIN', 'ENOMEM'])

/** A Node system error of a resource that ran out, with no path (write(2) to an open file, spawn). */
function exhaustedResource(err: unknown): { code: string; syscall: string } | undefined {
  if (!(err instanceof Error)) return undefined
  const e = err as NodeJS.ErrnoException
  return typeof e.code === 'string' && EXHAUSTED.has(e.code) && typeof e.syscall === 'string'
    ? { code: e.code, syscall: e.syscall }
    : undefined
}

/** A Node system error about a path (fs calls set code, syscall and path). */
function systemError(err: unknown): { path: string; code: string } | undefined {
  if (!(err instanceof Error)) return undefined
  const e = err as NodeJS.ErrnoException
  return typeof e.code === 'string' && typeof e.syscall === 'string' && typeof e.path === 'string'
    ? { path: e.path, code: e.code }
    : undefined
}

/** The installed package's own files: one missing there is a broken install, not the user's environment. */
const PACKAGE_ROOT = join(__dirname, '..', '..', '..')
/** The config.yaml `git learn init` writes, every key at its default and explained: shipped with the package. */
const DEFAULT_CONFIG_FILE = join(PACKAGE_ROOT, 'templates', 'config.yaml')
const PACKAGE_PARTS = new Set(['dist', 'src', 'templates', 'githooks', 'node_modules', 'package.json'])
function insidePackage(path: string): boolean {
  const rel = relative(PACKAGE_ROOT, path)
  return isAbsolute(path) && !isAbsolute(rel) && PACKAGE_PARTS.has(rel.split(/[\\/]/)[0] as string)
}

function requiredState(action: string): string {
  return (
    { approve: 'pending', reject: 'pending', prune: 'active', restore: 'archived', supersede: 'active' }[action] ??
    'other'
  )
}

/** A git command line for a message: a commit message after -m is shown as <message>. */
function formatGitArgs(args: readonly string[]): string {
  return args.map((a, i) => (args[i - 1] === '-m' ? '<message>' : a)).join(' ')
}

const mb = (n: number) => `${Math.round((n / 1048576) * 10) / 10} MB`

/** A file read with a size cap held more than the cap. */
export function tooLarge(what: string, path: string, size: number | undefined, limit: number): string {
  return `${what} "${path}" is ${size === undefined ? `more than ${limit}` : size} bytes; the limit is ${limit} (${mb(limit)})`
}

/** Where a shared core.hooksPath is set, in words. */
const SCOPE_WORDS: Record<string, string> = {
  system: 'the system git config',
  global: 'your global git config',
}

/** `hook install` or `init --hooks` into a core.hooksPath every repository shares: where, why, and the two ways on. */
function sharedHooksPath(err: SharedHooksPathError, command: string | undefined): string {
  const init = command === 'init'
  const where = `${SCOPE_WORDS[err.scope] ?? "a file this repository's config includes"} (${err.file})`
  const again = init ? '`git learn init --hooks` again' : '`git learn hook install` again'
  const force = init
    ? '`git learn init` without --hooks, then `git learn hook install --force`'
    : '`git learn hook install --force`'
  return (
    `core.hooksPath is "${err.hooksPath}" (${err.dir}), set in ${where}: git runs the hooks of that folder in every repository that does not set its own, so git learn's hooks there would run in repositories that never use git learn. Nothing was written.\n` +
    `To install them for this repository only: \`git config core.hooksPath ${err.local}\`, then ${again} (the other hooks of ${err.dir} then no longer run here: copy the ones you need into ${err.local}).\n` +
    `To install them into the shared folder anyway: ${force} (in a repository without .learnings/ they do nothing; a hook of yours already there, ${err.dir}/pre-commit say, is replaced and kept as <hook>.git-learn-backup, so it stops running in every repository: merge it into ours first if you still need it).`
  )
}

/** A repository git refuses for its owner (safe.directory): why nothing runs there, and git's own way to trust it. */
function unsafeRepository(path: string): string {
  const quoted = `'${path.replace(/'/g, `'\\''`)}'`
  return (
    `git refuses to work in ${path}: the repository belongs to another user ("dubious ownership"), and its configuration could run commands as you (core.fsmonitor, hooks). git learn does not use it either.\n` +
    `If you trust it, tell git so: \`git config --global --add safe.directory ${quoted}\`, then run the command again.`
  )
}
