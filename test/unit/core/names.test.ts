import { expect, test } from 'vitest'
import { explainBadName, slugify } from '../../../src/core/names.js'

test.each(['a', 'vitest-esm-mock-hoisting', 'x1-2y', 'a'.repeat(64)])('valid name %s', (n) => {
  expect(explainBadName(n)).toBeUndefined()
})

test.each([
  ['', /empty/],
  ['../x', /path separator/],
  ['a/b', /path separator/],
  ['a..b', /path separator/],
  ['Upper', /kebab-case/],
  ['a--b', /kebab-case/],
  ['-a', /kebab-case/],
  ['a_b', /kebab-case/],
  ['a'.repeat(65), /65 characters/],
])('invalid name %j', (n, why) => {
  expect(explainBadName(n)).toMatch(why)
})

test('slugify', () => {
  expect(slugify('Fix "vi.mock() is not hoisted" in ESM!')).toBe('fix-vi-mock-is-not-hoisted-in-esm')
  expect(slugify('x'.repeat(70))).toBe('learning')
  expect(slugify('word '.repeat(30)).length).toBeLessThanOrEqual(64)
  expect(slugify('Cannot find module "./café.js"', 30, 'x')).toBe('cannot-find-module-cafe-js')
  expect(slugify('!!!', 20, 'x')).toBe('x')
})
