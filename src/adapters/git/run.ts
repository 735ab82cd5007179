/**
 * The one way git-learn starts git: an argument array (never a shell string), an explicit working directory and
 * environment, optional bytes on stdin, and one error type, GitCommandError, carrying git's arguments and stderr
 * (as lint-staged's execGit does). Where a failure is an expected answer ("is there such a ref?") callers use the
 * `try…` forms, which return undefined instead of throwing; nothing else swallows a failure.
 *
 * Sync forms serve the hooks (one short process, nothing to overlap); async forms let several git processes run at
 * once (the feed's cache key) or feed large stdin without blocking; the commands' questions (simple.ts) come here too,
 * since only this runner sees a git killed by a signal. simple-git (simple.ts) stays for the commands' index-touching
 * calls, where its queue serialises calls for git's index.lock.
 *
 * This is the only module of src/ that imports node:child_process (a test holds it so).
 */
import { spawn, spawnSync } from 'node:child_process'
import { closeSync, fstatSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { GitCommandError } from '../../core/errors.js'
import { gitSignalled, gitStarted, interruptEnding, interruptsDeferred, stopOnInterrupt } from './interrupt.js'

export type Env = Readonly<Record<string, string | undefined>>

export interface GitRunOptions {
  cwd: string
  /** The environment git runs with; the process's own by default. */
  env?: Env | undefined
  /** Bytes for git's stdin (`cat-file --batch`, `commit-tree -F -`, `hash-object --stdin`). */
  input?: string | Buffer | undefined
  /** Largest stdout accepted, in bytes (1 GiB by default: a store of 100,000 learnings read in one batch). */
  maxBuffer?: number | undefined
  /**
   * runGitAsync only: after this many ms git and every process it started are stopped (SIGKILL) and the run resolves
   * with code TIMED_OUT, for a remote that accepts a connection and never answers.
   */
  timeoutMs?: number | undefined
}

/**
 * The variables that change how git reads every pathspec: GIT_LITERAL_PATHSPECS=1 (set by some editors' git
 * integrations) makes `:(glob).claude/skills/**` a file name that never matches, so the zone checks of `check` and
 * `check --base` passed anything. git-learn writes its own pathspecs and never passes a user's through, so git runs
 * without them.
 */
const PATHSPEC_VARIABLES = [
  'GIT_LITERAL_PATHSPECS',
  'GIT_GLOB_PATHSPECS',
  'GIT_NOGLOB_PATHSPECS',
  'GIT_ICASE_PATHSPECS',
]

/** Remove the pathspec variables (PATHSPEC_VARIABLES) from an environment. */
export function dropPathspecVariables(env: Record<string, string | undefined>): void {
  for (const k of PATHSPEC_VARIABLES) delete env[k]
}

/**
 * Settings of the user's that would change what a git subcommand of git-learn's writes, pinned for that subcommand
 * (through GIT_CONFIG_COUNT, after any the caller's environment holds: git reads the last value of a key, and
 * `git -c` settings, GIT_CONFIG_PARAMETERS, stay the caller's). The user's git settings git-learn pins, and why, are
 * listed in docs/lifecycle.md ("Your git settings"). Options go on the command line instead where git has one
 * (PARSED_LOG; `fetch --no-recurse-submodules`).
 *
 * - commit-tree, i18n.commitEncoding: every message git-learn writes is UTF-8; set to latin1, commit-tree recorded it
 *   as latin1 ("encoding latin1" in the commit), and git log, forges and `git learn log` showed "rÃ©Ã©crire".
 */
const PINNED: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  'commit-tree': [['i18n.commitEncoding', 'UTF-8']],
}

/**
 * The environment git runs `args` with: `env` without the pathspec variables (PATHSPEC_VARIABLES), with the settings
 * PINNED for its subcommand.
 */
function gitEnv(args: readonly string[], env: Env): NodeJS.ProcessEnv {
  const pinned = PINNED[args[0] ?? '']
  if (!pinned && !PATHSPEC_VARIABLES.some((k) => env[k] !== undefined)) return env as NodeJS.ProcessEnv
  const out: NodeJS.ProcessEnv = { ...env }
  dropPathspecVariables(out)
  if (pinned) {
    // A count git cannot read is git's error to report, as without the pin: the pin is not added to it.
    const count = out['GIT_CONFIG_COUNT'] === undefined ? 0 : Number(out['GIT_CONFIG_COUNT'])
    if (Number.isSafeInteger(count) && count >= 0) {
      pinned.forEach(([key, value], i) => {
        out[`GIT_CONFIG_KEY_${count + i}`] = key
        out[`GIT_CONFIG_VALUE_${count + i}`] = value
      })
      out['GIT_CONFIG_COUNT'] = String(count + pinned.length)
    }
  }
  return out
}

/**
 * `git log` as its output is parsed: without the lines `log.showSignature` adds before each commit's format (they
 * ended up in the commit id field), in UTF-8 whatever `i18n.logOutputEncoding` says (latin1 garbled every reason
 * and name read back), and without `log.follow`, which follows renames whenever one path is given: the proposers of
 * a learning (a one-path log with --diff-filter=A) then missed a restore, a rename from archived/, and whoever
 * restored a learning could approve it alone.
 */
export const PARSED_LOG = ['log', '--no-show-signature', '--no-follow', '--encoding=UTF-8'] as const

/** The exit code runGitAsync gives a git it stopped at its timeoutMs (as timeout(1) does). */
export const TIMED_OUT = 124

export interface GitResult {
  code: number
  /** The signal that killed git, when one did (runGitAsync); `code` is then 1. */
  signal?: NodeJS.Signals | null
  stdout: Buffer
  stderr: string
}

const DEFAULT_MAX_BUFFER = 1 << 30

/** Run git and return its exit code, stdout and stderr; throws GitCommandError only when git cannot be started. */
export function runGitSync(args: readonly string[], o: GitRunOptions): GitResult {
  const r = spawnSync('git', [...args], {
    cwd: o.cwd,
    env: gitEnv(args, o.env ?? process.env),
    input: o.input,
    maxBuffer: o.maxBuffer ?? DEFAULT_MAX_BUFFER,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  // git may exit before reading all of stdin (a failing `cat-file --batch`): the EPIPE of writing the rest is not
  // the answer, git's exit code and stderr are (as in runGitAsync).
  const stopped = (r.error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE' && !!r.status
  if (r.error && !stopped) throw new GitCommandError(args, notStarted(r.error))
  // A git killed by a Ctrl-C (or TERM, HUP) that reached this process too: this process ends by it now, as after an
  // async git (interrupt.ts), rather than reporting git's failure and exiting 3 before its handler could run.
  if (r.signal) gitSignalled(r.signal)
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr.toString('utf8'), signal: r.signal }
}

/** stdout of git as text; GitCommandError (args, stderr) when git exits non-zero. */
export function gitSync(args: readonly string[], o: GitRunOptions): string {
  const r = runGitSync(args, o)
  if (r.code !== 0) throw new GitCommandError(args, r.stderr || `(git exited with code ${r.code})`)
  return r.stdout.toString('utf8')
}

/** stdout of git as text, or undefined when git fails or cannot start: for questions whose "no" is an answer. */
export function tryGitSync(args: readonly string[], o: GitRunOptions): string | undefined {
  try {
    const r = runGitSync(args, o)
    return r.code === 0 ? r.stdout.toString('utf8') : undefined
  } catch {
    return undefined
  }
}

/**
 * Run git without blocking; resolves with code, stdout and stderr; rejects with GitCommandError only when git cannot
 * start.
 *
 * With timeoutMs, git runs in a process group of its own (`detached`: setsid(2)) and the whole group is killed at the
 * bound. Killing git alone is not enough: `git fetch` over http(s) or ssh runs git-remote-http or ssh, which inherit
 * git's pipes, outlive it blocked on the silent socket, and hold the pipes open, so 'close' never came (over 100 s
 * measured). The run settles on git's 'exit' once its streams are destroyed, never on 'close'; and once git has
 * exited, a pipe still held by a process it left running (an ssh ControlMaster) is let go after EXIT_GRACE_MS, git's
 * own exit code the answer. The cost of the group:
 * a Ctrl-C in the terminal reaches this process, not git's group, which then ends at the bound or with its helper.
 */
export function runGitAsync(args: readonly string[], o: GitRunOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const bounded = o.timeoutMs !== undefined
    const child = spawn('git', [...args], {
      cwd: o.cwd,
      env: gitEnv(args, o.env ?? process.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      // A git of a critical section (interrupt.ts) runs in a session of its own too: a Ctrl-C that reaches the
      // terminal's whole group waits in this process for the section's end instead of killing that git half way.
      detached: (bounded || interruptsDeferred()) && process.platform !== 'win32',
    })
    // git that could not start (no file descriptor left for its pipes, EMFILE; no process, EAGAIN) has no streams,
    // and says why in an 'error' event that, unheard, would end this process with Node's own trace: the agent hooks
    // and every command answer it as a git that failed.
    if (!child.stdin || !child.stdout || !child.stderr) {
      child.on('error', (e) => reject(new GitCommandError(args, notStarted(e))))
      return
    }
    if (bounded && child.pid !== undefined && process.platform !== 'win32') ownGroup(child.pid)
    const ended = gitStarted()
    const max = o.maxBuffer ?? DEFAULT_MAX_BUFFER
    const out: Buffer[] = []
    const err: Buffer[] = []
    let size = 0
    let overflow = false
    let timedOut = false
    let settled = false
    const settle = (f: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (child.pid !== undefined) releaseGroup(child.pid)
      if (!overflow && !timedOut) gitSignalled(child.signalCode)
      ended()
      // Killed by the signal that ends this process, which waits for our other gits (`git var` twice at once): no
      // answer, not even a failure that the command would print and exit 3 with before the signal's end.
      if (child.signalCode !== null && interruptEnding()) return
      f()
    }
    const answer = (code: number | null) =>
      settle(() => {
        if (overflow) reject(new GitCommandError(args, `git's output was larger than ${max} bytes`))
        else if (timedOut)
          resolve({ code: TIMED_OUT, stdout: Buffer.alloc(0), stderr: `git did not finish within ${o.timeoutMs} ms` })
        else
          resolve({
            code: code ?? 1,
            signal: child.signalCode,
            stdout: Buffer.concat(out),
            stderr: Buffer.concat(err).toString('utf8'),
          })
      })
    /** Stop reading: a helper's end of the pipes (a daemonized ssh ControlMaster, an orphan) may outlive git. */
    const letGo = () => {
      child.stdin.destroy()
      child.stdout.destroy()
      child.stderr.destroy()
    }
    const timer =
      o.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            const exited = child.exitCode !== null || child.signalCode !== null
            timedOut = !exited
            killGroup(child)
            letGo()
            // git already gone, its pipes held by another: its own answer, as read so far.
            if (exited) answer(child.exitCode)
          }, o.timeoutMs)
    child.stdout.on('data', (b: Buffer) => {
      size += b.length
      if (size > max) {
        overflow = true
        child.kill()
      } else out.push(b)
    })
    child.stderr.on('data', (b: Buffer) => err.push(b))
    child.stdout.on('error', () => undefined)
    child.stderr.on('error', () => undefined)
    child.on('error', (e) => settle(() => reject(new GitCommandError(args, notStarted(e)))))
    child.on('exit', (code) => {
      if (timedOut) answer(code)
      // Bounded: what git wrote before it exited is read within EXIT_GRACE_MS; a pipe still held after that (by a
      // process git started and left running) is not waited for.
      else if (bounded)
        // Unref'd: once git has answered through 'close', the process need not wait out the grace.
        setTimeout(() => {
          letGo()
          answer(code)
        }, EXIT_GRACE_MS).unref()
    })
    child.on('close', (code) => answer(code))
    // git may exit before reading all of stdin (a failing command): EPIPE is its answer, reported by its exit code.
    child.stdin.on('error', () => undefined)
    child.stdin.end(o.input ?? '')
  })
}

/** Why git could not be run, for GitCommandError's stderr: Node's message and, for a limit, which one. */
function notStarted(e: Error): string {
  const code = (e as NodeJS.ErrnoException).code
  // spawnSync's own bounds (its output past maxBuffer, a timeout) come after git started: Node's words say it.
  if (code === 'ENOBUFS' || code === 'ETIMEDOUT') return String(e.message)
  const why =
    code === 'EMFILE' || code === 'ENFILE'
      ? ' (too many files are open: raise `ulimit -n`)'
      : code === 'EAGAIN'
        ? ' (no process could be made: see `ulimit -u`)'
        : ''
  return `git could not be started: ${e.message}${why}`
}

/** How long a bounded run waits, once git has exited, for the rest of its output (runGitAsync). */
const EXIT_GRACE_MS = 200

/**
 * The process groups of bounded runs still going. Their own group takes them out of the terminal's, so a Ctrl-C, a
 * hook runner's kill or this process's end would not reach them; while any is live, SIGINT, SIGTERM and SIGHUP kill
 * them before the signal's default action (interrupt.ts raises the signal again), and so does this process's exit. A
 * SIGKILL of this process cannot be caught: git then ends at its remote's own timeout.
 */
const liveGroups = new Set<number>()
let stopReaping: (() => void) | undefined

function killGroups(): void {
  for (const pid of liveGroups)
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {
      // Gone already.
    }
  liveGroups.clear()
}

function ownGroup(pid: number): void {
  if (!liveGroups.size) {
    process.on('exit', killGroups)
    const off = stopOnInterrupt(killGroups)
    stopReaping = () => {
      process.removeListener('exit', killGroups)
      off()
    }
  }
  liveGroups.add(pid)
}

function releaseGroup(pid: number): void {
  if (!liveGroups.delete(pid) || liveGroups.size) return
  stopReaping?.()
  stopReaping = undefined
}

/** SIGKILL to git's process group (runGitAsync's timeoutMs made it a group's leader), or to git alone where none. */
function killGroup(child: ReturnType<typeof spawn>): void {
  try {
    if (child.pid === undefined || process.platform === 'win32') throw new Error('no process group')
    process.kill(-child.pid, 'SIGKILL')
  } catch {
    // The group is gone already, or there is none (Windows): git itself.
    child.kill('SIGKILL')
  }
}

let spools = 0

/** How many spool files this process has opened (tests: the rebuild's path through spool files is the one taken). */
export function spoolsOpened(): number {
  return spools
}

/**
 * A file for git's stdin or stdout in `dir`, removed from the directory at once (Linux and macOS keep an open file
 * whose name is gone): nothing is left behind, however the process ends. Where a file cannot be removed while open
 * (Windows), it goes when closed. Created with O_EXCL: a file or symbolic link already at the name (planted in a
 * shared git dir, or left by a process of the same pid in another container) is never followed, truncated or
 * shared; the open throws and the caller uses pipes. The pid, a counter and random letters in the name only make
 * such a clash unlikely.
 */
function openSpool(dir: string): { fd: number; close: () => void } {
  const path = join(dir, `spool-${process.pid}-${spools++}-${Math.random().toString(36).slice(2, 10)}.tmp`)
  const fd = openSync(path, 'wx+', 0o600)
  let gone = false
  try {
    unlinkSync(path)
    gone = true
  } catch {
    // Removed when closed.
  }
  return {
    fd,
    close: () => {
      closeSync(fd)
      if (!gone)
        try {
          unlinkSync(path)
        } catch {
          // Already gone (a sweep of stale spool files: write-cache.ts).
        }
    },
  }
}

type Spool = ReturnType<typeof openSpool>

/**
 * git's stdin as a spool file of `dir` holding `input` (written at position 0, so the file's own offset, which git
 * inherits, stays at its start), and `outputs` more spool files for what git writes; `close` closes them all. Throws
 * when `dir` takes no file, nothing left open.
 */
function openSpools(
  dir: string,
  input: GitRunOptions['input'],
  outputs: number,
): { files: Spool[]; close: () => void } {
  const files: Spool[] = []
  const close = () => {
    for (const f of files.splice(0))
      try {
        f.close()
      } catch {
        // Closing an unlinked spool file has nothing to report.
      }
  }
  try {
    const stdin = openSpool(dir)
    files.push(stdin)
    const bytes = typeof input === 'string' ? Buffer.from(input) : (input ?? Buffer.alloc(0))
    for (let at = 0; at < bytes.length;) at += writeSync(stdin.fd, bytes, at, bytes.length - at, at)
    for (let i = 0; i < outputs; i++) files.push(openSpool(dir))
  } catch (err) {
    close()
    throw err
  }
  return { files: [...files], close }
}

/** How often a spooled git's output is measured against its maxBuffer while git writes it. */
const SPOOL_WATCH_MS = 50

/**
 * runGitAsync with git's stdin and stdout in files of `dir` instead of pipes, for a large output read while this thread
 * is busy: through a pipe git waits, at every 64 KiB, for this thread's event loop to take them, and a chunk of
 * 10,000 blobs (~13 MB) read beside the rebuild's parsing came ~0.3 s after it was asked for; spooled, git writes at
 * its own speed. Rejects with GitCommandError only when git cannot start; throws when `dir` takes no file (the caller
 * may use the pipes instead).
 */
export function runGitAsyncSpooled(args: readonly string[], o: GitRunOptions & { dir: string }): Promise<GitResult> {
  const spools = openSpools(o.dir, o.input, 1)
  const [input, output] = spools.files as [Spool, Spool]
  const max = o.maxBuffer ?? DEFAULT_MAX_BUFFER
  return new Promise<GitResult>((resolve, reject) => {
    let done = false
    const child = spawn('git', [...args], {
      cwd: o.cwd,
      env: gitEnv(args, o.env ?? process.env),
      stdio: [input.fd, output.fd, 'pipe'],
    })
    const err: Buffer[] = []
    child.stderr?.on('data', (b: Buffer) => err.push(b))
    // Through a pipe git's output was refused, and git stopped, at maxBuffer; a file takes whatever git writes, so
    // its size is watched while git runs and git is ended past the bound: neither the disk nor the wait grows with
    // a store's blobs beyond what the caller allowed.
    let over = false
    const watch = setInterval(() => {
      try {
        if (fstatSync(output.fd).size > max) {
          over = true
          child.kill('SIGKILL')
        }
      } catch {
        // The file is closed: git has ended.
      }
    }, SPOOL_WATCH_MS)
    watch.unref()
    child.on('error', (e) => {
      clearInterval(watch)
      done = true
      reject(new GitCommandError(args, notStarted(e)))
    })
    child.on('close', (code) => {
      clearInterval(watch)
      if (done) return
      done = true
      if (over) {
        reject(new GitCommandError(args, `git's output passed ${max} bytes: git was stopped`))
        return
      }
      try {
        resolve({
          code: code ?? 1,
          stdout: readSpool(output.fd, args, max),
          stderr: Buffer.concat(err).toString('utf8'),
        })
      } catch (e) {
        reject(e)
      }
    })
  }).finally(spools.close)
}

/**
 * runGitAsync for a short question asked while this thread does other work (the pre-commit hook asks the index while
 * its engine loads): git's stdin, stdout and stderr are all spool files of `dir`, so no stream is built, and the
 * promise settles on git's exit. A pipe costs this thread a socket each, ~2 ms a stream (measured on a 2-core VM): more
 * than git's whole answer at 1,000 learnings, and through pipes the overlap did not pay. For outputs bounded by what
 * is asked (a line per name): the size is checked once git has ended, not while it writes. Throws when `dir` takes
 * no file (the caller then asks synchronously).
 */
export function runGitAsyncFiles(args: readonly string[], o: GitRunOptions & { dir: string }): Promise<GitResult> {
  const spools = openSpools(o.dir, o.input, 2)
  const [input, output, errors] = spools.files as [Spool, Spool, Spool]
  const max = o.maxBuffer ?? DEFAULT_MAX_BUFFER
  return new Promise<GitResult>((resolve, reject) => {
    const child = spawn('git', [...args], {
      cwd: o.cwd,
      env: gitEnv(args, o.env ?? process.env),
      stdio: [input.fd, output.fd, errors.fd],
    })
    child.on('error', (e) => reject(new GitCommandError(args, notStarted(e))))
    child.on('exit', (code) => {
      try {
        resolve({
          code: code ?? 1,
          stdout: readSpool(output.fd, args, max),
          stderr: readSpool(errors.fd, args, max).toString('utf8'),
        })
      } catch (e) {
        reject(e)
      }
    })
  }).finally(spools.close)
}

/** What git wrote to a spool file. */
function readSpool(fd: number, args: readonly string[], max: number): Buffer {
  const size = fstatSync(fd).size
  if (size > max) throw new GitCommandError(args, `git's output was larger than ${max} bytes`)
  const out = Buffer.allocUnsafe(size)
  for (let at = 0; at < size;) {
    const n = readSync(fd, out, at, size - at, at)
    if (n <= 0) throw new GitCommandError(args, "git's output file was shorter than its size")
    at += n
  }
  return out
}

/**
 * stdout of git as bytes through spool files in `dir` (runGitAsyncSpooled), through pipes when `dir` takes no file;
 * undefined when git fails or cannot start.
 */
export async function tryGitAsyncSpooled(
  args: readonly string[],
  o: GitRunOptions & { dir: string },
): Promise<Buffer | undefined> {
  let run: Promise<GitResult>
  try {
    run = runGitAsyncSpooled(args, o)
  } catch {
    return tryGitAsync(args, o)
  }
  try {
    const r = await run
    return r.code === 0 ? r.stdout : undefined
  } catch {
    return undefined
  }
}

/**
 * stdout of git as bytes through spool files in `dir` (runGitAsyncSpooled), through pipes when `dir` takes no file or
 * the spooled run fails (a full disk is git's write error there, not the answer: asked again through pipes, which
 * take no disk); rejects with GitCommandError (args, stderr) when git exits non-zero through the pipes too.
 */
export async function gitAsyncSpooled(args: readonly string[], o: GitRunOptions & { dir: string }): Promise<Buffer> {
  try {
    const r = await runGitAsyncSpooled(args, o)
    if (r.code === 0) return r.stdout
  } catch {
    // No spool file, or git stopped past its bound: the pipes say which.
  }
  return gitAsync(args, o)
}

/** stdout of git as bytes; rejects with GitCommandError (args, stderr) when git exits non-zero. */
export async function gitAsync(args: readonly string[], o: GitRunOptions): Promise<Buffer> {
  const r = await runGitAsync(args, o)
  if (r.code !== 0) throw new GitCommandError(args, r.stderr || exitText(r))
  return r.stdout
}

/** How git ended, when it said nothing: "(git exited with code 128)", "(git was killed by SIGKILL)". */
export function exitText(r: GitResult): string {
  return r.signal ? `(git was killed by ${r.signal})` : `(git exited with code ${r.code})`
}

/** stdout of git as bytes, or undefined when git fails or cannot start. */
export async function tryGitAsync(args: readonly string[], o: GitRunOptions): Promise<Buffer | undefined> {
  try {
    const r = await runGitAsync(args, o)
    return r.code === 0 ? r.stdout : undefined
  } catch {
    return undefined
  }
}
