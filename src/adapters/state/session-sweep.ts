/**
 * The sweep of what agent sessions leave in `<git-common-dir>/learn/`: one small file per session in `transcripts/`
 * (a transcript's read offset: transcripts.ts sweepTranscriptState) and in `recalls/` (a killed session's pending
 * recalls: recalls.ts sweepPendingRecalls), and what a killed process left beside them and in `learn/` itself (a
 * temporary copy before its rename, a lock or a lock moved aside: file-lock.ts, cache-file.ts). Without it a clone used
 * by agents for months keeps a file per session for ever.
 *
 * At most once a day (daily-sweep.ts loads this module then). A file is removed only under the lock its writers
 * take, judged again there, so a hook of a live session (of any worktree: they share the directory) never loses one
 * it is using.
 */
import { readdirSync, statSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { acquireLock } from './file-lock.js'
import { sweepPendingRecalls } from './recalls.js'
import { sweepTranscriptState } from './transcripts.js'

const DAY_MS = 24 * 3_600_000
/**
 * A killed process's leftover (`*.tmp`, `*.aside`, a `*.lock` nobody released) is removed once this old: a live one
 * is seconds old at most (a lock is held for a read and a write).
 */
const LEFTOVER_MS = DAY_MS

/** What one sweep removed, per kind (for tests and the docs' numbers). */
export interface SweepCounts {
  transcripts: number
  recalls: number
  leftovers: number
}

/** Sweep now (see the module comment); never throws. */
export function sweepSessionFiles(stateDir: string, now: number = Date.now()): SweepCounts {
  const counts: SweepCounts = { transcripts: 0, recalls: 0, leftovers: 0 }
  const each = (dir: string, judge?: (file: string) => boolean, kind?: 'transcripts' | 'recalls') => {
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      return // none yet
    }
    for (const name of names) {
      const file = join(dir, name)
      if (judge && kind && /^[0-9a-f]{24}\.json$/.test(name)) {
        if (judge(file)) counts[kind]++
      } else if (sweepLeftover(file, name, now)) counts.leftovers++
    }
  }
  each(join(stateDir, 'transcripts'), (f) => sweepTranscriptState(f, now), 'transcripts')
  each(join(stateDir, 'recalls'), (f) => sweepPendingRecalls(f, now), 'recalls')
  each(stateDir)
  return counts
}

/**
 * Remove `file` when it is a killed process's leftover a day old: a temporary copy (`<file>.<pid>@<tag>.tmp`,
 * cache-file.ts) or a lock moved aside (`….aside`) goes; a lock (`….lock`) is taken over as file-lock.ts does (by its
 * identity, so a lock made meanwhile stays) and released. Anything else is left.
 */
function sweepLeftover(file: string, name: string, now: number): boolean {
  const kind = /\.(tmp|aside|lock)$/.exec(name)?.[1]
  if (!kind) return false
  try {
    const st = statSync(file, { throwIfNoEntry: false })
    if (!st?.isFile() || now - st.mtimeMs < LEFTOVER_MS) return false
    if (kind === 'lock') {
      const lock = acquireLock(file, { waitMs: 0, staleMs: LEFTOVER_MS })
      lock?.release()
      return lock !== undefined
    }
    unlinkSync(file)
    return true
  } catch {
    return false // removed by another process meanwhile, or not ours to remove
  }
}
