/**
 * `git learn add --no-commit`: the one command that writes into the user's index on purpose (the file is theirs to
 * commit). Written whole (no clobber), staged alone; both undone when staging fails.
 */
import { unlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { mkdirSync } from 'node:fs'
import type { Git } from '../adapters/git/simple.js'
import { scratchDir } from '../adapters/state/journal.js'
import { writeFileNoClobber } from '../adapters/store/write-file.js'

/** Write `text` to `path` (which must not exist) and `git add` it. */
export async function stageNewFile(git: Git, path: string, text: string): Promise<void> {
  const file = join(git.root, path)
  mkdirSync(dirname(file), { recursive: true })
  writeFileNoClobber(file, text, false, scratchDir(git.commonDir))
  try {
    await git.run(['add', '--', path])
  } catch (err) {
    await git.tryRun(['rm', '--cached', '--quiet', '--force', '--ignore-unmatch', '--', path])
    unlinkSync(file)
    throw err
  }
}
