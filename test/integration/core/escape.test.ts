/** Control characters in what a learning says are escaped in every human-readable output (core/escape.ts). */
import { describe, expect, test } from 'vitest'
import { escapeControl } from '../../../src/core/escape.js'
import { learningText, makeRepo } from '../../helpers/repo.js'

const ESC = '\u001b'

describe('escaping', () => {
  test('escapeControl keeps text, tabs and newlines; escapes C0, DEL, C1, a stray CR and bidi overrides', () => {
    expect(escapeControl('plain\ttext\nnext\r\n')).toBe('plain\ttext\nnext\r\n')
    expect(escapeControl(`a${ESC}]0;pwned\u0007b\u009b31m\u202e\rc\u007f`)).toBe(
      'a\\u001b]0;pwned\\u0007b\\u009b31m\\u202e\\u000dc\\u007f',
    )
    expect(escapeControl('\r[###] 3/10', true)).toBe('\r[###] 3/10')
    expect(JSON.parse(`"${escapeControl('x\u009by')}"`)).toBe('x\u009by')
  })

  test.each([
    ['LRM', '\u200e', '\\u200e'],
    ['RLM', '\u200f', '\\u200f'],
    ['ALM', '\u061c', '\\u061c'],
  ])('escapeControl escapes the bidi mark %s as it does the overrides', (_name, mark, escaped) => {
    expect(escapeControl(`admin${mark}txt.exe`)).toBe(`admin${escaped}txt.exe`)
    expect(JSON.parse(`"${escapeControl(`a${mark}b`)}"`)).toBe(`a${mark}b`)
  })

  test('list, show, log and status print no raw escape sequence from a description, a reason or a body', async () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', 'gates: {min_contexts: 1}\n')
    repo.write(
      '.learnings/active/esc-one.md',
      learningText(
        'esc-one',
        { description: `Fix it ${ESC}[2J${ESC}]0;owned${ESC}\\ now. Use when it breaks.` },
        `## Problem\n${ESC}[31mred${ESC}[0m\n\n## Trigger Conditions\nx\n\n## Solution\ny\n\n## Verification\nz\n`,
      ),
    )
    repo.git('add', '.')
    repo.git('commit', '-qm', 'seed')
    for (const argv of [
      ['list'],
      ['show', 'esc-one'],
      ['status'],
      ['log'],
      ['prune', 'esc-one', '--reason', `gone ${ESC}[2J`],
    ]) {
      const r = await repo.cli(argv)
      expect(r.stdout + r.stderr, argv.join(' ')).not.toContain(ESC)
    }
    expect((await repo.cli(['show', 'esc-one'])).stdout).toContain('\\u001b[31mred')
  })
})
