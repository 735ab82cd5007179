import { describe, expect, test } from 'vitest'
import { onlyBooleanFlags } from '../../../src/cli/main.js'
import { parseCommandArgs } from '../../../src/cli/parse-args.js'
import { spec as check } from '../../../src/cli/commands/check.js'
import { spec as show } from '../../../src/cli/commands/show.js'
import { spec as render } from '../../../src/cli/commands/render.js'
import { spec as restoreSpec } from '../../../src/cli/commands/restore.js'
import { spec as rejectSpec } from '../../../src/cli/commands/reject.js'
import { spec as feedbackSpec } from '../../../src/cli/commands/feedback.js'
import { UsageError } from '../../../src/core/errors.js'

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

// `--base "$UNSET"` in a CI script: "" used to be read as a value (the work tree for --out, the default target for
// --target, a ref that names nothing for --base), and the failure, if any, was far from the empty option.
describe('parseCommandArgs: an empty value is a missing one', () => {
  test.each([
    [check, ['--base', '']],
    [check, ['--base=']],
    [render, ['--target', 'claude', '--target', '']],
  ])('%#: a usage error that names the option', (spec, argv) => {
    expect(() => parseCommandArgs(spec, argv)).toThrow(UsageError)
    expect(() => parseCommandArgs(spec, argv)).toThrow(/^--(base|target) needs a value, and it was given an empty one$/)
  })

  // `restore x --reason "$WHY"` restored without a reason before empty values were refused; reject and prune, which
  // require one, say so in their own words.
  test('an optional text left empty is the option not given', () => {
    expect(parseCommandArgs(restoreSpec, ['x', '--reason', '']).values).not.toHaveProperty('reason')
    expect(parseCommandArgs(feedbackSpec, ['x', '--helpful', '--note=']).values).not.toHaveProperty('note')
    expect(() => parseCommandArgs(rejectSpec, ['x', '--reason', ''])).not.toThrow()
  })

  test('an empty positional is left to the command', () =>
    expect(parseCommandArgs(show, ['']).positionals).toEqual(['']))
})
