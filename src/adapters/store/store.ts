/** The store on disk: `.learnings/{pending,active,archived}/<name>.md` and `config.yaml` in the work tree. */
import { existsSync, lstatSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { LearningNotFoundError, LearningParseError, UsageError } from '../../core/errors.js'
import type { LearningState } from '../../core/errors.js'
import { MAX_LEARNING_BYTES, STATES, STORE_DIR, learningPath, parseLearning } from '../../core/learning.js'
import type { Learning } from '../../core/learning.js'
import { explainBadName } from '../../core/names.js'
import { findGitDirs } from '../git/locate.js'
import { storeDirProblem } from './store-dirs.js'

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Why a file of `size` bytes is no learning. */
export function tooLargeReason(size: number): string {
  return `the file is ${size} bytes; a learning may be at most ${MAX_LEARNING_BYTES} bytes (1 MB)`
}

/** Decode a learning file's bytes: UTF-8 only, at most MAX_LEARNING_BYTES. */
export function decodeLearningBytes(bytes: Uint8Array, path: string): string {
  if (bytes.byteLength > MAX_LEARNING_BYTES) throw new LearningParseError(path, tooLargeReason(bytes.byteLength))
  try {
    return utf8.decode(bytes)
  } catch {
    throw new LearningParseError(path, 'the file is not valid UTF-8 text; save it as UTF-8')
  }
}

/** Read and parse one learning file; throws LearningParseError. `texts` gets its text when given. */
export function readLearningFile(root: string, path: string, texts?: Map<string, string>): Learning {
  const text = readLearningText(root, path)
  const l = parseLearning(text, path)
  texts?.set(path, text)
  return l
}

/** The text of the learning file at `path` (refused, like readLearningFile, when it is a link, not a file, or too large). */
export function readLearningText(root: string, path: string): string {
  const st = lstatSync(join(root, path))
  if (st.isSymbolicLink())
    throw new LearningParseError(
      path,
      'is a symbolic link; the store holds only regular files (replace the link with the file)',
    )
  if (!st.isFile())
    throw new LearningParseError(
      path,
      'is not a regular file (a directory?); a learning is one markdown file: move what is inside elsewhere and remove it',
    )
  // Refused by its size before a byte is read (a file of zeros packs to nothing, and can be huge).
  if (st.size > MAX_LEARNING_BYTES) throw new LearningParseError(path, tooLargeReason(st.size))
  return decodeLearningBytes(readFileSync(join(root, path)), path)
}

/**
 * Where a learning of this name is, in any state, or undefined. A state folder that cannot be searched (no x
 * permission for this user) throws its EACCES, naming the file: existsSync said "no learning named x" there, and add
 * took the name for free.
 */
export function findLearningPath(root: string, name: string): { state: LearningState; path: string } | undefined {
  const bad = explainBadName(name)
  if (bad) throw new UsageError(`not a learning name: ${bad}`)
  for (const state of STATES) {
    if (storeDirProblem(root, state)) continue
    const path = learningPath(state, name)
    if (statSync(join(root, path), { throwIfNoEntry: false })) return { state, path }
  }
  return undefined
}

/** Whether the work tree at `root` is a sparse checkout (its git dir has info/sparse-checkout): files may be hidden. */
export function isSparseCheckout(root: string): boolean {
  const dirs = findGitDirs(root, process.env)
  return dirs !== undefined && existsSync(join(dirs.gitDir, 'info', 'sparse-checkout'))
}

/** Where a learning is; LearningNotFoundError (saying when there is no store, or a sparse checkout) when no state holds it. */
export function requireLearningPath(root: string, name: string): { state: LearningState; path: string } {
  const found = findLearningPath(root, name)
  if (!found) throw new LearningNotFoundError(name, !existsSync(join(root, STORE_DIR)), isSparseCheckout(root))
  return found
}

/** Find and parse a learning by name; LearningNotFoundError when no state holds it. */
export function readLearning(root: string, name: string): Learning {
  return readLearningFile(root, requireLearningPath(root, name).path)
}

export interface StoreScan {
  learnings: Learning[]
  problems: LearningParseError[]
}

/**
 * Every learning file in the given states (all by default); unreadable files are reported, not thrown. `texts`, when
 * given, gets each learning's text by path (for a caller that scans it: render), so no file is read twice.
 */
export function readStore(
  root: string,
  states: readonly LearningState[] = STATES,
  texts?: Map<string, string>,
): StoreScan {
  const learnings: Learning[] = []
  const problems: LearningParseError[] = []
  for (const state of states) {
    const linked = storeDirProblem(root, state)
    if (linked) {
      problems.push(new LearningParseError(linked.path, linked.reason))
      continue
    }
    const dir = join(root, STORE_DIR, state)
    let files: string[]
    try {
      files = readdirSync(dir)
        .filter((f) => f.endsWith('.md'))
        .sort()
    } catch {
      continue
    }
    for (const file of files) {
      const path = `${STORE_DIR}/${state}/${file}`
      try {
        learnings.push(readLearningFile(root, path, texts))
      } catch (err) {
        if (err instanceof LearningParseError) problems.push(err)
        else throw err
      }
    }
  }
  return { learnings, problems }
}
