/** Whether a repository has a store at all: one stat, for commands that read only caches (list, status). */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { STORE_DIR } from '../../core/layout.js'

export function storeExists(root: string): boolean {
  return existsSync(join(root, STORE_DIR))
}

/** Whether the work tree of this git dir is a sparse checkout (info/sparse-checkout): the store may be outside it. */
export function sparseCheckout(gitDir: string | undefined): boolean {
  return gitDir !== undefined && existsSync(join(gitDir, 'info', 'sparse-checkout'))
}
