import { readdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { markTierCacheUsed, pruneTierCache, tierCacheStamp } from '../../../../src/adapters/feed/tier-cache.js'
import { tempDir } from '../../../helpers/repo.js'

describe('pruneTierCache', () => {
  const pinned = 'a'.repeat(40)
  const moved = 'b'.repeat(40)
  const other = '0'.repeat(12)

  test("keeps this build's files of pinned commits, others used within a day, and the cache's other files", () => {
    const dir = tempDir('gl-tier-cache-')
    const stamp = tierCacheStamp()
    const names = {
      kept: [
        `tier-items-${pinned}-${stamp}.bin`,
        `tier-index-${pinned}-${stamp}.terms.json`,
        `tier-learnings-${pinned}-${stamp}.json.deflate`,
        `tier-items-${pinned}-${other}.bin`, // another build's, used within a day
        `tier-index-${moved}-${stamp}.terms.json`, // pinned in another worktree, used within a day
        'catalog-0123456789abcdef0123.deflate',
        'last-key',
      ],
      removed: [
        `tier-items-${moved}-${stamp}.bin`, // a commit no longer pinned, unused for two days
        `tier-index-${moved}-${stamp}.postings.bin`,
        `tier-learnings-${pinned}-${'1'.repeat(12)}.json.deflate`, // another build's, unused for two days
        `tier-${pinned}.json`, // the format before builds were named: at once
      ],
    }
    for (const n of [...names.kept, ...names.removed]) writeFileSync(join(dir, n), 'x')
    const old = new Date(Date.now() - 2 * 24 * 3600 * 1000)
    for (const n of names.removed.slice(0, 3)) utimesSync(join(dir, n), old, old)
    pruneTierCache(dir, [pinned])
    expect(readdirSync(dir).sort()).toEqual([...names.kept].sort())
    // Used again (markTierCacheUsed) keeps a file; unused for two days, even a pinned commit's other build goes.
    const items = join(dir, names.kept[3] as string)
    utimesSync(items, old, old)
    markTierCacheUsed([items])
    pruneTierCache(dir, [])
    expect(readdirSync(dir)).toContain(names.kept[3])
    for (const n of names.kept.slice(0, 5)) utimesSync(join(dir, n), old, old)
    pruneTierCache(dir, [])
    expect(readdirSync(dir).sort()).toEqual(['catalog-0123456789abcdef0123.deflate', 'last-key'])
  })

  test('a cache directory that does not exist yet is no error', () => {
    expect(() => pruneTierCache(join(tempDir('gl-tier-cache-'), 'missing'), [pinned])).not.toThrow()
  })
})
