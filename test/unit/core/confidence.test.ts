import { describe, expect, test } from 'vitest'
import { DEFAULT_CONFIG } from '../../../src/core/config-schema.js'
import { baseConfidence, effectiveConfidence } from '../../../src/core/confidence.js'
import { EMPTY_USAGE } from '../../../src/core/usage.js'

const cfg = DEFAULT_CONFIG.confidence
const now = new Date('2026-11-20T00:00:00Z')
const u = (o: Partial<typeof EMPTY_USAGE>) => ({ ...EMPTY_USAGE, ...o })

describe('effectiveConfidence', () => {
  test.each([
    ['base only, created today', 0.6, u({}), '2026-11-20', 0.6],
    ['one helpful', 0.6, u({ helpful: 1, lastConfirmed: '2026-11-20T00:00:00Z' }), '2026-01-01', 0.65],
    ['helpful + applied', 0.6, u({ helpful: 1, applied: 1, lastConfirmed: '2026-11-19T00:00:00Z' }), null, 0.7],
    ['one harmful', 0.6, u({ harmful: 1 }), '2026-11-20', 0.5],
    ['3 whole weeks since created, never confirmed', 0.6, u({}), '2026-10-29', 0.54],
    ['6 days is not a week', 0.6, u({}), '2026-11-14', 0.6],
    [
      'decay counts from the last confirmation',
      0.6,
      u({ helpful: 1, lastConfirmed: '2026-11-06T00:00:00Z' }),
      '2025-01-01',
      0.61,
    ],
    ['clamped at 1', 0.98, u({ helpful: 3, lastConfirmed: '2026-11-20T00:00:00Z' }), null, 1],
    ['clamped at 0', 0.1, u({ harmful: 5 }), null, 0],
    ['no created and no confirmation: no decay', 0.5, u({}), null, 0.5],
  ])('%s', (_what, base, usage, created, expected) => {
    expect(effectiveConfidence(base, usage, now, cfg, created)).toBe(expected)
  })
  test.each([
    [0.8, 0.8],
    [undefined, 0.5],
    ['high', 0.5],
    [7, 1],
  ])('base confidence of %s is %s', (v, expected) => expect(baseConfidence(v)).toBe(expected))
})
