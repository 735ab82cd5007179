import { expect, test } from 'vitest'
import { compareCodeUnits, lowerBound, sortedHas } from '../../../src/core/compare.js'

test('on learning-name strings, code-unit order is the order localeCompare gave (the switch reorders nothing)', () => {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-'
  let seed = 7
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  const names = Array.from({ length: 2000 }, () =>
    Array.from({ length: 1 + Math.floor(rand() * 12) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join(''),
  )
  names.push('a-b', 'ab', 'a-c', 'a0', 'a-', 'a', 'z9', 'z-9', '0', '-')
  expect([...names].sort(compareCodeUnits)).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en')))
})

test('compareCodeUnits is a total order: equal strings compare 0, and it is antisymmetric', () => {
  expect(compareCodeUnits('vitest-esm', 'vitest-esm')).toBe(0)
  expect(compareCodeUnits('a-b', 'ab')).toBe(-1)
  expect(compareCodeUnits('ab', 'a-b')).toBe(1)
  expect(compareCodeUnits('B', 'a')).toBe(-1) // not the locale's order outside the name alphabet: by code unit
})

test('lowerBound and sortedHas on strings and numbers, at the edges too', () => {
  expect(lowerBound(['b', 'd', 'f'], 'a')).toBe(0)
  expect(lowerBound(['b', 'd', 'f'], 'd')).toBe(1)
  expect(lowerBound(['b', 'd', 'f'], 'e')).toBe(2)
  expect(lowerBound(['b', 'd', 'f'], 'z')).toBe(3)
  expect(lowerBound([], 3)).toBe(0)
  expect([1, 4, 9].map((x) => sortedHas([1, 4, 9], x))).toEqual([true, true, true])
  expect([0, 5, 10].map((x) => sortedHas([1, 4, 9], x))).toEqual([false, false, false])
})
