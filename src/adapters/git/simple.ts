/**
 * The git adapter: one simple-git instance per repository root, raw commands only, failures as GitCommandError
 * with git's arguments and stderr. Index-touching calls are awaited one after another (git's index.lock).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { simpleGit } from '../../vendor/simple-git.js'
import type { SimpleGit } from 'simple-git'
import { gitStarted } from './interrupt.js'
import { dropPathspecVariables, exitText, runGitAsync } from './run.js'
import {
  GitCommandError,
  NoIdentityError,
  NotARepositoryError,
  OperationInProgressError,
  SparseStoreError,
  LinkedStoreError,
} from '../../core/errors.js'
import { STATES, STORE_DIR } from '../../core/layout.js'
import { storeDirProblem } from '../store/store-dirs.js'
import { noWorkTreeError } from './no-work-tree.js'
import { parseRevParsePaths, pathLine } from '../../core/git-output.js'

export interface Git {
  readonly root: string
  readonly gitDir: string
  readonly commonDir: string
  /** stdout of a git command; throws GitCommandError. */
  run(args: readonly string[]): Promise<string>
  /** stdout, or undefined when git exits non-zero (for questions such as "does this ref exist"). */
  tryRun(args: readonly string[]): Promise<string | undefined>
}

/**
 * simple-git treats a non-zero exit with an empty stderr as success (its default `isTaskError` needs both), so a
 * pre-commit hook that exits 1 silently would look like a commit. Every non-zero exit is an error here.
 */
const errors = (
  error: Buffer | Error | undefined,
  result: { exitCode: number; stdOut: Buffer[]; stdErr: Buffer[] },
) => {
  if (error) return error
  if (result.exitCode === 0) return undefined
  const text = Buffer.concat([...result.stdErr, ...result.stdOut])
    .toString()
    .trim()
  return Buffer.from(`${text ? `${text}\n` : ''}(git exited with code ${result.exitCode})`)
}

/**
 * git's subcommands that write the user's index: they go through simple-git (its queue, one repository instance),
 * awaited one after another for git's index.lock. Every other call of a command is a question (identity, refs, trees,
 * logs, a tier's fetch) and is asked through run.ts, which sees a git killed by a signal: simple-git reports only exit
 * code null, so a terminal's Ctrl-C that killed `git var` first read as "git does not know who you are" unless this
 * process's own SIGINT came within a wait. run.ts takes that death as this process's signal (interrupt.ts
 * gitSignalled), and the command ends as interrupted whichever of the two comes first.
 */
const INDEX_WRITERS = new Set(['add', 'rm'])

/** stdout of a git question asked through run.ts; GitCommandError with git's words (and how it ended) otherwise. */
async function ask(root: string, args: readonly string[]): Promise<string> {
  const r = await runGitAsync(args, { cwd: root })
  if (r.code === 0) return r.stdout.toString('utf8')
  const text = `${r.stderr}${r.stdout.toString('utf8')}`.trim()
  throw new GitCommandError(args, `${text ? `${text}\n` : ''}${exitText(r)}`, r.signal ?? undefined)
}

function wrap(sg: SimpleGit, args: readonly string[]): Promise<string> {
  return counted(
    sg.raw([...args]).catch((err: unknown) => {
      throw new GitCommandError(args, String((err as Error).message ?? err))
    }),
  )
}

/**
 * A git of simple-git's, counted while it runs: a signal waits for it to end before the cleanups (interrupt.ts), so
 * that no git writes after them (a `git add` staging a file a cleanup removed).
 */
function counted<T>(p: Promise<T>): Promise<T> {
  const ended = gitStarted()
  return p.finally(ended)
}

/** A command's git: the index writers through simple-git, the questions through run.ts (INDEX_WRITERS). */
function commandGit(sg: SimpleGit, root: string): Pick<Git, 'run' | 'tryRun'> {
  const run = (args: readonly string[]) => (INDEX_WRITERS.has(args[0] ?? '') ? wrap(sg, args) : ask(root, args))
  return { run, tryRun: (args) => run(args).catch(() => undefined) }
}

/** Open the repository that contains `cwd`; NotARepositoryError outside one, NoWorkTreeError in a bare one. */
export async function openGit(cwd: string): Promise<Git> {
  if (!existsSync(cwd)) throw new NotARepositoryError(cwd, 'the directory does not exist')
  // simple-git starts git with this process's environment (and refuses one handed to it that holds EDITOR or
  // PAGER), so the pathspec variables leave it here.
  dropPathspecVariables(process.env)
  const probe = simpleGit({ baseDir: cwd, trimmed: false, errors })
  const questions = ['--show-toplevel', '--git-dir', '--git-common-dir']
  const ask = (what: readonly string[]) => probe.raw(['rev-parse', '--path-format=absolute', ...what])
  let paths: (string | undefined)[]
  try {
    // Sample: "/r\n/r/.git\n/r/.git\n". A path holding a newline makes more lines: then one question each.
    paths =
      parseRevParsePaths(await ask(questions), questions.length) ??
      (await Promise.all(questions.map(async (q) => pathLine(await ask([q])))))
  } catch (err) {
    // A bare repository (or a git directory) is a repository all the same: said as one without a work tree.
    throw noWorkTreeError(cwd, process.env, String((err as Error).message ?? err))
  }
  const [root, gitDir, commonDir] = paths
  if (!root || !gitDir || !commonDir) throw noWorkTreeError(cwd, process.env, 'a bare repository has no work tree')
  const sg = simpleGit({ baseDir: root, trimmed: false, errors })
  return {
    root,
    gitDir,
    commonDir,
    ...commandGit(sg, root),
  }
}

/**
 * The repository at `dir` for reading commits only (`check --head`), a bare one too: `root` is `dir` itself, the work
 * tree's root or a bare repository's git directory (index-reader's findRepositoryDir), where git runs.
 */
export async function openGitAt(dir: string): Promise<Git> {
  const sg = simpleGit({ baseDir: dir, trimmed: false, errors })
  const out = await ask(dir, ['rev-parse', '--path-format=absolute', '--git-dir', '--git-common-dir'])
  const [gitDir = '', commonDir = ''] = out.split('\n')
  return { root: dir, gitDir, commonDir, ...commandGit(sg, dir) }
}

/** The operation in progress in this work tree, if any (its marker files in the git dir). */
export function readOperationInProgress(git: Git): string | undefined {
  const markers: [string, string][] = [
    ['MERGE_HEAD', 'merge'],
    // `git am` keeps its state in rebase-apply/ too; `applying` marks it as am's (`git rebase --continue` refuses it).
    ['rebase-apply/applying', 'am'],
    ['rebase-merge', 'rebase'],
    ['rebase-apply', 'rebase'],
    ['CHERRY_PICK_HEAD', 'cherry-pick'],
    ['REVERT_HEAD', 'revert'],
  ]
  return markers.find(([file]) => existsSync(join(git.gitDir, file)))?.[1]
}

/** Refuse to go on while a merge, rebase, cherry-pick or revert is in progress. */
export function assertNoOperationInProgress(git: Git): void {
  const op = readOperationInProgress(git)
  if (op) throw new OperationInProgressError(op)
}

/**
 * The store's tracked paths that a sparse checkout leaves out of the work tree (skip-worktree: `git ls-files -t` tags
 * them S), config.yaml and the learnings before the rest (`.gitkeep`); none without a git process when the work tree
 * is not a sparse checkout (no info/sparse-checkout).
 */
export async function readHiddenStorePaths(git: Git): Promise<string[]> {
  if (!existsSync(join(git.gitDir, 'info', 'sparse-checkout'))) return []
  // Sample: "H .learnings/config.yaml\0S .learnings/pending/x.md\0".
  return (await git.run(['ls-files', '-t', '-z', '--', `:(top)${STORE_DIR}`]))
    .split('\0')
    .filter((e) => e.startsWith('S '))
    .map((e) => e.slice(2))
    .sort((a, b) => telling(a) - telling(b))
}

const telling = (path: string) => (path === `${STORE_DIR}/config.yaml` ? 0 : path.endsWith('.md') ? 1 : 2)

/**
 * Refuse to write the store while a sparse checkout hides part of it (SparseStoreError names what), or while
 * `.learnings/`, a state folder or config.yaml is a symbolic link (LinkedStoreError): a committing command would read
 * names, duplicates and settings from behind it and write its files there, outside what git tracks.
 */
export async function assertStoreCheckedOut(git: Git): Promise<void> {
  for (const part of [undefined, ...STATES, 'config'] as const) {
    const linked = storeDirProblem(git.root, part)
    if (linked) throw new LinkedStoreError(linked.path, linked.reason)
  }
  const hidden = await readHiddenStorePaths(git)
  if (hidden.length) throw new SparseStoreError(hidden)
}

/**
 * The committer identity git would use, as "Name <email>". The author's is asked too: a lifecycle commit records both,
 * and one can be missing alone (GIT_COMMITTER_EMAIL set, no user.email), which commit-tree would refuse half way.
 */
export async function readIdentity(git: Git): Promise<string> {
  let out: string
  try {
    ;[out] = await Promise.all([git.run(['var', 'GIT_COMMITTER_IDENT']), git.run(['var', 'GIT_AUTHOR_IDENT'])])
  } catch (err) {
    // A git killed by a signal (not a Ctrl-C, which ends the command as interrupted first) says nothing of who you are.
    if (err instanceof GitCommandError && err.signal) throw err
    throw new NoIdentityError((err as GitCommandError).stderr ?? String(err))
  }
  // Sample: "Jane Doe <jane@example.com> 1763700000 +0100"
  const m = /^(.*<[^>]*>)/.exec(out.trim())
  return m ? (m[1] as string) : out.trim()
}

/** HEAD's commit id, or undefined on an unborn branch. */
export async function readHead(git: Git): Promise<string | undefined> {
  return (await git.tryRun(['rev-parse', '--verify', '-q', 'HEAD']))?.trim() || undefined
}
