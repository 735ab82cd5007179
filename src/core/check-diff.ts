/** Parsing `git diff --raw -z -M --no-abbrev` output into changes: light enough for the pre-commit fast path. */

export type ChangeStatus = 'A' | 'M' | 'D' | 'R' | 'C' | 'T' | 'U' | 'X'

export interface DiffEntry {
  status: ChangeStatus
  /** The path after the change (for a deletion, the deleted path). */
  path: string
  /** The path before a rename or copy. */
  oldPath?: string
  oldMode: string
  newMode: string
  /** The blob of the new side (all zeros for a deletion). */
  newSha: string
  oldSha: string
}

export const SYMLINK_MODE = '120000'

/**
 * Sample (NUL shown as \0):
 * ":000000 100644 0000000000000000000000000000000000000000 3b18e512dba79e4c8300dd08aeb37f8e728b8dad A\0.learnings/pending/x.md\0"
 * ":100644 100644 3b18…dad 3b18…dad R100\0.learnings/pending/x.md\0.learnings/active/x.md\0"
 */
export function parseRawDiff(out: string): DiffEntry[] {
  const parts = out.split('\0')
  const entries: DiffEntry[] = []
  for (let i = 0; i < parts.length; i++) {
    const head = parts[i] as string
    if (!head.startsWith(':')) continue
    const [oldMode = '', newMode = '', oldSha = '', newSha = '', code = ''] = head.slice(1).split(' ')
    const status = (code[0] ?? 'X') as ChangeStatus
    if (status === 'R' || status === 'C') {
      const oldPath = parts[++i] ?? ''
      const path = parts[++i] ?? ''
      entries.push({ status, path, oldPath, oldMode, newMode, oldSha, newSha })
    } else {
      const path = parts[++i] ?? ''
      entries.push({ status, path, oldMode, newMode, oldSha, newSha })
    }
  }
  return entries
}

/** Every path a change touches (both sides of a rename). */
export function changedPaths(entries: readonly DiffEntry[]): string[] {
  return entries.flatMap((e) => (e.oldPath ? [e.oldPath, e.path] : [e.path]))
}
