/**
 * Files we write that the user commits (init's config.yaml and CI files, the agent's commands): written as git would
 * check their LF blob out at their path, so that the user's `git add` stores that very blob.
 */
import { GitCommandError } from '../../core/errors.js'
import { gitSync, runGitSync } from './run.js'

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
