/** The declarative shape of a command: its usage and a `node:util` parseArgs table that also writes the help. */
import { UsageError } from '../core/errors.js'
import { LEARNING_TYPES } from '../core/learning-schema.js'
import type { Ctx, ExitCode } from './context.js'

export interface OptionSpec {
  type: 'string' | 'boolean'
  short?: string
  multiple?: boolean
  description: string
  /** Shown in help as `--name <value>`. */
  value?: string
  /**
   * An empty value is the option not given (an optional text: `restore x --reason "$WHY"` with WHY empty restores
   * without a reason), rather than a usage error (parse-args.ts).
   */
  emptyIsNone?: boolean
  /**
   * Where it acts, when not everywhere: after one of these subcommands (the first argument), only beside another
   * option, or never beside one. Given anywhere else it is refused (exit 2, parse-args.ts), never taken and ignored.
   */
  only?: { subcommands?: readonly string[]; with?: string; without?: string }
}

export interface CommandSpec {
  name: string
  summary: string
  usage: string
  /** Paragraphs shown after the options in help and in the man page. */
  details?: string
  options: Record<string, OptionSpec>
  positionals?: { min: number; max: number; names: string }
  /**
   * An agent hook (observe, recall, context): it must never block the agent, so every failure, a bad flag
   * included, still exits 0 (the message goes to stderr, which agents show only in verbose modes).
   */
  hook?: boolean
}

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>
  positionals: string[]
}

export interface CommandModule {
  spec: CommandSpec
  run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode>
}

export const HELP_OPTION: OptionSpec = { type: 'boolean', short: 'h', description: 'show this help' }
/** `--json`, its help saying what the object holds. */
export const jsonOption = (description = 'print one JSON object'): OptionSpec => ({ type: 'boolean', description })
/** `--json` of the commands that write or move one learning. */
export const MOVE_JSON_OPTION = jsonOption('print one JSON object: {name, from, to, path, commit}')
/** `--dry-run` of the lifecycle moves. */
export const DRY_RUN_OPTION: OptionSpec = { type: 'boolean', description: 'say what would happen; change nothing' }

/** The help text of a command, made from its spec. */
export function formatHelp(spec: CommandSpec): string {
  const rows = Object.entries({ ...spec.options, help: HELP_OPTION }).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : '    '}--${name}${o.type === 'string' ? ` <${o.value ?? 'value'}>` : ''}`
    return [flag, o.description] as const
  })
  const width = Math.max(...rows.map(([f]) => f.length)) + 2
  const lines = [
    `usage: ${spec.usage}`,
    '',
    spec.summary,
    '',
    'options:',
    ...rows.map(([f, d]) => `  ${f.padEnd(width)}${d}`),
  ]
  if (spec.details) lines.push('', spec.details)
  return `${lines.join('\n')}\n`
}

/** A string option's value, or undefined. */
export function stringOpt(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name]
  return typeof v === 'string' ? v : undefined
}

/** A boolean option's value. */
export function flag(args: ParsedArgs, name: string): boolean {
  return args.values[name] === true
}

/** `--type`: one of the learning types, or a usage error that lists them (the same in every command). */
export function typeOpt(args: ParsedArgs, command: string): string | undefined {
  const type = stringOpt(args, 'type')
  if (type !== undefined && !(LEARNING_TYPES as readonly string[]).includes(type))
    throw new UsageError(`unknown type "${type}"; use one of ${LEARNING_TYPES.join(', ')}`, command)
  return type
}
