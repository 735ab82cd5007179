// Every road to an agent or a terminal escapes the same characters: whatever random text of control characters, bidi
// controls, ANSI sequences, NUL, lone surrogates, CR/LF mixes and markers goes in, none of them comes out raw.
import { describe, expect, test } from 'vitest'
import { escapeControl } from '../../../src/core/escape.js'
import { renderSafe, renderSafeMarkdown } from '../../../src/core/render-safe.js'
import { propertyRuns, seeded } from '../../helpers/random.js'

const UNSAFE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/
const PARTS = [
  'a',
  ' ',
  '\t',
  '\n',
  '\r',
  '\r\n',
  '\x00',
  '\x07',
  '\x08',
  '\x1b',
  '\x1b[31m',
  '\x1b]0;title\x07',
  '\x85',
  '\x9b',
  '\x7f',
  '\u061c',
  '\u200e',
  '\u202e',
  '\u2066',
  '\u2069',
  '\ud800',
  '\udc00',
  '\ud83d\ude00',
  '\u2028',
  '\ufeff',
  '\u{e0041}',
  '<!--',
  '-->',
  '<!-',
  '-',
  '>',
  '@',
  '@.env',
  '\\',
  '`',
  '```',
  '    ',
  '- ',
  '[',
  ']',
]

function texts(seed: number, n: number): string[] {
  const r = seeded(seed)
  return Array.from({ length: n }, () =>
    Array.from({ length: Math.floor(r.next() * 24) }, () => r.pick(PARTS)).join(''),
  )
}

describe('nothing raw reaches the output (seeded random texts)', () => {
  const all = texts(10, propertyRuns(20_000))

  test('escapeControl: no control or bidi character, no carriage return but before a line feed; JSON stays JSON', () => {
    for (const t of all) {
      const e = escapeControl(t)
      expect(UNSAFE.test(e) || /\r(?!\n)/.test(e), JSON.stringify(t)).toBe(false)
      expect(escapeControl(e)).toBe(e)
      // --json output passes the same escaping: the escapes are JSON's, so the value read back is the value.
      expect(JSON.parse(escapeControl(JSON.stringify({ t }))).t, JSON.stringify(t)).toBe(t)
    }
  })

  test('renderSafe and renderSafeMarkdown: none either, no carriage return at all, no comment delimiter', () => {
    for (const t of all)
      for (const f of [renderSafe, renderSafeMarkdown]) {
        const out = f(t)
        expect(UNSAFE.test(out) || out.includes('\r'), `${f.name} ${JSON.stringify(t)}`).toBe(false)
        expect(out.includes('<!--') || out.includes('-->'), `${f.name} ${JSON.stringify(t)}`).toBe(false)
      }
  })

  test('a carriage return before a CRLF is a stray one: escaped, not left as a line end (found by the above)', () => {
    expect(renderSafe('a\r\r\nb')).toBe('a\\u000d\nb')
    expect(renderSafeMarkdown('a\r\r\nb\r\n')).toBe('a\\u000d\nb\n')
  })
})
