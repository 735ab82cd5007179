import { describe, expect, test } from 'vitest'
import { isoTime } from '../../../src/core/iso-time.js'

describe('isoTime', () => {
  test.each([
    ['a date, read as UTC midnight', '2026-11-20', Date.UTC(2026, 10, 20)],
    ['a date-time with Z', '2026-11-20T10:15:00Z', Date.UTC(2026, 10, 20, 10, 15)],
    ['a date-time with milliseconds', '2026-11-20T10:15:00.250Z', Date.UTC(2026, 10, 20, 10, 15, 0, 250)],
    ['a date-time with an offset', '2026-11-20T10:15:00+02:00', Date.UTC(2026, 10, 20, 8, 15)],
  ])('%s', (_label, text, ms) => {
    expect(isoTime(text)).toBe(ms)
    expect(isoTime(text)).toBe(ms) // remembered: the same answer the second time
  })

  test.each(['', 'not a date', '2026-13-45', 'yesterday'])('%j is not a time (NaN), every time', (text) => {
    expect(isoTime(text)).toBeNaN()
    expect(isoTime(text)).toBeNaN()
  })

  test('past the remembered texts, answers are still computed', () => {
    for (let d = 0; d < 5000; d++) {
      const text = new Date(Date.UTC(2020, 0, 1) + d * 86_400_000).toISOString().slice(0, 10)
      expect(isoTime(text)).toBe(Date.UTC(2020, 0, 1) + d * 86_400_000)
    }
  })
})
