/**
 * Taking over a transcript lock that a killed capture left. Two captures can judge the same dead lock stale; the
 * first takes it over and makes its own, and the second's take-over then met that fresh lock: it was moved aside and
 * removed, both captures read the transcript from the same cursor and its records were written twice. A take-over
 * looks again at what it moved aside and puts back a lock that is not stale.
 */
import { existsSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { takeOverStaleLock } from '../../../../src/adapters/state/transcripts.js'
import { tempDir } from '../../../helpers/repo.js'

/** A process id that is not running (the largest pid Linux hands out, checked). */
function deadPid(): number {
  for (let pid = 4194304; pid > 4194000; pid--) {
    try {
      process.kill(pid, 0)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') return pid
    }
  }
  throw new Error('no free pid found')
}

describe('taking over a stale transcript lock', () => {
  test('a lock made a moment ago by a running capture is put back, not removed', () => {
    const dir = tempDir('gl-tlock-')
    const lock = join(dir, 'x.lock')
    writeFileSync(lock, String(process.pid))
    takeOverStaleLock(lock)
    expect(readFileSync(lock, 'utf8')).toBe(String(process.pid))
    expect(readdirSync(dir)).toEqual(['x.lock'])
  })

  test('a lock being written (no pid yet, fresh) is put back too', () => {
    const dir = tempDir('gl-tlock-')
    const lock = join(dir, 'x.lock')
    writeFileSync(lock, '')
    takeOverStaleLock(lock)
    expect(existsSync(lock)).toBe(true)
    expect(readdirSync(dir)).toEqual(['x.lock'])
  })

  test('a lock whose process is gone, or too old, is removed', () => {
    const dir = tempDir('gl-tlock-')
    const gone = join(dir, 'gone.lock')
    writeFileSync(gone, String(deadPid()))
    takeOverStaleLock(gone)
    const old = join(dir, 'old.lock')
    writeFileSync(old, String(process.pid))
    const then = (Date.now() - 60_000) / 1000
    utimesSync(old, then, then)
    takeOverStaleLock(old)
    expect(readdirSync(dir)).toEqual([])
  })
})
