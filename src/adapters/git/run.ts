/**
 * The one way git-learn starts git: an argument array (never a shell string), an explicit working directory and
 * environment, optional bytes on stdin, and one error type, GitCommandError, carrying git's arguments and stderr
 * (as lint-staged's execGit does). Where a failure is an expected answer ("is there such a ref?") callers use the
 * `try…` forms, which return undefined instead of throwing; nothing else swallows a failure.
 *
 * Sync forms serve the hooks (one short process, nothing to overlap); async forms let several git processes run at
 * once (the feed's cache key) or feed large stdin without blocking. simple-git (simple.ts) stays for the commands'
 * index-touching sequences, where its queue serialises calls for git's index.lock.
 *
 * This is the only module of src/ that imports node:child_process (a test holds it so).
 */
import { spawn, spawnSync } from 'node:child_process'
import { GitCommandError } from '../../core/errors.js'

export type Env = Readonly<Record<string, string | undefined>>

export interface GitRunOptions {
  cwd: string
  /** The environment git runs with; the process's own by default. */
  env?: Env | undefined
  /** Bytes for git's stdin (`cat-file --batch`, `commit-tree -F -`, `hash-object --stdin`). */
  input?: string | Buffer | undefined
  /** Largest stdout accepted, in bytes (1 GiB by default: a store of 100,000 learnings read in one batch). */
  maxBuffer?: number | undefined
}

export interface GitResult {
  code: number
  stdout: Buffer
  stderr: string
}

const DEFAULT_MAX_BUFFER = 1 << 30

/** Run git and return its exit code, stdout and stderr; throws GitCommandError only when git cannot be started. */
export function runGitSync(args: readonly string[], o: GitRunOptions): GitResult {
  const r = spawnSync('git', [...args], {
    cwd: o.cwd,
    env: (o.env ?? process.env) as NodeJS.ProcessEnv,
    input: o.input,
    maxBuffer: o.maxBuffer ?? DEFAULT_MAX_BUFFER,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  if (r.error) throw new GitCommandError(args, String(r.error.message))
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr.toString('utf8') }
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

/** Run git without blocking; resolves with code, stdout and stderr; rejects with GitCommandError only when git cannot start. */
export function runGitAsync(args: readonly string[], o: GitRunOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...args], {
      cwd: o.cwd,
      env: (o.env ?? process.env) as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const max = o.maxBuffer ?? DEFAULT_MAX_BUFFER
    const out: Buffer[] = []
    const err: Buffer[] = []
    let size = 0
    let overflow = false
    child.stdout.on('data', (b: Buffer) => {
      size += b.length
      if (size > max) {
        overflow = true
        child.kill()
      } else out.push(b)
    })
    child.stderr.on('data', (b: Buffer) => err.push(b))
    child.on('error', (e) => reject(new GitCommandError(args, String(e.message))))
    child.on('close', (code) => {
      if (overflow) reject(new GitCommandError(args, `git's output was larger than ${max} bytes`))
      else resolve({ code: code ?? 1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') })
    })
    // git may exit before reading all of stdin (a failing command): EPIPE is its answer, reported by its exit code.
    child.stdin.on('error', () => undefined)
    child.stdin.end(o.input ?? '')
  })
}

/** stdout of git as bytes; rejects with GitCommandError (args, stderr) when git exits non-zero. */
export async function gitAsync(args: readonly string[], o: GitRunOptions): Promise<Buffer> {
  const r = await runGitAsync(args, o)
  if (r.code !== 0) throw new GitCommandError(args, r.stderr || `(git exited with code ${r.code})`)
  return r.stdout
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
