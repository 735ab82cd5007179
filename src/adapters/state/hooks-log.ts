/** The hooks' error log: `<common dir>/learn/hooks.log`. A hook never fails the agent's session; it writes here. */
import { appendFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { redactSecrets } from '../../core/secrets.js'
import { locateRepo } from '../git/fast.js'

/** Append one line about a hook's failure; silent when even that is impossible. */
export function logHookError(cwd: string, hook: string, err: unknown, now: Date): void {
  try {
    const where = locateRepo(cwd)
    if (!where) return
    const dir = join(where.commonDir, 'learn')
    mkdirSync(dir, { recursive: true })
    const msg = redactSecrets((err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').slice(0, 2000))
    appendFileSync(join(dir, 'hooks.log'), `${now.toISOString()} ${hook}: ${msg}\n`)
  } catch {
    // Nothing left to tell: the hook stays silent.
  }
}
