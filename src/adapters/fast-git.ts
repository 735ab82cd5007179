/**
 * git for hook fast paths and read-only dashboards: plain execFileSync with argument arrays (no shell), no
 * simple-git to load. Failures return undefined; callers treat git's answers as best effort.
 */
import { execFile, execFileSync } from 'node:child_process'
import { isCommitId } from '../core/git-args.js'
import { findGitDirs } from './locate.js'

/** stdout of `git <args>` run in `cwd`, or undefined when git fails or is missing. */
export function gitSync(cwd: string, args: readonly string[], maxBuffer = 64 * 1024 * 1024, env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  try {
    return execFileSync('git', [...args], { cwd, env: env as NodeJS.ProcessEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer })
  } catch {
    return undefined
  }
}

/** stdout of `git <args>` as bytes, without blocking (several can run at once), or undefined when git fails. */
export function gitAsync(cwd: string, args: readonly string[], maxBuffer = 256 * 1024 * 1024): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    execFile('git', [...args], { cwd, encoding: 'buffer', maxBuffer }, (err, stdout) => resolve(err ? undefined : stdout))
  })
}

export interface Located {
  root: string
  commonDir: string
}

/**
 * The work-tree root and git common dir around `cwd`, or undefined outside a work tree: found by walking up to
 * `.git` (locate.ts), and by `git rev-parse` only when the environment redirects discovery or the walk finds nothing.
 */
export function locateRepo(cwd: string, env: Readonly<Record<string, string | undefined>> = process.env): Located | undefined {
  const found = findGitDirs(cwd, env)
  if (found) return { root: found.root, commonDir: found.commonDir }
  const out = gitSync(cwd, ['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir'], undefined, env)
  const [root, commonDir] = (out ?? '').split('\n')
  return root && commonDir ? { root, commonDir } : undefined
}

/** The default branch: origin's HEAD, else main or master when they exist; undefined otherwise. */
export function readDefaultBranch(root: string): string | undefined {
  const remote = gitSync(root, ['symbolic-ref', '-q', '--short', 'refs/remotes/origin/HEAD'])?.trim()
  if (remote) return remote
  for (const b of ['main', 'master']) if (gitSync(root, ['rev-parse', '-q', '--verify', `refs/heads/${b}`]) !== undefined) return b
  return undefined
}

/** Files changed on this branch since it left the default branch, work tree included (best effort: [] on any failure). */
export function readBranchChanges(root: string): string[] {
  const def = readDefaultBranch(root)
  if (!def) return []
  const base = gitSync(root, ['merge-base', 'HEAD', def])?.trim()
  if (!base) return []
  const out = gitSync(root, ['diff', '--name-only', '-z', base])
  return out ? out.split('\0').filter(Boolean) : []
}

/**
 * Learnings whose evidence.paths changed since evidence.commit (best effort: an unknown commit or a git failure
 * counts as not stale; a commit that is not a hex object id is never passed to git). At most `limit` learnings are checked, one `git diff --name-only` each.
 */
export function readStale(root: string, pins: readonly { name: string; commit: string | null; paths: string[] }[], limit = 200): { name: string; paths: string[] }[] {
  const out: { name: string; paths: string[] }[] = []
  // evidence.commit comes from a learning file: only a hex object id reaches git, after --end-of-options.
  for (const p of pins.filter((x) => isCommitId(x.commit) && x.paths.length).slice(0, limit)) {
    const changed = gitSync(root, ['diff', '--name-only', '-z', '--end-of-options', `${p.commit}`, 'HEAD', '--', ...p.paths.map((x) => `:(literal)${x}`)])
    const files = changed?.split('\0').filter(Boolean) ?? []
    if (files.length) out.push({ name: p.name, paths: files })
  }
  return out
}
