/**
 * git questions for hook fast paths and read-only dashboards, through run.ts's `try…` forms (no simple-git to
 * load). A failure is an answer here (undefined); callers treat git's answers as best effort. The stale rule's
 * question also returns git's error, so that "could not tell" is said, not shown as "nothing stale".
 */
import { evidenceQuery } from '../../core/evidence.js'
import { parseRevParsePaths, pathLine } from '../../core/git-output.js'
import { STORE_DIR } from '../../core/layout.js'
import type { EvidencePin } from '../../core/evidence.js'
import { findGitDirs } from './locate.js'
import { runGitSync, tryGitAsync, tryGitSync } from './run.js'
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
  const ask = (...what: string[]) => tryGitSync(['rev-parse', '--path-format=absolute', ...what], { cwd, env })
  const out = ask('--show-toplevel', '--git-common-dir')
  if (out === undefined) return undefined
  // A path holding a newline makes more lines than two: then one question each.
  const [root, commonDir] = parseRevParsePaths(out, 2) ?? [
    pathLine(ask('--show-toplevel') ?? ''),
    pathLine(ask('--git-common-dir') ?? ''),
  ]
  return root && commonDir ? { root, commonDir } : undefined
}

/** The default branch: origin's HEAD, else main or master when they exist; undefined otherwise. */
export async function readDefaultBranch(root: string): Promise<string | undefined> {
  const remote = (await tryGitAsync(['symbolic-ref', '-q', '--short', 'refs/remotes/origin/HEAD'], { cwd: root }))
    ?.toString('utf8')
    .trim()
  if (remote) return remote
  for (const b of ['main', 'master'])
    if ((await tryGitAsync(['rev-parse', '-q', '--verify', `refs/heads/${b}`], { cwd: root })) !== undefined) return b
  return undefined
}

/**
 * Files changed on this branch since it left the default branch, work tree included, the store's aside (best effort:
 * [] on any failure).
 * Asynchronous, so that the SessionStart context reads its cache while git stats the work tree.
 */
export async function readBranchChanges(root: string): Promise<string[]> {
  const def = await readDefaultBranch(root)
  if (!def) return []
  const base = (await tryGitAsync(['merge-base', 'HEAD', def], { cwd: root }))?.toString('utf8').trim()
  if (!base) return []
  // The store's own files are not work on the code, and a learning whose tag names one of them (docker.md) is not
  // near the branch's work for it; left out, git does not stat them either (at 100,000 learnings 0.14 → 0.03 s).
  // Pathspec magic is on: run.ts runs git without GIT_LITERAL_PATHSPECS.
  const out = (
    await tryGitAsync(['diff', '--name-only', '-z', base, '--', ':(top)', `:(top,exclude)${STORE_DIR}`], { cwd: root })
  )?.toString('utf8')
  return out ? out.split('\0').filter(Boolean) : []
}

export interface EvidenceAnswer {
  /** Per pin, its changed evidence paths; undefined for a pin whose commit is unknown here, or when git failed. */
  changed: (string[] | undefined)[]
  /**
   * git's error when it could not read the trees at all (a partial clone whose remote does not answer, a treeless
   * clone offline): nothing was decided, which the caller says rather than reporting nothing stale.
   */
  unread?: string
}

/**
 * For each pin, the evidence paths changed between its commit and `head` (core/evidence.ts), from one `git cat-file`
 * for all of them, which reads trees only (a blobless clone answers offline and fetches nothing).
 */
export function readEvidenceChanges(
  root: string,
  pins: readonly EvidencePin[],
  env: Env = process.env,
  head = 'HEAD',
): EvidenceAnswer {
  const q = evidenceQuery(pins, head)
  const none = pins.map(() => undefined)
  if (!q.input) return { changed: none }
  let r: ReturnType<typeof runGitSync>
  try {
    r = runGitSync(['cat-file', '--batch'], { cwd: root, env, input: q.input })
  } catch (err) {
    return { changed: none, unread: (err as Error).message }
  }
  if (r.code !== 0) return { changed: none, unread: gitSaid(r.stderr) || `git cat-file exited with code ${r.code}` }
  return { changed: q.read(r.stdout) }
}

/** The line of git's stderr that says why it stopped: the last `fatal:`/`error:` line, else the last line. */
function gitSaid(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
  return [...lines].reverse().find((l) => /^(fatal|error):/.test(l)) ?? lines.at(-1) ?? ''
}

/** The learnings whose evidence paths changed since their evidence.commit, with those paths (status's "stale"). */
export function readStale(
  root: string,
  pins: readonly { name: string; commit: string | null; paths: readonly string[] }[],
): { stale: { name: string; paths: string[] }[]; unread?: string } {
  const asked = pins.filter(
    (p): p is { name: string; commit: string; paths: readonly string[] } => p.commit !== null && p.paths.length > 0,
  )
  const { changed, unread } = readEvidenceChanges(root, asked)
  const stale = asked.flatMap((p, i) => (changed[i]?.length ? [{ name: p.name, paths: changed[i] as string[] }] : []))
  return unread === undefined ? { stale } : { stale, unread }
}
