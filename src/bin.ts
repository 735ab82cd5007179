#!/usr/bin/env node
// Entry: nothing heavy here; main lazy-loads the one command it runs.

const argv = process.argv.slice(2)

/**
 * `git learn observe` runs on every agent tool call (and `capture` once a turn), so they take a shorter road than main: no registry, no
 * node:util parseArgs (observe takes no options; with any argument main runs it as usual), and main's context, whose
 * streams are built only when written (observe prints nothing; a stream costs a few ms to build on a pipe) and whose
 * stdin is read synchronously. It exits 0 whatever
 * happens, as main does for hook commands. False when the modules cannot be loaded: main then reports why.
 */
async function observeFastPath(name: 'observe' | 'capture'): Promise<boolean> {
  let modules
  try {
    modules = await Promise.all([
      name === 'observe' ? import('./cli/commands/observe.js') : import('./cli/commands/capture.js'),
      import('./cli/context.js'),
    ])
  } catch {
    return false
  }
  const [command, { processCtx }] = modules
  try {
    await command.run({ values: {}, positionals: [] }, processCtx())
  } catch {
    // Hooks never fail the agent; capture logs its own failures where it can.
  }
  return true
}

/**
 * `git learn recall` runs after every Bash call (PostToolUse) and every failed tool call. A call that passed has
 * nothing to look up: the payload's raw text says so (src/core/recall-gate.ts) and the process ends before any other
 * module loads. Otherwise, for a failure, the feed key's git processes start (in the hook's own directory, as the
 * command would start them) before main and the command's modules load, and the payload already read goes to main.
 */
async function recallFastPath(): Promise<Buffer | undefined> {
  try {
    const { readAllStdin, MAX_STDIN_BYTES } = await import('./cli/context.js')
    const bytes = await readAllStdin()
    if (bytes.length > MAX_STDIN_BYTES) return bytes
    const text = bytes.toString('utf8')
    const { payloadLooksPassed } = await import('./core/recall-gate.js')
    if (payloadLooksPassed(text)) process.exit(0)
    await usePackOf('recall')
    try {
      const failure = (await import('./core/search-recall.js')).detectToolFailure(JSON.parse(text))
      if (failure?.text.trim()) (await import('./adapters/feed/feed-key.js')).prefetchKeying(process.cwd())
    } catch {
      // Not JSON, or no repository: the command says so as usual.
    }
    return bytes
  } catch {
    return undefined
  }
}

/** The commands that read the feed cache: its key's git processes start before their modules load. */
const FEED_COMMANDS = new Set(['search', 'status', 'context', 'list', 'feedback', 'eval'])

/** The hook paths that have a module pack (src/pack.ts), by their arguments; recall's, once its gate let it pass. */
function packOf(args: readonly string[]): string | undefined {
  const [first] = args
  if (args.length === 1 && (first === 'observe' || first === 'capture')) return 'observe'
  if (args.length === 2 && first === 'check' && args[1] === '--staged') return 'staged'
  if (first === 'search' || first === 'context') return first
  return undefined
}

/** Use a module pack (src/pack.ts); without one, every module is loaded from its own file. */
async function usePackOf(name: string | undefined): Promise<void> {
  if (name)
    try {
      ;(await import('./pack.js')).usePack(name)
    } catch {
      // Every module is then loaded from its own file.
    }
}

async function start(): Promise<void> {
  await usePackOf(packOf(argv))
  if (argv.length === 1 && (argv[0] === 'observe' || argv[0] === 'capture') && (await observeFastPath(argv[0]))) return
  const stdin = argv.length === 1 && argv[0] === 'recall' ? await recallFastPath() : undefined
  if (FEED_COMMANDS.has(argv[0] ?? '') && !argv.includes('-h') && !argv.includes('--help')) {
    try {
      ;(await import('./adapters/feed/feed-key.js')).prefetchKeying(process.cwd())
    } catch {
      // The command loads the module again and reports why it cannot.
    }
  }
  // The pre-commit hook's first git process starts before main and the command's modules load.
  if (argv.length === 2 && argv[0] === 'check' && argv[1] === '--staged') {
    try {
      ;(await import('./adapters/git/index-reader.js')).prefetchStagedChanges(process.cwd())
    } catch {
      // The command loads the module again and reports why it cannot.
    }
  }
  const { main } = await import('./cli/main.js')
  await main(argv, stdin)
}

void start()
