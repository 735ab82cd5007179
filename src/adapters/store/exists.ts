/** Whether a repository has a store at all: one stat, for commands that read only caches (list, status). */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { STORE_DIR } from '../../core/layout.js'

export function storeExists(root: string): boolean {
  return existsSync(join(root, STORE_DIR))
}
