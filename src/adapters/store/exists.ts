/** Whether a repository has a store at all: one stat, for commands that read only caches (list, status). */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { STORE_DIR } from '../../core/layout.js'

export function storeExists(root: string): boolean {
  return existsSync(join(root, STORE_DIR))
}

/**
 * Whether a sparse checkout leaves the repository's store out of the work tree: its files are in the index, marked
 * skip-worktree (readHiddenStorePaths). Not the presence of info/sparse-checkout alone: `git sparse-checkout disable`
 * leaves that file behind, and `git sparse-checkout add` then refuses. For when storeExists is false, so rarely run.
 */
export async function storeOutsideSparseCheckout(cwd: string): Promise<boolean> {
  const { openGit, readHiddenStorePaths } = await import('../git/simple.js')
  return openGit(cwd)
    .then(readHiddenStorePaths)
    .then(
      (hidden) => hidden.length > 0,
      () => false,
    )
}
