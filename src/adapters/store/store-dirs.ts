/** The store's folders as the work tree holds them (a light module: feed-key.ts, which every hook loads, imports it). */
import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import type { LearningState } from '../../core/errors.js'
import { STORE_DIR } from '../../core/layout.js'

/**
 * Whether `.learnings/` or its `state` folder (config.yaml with `'config'`) is a symbolic link: `{path, reason}` for the
 * first that is, else undefined (a missing one is fine: empty; a file where a folder belongs is read as none). git
 * tracks a link, not what lies behind it, so that was never reviewed and `check` refuses it: readers leave it out and
 * say so (a problem), committing commands refuse (LinkedStoreError).
 */
export function storeDirProblem(
  root: string,
  state?: LearningState | 'config',
): { path: string; reason: string } | undefined {
  const parts =
    state === undefined ? [STORE_DIR] : [STORE_DIR, `${STORE_DIR}/${state === 'config' ? 'config.yaml' : state}`]
  for (const path of parts) {
    const st = lstatSync(join(root, path), { throwIfNoEntry: false })
    if (!st) return undefined
    if (st.isSymbolicLink()) return { path, reason: 'is a symbolic link' }
  }
  return undefined
}
