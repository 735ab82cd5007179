/**
 * The journal of a transition in flight: `<git-common-dir>/learn/transitions/<pid>-<time>.json`, written after the
 * commit is built and before the branch moves, removed once the user's index and work tree are in line. A journal
 * whose process is gone says exactly what a crash left: the commit never landed (nothing changed), or it landed and
 * the index or work tree of some paths still wait (`git learn doctor --continue` finishes them). A journal names its
 * process by id and by side (process-tag.ts): one written in a dev container is not judged from its host, where its
 * id means nothing. Imports node:fs, node:os and node:path (and the errors of core) only: every command looks for
 * journals before it starts.
 */
import {
  accessSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  renameSync,
} from 'node:fs'
import { join } from 'node:path'
import { FileAccessError } from '../../core/errors.js'
import { LEFT_BEHIND_MS, onThisSide, processTag, scratchOwner } from './process-tag.js'

/** One path of a transition as the commit has it: the blob (and mode) or null when the commit removes it. */
export interface JournalPath {
  path: string
  entry: { mode: string; oid: string } | null
  /** For a move, the path the file comes from in the work tree (renamed rather than written). */
  from?: string
  /** For a replaced file, the blob it had before (the work-tree file is replaced only while it still holds that). */
  was?: string
}

export interface Journal {
  version: 1
  pid: number
  /** The side it was written on (process-tag.ts); absent in an earlier version's journal. */
  tag?: string
  /** When it was written (ISO time), for the message. */
  started: string
  /** The commit's subject ("learn: approve x"). */
  subject: string
  /** The ref moved (refs/heads/main, or HEAD when detached). */
  ref: string
  old: string | null
  commit: string
  paths: JournalPath[]
  /** The git dir of the work tree it ran in (its index and HEAD). */
  gitDir: string
}

export function journalDir(commonDir: string): string {
  return join(commonDir, 'learn', 'transitions')
}

/**
 * Write a journal (this process's id filled in); its file path. Throws FileAccessError (nothing changed) when it
 * cannot be written: a transition without its journal could land a commit that no `doctor --continue` finds.
 */
export function writeJournal(commonDir: string, entry: Omit<Journal, 'pid' | 'tag'>): string {
  const j: Journal = { ...entry, pid: process.pid, tag: processTag() }
  const dir = journalDir(commonDir)
  const file = join(dir, `${scratchOwner()}-${Date.now()}-${Math.random().toString(16).slice(2, 8)}.json`)
  try {
    mkdirSync(dir, { recursive: true })
    writeFileSync(`${file}.tmp`, JSON.stringify(j))
    renameSync(`${file}.tmp`, file)
    return file
  } catch (err) {
    try {
      unlinkSync(`${file}.tmp`)
    } catch {
      // Nothing was written.
    }
    const e = err as NodeJS.ErrnoException
    throw new FileAccessError(e.path ?? dir, e.code ?? 'EIO', 'the transition journal', true)
  }
}

/**
 * The directory a transition writes its files in before linking them into the work tree
 * (`<git-common-dir>/learn/tmp`), so that a kill between writing and linking leaves nothing in the user's tree.
 * Files there are named `<pid>@<tag>.<rest>` (process-tag.ts scratchOwner); those of processes of this side that are
 * gone are removed here (each is a copy of what its transition's commit or journal holds), and another side's once a
 * day old (its process cannot be asked from here: a dev container's, seen from its host). An earlier version's
 * `<pid>.<rest>` is judged by its pid. Undefined when it cannot be made or written (files are then written beside, a
 * temporary index in TMPDIR).
 */
export function scratchDir(commonDir: string): string | undefined {
  const dir = join(commonDir, 'learn', 'tmp')
  try {
    mkdirSync(dir, { recursive: true })
    // One this user cannot write (left by a `sudo git learn`, a shared clone's) is as good as none: files go beside.
    accessSync(dir, constants.W_OK | constants.X_OK)
    const now = Date.now()
    for (const n of readdirSync(dir)) {
      const m = /^(\d+)(?:@([0-9a-f]{8}))?\./.exec(n)
      const pid = Number(m?.[1] ?? 0)
      const gone = onThisSide(m?.[2]) ? pid > 0 && !isProcessAlive(pid) : olderThan(join(dir, n), OTHER_SIDE_MS, now)
      // A folder too (a temporary index's: commit.ts makeTempDir); one that cannot go stays, the rest still do.
      if (gone)
        try {
          rmSync(join(dir, n), { recursive: true, force: true })
        } catch {
          // Removed by the next sweep.
        }
    }
    return dir
  } catch {
    return undefined
  }
}

/** How old another side's scratch file is before it is taken for left behind (its process cannot be asked). */
const OTHER_SIDE_MS = 24 * 3_600_000

function olderThan(file: string, ms: number, now: number): boolean {
  try {
    return now - lstatSync(file).mtimeMs > ms
  } catch {
    return false
  }
}

/** Remove this process's files and folders of the scratch directory (an interrupted transition's: interrupt.ts). */
export function removeOwnScratch(dir: string | undefined): void {
  if (!dir) return
  try {
    for (const n of readdirSync(dir))
      if (n.startsWith(`${scratchOwner()}.`)) rmSync(join(dir, n), { recursive: true, force: true })
  } catch {
    // Gone or unreadable: a later transition's sweep (scratchDir) removes what is left once this process is gone.
  }
}

/** Remove a journal (a missing one is fine). */
export function removeJournal(file: string | undefined): void {
  if (!file) return
  try {
    unlinkSync(file)
  } catch {
    // Already gone, or a read-only directory: a stale journal of a finished transition is recognised as such.
  }
}

/** The journals present, with their files; unreadable ones are skipped (a torn write never renamed into place). */
export function readJournals(commonDir: string): { file: string; journal: Journal }[] {
  let names: string[]
  try {
    names = readdirSync(journalDir(commonDir)).filter((n) => n.endsWith('.json'))
  } catch {
    return []
  }
  const out: { file: string; journal: Journal }[] = []
  for (const n of names.sort()) {
    const file = join(journalDir(commonDir), n)
    try {
      const j = JSON.parse(readFileSync(file, 'utf8')) as Journal
      if (j && j.version === 1 && typeof j.commit === 'string' && Array.isArray(j.paths)) out.push({ file, journal: j })
    } catch {
      // Not ours or damaged: ignored.
    }
  }
  return out
}

/**
 * The journals that cannot be read (zero-filled or cut short by a power loss: written, renamed, never flushed; or of
 * another version's format), of processes that are gone. What they recorded is lost; readJournals skips them.
 */
export function readTornJournals(commonDir: string): string[] {
  let names: string[]
  try {
    names = readdirSync(journalDir(commonDir)).filter((n) => n.endsWith('.json'))
  } catch {
    return []
  }
  const good = new Set(readJournals(commonDir).map((j) => j.file))
  return names
    .sort()
    .map((n) => join(journalDir(commonDir), n))
    .filter((file) => {
      const m = /(\d+)(?:@([0-9a-f]{8}))?-[^/\\]*\.json$/.exec(file)
      const pid = Number(m?.[1] ?? 0)
      return !good.has(file) && !(pid > 0 && isProcessAlive(pid, m?.[2], file))
    })
}

/**
 * Whether a process of this id is alive (another git learn still working); never this one, which is not mid-commit
 * when it asks. `tag`: the side the id was written on (process-tag.ts); another side's process cannot be asked from
 * here, so it is taken as alive while `file` (its journal or lock) is younger than LEFT_BEHIND_MS: what it holds is
 * that side's to finish or clear. Older, that side is taken for gone (a container stopped since): else what it left
 * would wait there for ever, its index lock refusing every git command.
 */
export function isProcessAlive(pid: number, tag?: string, file?: string): boolean {
  if (!onThisSide(tag)) return !(file !== undefined && olderThan(file, LEFT_BEHIND_MS, Date.now()))
  if (pid === process.pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * The lock file of the branch this work tree is on (`<git-common-dir>/refs/heads/<b>.lock`) when it exists: left by a
 * git process killed while it moved the branch, or held by one running. Read from the HEAD file: files only.
 */
export function readBranchLock(gitDir: string, commonDir: string): { ref: string; path: string } | undefined {
  let head: string
  try {
    head = readFileSync(join(gitDir, 'HEAD'), 'utf8')
  } catch {
    return undefined
  }
  // Sample of .git/HEAD on a branch: "ref: refs/heads/main\n" (a commit id when detached).
  const ref = /^ref: (refs\/heads\/\S+)\s*$/.exec(head)?.[1]
  if (!ref) return undefined
  const path = join(commonDir, `${ref}.lock`)
  return existsSync(path) ? { ref, path } : undefined
}

/** Whether anything half done may be here (a left index.lock or branch lock, a journal): file checks only, for every command. */
export function mayBeHalfDone(gitDir: string, commonDir: string): boolean {
  if (existsSync(join(gitDir, 'index.lock'))) return true
  if (readBranchLock(gitDir, commonDir)) return true
  try {
    return readdirSync(journalDir(commonDir)).some((n) => n.endsWith('.json'))
  } catch {
    return false
  }
}
