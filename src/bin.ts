#!/usr/bin/env node
// Entry: nothing heavy here; main lazy-loads the one command it runs.

const argv = process.argv.slice(2)

/**
 * `git learn observe` runs on every agent tool call, so it takes a shorter road than main: no registry, no
 * node:util parseArgs (observe takes no options; with any argument main runs it as usual), and main's context, whose
 * streams are built only when written (observe prints nothing; a stream costs a few ms to build on a pipe) and whose
 * stdin is read synchronously. It exits 0 whatever
 * happens, as main does for hook commands. False when the modules cannot be loaded: main then reports why.
 */
async function observeFastPath(): Promise<boolean> {
  let modules
  try {
    modules = await Promise.all([import('./cli/commands/observe.js'), import('./cli/context.js')])
  } catch {
    return false
  }
  const [observe, { processCtx }] = modules
  await observe.run({ values: {}, positionals: [] }, processCtx())
  return true
}

/** The commands that read the feed cache: its key's git processes start before their modules load. */
const FEED_COMMANDS = new Set(['search', 'status', 'context', 'list', 'feedback', 'eval'])

async function start(): Promise<void> {
  if (argv.length === 1 && argv[0] === 'observe' && (await observeFastPath())) return
  if (FEED_COMMANDS.has(argv[0] ?? '') && !argv.includes('-h') && !argv.includes('--help')) {
    try {
      ;(await import('./adapters/feed/feed-key.js')).prefetchKeying(process.cwd())
    } catch {
      // The command loads the module again and reports why it cannot.
    }
  }
  const { main } = await import('./cli/main.js')
  await main(argv)
}

void start()
