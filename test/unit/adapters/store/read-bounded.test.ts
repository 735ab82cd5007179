import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { readFileBounded } from '../../../../src/adapters/store/read-bounded.js'
import { tempDir } from '../../../helpers/repo.js'

describe('readFileBounded', () => {
  test('/dev/zero ends after limit + 1 bytes', () => {
    const r = readFileBounded('/dev/zero', 1000)
    expect(r).toMatchObject({ over: true, regular: false, size: undefined })
    expect(r.bytes.length).toBe(1000)
  })

  test('a FIFO fed forever ends too', () => {
    const dir = tempDir('gl-fifo-')
    const fifo = join(dir, 'pipe')
    execFileSync('mkfifo', [fifo])
    // `yes` writes until its reader goes away (SIGPIPE once the read is done and the descriptor closed).
    const writer = spawn('sh', ['-c', `exec yes > '${fifo}'`], { stdio: 'ignore' })
    const r = readFileBounded(fifo, 4096)
    expect(r.over).toBe(true)
    expect(r.bytes.length).toBe(4096)
    writer.kill()
  })

  test('a small file is read whole; a large one reports its size and the first limit bytes', () => {
    const dir = tempDir('gl-read-')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'a'), 'hello')
    expect(readFileBounded(join(dir, 'a'), 5)).toMatchObject({ over: false, size: 5, regular: true })
    writeFileSync(join(dir, 'b'), 'x'.repeat(10))
    const r = readFileBounded(join(dir, 'b'), 4)
    expect(r).toMatchObject({ over: true, size: 10 })
    expect(r.bytes.toString()).toBe('xxxx')
    expect(readFileBounded('/dev/zero', 10, { regularOnly: true })).toMatchObject({ regular: false, over: false })
  })
})
