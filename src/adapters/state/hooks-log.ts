/**
 * The hooks' error log: `<common dir>/learn/hooks.log`. A hook never fails the agent's session; it writes here. Kept
 * under 1 MB: the older lines move to `hooks.log.1` (log-file.ts), so a hook that fails at every turn for months (a
 * broken config) does not fill the disk.
 */
import { join } from 'node:path'
import { appendLogLine } from './log-file.js'
import { STATE_FILES } from '../../core/layout.js'
import { redactSecrets } from '../../core/secrets.js'
import { locateRepo } from '../git/fast.js'

/** Append one line about a hook's failure; silent when even that is impossible. */
export function logHookError(cwd: string, hook: string, err: unknown, now: Date): void {
  try {
    const where = locateRepo(cwd)
    if (!where) return
    appendHookLog(join(where.commonDir, 'learn'), hook, err, now)
  } catch {
    // Nothing left to tell: the hook stays silent.
  }
}

/** Append one line (a failure or a warning) to `<stateDir>/hooks.log`, redacted and on one line; never throws. */
export function appendHookLog(stateDir: string, hook: string, err: unknown, now: Date): void {
  try {
    const msg = redactSecrets((err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').slice(0, 2000))
    appendLogLine(stateDir, STATE_FILES.hooksLog, `${now.toISOString()} ${hook}: ${msg}\n`)
  } catch {
    // Nothing left to tell: the hook stays silent.
  }
}
