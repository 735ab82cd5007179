import { expect, test } from 'vitest'
import { compareCodeUnits } from '../../../src/core/compare.js'

test('on learning-name strings, code-unit order is the order localeCompare gave (the switch reorders nothing)', () => {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-'
  let seed = 7
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
  const names = Array.from({ length: 2000 }, () => Array.from({ length: 1 + Math.floor(rand() * 12) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join(''))
  names.push('a-b', 'ab', 'a-c', 'a0', 'a-', 'a', 'z9', 'z-9', '0', '-')
  expect([...names].sort(compareCodeUnits)).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en')))
})

test('compareCodeUnits is a total order: equal strings compare 0, and it is antisymmetric', () => {
  expect(compareCodeUnits('vitest-esm', 'vitest-esm')).toBe(0)
  expect(compareCodeUnits('a-b', 'ab')).toBe(-1)
  expect(compareCodeUnits('ab', 'a-b')).toBe(1)
  expect(compareCodeUnits('B', 'a')).toBe(-1) // not the locale's order outside the name alphabet: by code unit
})
