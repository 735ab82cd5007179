/**
 * git questions for hook fast paths and read-only dashboards, through run.ts's `try…` forms (no simple-git to
 * load). A failure is an answer here (undefined, or nothing stale); callers treat git's answers as best effort.
 */
import { evidenceQuery } from '../../core/evidence.js'
import type { EvidencePin } from '../../core/evidence.js'
import { findGitDirs } from './locate.js'
import { tryGitSync } from './run.js'
import type { Env } from './run.js'

export interface Located {
  root: string
  commonDir: string
}

/**
 * The work-tree root and git common dir around `cwd`, or undefined outside a work tree: found by walking up to
 * `.git` (locate.ts), and by `git rev-parse` only when the environment redirects discovery or the walk finds nothing.
 */
export function locateRepo(cwd: string, env: Env = process.env): Located | undefined {
  const found = findGitDirs(cwd, env)
  if (found) return { root: found.root, commonDir: found.commonDir }
  const out = tryGitSync(['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir'], { cwd, env })
  const [root, commonDir] = (out ?? '').split('\n')
  return root && commonDir ? { root, commonDir } : undefined
}

/** The default branch: origin's HEAD, else main or master when they exist; undefined otherwise. */
export function readDefaultBranch(root: string): string | undefined {
  const remote = tryGitSync(['symbolic-ref', '-q', '--short', 'refs/remotes/origin/HEAD'], { cwd: root })?.trim()
  if (remote) return remote
  for (const b of ['main', 'master'])
    if (tryGitSync(['rev-parse', '-q', '--verify', `refs/heads/${b}`], { cwd: root }) !== undefined) return b
  return undefined
}

/** Files changed on this branch since it left the default branch, work tree included (best effort: [] on any failure). */
export function readBranchChanges(root: string): string[] {
  const def = readDefaultBranch(root)
  if (!def) return []
  const base = tryGitSync(['merge-base', 'HEAD', def], { cwd: root })?.trim()
  if (!base) return []
  const out = tryGitSync(['diff', '--name-only', '-z', base], { cwd: root })
  return out ? out.split('\0').filter(Boolean) : []
}

/**
 * For each pin, the evidence paths changed between its commit and HEAD (core/evidence.ts), from one `git cat-file`
 * for all of them; undefined for a pin whose commit is unknown here. Best effort: when git fails, every pin is
 * undefined (nothing is reported stale).
 */
export function readEvidenceChanges(
  root: string,
  pins: readonly EvidencePin[],
  env: Env = process.env,
): (string[] | undefined)[] {
  const q = evidenceQuery(pins)
  if (!q.input) return pins.map(() => undefined)
  const out = tryGitSync(['cat-file', '--batch-check=%(objectname)'], { cwd: root, env, input: q.input })
  return out === undefined ? pins.map(() => undefined) : q.read(out)
}

/** The learnings whose evidence paths changed since their evidence.commit, with those paths (status's "stale"). */
export function readStale(
  root: string,
  pins: readonly { name: string; commit: string | null; paths: readonly string[] }[],
): { name: string; paths: string[] }[] {
  const asked = pins.filter(
    (p): p is { name: string; commit: string; paths: readonly string[] } => p.commit !== null && p.paths.length > 0,
  )
  const changed = readEvidenceChanges(root, asked)
  return asked.flatMap((p, i) => (changed[i]?.length ? [{ name: p.name, paths: changed[i] as string[] }] : []))
}
