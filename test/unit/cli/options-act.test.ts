// An option a command accepts must act, or be refused where it does not: `tier list --ref x` used to be taken and
// ignored, and the user believed the ref had been used. Both halves are read from the commands themselves (their specs
// and sources), so a new option is held without a list to keep.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { onlyBooleanFlags } from '../../../src/cli/main.js'
import { parseCommandArgs } from '../../../src/cli/parse-args.js'
import { COMMANDS } from '../../../src/cli/registry.js'
import type { CommandSpec, OptionSpec } from '../../../src/cli/spec.js'
import { UsageError } from '../../../src/core/errors.js'

const cliDir = new URL('../../../src/cli/', import.meta.url).pathname

/**
 * The text a command's options are read in: its file, and the modules of src/cli/ it imports (reject and restore are
 * made by move.ts). spec.ts is left out: its helpers are how options are read, not a command reading them.
 */
function commandSource(name: string): string {
  const own = readFileSync(join(cliDir, 'commands', `${name}.ts`), 'utf8')
  const shared = [...own.matchAll(/from '\.\.\/([a-z-]+)\.js'/g)]
    .map((m) => m[1] as string)
    .filter((m) => m !== 'spec')
    .map((m) => readFileSync(join(cliDir, `${m}.ts`), 'utf8'))
  return [own, ...shared].join('\n')
}

/** The options a source reads: flag(args, 'x'), stringOpt(args, 'x'), values['x'], and typeOpt (its --type). */
function optionsRead(source: string): Set<string> {
  const read = new Set<string>()
  for (const m of source.matchAll(/\b(?:flag|stringOpt)\(\s*args,\s*'([^']+)'|\bvalues\[\s*'([^']+)'\s*\]/g))
    read.add((m[1] ?? m[2]) as string)
  if (/\btypeOpt\(\s*args\b/.test(source)) read.add('type')
  return read
}

const specs: [string, CommandSpec][] = await Promise.all(
  Object.entries(COMMANDS).map(async ([name, load]) => [name, (await load()).spec] as [string, CommandSpec]),
)

test.each(specs)('every option of %s is read by it', (name, spec) => {
  const read = optionsRead(commandSource(name))
  expect(Object.keys(spec.options).filter((o) => !read.has(o))).toEqual([])
})

/** The argv of `option` alone, its value if it takes one. */
const given = (name: string, o: OptionSpec) => (o.type === 'string' ? [`--${name}`, 'x'] : [`--${name}`])

const limited = specs.flatMap(([, spec]) =>
  Object.entries(spec.options)
    .filter(([, o]) => o.only)
    .map(([name, o]) => [`${spec.name} --${name}`, spec, name, o] as const),
)

describe('an option that acts only in some places is refused elsewhere (exit 2), never ignored', () => {
  test('some commands have such options', () => expect(limited.length).toBeGreaterThan(0))

  test.each(limited)('%s', (_label, spec, name, o) => {
    const { subcommands, with: needs, without } = o.only ?? {}
    const filler = Array.from({ length: spec.positionals?.min ?? 0 }, () => 'x')
    const refused = (argv: string[]) => {
      expect(() => parseCommandArgs(spec, argv), argv.join(' ')).toThrow(UsageError)
      expect(() => parseCommandArgs(spec, argv)).toThrow(new RegExp(`^--${name} (acts only|does nothing)`))
    }
    const accepted = (argv: string[]) => expect(() => parseCommandArgs(spec, argv), argv.join(' ')).not.toThrow()
    if (subcommands) {
      refused(['elsewhere', ...filler.slice(1), ...given(name, o)])
      for (const sub of subcommands) accepted([sub, ...filler.slice(1), ...given(name, o)])
    }
    const other = (n: string) => given(n, spec.options[n] as OptionSpec)
    if (needs !== undefined) {
      refused([...filler, ...given(name, o)])
      accepted([...filler, ...given(name, o), ...other(needs)])
    }
    if (without !== undefined) {
      refused([...filler, ...given(name, o), ...other(without)])
      accepted([...filler, ...given(name, o)])
    }
    // The parser-free road of long boolean flags (main.ts) leaves it to the parser, which judges where it is.
    if (o.type === 'boolean') expect(onlyBooleanFlags(spec, [`--${name}`])).toBeUndefined()
  })
})

// The help must not offer what the parser refuses: an option's line names where it acts, and the usage line does not
// show it beside an option it is refused with.
test.each(limited)('the help of %s says where it acts', (_label, spec, name, o) => {
  const { subcommands, with: needs, without } = o.only ?? {}
  const text = o.description
  for (const sub of subcommands ?? []) expect(text).toContain(sub)
  if (needs !== undefined) expect(text).toContain(`--${needs}`)
  if (without !== undefined) {
    expect(text).toContain(`--${without}`)
    // Each form of the usage (`·` between them) holds one of the two at most, or both as a choice (`a | b`).
    const [a, b] = [`--${name}`, `--${without}`]
    for (const form of spec.usage.split('·'))
      if (form.includes(a) && form.includes(b)) expect(form, form).toMatch(new RegExp(`${a} \\| ${b}|${b} \\| ${a}`))
  }
})
