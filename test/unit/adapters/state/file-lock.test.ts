/**
 * The lock files of local state (file-lock.ts): a transcript's capture, a session's pending recalls, the observation
 * log's rotation. A lock a killed process left is taken over; a fresh one is never removed by anyone but its holder.
 * Two captures could judge the same dead lock stale: the first took it over and made its own, and the second's
 * take-over met that fresh lock and removed it, so both read the transcript from the same cursor and its records were
 * written twice. And a holder slow enough to have its lock taken over removed its successor's lock on release.
 */
import { readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { acquireLock, removeIfSame } from '../../../../src/adapters/state/file-lock.js'
import { processTag } from '../../../../src/adapters/state/process-tag.js'
import { lockTranscript } from '../../../../src/adapters/state/transcripts.js'
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

const ONCE = { waitMs: 0, staleMs: 30_000 }

function age(path: string, ms: number): void {
  const then = (Date.now() - ms) / 1000
  utimesSync(path, then, then)
}

describe('lock files of local state', () => {
  // A dev container and its host share the work tree (process-tag.ts): a pid written on the other side means nothing
  // here, so its lock is judged by its age alone; one of this side whose process is gone is taken over at once.
  test("another side's lock naming a pid that is not running here waits for its age; this side's is taken over", () => {
    const dir = tempDir('gl-lock-')
    const lock = join(dir, 'x.lock')
    const ours = processTag()
    const theirs = ours === '00000000' ? '00000001' : '00000000'
    writeFileSync(lock, `${deadPid()} 0123456789abcdef ${theirs}`)
    expect(acquireLock(lock, ONCE)).toBeUndefined()
    expect(readFileSync(lock, 'utf8')).toBe(`${deadPid()} 0123456789abcdef ${theirs}`)
    age(lock, 60_000)
    const taken = acquireLock(lock, ONCE)
    expect(taken).toBeDefined()
    expect(readFileSync(lock, 'utf8')).toMatch(new RegExp(`^${process.pid} [0-9a-f]{16} ${ours}$`))
    taken?.release()
    writeFileSync(lock, `${deadPid()} 0123456789abcdef ${ours}`)
    expect(acquireLock(lock, ONCE)).toBeDefined()
  })

  test('a lock made a moment ago by a running process is neither taken over nor removed', () => {
    const dir = tempDir('gl-lock-')
    const lock = join(dir, 'x.lock')
    writeFileSync(lock, String(process.pid))
    const ino = statSync(lock).ino
    expect(acquireLock(lock, ONCE)).toBeUndefined()
    expect(readFileSync(lock, 'utf8')).toBe(String(process.pid))
    expect(statSync(lock).ino).toBe(ino)
    expect(readdirSync(dir)).toEqual(['x.lock'])
  })

  test('a lock being written (no pid yet, fresh) is left too', () => {
    const dir = tempDir('gl-lock-')
    const lock = join(dir, 'x.lock')
    writeFileSync(lock, '')
    expect(acquireLock(lock, ONCE)).toBeUndefined()
    expect(readdirSync(dir)).toEqual(['x.lock'])
  })

  test('a lock whose process is gone, or too old, is taken over, and released leaves nothing', () => {
    const dir = tempDir('gl-lock-')
    const gone = join(dir, 'gone.lock')
    writeFileSync(gone, String(deadPid()))
    const old = join(dir, 'old.lock')
    writeFileSync(old, String(process.pid))
    age(old, 60_000)
    for (const lock of [gone, old]) {
      const mine = acquireLock(lock, ONCE)
      expect(mine).toBeDefined()
      expect(readFileSync(lock, 'utf8')).toMatch(new RegExp(`^${process.pid} [0-9a-f]{16} ${processTag()}$`))
      mine?.release()
    }
    expect(readdirSync(dir)).toEqual([])
  })

  test('a take-over that finds another lock than the one it judged stale puts that one back', () => {
    const dir = tempDir('gl-lock-')
    const lock = join(dir, 'x.lock')
    writeFileSync(lock, String(process.pid))
    const st = statSync(lock)
    removeIfSame(lock, { ino: st.ino, text: 'another holder' })
    expect(statSync(lock).ino).toBe(st.ino)
    expect(readdirSync(dir)).toEqual(['x.lock'])
  })

  test("a holder whose lock was taken over as stale leaves its successor's lock when it releases", () => {
    const stateDir = tempDir('gl-lock-state-')
    const first = lockTranscript(stateDir, '/t/session.jsonl')
    expect(first).toBeDefined()
    const locks = () => readdirSync(join(stateDir, 'transcripts')).filter((f) => f.endsWith('.lock'))
    const [name] = locks()
    const path = join(stateDir, 'transcripts', name as string)
    age(path, 60_000) // the first holder hung past the stale age
    const second = lockTranscript(stateDir, '/t/session.jsonl')
    expect(second).toBeDefined()
    const successor = statSync(path).ino
    first?.release()
    expect(locks()).toEqual([name])
    expect(statSync(path).ino).toBe(successor)
    second?.release()
    expect(locks()).toEqual([])
  })
})
