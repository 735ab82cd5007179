/**
 * dedupe.notes_file (NOTES.md by default): its decision and debt tables are compared with a new learning. Only a
 * file inside the repository is read (symbolic links resolved), and at most MAX_NOTES_BYTES of it.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import { readFileBounded } from './read-bounded.js'

/** Largest part of dedupe.notes_file that is read and compared. */
export const MAX_NOTES_BYTES = 4 * 1024 * 1024

export type NotesRead =
  { kind: 'absent' } | { kind: 'outside' } | { kind: 'unreadable' } | { kind: 'read'; text: string; truncated: boolean }

/** The text of the notes file at `notesPath` (relative to the repository root), or why it was not read. */
export function readNotesFile(root: string, notesPath: string): NotesRead {
  const abs = resolve(root, notesPath)
  if (!existsSync(abs)) return { kind: 'absent' }
  let real: string
  try {
    real = realpathSync(abs)
  } catch {
    real = abs
  }
  const inside = (base: string, p: string) => {
    const rel = relative(base, p)
    return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)
  }
  if (!inside(root, abs) || !inside(realpathSync(root), real)) return { kind: 'outside' }
  try {
    const r = readFileBounded(real, MAX_NOTES_BYTES, { regularOnly: true })
    if (!r.regular) return { kind: 'unreadable' }
    return { kind: 'read', text: r.bytes.toString('utf8'), truncated: r.over }
  } catch {
    return { kind: 'unreadable' }
  }
}

/** A file of the work tree as text (the twin a near duplicate is shown against). */
export function readWorkTreeText(root: string, path: string): string {
  return readFileSync(join(root, path), 'utf8')
}
