/**
 * Which evidence paths changed between a learning's `evidence.commit` and HEAD, for every pinned learning at once:
 * the question is one `git cat-file --batch` for the trees that hold the paths (`<commit>^{commit}:<dir>/` and
 * `HEAD:<dir>/`), where `status` and `check` used to run one `git diff` per learning (and status stopped at 200). A
 * path changed when the object id its tree entry names differs: a file edited, added or removed, a directory with
 * anything changed inside (reported as the directory). A mode change alone (chmod) and a submodule's pointer are not
 * seen. A commit this repository does not know (a shallow clone, another repository) or an ambiguous abbreviation
 * leaves its learning undecided: never stale. Paths are literal (no globs).
 *
 * Only trees are read, never a blob: a blobless clone (`--filter=blob:none`) holds every tree, so it answers offline
 * and fetches nothing, where asking git for the object id of `<commit>:<path>` (`cat-file --batch-check`) made it
 * fetch each old blob the clone lacked, one fetch each, only to learn its id. The trailing `/` asks for a directory:
 * a name that is a file, a symlink or a submodule there is "missing", never read.
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
  /** stdin for `git cat-file --batch`: one tree per line; empty when no pin can be asked about. */
  input: string
  /** Per pin, the changed evidence paths, or undefined when its commit is unknown here (or is not a commit id). */
  read(output: Buffer): (string[] | undefined)[]
}

const HEADER = /^([0-9a-f]{40}|[0-9a-f]{64}) (\S+) (\d+)$/

/** A tree's entries: name → object id (hex). */
type Entries = Map<string, string>

/**
 * The entries of a tree object's content (`<mode> <name>\0<id>`, the id `idBytes` long). A submodule (gitlink) is left
 * out: its commit is another repository's, which cat-file never answered for, so its pointer moving is not a change.
 */
function treeEntries(body: Buffer, idBytes: number): Entries {
  const out: Entries = new Map()
  let at = 0
  while (at < body.length) {
    const space = body.indexOf(0x20, at)
    const nul = body.indexOf(0, space)
    if (space < 0 || nul < 0 || nul + 1 + idBytes > body.length) break
    const mode = body.toString('latin1', at, space)
    if (mode !== '160000')
      out.set(body.toString('utf8', space + 1, nul), body.toString('hex', nul + 1, nul + 1 + idBytes))
    at = nul + 1 + idBytes
  }
  return out
}

/** The query for `pins` against `head` (HEAD, or the commit `check --head` checks: a commit id, never user text). */
export function evidenceQuery(pins: readonly EvidencePin[], head = 'HEAD'): EvidenceQuery {
  const names: string[] = []
  const index = new Map<string, number>()
  // Each tree is asked for once, however many pins and paths share it.
  const ask = (rev: string, dir: string): number => {
    const name = dir === '.' ? `${rev}:` : `${rev}:${dir}/`
    let i = index.get(name)
    if (i === undefined) index.set(name, (i = names.push(name) - 1))
    return i
  }
  const asked = pins.map((pin) => {
    // The commit reaches git only as stdin of cat-file (never as an argument), and only when it is hex.
    if (!isCommitId(pin.commit)) return undefined
    // `<id>^{commit}:` resolves a short id among commits only; `<id>:` would also take a tree or blob sharing the
    // prefix and answer "missing" for every path. Its root tree answers whether the commit is here at all.
    const rev = `${pin.commit}^{commit}`
    const root = ask(rev, '.')
    const paths = [...new Set(pin.paths.map(evidencePath).filter((p): p is string => p !== undefined))].map((p) => {
      const dir = posix.dirname(p)
      return { path: p, name: posix.basename(p), then: ask(rev, dir), now: ask(head, dir) }
    })
    return { root, paths }
  })
  return {
    input: names.length ? `${names.join('\n')}\n` : '',
    read(output) {
      // One answer per line in, in order: `<id> <type> <size>\n<content>\n`, or `<name> missing|ambiguous\n`.
      const trees: (Entries | undefined)[] = []
      let at = 0
      for (let i = 0; i < names.length && at < output.length; i++) {
        const nl = output.indexOf(0x0a, at)
        if (nl < 0) break
        const m = HEADER.exec(output.toString('latin1', at, nl))
        if (!m) {
          at = nl + 1
          continue
        }
        const size = Number(m[3])
        if (m[2] === 'tree') trees[i] = treeEntries(output.subarray(nl + 1, nl + 1 + size), (m[1] as string).length / 2)
        at = nl + 1 + size + 1
      }
      return asked.map((a) => {
        if (!a || !trees[a.root]) return undefined
        return a.paths.filter((p) => trees[p.then]?.get(p.name) !== trees[p.now]?.get(p.name)).map((p) => p.path)
      })
    },
  }
}
