/**
 * Why git found no work tree around a directory: no repository at all, or a repository without one (a bare
 * repository such as a server's or a mirror, or a directory inside a work tree's git directory). Asked only after
 * `git rev-parse --show-toplevel` failed, so it costs nothing on the usual road.
 */
import { NoWorkTreeError, NotARepositoryError } from '../../core/errors.js'
import { runGitSync } from './run.js'
import type { Env } from './run.js'

/** The error for `cwd` where git said `stderr` when asked for the work tree. */
export function noWorkTreeError(cwd: string, env: Env, stderr = ''): NoWorkTreeError | NotARepositoryError {
  try {
    const r = runGitSync(['rev-parse', '--absolute-git-dir', '--is-bare-repository'], { cwd, env })
    const [gitDir, bare] = r.stdout.toString('utf8').split('\n')
    if (r.code === 0 && gitDir) return new NoWorkTreeError(cwd, gitDir, bare === 'true')
  } catch {
    // git could not start in `cwd` (a directory that is gone): not a repository, with what git said before.
  }
  return new NotARepositoryError(cwd, stderr)
}
