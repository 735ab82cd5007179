/**
 * Which evidence paths changed between a learning's `evidence.commit` and HEAD, for every pinned learning at once:
 * the question is one `git cat-file --batch-check` (the object id of `<commit>^{commit}:<path>` and of
 * `HEAD:<path>`), where `status` and `check` used to run one `git diff` per learning (and status stopped at 200). A
 * path changed when its object differs: a file edited, added or removed, a directory with anything changed inside
 * (reported as the directory). A mode change alone (chmod) and a submodule's pointer are not seen. A commit this
 * repository does not know (a shallow clone, another repository) or an ambiguous abbreviation leaves its learning
 * undecided: never stale. Paths are literal (no globs).
 */
import { posix } from 'node:path'
import { isCommitId } from './git-args.js'

export interface EvidencePin {
  commit: string
  paths: readonly string[]
}

/** An evidence path as `<rev>:<path>` reads it (from the top, no `./`, no trailing `/`), or undefined when it cannot be one. */
export function evidencePath(p: string): string | undefined {
  // git's batch reader ends a line at \n and drops a \r before it: such a path could not be asked about as written.
  if (!p || /[\n\r\0]/.test(p) || p.startsWith('/')) return undefined
  const n = posix.normalize(p).replace(/\/+$/, '')
  return n === '.' || n === '..' || n.startsWith('../') || n === '' ? undefined : n
}

export interface EvidenceQuery {
  /** stdin for `git cat-file --batch-check=%(objectname)`; empty when no pin can be asked about. */
  input: string
  /** Per pin, the changed evidence paths, or undefined when its commit is unknown here (or is not a commit id). */
  read(output: string): (string[] | undefined)[]
}

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/

/** The query for `pins` against `head` (HEAD, or the commit `check --head` checks: a commit id, never user text). */
export function evidenceQuery(pins: readonly EvidencePin[], head = 'HEAD'): EvidenceQuery {
  const lines: string[] = []
  const asked = pins.map((pin) => {
    // The commit reaches git only as stdin of cat-file (never as an argument), and only when it is hex.
    if (!isCommitId(pin.commit)) return undefined
    const paths = [...new Set(pin.paths.map(evidencePath).filter((p): p is string => p !== undefined))]
    const at = lines.length
    lines.push(`${pin.commit}^{commit}`)
    // `<id>^{commit}:` resolves a short id among commits only, as the first line does; `<id>:` would also take a
    // tree or blob sharing the prefix and answer "missing" for every path.
    for (const p of paths) lines.push(`${pin.commit}^{commit}:${p}`, `${head}:${p}`)
    return { at, paths }
  })
  return {
    input: lines.length ? `${lines.join('\n')}\n` : '',
    read(output) {
      // One line out per line in: an object id, or "<name> missing" / "<name> ambiguous".
      const ids = output.split('\n').map((l) => (OBJECT_ID.test(l) ? l : undefined))
      return asked.map((a) => {
        if (!a || ids[a.at] === undefined) return undefined
        return a.paths.filter((_, i) => ids[a.at + 1 + 2 * i] !== ids[a.at + 2 + 2 * i])
      })
    },
  }
}
