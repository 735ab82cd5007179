import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { makeRepo } from '../helpers/repo.js'
import { VITEST_FAILURE, seedStore } from '../helpers/feed-store.js'

describe('recall reads its own cache file', () => {
  test('a recall file damaged in place (same size) is rebuilt, and the answer stays the same', async () => {
    const repo = makeRepo()
    seedStore(repo)
    const recall = async () =>
      (
        await repo.cli(['recall', '--json'], {
          stdin: JSON.stringify({ cwd: repo.root, hook_event_name: 'PostToolUseFailure', error: VITEST_FAILURE }),
        })
      ).json()
    const good = await recall()
    expect(good.recalled.map((r: { name: string }) => r.name)).toContain('vitest-esm-mock-hoisting')
    const dir = join(repo.root, '.git', 'learn', 'cache')
    const file = readdirSync(dir).find((f) => /^recall-[0-9a-f]{20}\.bin$/.test(f))
    expect(file).toBeDefined()
    const bytes = readFileSync(join(dir, file!))
    // Every posting (the file's last section) points past the entries: the ranking finds the damage as it reads.
    const header = JSON.parse(bytes.subarray(0, bytes.indexOf(10)).toString('utf8'))
    const postingsBytes = header.sizes[header.sizes.length - 1] as number
    for (let at = bytes.length - postingsBytes; at < bytes.length; at += 4) bytes.writeUInt32LE(0xfffffff0, at)
    writeFileSync(join(dir, file!), bytes)
    expect(await recall()).toEqual(good)
    expect(readdirSync(join(repo.root, '.git', 'learn')).filter((f) => f === 'hooks.log')).toEqual([])
  })
  test('ranked from the last key while git works, but never served once the key has moved (an edit in place)', async () => {
    const repo = makeRepo()
    seedStore(repo)
    const recall = async () =>
      (
        await repo.cli(['recall', '--json'], {
          stdin: JSON.stringify({ cwd: repo.root, hook_event_name: 'PostToolUseFailure', error: VITEST_FAILURE }),
        })
      ).json() as Promise<{ recalled: { name: string; description: string }[] }>
    const before = (await recall()).recalled.find((r) => r.name === 'vitest-esm-mock-hoisting')
    expect(before?.description).toMatch(/^Fix "Cannot access/)
    expect(await recall()).toEqual(await recall())
    const path = '.learnings/active/vitest-esm-mock-hoisting.md'
    const text = repo.read(path)
    expect(text).toContain('Use when a vi.mock')
    repo.write(path, text.replace('Use when a vi.mock', 'Edited. Use when a vi.mock'))
    const after = (await recall()).recalled.find((r) => r.name === 'vitest-esm-mock-hoisting')
    expect(after?.description).toContain('Edited. Use when a vi.mock')
  })
})
