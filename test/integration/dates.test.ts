import { afterEach, describe, expect, test } from 'vitest'
import { makeRepo } from '../helpers/repo.js'

// The day a command writes (`created`) is the proposer's day, in their time zone (TZ), as `git log` dates the commit.
// In-process with a fixed now: the zone is the process's, set here for one test and put back after.

const zone = process.env['TZ']
afterEach(() => {
  process.env['TZ'] = zone
})

const addInstinct = (now: Date) => {
  const repo = makeRepo()
  return repo
    .cli(
      [
        'add',
        '--name',
        'pnpm-not-npm',
        '--type',
        'instinct',
        '--description',
        'Use pnpm in this repo. Use when installing packages.',
        '--trigger',
        'npm install in a pnpm workspace',
        '--tags',
        'pnpm,npm',
        '--json',
      ],
      { now },
    )
    .then((r) => ({ r, text: repo.read('.learnings/pending/pnpm-not-npm.md') }))
}

describe('created: the local day', () => {
  test.each([
    // 08:00 on 21 November at UTC+14, still the 20th in UTC.
    ['Pacific/Kiritimati', '2026-11-20T18:00:00Z', '2026-11-21'],
    // 20:00 on 19 November at UTC−11, already the 20th in UTC.
    ['Pacific/Pago_Pago', '2026-11-20T07:00:00Z', '2026-11-19'],
    // Evening in the Aleutians on the day daylight saving time ended there (UTC−9 → UTC−10 at 02:00).
    ['America/Adak', '2026-11-02T05:00:00Z', '2026-11-01'],
    ['UTC', '2026-11-20T23:59:59Z', '2026-11-20'],
  ])('add in %s at %s writes created: %s', async (tz, at, day) => {
    process.env['TZ'] = tz
    const { r, text } = await addInstinct(new Date(at))
    expect(r.code, r.stderr).toBe(0)
    expect(text).toContain(`created: "${day}"`)
  })
})
