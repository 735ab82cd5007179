/**
 * `git learn add --no-commit`: the one command that writes into the user's index on purpose (the file is theirs to
 * commit). Written whole (no clobber), staged alone; both undone when staging fails.
 */
import { unlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { gitAsync } from '../adapters/git/run.js'
import type { Git } from '../adapters/git/simple.js'
import { scratchDir } from '../adapters/state/journal.js'
import { makeDirs, writeFileNoClobber } from '../adapters/store/write-file.js'

/**
 * Write `text` to `path` (which must not exist) as git would check its blob out there, and `git add` it. `text` (LF)
 * is the blob; the file is that blob through the path's attributes and core.autocrlf (`git cat-file --filters`), so
 * that `git add` and the `git commit -- <path>` we print, which re-reads the file, give back the same blob. An LF file
 * where git checks out CRLF (core.autocrlf=true, `eol=crlf`) made both fail under core.safecrlf=true ("LF would be
 * replaced by CRLF"). Byte for byte: under `working-tree-encoding` the checkout is not UTF-8.
 */
export async function stageNewFile(git: Git, path: string, text: string): Promise<void> {
  const file = join(git.root, path)
  const blob = (await gitAsync(['hash-object', '-w', '--stdin'], { cwd: git.root, input: text })).toString().trim()
  const checkedOut = await gitAsync(['cat-file', '--filters', `--path=${path}`, blob], { cwd: git.root })
  makeDirs(dirname(file))
  writeFileNoClobber(file, checkedOut, false, scratchDir(git.commonDir))
  try {
    await git.run(['add', '--', path])
  } catch (err) {
    await git.tryRun(['rm', '--cached', '--quiet', '--force', '--ignore-unmatch', '--', path])
    unlinkSync(file)
    throw err
  }
}
