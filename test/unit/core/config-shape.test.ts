// core/config-schema.ts hasConfigShape: what the config cache trusts of an entry it reads back.
import { describe, expect, test } from 'vitest'
import { DEFAULT_CONFIG, hasConfigShape, mergeConfig } from '../../../src/core/config-schema.js'

describe('hasConfigShape', () => {
  test('the defaults and a merged valid config have it', () => {
    expect(hasConfigShape(DEFAULT_CONFIG)).toBe(true)
    const merged = mergeConfig({
      zones: { system: ['docs/agents/**'] },
      secrets: { allow: ['abc:def:1'] },
      tiers: [{ name: 'org', url: '../org', commit: 'a'.repeat(40), weight: 0.5 }],
      context: { max_tokens: 900 },
    })
    expect(hasConfigShape(merged)).toBe(true)
  })

  test.each([
    ['no object', null],
    ['an empty object', {}],
    ['a section missing', { ...DEFAULT_CONFIG, zones: undefined }],
    ['a section of another type', { ...DEFAULT_CONFIG, secrets: [] }],
    ['a list that is no list', { ...DEFAULT_CONFIG, zones: { system: '.claude/**' } }],
    ['a list of numbers', { ...DEFAULT_CONFIG, secrets: { allow: [5] } }],
    ['a number as a string', { ...DEFAULT_CONFIG, context: { max_tokens: '900' } }],
    ['a tier without a url', { ...DEFAULT_CONFIG, tiers: [{ name: 'org' }] }],
    ['a tier that is no object', { ...DEFAULT_CONFIG, tiers: ['org'] }],
  ])('%s has not', (_, value) => {
    expect(hasConfigShape(value)).toBe(false)
  })
})
