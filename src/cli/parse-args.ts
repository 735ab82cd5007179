/** argv against a command's spec, with node:util's parseArgs (kept apart from spec.ts: hooks that skip it skip node:util). */
import { parseArgs } from 'node:util'
import { UsageError } from '../core/errors.js'
import { closest } from '../core/suggest.js'
import type { CommandSpec, ParsedArgs } from './spec.js'

/** Parse argv against a spec; UsageError for unknown options, missing values or a wrong count of arguments. */
export function parseCommandArgs(spec: CommandSpec, argv: readonly string[]): ParsedArgs {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {
    help: { type: 'boolean', short: 'h' },
  }
  for (const [name, o] of Object.entries(spec.options)) {
    options[name] = { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) }
  }
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true })
  } catch (err) {
    const message = String((err as Error).message).replace(/\. To specify a positional.*$/s, '')
    const unknown = /^Unknown option '--([^']+)'/.exec(message)?.[1]
    const near = unknown === undefined ? undefined : closest(unknown, Object.keys(options))
    throw new UsageError(near ? `${message}; did you mean --${near}?` : message, spec.name)
  }
  const values = parsed.values as ParsedArgs['values']
  if (values['help']) return { values, positionals: parsed.positionals }
  // An empty value is a missing one (`--base "$UNSET"`): read as "" it became the work tree (--out, --learnings), the
  // default (--target) or a ref git could not find (--base), each far from the option that was empty.
  // Text that may be left out is left out when empty (a reason, a note): "" says "none", and a required one is then
  // asked for by the command, as when the option is missing.
  for (const [k, o] of Object.entries(spec.options)) if (o.emptyIsNone && values[k] === '') delete values[k]
  const empty = Object.keys(spec.options).find((k) => {
    const v = values[k]
    return v === '' || (Array.isArray(v) && v.includes(''))
  })
  if (empty !== undefined) throw new UsageError(`--${empty} needs a value, and it was given an empty one`, spec.name)
  const p = spec.positionals ?? { min: 0, max: 0, names: '' }
  if (parsed.positionals.length < p.min) throw new UsageError(`missing ${p.names}`, spec.name)
  if (parsed.positionals.length > p.max)
    throw new UsageError(`unexpected argument "${parsed.positionals[p.max] ?? ''}"`, spec.name)
  assertOptionsApply(spec, values, parsed.positionals)
  return { values, positionals: parsed.positionals }
}

/**
 * An option given where it does nothing (its spec's `only`: `tier list --ref x`, `evolve --force` without `--write`)
 * is a usage error: taken and ignored, it let the user believe it had acted.
 */
function assertOptionsApply(spec: CommandSpec, values: ParsedArgs['values'], positionals: readonly string[]): void {
  const code = (words: string) => `\`git learn ${[spec.name, words].filter(Boolean).join(' ')}\``
  for (const [name, o] of Object.entries(spec.options)) {
    if (values[name] === undefined || !o.only) continue
    const { subcommands, with: needs, without } = o.only
    const sub = positionals[0] ?? ''
    if (subcommands && !subcommands.includes(sub)) {
      const where = subcommands.map((s, i) => (i ? `\`${s}\`` : code(s)))
      const list = where.length > 1 ? `${where.slice(0, -1).join(', ')} or ${where.at(-1)}` : where[0]
      throw new UsageError(`--${name} acts only in ${list}, not in ${code(sub)}; leave it out`, spec.name)
    }
    if (needs !== undefined && values[needs] === undefined)
      throw new UsageError(`--${name} acts only with --${needs}; add --${needs} or leave --${name} out`, spec.name)
    if (without !== undefined && values[without] !== undefined)
      throw new UsageError(`--${name} does nothing with --${without}; use one of them`, spec.name)
  }
}
