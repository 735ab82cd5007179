/**
 * A shallow clone's cut (`git clone --depth`, `git fetch --depth`, actions/checkout's default fetch-depth: 1): the
 * commits git shows without their parents.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { findGitDirs } from './locate.js'
import { gitSync } from './run.js'
import type { Env } from './run.js'

/**
 * The boundary commits of a shallow clone: the ids listed in `<git common dir>/shallow` (gitrepository-layout(5)),
 * which git shows without their parents, so that `git log --diff-filter=A` lists every file they hold as added by
 * them. Empty in a complete clone, which has no such file.
 */
export function readShallowCommits(commonDir: string): Set<string> {
  let text: string
  try {
    text = readFileSync(join(commonDir, 'shallow'), 'utf8')
  } catch {
    return new Set()
  }
  return new Set(text.split('\n').filter((l) => /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(l)))
}

/** readShallowCommits of the repository at `root` (its common dir found without git in the usual layout). */
export function readShallowCommitsAt(root: string, env: Env): Set<string> {
  const commonDir =
    findGitDirs(root, env)?.commonDir ??
    gitSync(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: root, env }).trim()
  return readShallowCommits(commonDir)
}
