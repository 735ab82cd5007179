import { readdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { pruneTierCache, tierCacheStamp } from '../../../../src/adapters/feed/tier-cache.js'
import { tempDir } from '../../../helpers/repo.js'

describe('pruneTierCache', () => {
  const pinned = 'a'.repeat(40)
  const moved = 'b'.repeat(40)
  const other = '0'.repeat(12)

  test("keeps this build's files of pinned commits and other files of the cache; removes the rest", () => {
    const dir = tempDir('gl-tier-cache-')
    const stamp = tierCacheStamp()
    const names = {
      kept: [
        `tier-items-${pinned}-${stamp}.json.deflate`,
        `tier-index-${pinned}-${stamp}.terms.json`,
        `tier-learnings-${pinned}-${stamp}.json.deflate`,
        `tier-items-${pinned}-${other}.json.deflate`, // another build's, less than a day old
        'catalog-0123456789abcdef0123.deflate',
        'last-key',
      ],
      removed: [
        `tier-items-${moved}-${stamp}.json.deflate`, // a commit no longer pinned
        `tier-index-${moved}-${stamp}.postings.bin`,
        `tier-learnings-${pinned}-${'1'.repeat(12)}.json.deflate`, // another build's, two days old
        `tier-${pinned}.json`, // the format before builds were named
      ],
    }
    for (const n of [...names.kept, ...names.removed]) writeFileSync(join(dir, n), 'x')
    const old = new Date(Date.now() - 2 * 24 * 3600 * 1000)
    utimesSync(join(dir, names.removed[2] as string), old, old)
    pruneTierCache(dir, [pinned])
    expect(readdirSync(dir).sort()).toEqual([...names.kept].sort())
    pruneTierCache(dir, [])
    expect(readdirSync(dir).sort()).toEqual(['catalog-0123456789abcdef0123.deflate', 'last-key'])
  })

  test('a cache directory that does not exist yet is no error', () => {
    expect(() => pruneTierCache(join(tempDir('gl-tier-cache-'), 'missing'), [pinned])).not.toThrow()
  })
})
