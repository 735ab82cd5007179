/**
 * Files we write that the user commits (init's config.yaml and CI files, the agent's commands): written as git would
 * check their LF blob out at their path, so that the user's `git add` stores that very blob.
 */
import { GitCommandError } from '../../core/errors.js'
import { gitAsync, gitSync, runGitSync, tryGitAsync } from './run.js'

/**
 * `text` (LF: the blob meant) as git checks it out at `path` in the repository at `root`: through that path's
 * attributes, core.autocrlf and core.eol (`git cat-file --filters`; the blob is written first, as `add` would). An LF
 * file where git checks out CRLF (core.autocrlf=true, `eol=crlf`) was refused by `git add` under core.safecrlf=true
 * ("LF would be replaced by CRLF"); a path git treats as binary or `-text` comes back as it was.
 */
export function asCheckedOut(root: string, path: string, text: string | Buffer): Buffer {
  if (!text.length) return Buffer.from(text)
  const blob = gitSync(['hash-object', '-w', '--stdin'], { cwd: root, input: text }).trim()
  const args = ['cat-file', '--filters', `--path=${path}`, blob]
  const r = runGitSync(args, { cwd: root })
  if (r.code !== 0) throw new GitCommandError(args, r.stderr || `(git exited with code ${r.code})`)
  return r.stdout
}

/** core.autocrlf values under which a file with no attribute is checked out as its blob. */
const AUTOCRLF_OFF = new Set(['', 'false', 'no', 'off', '0', 'input'])

/** The attributes that can make a checked-out file differ from its blob. */
const CONVERTING_ATTRIBUTES = ['text', 'eol', 'crlf', 'filter', 'ident', 'working-tree-encoding']

/**
 * Of `paths`, those git may check out as other bytes than their blob: every one when core.autocrlf is on, else those
 * with an attribute that converts (text, eol, filter, …). One `git config` and one `git check-attr` for them all, so
 * that a repository where nothing converts (the usual one off Windows) costs no `asCheckedOut` per file.
 */
export async function convertingPaths(root: string, paths: readonly string[]): Promise<Set<string>> {
  const asked = [...new Set(paths)].filter((p) => !p.includes('\0'))
  if (!asked.length) return new Set()
  const [autocrlf, attrs] = await Promise.all([
    tryGitAsync(['config', '--get', 'core.autocrlf'], { cwd: root }),
    gitAsync(['check-attr', '-z', '--stdin', ...CONVERTING_ATTRIBUTES], {
      cwd: root,
      input: `${asked.join('\0')}\0`,
    }),
  ])
  if (!AUTOCRLF_OFF.has((autocrlf?.toString('utf8') ?? '').trim().toLowerCase())) return new Set(asked)
  const out = new Set<string>()
  const fields = attrs.toString('utf8').split('\0')
  for (let i = 0; i + 2 < fields.length; i += 3) if (fields[i + 2] !== 'unspecified') out.add(fields[i] as string)
  return out
}

/**
 * `next`, the new text of a file whose text is now `current` (both as git stores them), with `current`'s line endings
 * where it has CRLF and no bare LF: a section spliced into a file committed with CRLF keeps the file one style.
 */
export function inLineEndingsOf(current: string | null, next: string): string {
  if (current === null || !current.includes('\r\n') || /(?<!\r)\n/.test(current)) return next
  return next.replace(/\r?\n/g, '\r\n')
}
