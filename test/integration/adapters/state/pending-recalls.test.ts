// The pending recalls of one session are read and replaced under the session's lock: a hook that finds another of
// the session's holding it waits, then reads what that one wrote. Deterministic where the 16 concurrent hooks of
// test/e2e/parallel-hooks.test.ts are a race: another process takes the lock, holds it 300 ms between its read and
// its write, and this process's recall, begun meanwhile, must keep both entries.
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { addPendingRecalls, updatePendingRecalls } from '../../../../src/adapters/state/recalls.js'
import { PROJECT_ROOT, tempDir } from '../../../helpers/repo.js'

test("a recall while another of the session's holds the lock waits, and keeps both entries", async () => {
  const stateDir = tempDir('gl-recalls-')
  const recalls = JSON.stringify(join(PROJECT_ROOT, 'dist', 'adapters', 'state', 'recalls.js'))
  const other = spawn(
    process.execPath,
    [
      '-e',
      `require(${recalls}).updatePendingRecalls(${JSON.stringify(stateDir)}, 's1', (pending) => {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300)
        return [...pending, { name: 'from-the-other', session: 's1', tool_use_id: null, ts: '2026-12-07T00:00:00.000Z' }]
      })`,
    ],
    { stdio: 'ignore' },
  )
  const ended = new Promise((resolve) => other.on('exit', resolve))
  // The other holds the lock once its file is there (the lock sits beside the session's file).
  const locked = () => readdirSync(stateDir, { recursive: true }).some((f) => String(f).endsWith('.lock'))
  for (let i = 0; i < 500 && !locked(); i++) await new Promise((r) => setTimeout(r, 5))
  expect(locked()).toBe(true)
  addPendingRecalls(stateDir, 's1', 'tool-1', ['from-this-one'], new Date('2026-12-07T00:00:01Z'))
  await ended
  let names: string[] = []
  updatePendingRecalls(stateDir, 's1', (pending) => ((names = pending.map((p) => p.name)), pending))
  expect(names).toEqual(['from-the-other', 'from-this-one'])
  expect(locked()).toBe(false)
})
