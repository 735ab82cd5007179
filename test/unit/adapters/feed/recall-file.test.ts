import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { SECTIONS, openRecallFile, writeRecallFile } from '../../../../src/adapters/feed/recall-file.js'
import type { RecallReader } from '../../../../src/adapters/feed/recall-file.js'
import { buildRecallIndex, entryRecallTerms, invertRecall, rankRecall } from '../../../../src/core/recall-rank.js'
import { buildQueryTerms } from '../../../../src/core/terms.js'

const KEY = '0123456789abcdef0123'

/** Catalog entries as buildRecallIndex reads them: two tiers, one learning with two triggers, one not recallable. */
const CATALOG = [
  {
    name: 'pg-refused',
    state: 'active',
    type: 'error-solution',
    weight: 1,
    triggers: ['ECONNREFUSED 127.0.0.1:5432 connect', 'psql: could not connect to server'],
  },
  { name: 'redis-refused', state: 'active', type: 'error-solution', weight: 0.5, triggers: ['redis ECONNREFUSED'] },
  { name: 'esm-require', state: 'active', type: 'error-solution', weight: 1, triggers: ['ERR_REQUIRE_ESM in jest'] },
  { name: 'a-pattern', state: 'active', type: 'pattern', weight: 1, triggers: ['prefer small commits'] },
  { name: 'pending-one', state: 'pending', type: 'error-solution', weight: 1, triggers: ['ENOSPC'] },
]

let dirs: string[] = []
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
  dirs = []
})

/** A written recall file and a catalog file of `catalogBytes` bytes beside it. */
function written(catalogBytes = 100) {
  const dir = mkdtempSync(join(tmpdir(), 'gl-recall-file-'))
  dirs.push(dir)
  const { index, ids } = buildRecallIndex(CATALOG)
  const postings = invertRecall(index)
  const rows = ids.map((id, i) => [id * 10, id * 10 + 5 + i, i, 64] as const)
  const file = join(dir, `recall-${KEY}.bin`)
  const catalog = join(dir, `catalog-${KEY}.deflate`)
  writeFileSync(catalog, 'x'.repeat(catalogBytes))
  writeRecallFile(file, KEY, postings, rows, catalogBytes)
  return { file, catalog, postings, rows }
}

describe('buildRecallIndex with terms computed beside the entries (the parse worker)', () => {
  test('the same index whether the terms come with the entries, in part, or not at all', () => {
    const here = buildRecallIndex(CATALOG)
    expect(here.index.names).toEqual(['pg-refused', 'pg-refused', 'redis-refused', 'esm-require'])
    const known = CATALOG.map((e) => structuredClone(entryRecallTerms(e)))
    expect(known.map((k) => !!k)).toEqual([true, true, true, false, false])
    expect(buildRecallIndex(CATALOG, (id) => known[id])).toEqual(here)
    expect(buildRecallIndex(CATALOG, (id) => (id % 2 ? known[id] : undefined))).toEqual(here)
  })
})

describe('recall-<key>.bin', () => {
  test('reads back the inverted index and the catalog rows it was written with', () => {
    const { file, catalog, postings, rows } = written()
    const reader = openRecallFile(file, catalog, KEY)
    expect(reader).toBeDefined()
    const index = reader!.index()
    expect([...index.names]).toEqual(postings.names)
    expect(index.weights).toEqual(postings.weights)
    expect(index.totals).toEqual(postings.totals)
    expect(index.terms).toEqual(postings.terms)
    expect(index.postings.length).toBe(postings.postings.length)
    expect([...index.postings]).toEqual(postings.postings)
    rows.forEach(([start, end, line, n], i) => expect(reader!.row(i)).toEqual({ start, end, line, rows: n }))
    expect(reader!.row(rows.length)).toBeUndefined()
    reader!.close()
  })

  test('ranks a failure exactly as the index it was written from', () => {
    const { file, catalog, postings } = written()
    let picked = 0
    for (const failure of [
      'Error: connect ECONNREFUSED 127.0.0.1:5432',
      'redis ECONNREFUSED on connect',
      'Error [ERR_REQUIRE_ESM]: require() of ES Module in jest',
      'nothing to see here',
    ]) {
      const terms = new Set(buildQueryTerms(failure))
      const reader = openRecallFile(file, catalog, KEY)!
      const ranked = rankRecall(reader.index(), terms)
      expect(ranked).toEqual(rankRecall(postings, terms))
      picked += ranked.length ? 1 : 0
      reader.close()
    }
    expect(picked).toBeGreaterThan(0)
  })

  test('a torn file, another key, another format or a changed catalog is a miss', () => {
    const { file, catalog } = written()
    const whole = readFileSync(file)
    expect(openRecallFile(file, catalog, 'ffffffffffffffffffff')).toBeUndefined()
    for (const cut of [0, 10, whole.indexOf(10) + 1, Math.floor(whole.length / 2), whole.length - 1]) {
      writeFileSync(file, whole.subarray(0, cut))
      expect(openRecallFile(file, catalog, KEY)).toBeUndefined()
    }
    writeFileSync(file, Buffer.concat([whole, Buffer.from('x')]))
    expect(openRecallFile(file, catalog, KEY)).toBeUndefined()
    writeFileSync(file, whole.toString('latin1').replace(/"format":\d+/, '"format":1'), 'latin1')
    expect(openRecallFile(file, catalog, KEY)).toBeUndefined()
    writeFileSync(file, '{"format":2,"key":"x","docs":"nope","rows":[1],"problems":[],"tiers":[]}')
    expect(openRecallFile(file, catalog, KEY)).toBeUndefined()
    writeFileSync(file, whole)
    writeFileSync(catalog, 'y')
    expect(openRecallFile(file, catalog, KEY)).toBeUndefined()
    expect(openRecallFile(join(file, 'missing'), catalog, KEY)).toBeUndefined()
  })

  test('a posting or a name damaged in place throws when it is read (the reader then rebuilds), never a wrong answer', () => {
    const { file, catalog, postings } = written()
    const whole = readFileSync(file)
    const eol = whole.indexOf(10)
    const { sizes } = JSON.parse(whole.subarray(0, eol).toString('utf8')) as { sizes: number[] }
    // Where each section ends, in the order the file holds them.
    const ends: Record<string, number> = {}
    let at = eol + 1
    SECTIONS.forEach((s, i) => (ends[s] = at += sizes[i] as number))
    const damaged = (section: string, value: number) => {
      const copy = Buffer.from(whole)
      copy.writeUInt32LE(value, (ends[section] as number) - 4)
      writeFileSync(file, copy)
      return openRecallFile(file, catalog, KEY)!
    }
    const past = postings.names.length + 7
    for (const [section, read, message] of [
      ['postings', (r: RecallReader) => [...r.index().postings], /names no entry/],
      ['nameEnds', (r: RecallReader) => [...r.index().names], /outside the names/],
    ] as const) {
      const reader = damaged(section, section === 'nameEnds' ? 1 << 30 : past)
      expect(() => read(reader)).toThrow(message)
      reader.close()
    }
  })
})
