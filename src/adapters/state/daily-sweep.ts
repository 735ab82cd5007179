/**
 * When to sweep what agent sessions leave in `<git-common-dir>/learn/` (session-sweep.ts): at most once a day.
 * `learn/sweep.stamp`'s mtime is when the last sweep began; the hooks that call this (capture, and recall when it
 * hands a fix out) pay one `stat` otherwise, and the sweep's modules load only when it is due. Kept apart from the
 * sweep so that the recall hook's pack holds only this.
 */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { writeCacheFile } from './cache-file.js'
import { STATE_FILES } from '../../core/layout.js'

/** How often the sweep runs. */
export const SWEEP_EVERY_MS = 24 * 3_600_000

/**
 * Sweep the sessions' files when the last sweep began a day ago or more (or the clock was set back): the sweep's
 * promise then, else undefined at once. Not an async function: a hook awaits only on the day it sweeps (an `await` of
 * nothing cost the recall hook ~2.5 ms, measured). Never throws, and the promise never rejects.
 */
export function sweepSessionFilesDaily(stateDir: string, now: number = Date.now()): Promise<void> | undefined {
  try {
    const stamp = join(stateDir, STATE_FILES.sweepStamp)
    const last = statSync(stamp, { throwIfNoEntry: false })?.mtimeMs
    if (last !== undefined && Math.abs(now - last) < SWEEP_EVERY_MS) return undefined
    // Marked first, so that the hooks of the other sessions running now do not all sweep too (and written through a
    // temporary file: a link planted at the stamp's name is replaced, never written through). Not marked (a
    // read-only git dir): not swept.
    if (!writeCacheFile(stamp, '')) return undefined
    return import('./session-sweep.js').then(
      (m) => void m.sweepSessionFiles(stateDir, now),
      () => undefined, // the sweep only saves disk: the next one tries again
    )
  } catch {
    return undefined
  }
}
