/** Learnings read from a plain folder of *.md files (an evaluation set's own learnings), not from a store. */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { FileAccessError, RefusedError, reasonOf } from '../../core/errors.js'
import { MAX_LEARNING_BYTES, parseLearning } from '../../core/learning.js'
import type { Learning } from '../../core/learning.js'
import { readFileBounded } from './read-bounded.js'
import { decodeLearningBytes } from './store.js'

export interface FolderRead {
  learnings: Learning[]
  /** Files that could not be read as learnings (path as given, reason). */
  problems: { path: string; reason: string }[]
}

/**
 * The *.md files of a folder (README.md aside), parsed as active learnings, in name order. Throws FileAccessError when
 * the folder cannot be listed, RefusedError when it holds more than `max` files; a file that is not a learning is a problem.
 */
export function readLearningFolder(dir: string, max: number): FolderRead {
  let names: string[]
  try {
    names = readdirSync(dir)
      .filter((f) => f.endsWith('.md') && f !== 'README.md')
      .sort()
  } catch (err) {
    throw new FileAccessError(dir, (err as NodeJS.ErrnoException).code ?? 'EIO', 'the learnings folder')
  }
  if (names.length > max) throw new RefusedError(`${dir} holds more than ${max} learnings; evaluate a smaller folder`)
  const out: FolderRead = { learnings: [], problems: [] }
  for (const f of names) {
    const path = `.learnings/active/${f}`
    try {
      const r = readFileBounded(join(dir, f), MAX_LEARNING_BYTES, { regularOnly: true })
      if (!r.regular || r.over)
        throw new Error(r.over ? `larger than ${MAX_LEARNING_BYTES} bytes` : 'not a regular file')
      out.learnings.push(parseLearning(decodeLearningBytes(r.bytes, path), path))
    } catch (err) {
      out.problems.push({ path: join(dir, f), reason: reasonOf(err) })
    }
  }
  return out
}
