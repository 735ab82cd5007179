/** Command names to lazy imports: `git learn -h` and a hook fast path load only what they run. */
import type { CommandModule } from './spec.js'

export const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  init: () => import('./commands/init.js'),
  add: () => import('./commands/add.js'),
  list: () => import('./commands/list.js'),
  show: () => import('./commands/show.js'),
  approve: () => import('./commands/approve.js'),
  reject: () => import('./commands/reject.js'),
  restore: () => import('./commands/restore.js'),
  log: () => import('./commands/log.js'),
  help: () => import('./commands/help.js'),
}
