import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deflateRawSync } from 'node:zlib'
import { afterEach, describe, expect, test } from 'vitest'
import {
  BLOCK_ROWS,
  CatalogBlocks,
  blockCount,
  packCatalogBlocks,
  readCatalogBlocks,
  rowsOfBlock,
  unpackBlock,
} from '../../../../src/adapters/feed/catalog-blocks.js'
import type { CatalogEntry } from '../../../../src/core/search.js'

/** `n` entries, every 7th of another tier and every 11th with evidence (rows with and without their `rest`). */
function catalog(n: number): CatalogEntry[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `note-${i}`,
    tier: i % 7 ? 'project' : 'org',
    weight: i % 7 ? 1 : 0.5,
    state: 'active',
    type: 'error-solution',
    domain: i % 3 ? 'db' : null,
    tags: [`t${i % 5}`],
    description: `Fix failure ${i}. Use when the build prints failure ${i}.`,
    trigger: `failure ${i}`,
    triggers: [`failure ${i}`],
    confidence: i % 2 ? 0.8 : null,
    created: '2026-11-20',
    evidencePaths: i % 11 ? [] : ['src/a.ts'],
    evidenceCommit: null,
    supersedes: [],
    fix: `Do step ${i}.`,
    path: `.learnings/active/note-${i}.md`,
  }))
}

let dirs: string[] = []
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
  dirs = []
})

/** The blocks of `entries` written to a file, and the reader's view of where each starts. */
async function written(entries: CatalogEntry[]) {
  const dir = mkdtempSync(join(tmpdir(), 'gl-catalog-blocks-'))
  dirs.push(dir)
  const file = join(dir, 'catalog-0123456789abcdef0123.deflate')
  const { blocks, starts } = await packCatalogBlocks(entries)
  writeFileSync(file, Buffer.concat(blocks))
  return { file, blocks, starts, start: (b: number) => starts[b] as number }
}

describe('catalog-<key>.deflate', () => {
  test('reads back every entry whole and each one alone, across a last block that holds fewer rows', async () => {
    const entries = catalog(2 * BLOCK_ROWS + 5)
    const { file, starts, start } = await written(entries)
    expect(starts.length).toBe(blockCount(entries.length) + 1)
    expect(rowsOfBlock(2, entries.length)).toBe(5)
    expect(readCatalogBlocks(file, entries.length, start)).toEqual(entries)
    const reader = new CatalogBlocks(file, entries.length, start)
    for (const id of [0, BLOCK_ROWS - 1, BLOCK_ROWS, entries.length - 1]) expect(reader.entry(id)).toEqual(entries[id])
    expect(reader.entry(entries.length)).toBeUndefined()
    expect(reader.entry(-1)).toBeUndefined()
    reader.close()
  })

  test('an empty catalog is an empty file', async () => {
    const { file, blocks, start } = await written([])
    expect(blocks).toEqual([])
    expect(readCatalogBlocks(file, 0, start)).toEqual([])
  })

  test('is smaller than the rows it holds', async () => {
    const entries = catalog(4 * BLOCK_ROWS)
    const { starts } = await written(entries)
    const plain = entries.map((e) => JSON.stringify(e)).join(',\n').length
    expect(starts[starts.length - 1]).toBeLessThan(plain / 3)
  })

  test('a torn file, a block of another number of rows, or foreign bytes are a miss or throw, never wrong rows', async () => {
    const entries = catalog(BLOCK_ROWS + 3)
    const { file, blocks, start } = await written(entries)
    // Torn: the file is shorter than its offsets say.
    writeFileSync(file, Buffer.concat(blocks).subarray(0, 10))
    expect(readCatalogBlocks(file, entries.length, start)).toBeUndefined()
    expect(() => new CatalogBlocks(file, entries.length, start).entry(BLOCK_ROWS)).toThrow()
    // A block that holds one row less than its place says.
    const short = deflateRawSync(
      catalog(BLOCK_ROWS - 1)
        .map((e) => JSON.stringify(e))
        .join(',\n'),
    )
    expect(() => unpackBlock(short, BLOCK_ROWS)).toThrow(/another number of rows/)
    // Foreign bytes of the right size.
    writeFileSync(file, Buffer.alloc(Buffer.concat(blocks).length, 0x7b))
    expect(readCatalogBlocks(file, entries.length, start)).toBeUndefined()
    expect(() => new CatalogBlocks(file, entries.length, start).entry(0)).toThrow()
    // Rows of the right shape but not catalog rows.
    expect(() => unpackBlock(deflateRawSync('[1,2],\n[3]'), 2)).toThrow(/does not read back/)
  })
})
