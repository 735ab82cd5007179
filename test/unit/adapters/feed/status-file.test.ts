import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deflateRawSync } from 'node:zlib'
import { afterEach, describe, expect, test } from 'vitest'
import { files, readSized } from '../../../../src/adapters/feed/cache-files.js'
import {
  packLineLengths,
  readLineLengths,
  readStatusFile,
  statusFile,
} from '../../../../src/adapters/feed/status-file.js'
import { formatDirective, formatIndexLine } from '../../../../src/core/context.js'
import type { CatalogEntry } from '../../../../src/core/search.js'

const KEY = 'k'.repeat(20)

function catalog(n: number): CatalogEntry[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `note-${i}`,
    tier: i % 7 ? 'project' : 'org',
    weight: 1,
    state: i % 5 ? 'active' : 'pending',
    type: i % 3 ? 'error-solution' : 'pattern',
    domain: i % 3 ? 'db' : null,
    tags: i % 4 ? [`t${i % 5}`, 'shared'] : [],
    description: `Fix failure ${i}.${' More words.'.repeat(i % 9)}`,
    trigger: i % 2 ? `failure ${i}` : null,
    triggers: i % 2 ? [`failure ${i}`] : [],
    confidence: i % 2 ? 0.8 : null,
    created: i % 3 ? '2026-11-01' : null,
    evidencePaths: i % 11 ? [] : ['src/db.ts'],
    evidenceCommit: null,
    supersedes: [],
    fix: 'x'.repeat(i * 7),
    path: `.learnings/active/note-${i}.md`,
  }))
}

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
function written(value: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'gl-status-file-'))
  dirs.push(dir)
  writeFileSync(files(dir, KEY).status, deflateRawSync(JSON.stringify(value)))
  return dir
}

describe('status-<key>.json.deflate', () => {
  test('reads back every column, tags and tables included', () => {
    const entries = catalog(40)
    const got = readStatusFile(written(statusFile(KEY, entries, [])), KEY)
    expect(got?.entries).toEqual(
      entries.map((e) => ({
        name: e.name,
        tier: e.tier,
        state: e.state,
        domain: e.domain,
        confidence: e.confidence,
        created: e.created,
        supersedes: e.supersedes,
        description: e.state === 'pending' ? e.description : '',
        evidenceCommit: e.evidenceCommit,
        evidencePaths: e.evidencePaths,
        tags: e.tags,
      })),
    )
  })

  // A position must name an entry of its table: "__proto__" made a state of Array.prototype (the learning vanished from
  // the context), "length" a number of tags.
  test.each([
    ['state', '__proto__'],
    ['tier', 'length'],
    ['domain', 'constructor'],
    ['created', 1.5],
    ['tags', 'map'],
    ['tags', -1],
    ['tier', 99],
  ])('a %s position of %s is a miss', (column, pos) => {
    const f = statusFile(KEY, catalog(10), []) as unknown as Record<string, unknown[]>
    const bad = { ...f, [column]: (f[column] as unknown[]).map((v, i) => (i === 3 ? pos : v)) }
    expect(readStatusFile(written(bad), KEY)).toBeUndefined()
  })

  test.each([
    ['tiers', [5]],
    ['name', Array.from({ length: 10 }, (_, i) => (i === 2 ? 7 : `n-${i}`))],
    ['evidence', { 0: [null, [1]] }],
    ['supersedes', { 0: 'x' }],
    ['dates', [3]],
  ])('a %s of the wrong type is a miss', (field, value) => {
    const f = statusFile(KEY, catalog(10), []) as unknown as Record<string, unknown>
    expect(readStatusFile(written({ ...f, [field]: value }), KEY)).toBeUndefined()
  })
})

describe('lines-<key>.bin', () => {
  test("holds each active learning's directive and index-line lengths, and reads them back", () => {
    const entries = catalog(30)
    const dir = written({})
    const path = files(dir, KEY).lines
    writeFileSync(path, packLineLengths(entries))
    const lengths = readLineLengths(path, entries.length)
    expect(lengths).toBeDefined()
    entries.forEach((e, i) =>
      expect(lengths!(i)).toEqual(
        e.state === 'active' ? [formatDirective(e).length, formatIndexLine(e).length] : [0, 0],
      ),
    )
    expect(readLineLengths(path, entries.length + 1)).toBeUndefined()
    expect(readLineLengths(join(dir, 'missing.bin'), 0)).toBeUndefined()
  })
})

test('readSized reads a file of exactly its size, and no other', () => {
  const dir = written({})
  const path = join(dir, 'sized.bin')
  writeFileSync(path, Buffer.from([1, 2, 3, 4]))
  expect(readSized(path, 4)).toEqual(Buffer.from([1, 2, 3, 4]))
  expect(readSized(path, 3)).toBeUndefined()
  expect(readSized(path, 5)).toBeUndefined()
  expect(readSized(join(dir, 'missing.bin'), 0)).toBeUndefined()
})

test('readSized reads regular files only: a directory or a FIFO of the right size is not a cache file', () => {
  const dir = written({})
  const sub = join(dir, 'a-directory')
  mkdirSync(sub)
  expect(readSized(sub, statSync(sub).size)).toBeUndefined()
  const fifo = join(dir, 'a-fifo')
  execFileSync('mkfifo', [fifo])
  expect(readSized(fifo, 0)).toBeUndefined()
})
