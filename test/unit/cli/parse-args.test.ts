import { describe, expect, test } from 'vitest'
import { onlyBooleanFlags } from '../../../src/cli/main.js'
import { parseCommandArgs } from '../../../src/cli/parse-args.js'
import { spec as check } from '../../../src/cli/commands/check.js'
import { spec as show } from '../../../src/cli/commands/show.js'

describe('onlyBooleanFlags: the parser-free road for argv of long boolean flags only', () => {
  test.each([[['--staged']], [['--staged', '--json']], [['--json', '--json']], [[]]])(
    '%j parses as node:util parseArgs does',
    (argv) => {
      const quick = onlyBooleanFlags(check, argv)
      expect(quick).toBeDefined()
      const full = parseCommandArgs(check, argv)
      expect({ ...quick?.values }).toEqual({ ...full.values })
      expect(quick?.positionals).toEqual(full.positionals)
    },
  )

  test.each([
    ['a string option', ['--base', 'main']],
    ['--opt=value', ['--format=json']],
    ['a short flag', ['-h']],
    ['--help (added by the parser)', ['--help']],
    ['an unknown flag', ['--bogus']],
    ['a positional', ['--staged', 'x']],
    ['an inherited property name', ['--constructor']],
  ])('declines %s, leaving it to the parser', (_what, argv) => expect(onlyBooleanFlags(check, argv)).toBeUndefined())

  test('declines a command that requires an argument', () => expect(onlyBooleanFlags(show, ['--json'])).toBeUndefined())
})
