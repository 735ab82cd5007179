/** Domain errors: each carries the data of the rule it breaks; the CLI turns them into sentences and exit codes. */

export type LearningState = 'pending' | 'active' | 'archived'

/** What an error says, in one place: its reason (our errors and the YAML parser's), else its message. */
export function reasonOf(err: unknown): string {
  const e = err as { reason?: string; message?: string }
  return e.reason ?? e.message ?? String(err)
}

export class GitLearnError extends Error {
  constructor(message: string) {
    super(message)
    this.name = new.target.name
  }
}

/** Bad arguments: an unknown flag, a missing positional, a malformed name. Exit 2. */
export class UsageError extends GitLearnError {
  constructor(
    readonly reason: string,
    readonly command?: string,
  ) {
    super(reason)
  }
}

/** The named learning is in none of the three state directories. */
export class LearningNotFoundError extends GitLearnError {
  constructor(
    readonly learningName: string,
    /** True when the repository has no `.learnings/` at all. */
    readonly storeMissing = false,
    /** True when the work tree is a sparse checkout (the store may be outside it). */
    readonly sparse = false,
  ) {
    super(`learning not found: ${learningName}`)
  }
}

/** A learning file that cannot be read as a learning (YAML, encoding, size). */
export class LearningParseError extends GitLearnError {
  constructor(
    readonly path: string,
    readonly reason: string,
    readonly line?: number,
  ) {
    super(`${path}: ${reason}`)
  }
}

/** A learning that parsed but breaks the schema or the required sections. */
export class LearningInvalidError extends GitLearnError {
  constructor(
    readonly path: string,
    readonly problems: readonly string[],
  ) {
    super(`${path}: ${problems.join('; ')}`)
  }
}

/** A name already used by a learning in some state. */
export class NameTakenError extends GitLearnError {
  constructor(
    readonly learningName: string,
    readonly existingPath: string,
  ) {
    super(`name taken: ${learningName} (${existingPath})`)
  }
}

/** The lifecycle does not allow this action from this state. */
export class IllegalTransitionError extends GitLearnError {
  constructor(
    readonly learningName: string,
    readonly from: LearningState,
    readonly action: string,
  ) {
    super(`cannot ${action} ${learningName}: it is ${from}`)
  }
}

/** The approver is the author of the learning while approval.distinct_approver is on. */
export class SelfApprovalError extends GitLearnError {
  constructor(
    readonly learningName: string,
    /** Who is approving (git's identity now). */
    readonly identity: string,
    /** Who proposed it, as recorded (a Proposed-by or Restored-by trailer): the same e-mail, maybe another name. */
    readonly proposer: string = identity,
  ) {
    super(`${proposer} proposed ${learningName} and cannot approve it`)
  }
}

/**
 * approval.distinct_approver cannot be checked: the clone is shallow and its history is cut before the learning was
 * proposed, so who proposed it is not here to compare with the approver. Exit 3.
 */
export class ProposerUnknownError extends GitLearnError {
  constructor(readonly learningName: string) {
    super(`who proposed ${learningName} is not in this shallow clone's history`)
  }
}

/** A policy refusal that is neither schema nor lifecycle (gates, duplicates, secrets in a draft). */
export class RefusedError extends GitLearnError {
  constructor(
    readonly reason: string,
    readonly details: readonly string[] = [],
  ) {
    super(reason)
  }
}

/**
 * `show` of a learning the feed withholds from agents (a credential, an unaccepted directive): its text is not
 * printed, since agents are told to run `git learn show`. `hazards` are check's findings, secrets masked;
 * `fingerprints` those of its unaccepted directives. Exit 1.
 */
export class WithheldError extends GitLearnError {
  constructor(
    readonly learningName: string,
    readonly path: string,
    readonly state: LearningState,
    readonly hazards: readonly string[],
    readonly fingerprints: readonly string[] = [],
  ) {
    super(`${path} is withheld from agents`)
  }
}

/** The configuration file is malformed or breaks its schema. */
export class ConfigError extends GitLearnError {
  constructor(
    readonly path: string,
    readonly problems: readonly string[],
  ) {
    super(`${path}: ${problems.join('; ')}`)
  }
}

/** Not inside a git work tree (or git is missing). Exit 3. */
export class NotARepositoryError extends GitLearnError {
  constructor(
    readonly cwd: string,
    readonly stderr: string = '',
  ) {
    super(`not a git repository: ${cwd}`)
  }
}

/**
 * A sparse checkout leaves part of `.learnings/` out of the work tree (`hidden`: those tracked paths): a committing
 * command reads the store and config.yaml from there and would miss names, duplicates and settings. Exit 3.
 */
export class SparseStoreError extends GitLearnError {
  constructor(readonly hidden: readonly string[]) {
    super(`the sparse checkout leaves out ${hidden.length} paths of the store`)
  }
}

/**
 * `.learnings/`, one of its state folders or config.yaml is a symbolic link: git tracks the
 * link, not what lies behind it, so that was never reviewed; a committing command would read and write there. Exit 3.
 */
export class LinkedStoreError extends GitLearnError {
  constructor(
    /** The path from the root (`.learnings/active`). */
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path} ${reason}`)
  }
}

/**
 * A repository without a work tree: a bare one (a server's, a mirror), or `cwd` inside a work tree's git directory.
 * The commands that read or change files there cannot run; `log` and `check --head` read commits and can. Exit 3.
 */
export class NoWorkTreeError extends GitLearnError {
  constructor(
    readonly cwd: string,
    /** The git directory, absolute. */
    readonly gitDir: string,
    /** True for a bare repository, false inside the git directory of one with a work tree. */
    readonly bare: boolean,
  ) {
    super(`no work tree: ${cwd}`)
  }
}

/**
 * git refuses to work in the repository: it is owned by another user and not listed in safe.directory ("detected
 * dubious ownership"). git then runs nothing of it, its configuration included (core.fsmonitor, hooks), and neither
 * does git learn. Exit 3.
 */
export class UnsafeRepositoryError extends GitLearnError {
  constructor(
    /** The repository git named. */
    readonly path: string,
  ) {
    super(`git refuses to work in ${path}: dubious ownership`)
  }
}

/**
 * A file or folder the command reads or writes cannot be (missing, a directory where a file belongs or the reverse,
 * no permission, disk full). `what` names it for the message ("the learning file"). Exit 3, like git failing.
 */
export class FileAccessError extends GitLearnError {
  constructor(
    readonly path: string,
    /** The errno code: ENOENT, EISDIR, ENOTDIR, EACCES, ENOSPC, … */
    readonly code: string,
    readonly what?: string,
    /** Known to have failed before anything was changed (the message says so). */
    readonly nothingChanged = false,
  ) {
    super(`${what ? `${what} ` : ''}${path}: ${code}`)
  }
}

/** A git command failed; carries its arguments and stderr (lint-staged's execGit). Exit 3. */
export class GitCommandError extends GitLearnError {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
    /** The signal that killed git, when one did (a failure of git's run, not an answer of git's). */
    readonly signal?: string,
  ) {
    super(`git ${args.join(' ')} failed: ${stderr.trim()}`)
  }
}

/**
 * A ref cannot be moved because its lock file exists (`refs/heads/main.lock`): another git process is updating it, or
 * one was killed while it held the lock. Not a lost compare-and-swap: trying again cannot help until it is gone. Exit 3.
 */
export class RefLockedError extends GitLearnError {
  constructor(
    readonly ref: string,
    /** The lock file's path, as git named it. */
    readonly lock: string,
  ) {
    super(`${ref} is locked: ${lock} exists`)
  }
}

/** A merge, rebase, cherry-pick or revert is in progress. Exit 3. */
export class OperationInProgressError extends GitLearnError {
  constructor(readonly operation: string) {
    super(`a ${operation} is in progress`)
  }
}

/** A learning's own file has uncommitted changes (or is not committed yet), so a move would commit them unseen. */
export class UncommittedLearningError extends GitLearnError {
  constructor(
    readonly learningName: string,
    readonly path: string,
    readonly status: string,
  ) {
    super(`${path} has uncommitted changes (${status})`)
  }
}

/**
 * core.hooksPath names one folder for every repository (set in the global or system config, or in a file included
 * from outside this repository): hooks installed there would run in repositories that never use git learn. Exit 1.
 */
export class SharedHooksPathError extends GitLearnError {
  constructor(
    /** core.hooksPath as configured. */
    readonly hooksPath: string,
    /** The folder it names. */
    readonly dir: string,
    /** git's scope of the setting: system, global, local, worktree. */
    readonly scope: string,
    /** The config file that sets it. */
    readonly file: string,
    /** The value of core.hooksPath that gives this repository hooks of its own (its hooks dir, from the root). */
    readonly local: string,
  ) {
    super(`core.hooksPath "${hooksPath}" is shared by every repository`)
  }
}

/** The repository has no commits yet and the command needs one. Exit 3. */
export class NoCommitsError extends GitLearnError {
  constructor(readonly cwd: string) {
    super('the repository has no commits yet')
  }
}

/** git has no identity configured (user.name / user.email). Exit 3. */
export class NoIdentityError extends GitLearnError {
  constructor(readonly stderr: string) {
    super('git has no user identity')
  }
}

/** A bundle (import) or bundle source that is refused as a whole: wrong shape, too big, hostile names, not https. */
export class BundleRefusedError extends GitLearnError {
  constructor(
    readonly source: string,
    readonly problems: readonly string[],
  ) {
    super(`${source}: ${problems.join('; ')}`)
  }
}

/** A bundle source that could not be fetched or read (network, timeout, missing file). Exit 3. */
export class BundleUnreachableError extends GitLearnError {
  constructor(
    readonly source: string,
    readonly reason: string,
  ) {
    super(`${source}: ${reason}`)
  }
}

/** A multi-learning move stopped part way: some commits were made before one failed. */
export class PartialMoveError extends GitLearnError {
  constructor(
    readonly action: string,
    readonly done: readonly { name: string; commit: string | null }[],
    readonly failed: string,
    readonly notAttempted: readonly string[],
    readonly cause: unknown,
  ) {
    super(`${action} stopped at ${failed} after ${done.length} commit(s)`)
  }
}

/** A value bound for a commit message (a reason, an origin, the message itself) carries a credential. */
export class SecretInMessageError extends GitLearnError {
  constructor(
    readonly what: string,
    readonly findings: readonly { description: string; rule: string; masked: string }[],
  ) {
    super(`${what} contains a credential`)
  }
}

/**
 * A tier URL carrying a credential, refused before anything is fetched or written: config.yaml is committed and
 * shared, so the credential would be in the history. `url` is the URL as shown (credentials masked). Exit 1.
 */
export class TierUrlCredentialError extends GitLearnError {
  constructor(
    readonly tier: string,
    readonly url: string,
    readonly findings: readonly { description: string; rule: string; masked: string }[],
    /** Read from config.yaml (`tier update`), not given on the command line (`tier add`). */
    readonly inConfig: boolean,
  ) {
    super(`the URL of tier ${tier} contains a credential`)
  }
}

/** Another process moved the branch or the learning's own paths while a transition was being committed; nothing changed. */
export class ConcurrentChangeError extends GitLearnError {
  constructor(
    readonly subject: string,
    readonly reason: string,
  ) {
    super(`${subject}: ${reason}`)
  }
}

/**
 * A path a transition would create (a move's destination, a new file) is already taken in the user's work tree or
 * index by a file not committed there; nothing changed. Exit 1: the user's file is in the way, as with
 * UncommittedLearningError.
 */
export class PathTakenError extends GitLearnError {
  constructor(
    readonly subject: string,
    readonly path: string,
    readonly where: 'staged' | 'untracked',
  ) {
    super(`${subject}: ${path} is already there (${where})`)
  }
}

/** The transition's commit landed, but the user's index or work tree could not be brought in line for its paths. */
export class TransitionIncompleteError extends GitLearnError {
  constructor(
    readonly subject: string,
    readonly commit: string,
    readonly paths: readonly string[],
    readonly reason: string,
  ) {
    super(`${subject} committed as ${commit}, but ${paths.join(', ')} not updated: ${reason}`)
  }
}

/** Something half done that `git learn doctor` reports (flows/recovery.ts finds them; messages/recovery.ts says them). */
export type HalfDone =
  | { kind: 'index-lock'; path: string }
  | { kind: 'ref-lock'; ref: string; path: string }
  /** `elsewhere`: its journal was written in another PID namespace or on another machine (a dev container's host). */
  | { kind: 'running'; pid: number; subject: string; elsewhere?: true }
  | { kind: 'unfinished'; subject: string; commit: string; paths: string[] }
  | { kind: 'staged-move'; from: string; to: string }
  | { kind: 'staged-new'; path: string }
  | { kind: 'staged-removal'; path: string }
  | { kind: 'orphan-tier-ref'; ref: string; commit: string }
  | { kind: 'torn-journal'; path: string }

/** A half-done state (a left lock, an interrupted transition, a staged move never committed) to settle first. Exit 3. */
export class RecoveryNeededError extends GitLearnError {
  constructor(readonly problems: readonly HalfDone[]) {
    super(problems.map((p) => p.kind).join(', '))
  }
}

/**
 * `check --base <ref>`: the commits between the merge base and HEAD (or `--head`) are not all here: the clone is
 * shallow and `boundary`, a commit of the range, is shown without its parents. The moves in the range need their
 * commits' trailers (an approval), so they cannot be judged. Exit 3.
 */
export class RangeCutShortError extends GitLearnError {
  constructor(
    readonly base: string,
    readonly boundary: string,
    readonly head = 'HEAD',
  ) {
    super(`the history between ${base} and ${head} is cut short at ${boundary}`)
  }
}

/**
 * `check --base <ref>`: no merge base with HEAD, or with `--head <ref>` (a shallow clone's history stops short, or
 * the ref is unknown); `base` is also an unknown `--head` itself. Exit 3.
 */
export class BaseUnreachableError extends GitLearnError {
  constructor(
    readonly base: string,
    readonly shallow: boolean,
    readonly known: boolean,
    readonly stderr: string,
    /** The other end: HEAD, or the ref of `--head`. */
    readonly head = 'HEAD',
  ) {
    super(`no merge base with ${base}`)
  }
}
