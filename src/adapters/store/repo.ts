/** A repository opened for a command: git, its root, and the configuration read once. */
import type { Config } from '../../core/config-schema.js'
import { openGit } from '../git/simple.js'
import type { Git } from '../git/simple.js'
import { readConfig } from './config.js'

export interface Repo {
  git: Git
  root: string
  config(): Promise<Config>
  /**
   * A dry run's repository: what reads it writes nothing (no cache under learn/, no tier fetched, no cache file
   * pruned or touched), it only reads.
   */
  readOnly?: true
}

/** Open the repository around `cwd` (NotARepositoryError outside one); `readOnly` for a dry run (Repo.readOnly). */
export async function openRepo(cwd: string, opts: { readOnly?: boolean } = {}): Promise<Repo> {
  const git = await openGit(cwd)
  let config: Promise<Config> | undefined
  // Without the common dir the configuration is read without its cache (which would be written on a miss).
  const commonDir = opts.readOnly ? undefined : git.commonDir
  const repo: Repo = { git, root: git.root, config: () => (config ??= readConfig(git.root, commonDir)) }
  if (opts.readOnly) repo.readOnly = true
  return repo
}
