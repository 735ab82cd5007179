import { describe, expect, test } from 'vitest'
import { ASCII_SPLIT, SPLIT, processTerm, splitTerms } from '../../../src/core/terms.js'

// splitTerms cuts an all-ASCII text with ASCII_SPLIT and any other with SPLIT: the two must cut the same characters.
describe('splitTerms', () => {
  test('the ASCII class separates exactly the ASCII characters the Unicode class separates', () => {
    for (let c = 0; c < 128; c++) {
      const ch = String.fromCharCode(c)
      expect(ASCII_SPLIT.test(ch), `character ${c}`).toBe(SPLIT.test(ch))
    }
  })

  test('an ASCII text splits as the same text with a non-ASCII character appended', () => {
    const ascii = Array.from({ length: 128 }, (_, c) => `w${c}${String.fromCharCode(c)}x`).join(' ')
    const words = splitTerms(ascii)
    expect(splitTerms(`${ascii} é`)).toEqual([...words, 'é'])
    expect(words).toContain('w95_x')
    expect(words).toContain('w124')
  })

  test('identifiers are kept whole and in parts, joiners trimmed at the ends', () => {
    expect(splitTerms('-ERR_REQUIRE_ESM_ ModuleNotFoundError __init__')).toEqual([
      'ERR_REQUIRE_ESM',
      'REQUIRE',
      'ESM',
      'ModuleNotFoundError',
      'Module',
      'Not',
      'Found',
      'init',
    ])
  })
})

// processTerm remembers its answer per word as written: a second call must give the same term (or none).
describe('processTerm', () => {
  test.each([
    ['Connecting', 'connect'],
    ['connection', 'connect'],
    ['THE', null],
    ['12345', null],
    ['x', null],
    ['ESLint', 'eslint'],
  ])('%s → %s, the second time too', (word, term) => {
    expect(processTerm(word)).toBe(term)
    expect(processTerm(word)).toBe(term)
  })
})
