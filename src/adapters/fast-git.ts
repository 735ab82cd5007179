/**
 * git for hook fast paths and read-only dashboards: plain execFileSync with argument arrays (no shell), no
 * simple-git to load. Failures return undefined; callers treat git's answers as best effort.
 */
import { execFile, execFileSync } from 'node:child_process'
import { evidenceQuery } from '../core/evidence.js'
import type { EvidencePin } from '../core/evidence.js'
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
 * For each pin, the evidence paths changed between its commit and HEAD (core/evidence.ts), from one `git cat-file`
 * for all of them; undefined for a pin whose commit is unknown here. Best effort: when git fails, every pin is
 * undefined (nothing is reported stale).
 */
export function readEvidenceChanges(root: string, pins: readonly EvidencePin[], env: Readonly<Record<string, string | undefined>> = process.env): (string[] | undefined)[] {
  const q = evidenceQuery(pins)
  if (!q.input) return pins.map(() => undefined)
  try {
    const out = execFileSync('git', ['cat-file', '--batch-check=%(objectname)'], { cwd: root, env: env as NodeJS.ProcessEnv, input: q.input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'ignore'], maxBuffer: 256 * 1024 * 1024 })
    return q.read(out)
  } catch {
    return pins.map(() => undefined)
  }
}

/** The learnings whose evidence paths changed since their evidence.commit, with those paths (status's "stale"). */
export function readStale(root: string, pins: readonly { name: string; commit: string | null; paths: readonly string[] }[]): { name: string; paths: string[] }[] {
  const asked = pins.filter((p): p is { name: string; commit: string; paths: readonly string[] } => p.commit !== null && p.paths.length > 0)
  const changed = readEvidenceChanges(root, asked)
  return asked.flatMap((p, i) => (changed[i]?.length ? [{ name: p.name, paths: changed[i] as string[] }] : []))
}
