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
  search: () => import('./commands/search.js'),
  feedback: () => import('./commands/feedback.js'),
  recall: () => import('./commands/recall.js'),
  context: () => import('./commands/context.js'),
  status: () => import('./commands/status.js'),
  render: () => import('./commands/render.js'),
  'suggest-skill': () => import('./commands/suggest-skill.js'),
  eval: () => import('./commands/eval.js'),
  prune: () => import('./commands/prune.js'),
  evolve: () => import('./commands/evolve.js'),
  export: () => import('./commands/export.js'),
  import: () => import('./commands/import.js'),
  tier: () => import('./commands/tier.js'),
  promote: () => import('./commands/promote.js'),
  observe: () => import('./commands/observe.js'),
  capture: () => import('./commands/capture.js'),
  retro: () => import('./commands/retro.js'),
  check: () => import('./commands/check.js'),
  hook: () => import('./commands/hook.js'),
  doctor: () => import('./commands/doctor.js'),
}

/** How `git learn -h` groups the commands (a test holds it to COMMANDS, so none is left out). */
export const COMMAND_GROUPS: readonly (readonly [string, readonly string[]])[] = [
  ['lifecycle', ['init', 'add', 'approve', 'reject', 'restore', 'list', 'show', 'log', 'doctor']],
  ['guards', ['check', 'hook']],
  ['agents', ['search', 'context', 'recall', 'feedback', 'status', 'render', 'suggest-skill', 'eval']],
  ['observation', ['capture', 'observe', 'retro']],
  ['at scale', ['prune', 'evolve', 'export', 'import', 'tier', 'promote']],
  ['help', ['help']],
]
