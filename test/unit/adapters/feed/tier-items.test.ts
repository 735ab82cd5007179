import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { deflateRawSync } from 'node:zlib'
import { describe, expect, test } from 'vitest'
import { readTierItems, writeTierItems } from '../../../../src/adapters/feed/tier-items.js'
import type { TierItem } from '../../../../src/adapters/feed/tier-items.js'
import type { CatalogEntry } from '../../../../src/core/search.js'
import { tempDir } from '../../../helpers/repo.js'

const COMMIT = 'a'.repeat(40)

function item(i: number): TierItem {
  const entry = {
    name: `fix-${i}`,
    tier: '',
    weight: 1,
    state: 'active',
    type: 'error-solution',
    domain: null,
    tags: ['t'],
    description: `Fix ${i}.`,
    trigger: `Error: ${i}`,
    triggers: [`Error: ${i}`],
    confidence: null,
    created: null,
    evidencePaths: [],
    evidenceCommit: null,
    supersedes: [],
    fix: 'Do it.',
    path: `.learnings/active/fix-${i}.md`,
  } as CatalogEntry
  return { entry, hash: `h${i}`, recall: i % 3 ? [[`term${i}`, 'error']] : [], lines: [i, 2 * i] }
}

describe('tier-items file', () => {
  const items = Array.from({ length: 2345 }, (_v, i) => item(i))
  const warnings = [{ path: '.learnings/active/bad.md', reason: 'type: must be one of …' }]

  test('reads back what was written, in order, across segments', () => {
    const file = join(tempDir('gl-tier-items-'), 'tier-items.bin')
    writeTierItems(file, COMMIT, { items, warnings })
    expect(readTierItems(file, COMMIT)).toEqual({ items, warnings })
    expect(readTierItems(file, 'b'.repeat(40))).toBeUndefined()
  })

  test('a torn, foreign or tampered file reads as a miss, never as an error', () => {
    const dir = tempDir('gl-tier-items-')
    const file = join(dir, 'tier-items.bin')
    writeTierItems(file, COMMIT, { items, warnings })
    const bytes = readFileSync(file)
    const eol = bytes.indexOf(10)
    const head = JSON.parse(bytes.subarray(0, eol).toString('utf8'))
    const cases: [string, Buffer][] = [
      ['torn', bytes.subarray(0, bytes.length - 7)],
      ['no header line', Buffer.from('{"format":1}')],
      ['empty', Buffer.alloc(0)],
      [
        'a count that does not match',
        Buffer.concat([Buffer.from(`${JSON.stringify({ ...head, count: 1 })}\n`), bytes.subarray(eol + 1)]),
      ],
    ]
    cases.push([
      'a warning that is not one',
      Buffer.concat([Buffer.from(`${JSON.stringify({ ...head, warnings: [null] })}\n`), bytes.subarray(eol + 1)]),
    ])
    // A segment holding something that is not an item, with sizes that add up.
    const bad = deflateRawSync(JSON.stringify([{ entry: 'x', hash: 1 }]))
    cases.push([
      'not an item',
      Buffer.concat([Buffer.from(`${JSON.stringify({ ...head, count: 1, segments: [bad.length] })}\n`), bad]),
    ])
    for (const [what, data] of cases) {
      writeFileSync(file, data)
      expect(readTierItems(file, COMMIT), what).toBeUndefined()
    }
    expect(readTierItems(join(dir, 'missing.bin'), COMMIT)).toBeUndefined()
  })

  // An item's line lengths decide what context shows of the tier: anything but two non-negative integers is a miss.
  test.each([
    ['missing', undefined],
    ['three numbers', [1, 2, 3]],
    ['negative', [-1, 2]],
    ['fractional', [1.5, 2]],
    ['text', ['1', '2']],
  ])('an item whose lines are %s reads as a miss', (_what, lines) => {
    const file = join(tempDir('gl-tier-items-'), 'tier-items.bin')
    const bad = items.slice(0, 3).map((it, i) => (i === 1 ? { ...it, lines } : it)) as TierItem[]
    writeTierItems(file, COMMIT, { items: bad, warnings })
    expect(readTierItems(file, COMMIT)).toBeUndefined()
  })
})
