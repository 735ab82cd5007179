/**
 * Hostile values from learning files, bundles and config, and inputs of unbounded size: nothing reaches git as an
 * option, nothing is written outside where it belongs, and every read ends.
 */
import { describe, expect, test } from 'vitest'
import { learningText, makeRepo } from '../helpers/repo.js'

describe('bounded reads', () => {
  test('add --file /dev/zero stops at the size limit, refused (exit 1)', async () => {
    const repo = makeRepo()
    const started = Date.now()
    const r = await repo.cli(['add', '--file', '/dev/zero'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/\/dev\/zero" is more than 1048576 bytes; the limit is 1048576 \(1 MB\)/)
    expect(Date.now() - started).toBeLessThan(20_000)
  })

  test('add --body-file larger than 1 MB is refused with the size', async () => {
    const repo = makeRepo()
    repo.write('big.md', 'x'.repeat(1024 * 1024 + 10))
    const r = await repo.cli([
      'add',
      '--name',
      'big-body',
      '--type',
      'error-solution',
      '--description',
      'Fix the big one. Use when it is big.',
      '--body-file',
      'big.md',
    ])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/the body file "big\.md" is 1048586 bytes; the limit is 1048576/)
  })

  test('eval --set /dev/zero stops at the size limit', async () => {
    const repo = makeRepo()
    const r = await repo.cli(['eval', '--set', '/dev/zero'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/the queries file "\/dev\/zero" is more than 4194304 bytes/)
  })

  test('hook commit-msg with /dev/zero as the message file stops at the size limit', async () => {
    const repo = makeRepo()
    repo.write('.learnings/pending/a-thing.md', learningText('a-thing'))
    repo.git('add', '-A')
    const r = await repo.cli(['hook', 'commit-msg', '/dev/zero'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/the commit message file "\/dev\/zero" is more than 4194304 bytes/)
  })

  test('import of /dev/zero is refused as not a regular file, without reading it', async () => {
    const repo = makeRepo()
    const r = await repo.cli(['import', '/dev/zero'])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/not a regular file/)
  })
})
