/** The CLI: route argv to one lazily imported command, print its outcome, map errors to exit codes. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Ctx } from './context.js'
import type { CommandSpec, ParsedArgs } from './spec.js'
import { ExitCode, processCtx } from './context.js'
import { COMMANDS, COMMAND_GROUPS } from './registry.js'

/** The version in the package.json shipped beside dist/ (read when asked, so no command pays for it). */
export function readVersion(): string {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version?: unknown }
  return typeof pkg.version === 'string' ? pkg.version : 'unknown'
}

export function formatUsage(): string {
  const width = Math.max(...COMMAND_GROUPS.map(([g]) => g.length)) + 2
  const groups = COMMAND_GROUPS.map(([group, names]) => `  ${group.padEnd(width)}${names.join(' · ')}`).join('\n')
  return `usage: git learn <command> [options]

Continuous learning for teams that code with AI agents, kept in git.

${groups}

Run \`git learn <command> -h\` or \`git learn help <command>\` for a command's options; \`man git-learn\` for all.
`
}

/**
 * The parsed options when argv holds only long boolean flags the command declares (`--staged`), else undefined. A
 * flag that acts only in some places (`evolve --force`) is left to the parser, which refuses it elsewhere.
 */
export function onlyBooleanFlags(spec: CommandSpec, argv: readonly string[]): ParsedArgs | undefined {
  if ((spec.positionals?.min ?? 0) > 0) return undefined
  const values: ParsedArgs['values'] = {}
  for (const a of argv) {
    const name = /^--([a-z][a-z0-9-]*)$/.exec(a)?.[1]
    const o = name === undefined ? undefined : spec.options[name]
    if (name === undefined || o === undefined || o.type !== 'boolean' || o.multiple || o.only) return undefined
    values[name] = true
  }
  return { values, positionals: [] }
}

/**
 * Whether argv asks for JSON, read before it is parsed (a usage error answers in JSON too): `--json` (also
 * `--json=…`, which the parser then refuses) or check's `--format json`, up to a `--` (after it, words are arguments).
 */
export function wantsJson(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string
    if (a === '--') return false
    if (a === '--json' || a.startsWith('--json=') || a === '--format=json') return true
    if (a === '--format' && argv[i + 1] === 'json') return true
  }
  return false
}

/**
 * Commands that say nothing about a half-done state before they run: doctor reports it itself, the committing
 * commands refuse with it, and check and hook run inside git's own hooks, where git holds index.lock.
 */
const NO_HALF_DONE_NOTE = new Set(['doctor', 'help', 'check', 'hook', 'add', 'approve', 'reject', 'restore', 'import'])

/**
 * Run one invocation; returns the exit code (the bin sets it). `started`: told the command's name and whether it is an
 * agent hook once it is known, before it runs (the process entry handles signals from there).
 */
export async function runCli(
  argv: readonly string[],
  raw: Ctx,
  started?: (name: string, hook: boolean) => Promise<void>,
): Promise<number> {
  // Everything printed passes one escaping (core/escape.ts): hostile text in a learning never reaches the terminal raw.
  const { escapeControl } = await import('../core/escape.js')
  const ctx: Ctx = Object.create(raw, {
    stdout: { value: (t: string) => raw.stdout(escapeControl(t)) },
    stderr: { value: (t: string) => raw.stderr(escapeControl(t, true)) },
  }) as Ctx
  const [name, ...rest] = argv
  if (!name || name === '-h' || name === '--help') {
    ctx.stdout(formatUsage())
    return name ? 0 : 2
  }
  if (name === '--version' || name === '-v') {
    ctx.stdout(`git-learn ${readVersion()}\n`)
    return 0
  }
  const load = COMMANDS[name]
  let json = wantsJson(argv)
  let hook = false
  try {
    if (!load) {
      const { UsageError } = await import('../core/errors.js')
      const near = (await import('../core/suggest.js')).closest(name, Object.keys(COMMANDS))
      throw new UsageError(
        `unknown command "${name}"; ${near ? `did you mean \`git learn ${near}\`? ` : ''}the commands are: ${Object.keys(COMMANDS).join(', ')}`,
      )
    }
    const mod = await load()
    hook = mod.spec.hook === true
    // A hook's plain `check --staged` needs no parser: node:util's parseArgs is loaded only for the rest.
    const args = onlyBooleanFlags(mod.spec, rest) ?? (await import('./parse-args.js')).parseCommandArgs(mod.spec, rest)
    json = args.values['json'] === true || args.values['format'] === 'json'
    if (args.values['help']) {
      ctx.stdout((await import('./spec.js')).formatHelp(mod.spec))
      return 0
    }
    await started?.(name, hook)
    if (!hook && !NO_HALF_DONE_NOTE.has(name)) await (await import('./half-done.js')).noteHalfDone(ctx)
    return await mod.run(args, ctx)
  } catch (err) {
    const { describeError } = await import('./messages/errors.js')
    const d = describeError(err, load ? name : undefined)
    if (hook) {
      // An agent hook prints nothing on failure and exits 0 (DESIGN section 8); the reason goes to learn/hooks.log.
      const { logHookError } = await import('../adapters/state/hooks-log.js')
      logHookError(ctx.cwd, name, new Error(d.message), ctx.now())
      return 0
    }
    ctx.stderr(`git learn ${name}: ${d.message}\n`)
    if (json)
      ctx.stdout(
        `${JSON.stringify({ ok: false, error: { kind: d.kind, code: d.code, message: d.message, ...d.data } })}\n`,
      )
    return d.code
  }
}

/**
 * A command interrupted by SIGINT, SIGTERM or SIGHUP ends with one line on stderr and the signal's own exit, once
 * what it held is cleaned up (adapters/git/interrupt.ts). An agent hook says nothing (DESIGN section 8): it just ends.
 */
async function reportInterrupts(name: string, hook: boolean): Promise<void> {
  if (hook) return
  const { reportInterrupts: report } = await import('../adapters/git/interrupt.js')
  // The line's words load when a signal comes, not on every run (messages/recovery.js is ~8 KB that each command's
  // pack would compile for nothing; the handler is synchronous, hence require).
  report((signal, left) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on a signal only, see above
    const words = require('./messages/recovery.js') as typeof import('./messages/recovery.js')
    const say = { nothing: words.interrupted, unfinished: words.interruptedHalfDone, unknown: words.interruptedAgain }
    return `git learn ${name}: ${say[left](signal)}\n`
  })
}

/** The process entry: the only place that sets process.exitCode. `stdin`: already read by bin's fast road. */
export async function main(argv: readonly string[], stdin?: Buffer): Promise<void> {
  const ctx = processCtx()
  if (stdin) ctx.readStdin = async () => stdin
  process.exitCode = await runCli(argv, ctx, reportInterrupts)
  // Output that never reached its file (a full disk under `> out.json`) is no success, whatever the command did.
  const lost = ctx.outputLost()
  if (lost) {
    const { outputLost } = await import('./messages/errors.js')
    ctx.stderr(`git learn ${argv.find((a) => !a.startsWith('-')) ?? ''}: ${outputLost(lost.code ?? 'EIO')}\n`)
    if (!process.exitCode) process.exitCode = ExitCode.environment
  }
  // End now rather than when the event loop drains: Node would first wait for V8's background compilations, of no
  // use to a process about to end (~10 ms for a search at 10,000 learnings, BENCHMARKS.md). Every command has
  // finished its work (file writes are synchronous, child processes awaited). Output still queued keeps the process:
  // a write to a full pipe (a reader that is behind) is asynchronous, and exiting would cut it; then the process ends
  // as before, when the loop drains.
  if (ctx.written().every((s) => s.writableLength === 0)) process.exit()
}
