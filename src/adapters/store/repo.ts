/** A repository opened for a command: git, its root, and the configuration read once. */
import type { Config } from '../../core/config-schema.js'
import { openGit } from '../git/simple.js'
import type { Git } from '../git/simple.js'
import { readConfig } from './config.js'

export interface Repo {
  git: Git
  root: string
  config(): Promise<Config>
}

/** Open the repository around `cwd` (NotARepositoryError outside one). */
export async function openRepo(cwd: string): Promise<Repo> {
  const git = await openGit(cwd)
  let config: Promise<Config> | undefined
  return { git, root: git.root, config: () => (config ??= readConfig(git.root, git.commonDir)) }
}
