import { describe, expect, test } from 'vitest'
import { parseLearning } from '../../../src/core/learning.js'
import { buildSearchDoc, indexOptions, processTerm, splitTerms } from '../../../src/core/search.js'
import type { SearchDoc } from '../../../src/core/search.js'
import { IndexBuilder, buildIndexParts, countDoc } from '../../../src/core/search-parts.js'
import { decodePostings, encodePostings } from '../../../src/core/search-postings.js'
import { SEEDS, seedText } from '../../helpers/feed-store.js'
import { buildMiniSearch, splitMiniSearch } from '../../helpers/minisearch-oracle.js'

// The parts written straight must hold what minisearch's own index over the same documents holds once serialized:
// the same terms, postings, field lengths and averages (scoring reproduces minisearch's scores from them).
describe('buildIndexParts', () => {
  const same = (docs: SearchDoc[]) => {
    const oracle = splitMiniSearch(buildMiniSearch(docs))
    const parts = buildIndexParts(docs)
    expect(parts.terms).toEqual(oracle.terms)
    const fieldCount = Object.keys(parts.header.fieldIds).length
    const asJson = parts.terms.map((_, i) => {
      const byField: Record<string, Record<string, number>> = {}
      decodePostings(parts.postingsBytes(i), fieldCount, parts.header.nextId).forEach((list, f) => {
        if (!list) return
        byField[f] = {}
        list.shorts.forEach((short, j) => ((byField[f] as Record<string, number>)[short] = list.counts[j] as number))
      })
      return byField
    })
    expect(asJson).toEqual(oracle.postings)
    expect(JSON.stringify(parts.header)).toBe(JSON.stringify(oracle.header))
    expect(parts.docs).toEqual(oracle.docs)
  }

  test('the seed learnings', () => {
    same(
      SEEDS.map((s, i) =>
        buildSearchDoc(i, parseLearning(seedText(s), `.learnings/${s.state ?? 'active'}/${s.name}.md`)),
      ),
    )
  })

  test('repeated terms, empty fields, unicode, punctuation-only and stop-word-only text, ids not in order', () => {
    const doc = (id: number, o: Partial<SearchDoc>): SearchDoc => ({
      id,
      name: '',
      description: '',
      trigger: '',
      tags: '',
      body: '',
      ...o,
    })
    same([
      doc(7, { name: 'redis redis cache', body: 'ECONNREFUSED ECONNREFUSED econnrefused 6379 the a an' }),
      doc(3, { description: 'Ünïcode — naïve café; 東京 テスト', tags: 'a b c' }),
      doc(0, { trigger: '!!! ??? ...', body: '\n\n\r\n' }),
      doc(12, { name: 'x'.repeat(41), body: 'word '.repeat(500) }),
      doc(5, {}),
    ])
  })

  test('a thousand generated documents: averages accumulate in the same order', () => {
    const words = ['vitest', 'esm', 'docker', 'ECONNREFUSED', 'postgres', 'module', 'fails', 'cache', 'node', 'jest']
    const docs = Array.from({ length: 1000 }, (_, i): SearchDoc => ({
      id: i,
      name: `${words[i % 10]} ${words[(i * 7) % 10]} fix ${i}`,
      description: `Fix ${words[(i * 3) % 10]} when ${words[(i * 5) % 10]} (case ${i})`,
      trigger: `${words[i % 7]} in ${words[i % 3]}/${words[i % 9]} module ${i}`,
      tags: `${words[i % 4]} ${words[i % 6]}`,
      body: Array.from({ length: 1 + (i % 40) }, (_, j) => words[(i + j) % 10]).join(' '),
    }))
    same(docs)
    // The builder writes each term's bytes from its varint lists; encodePostings, the format's reference, agrees.
    const parts = buildIndexParts(docs)
    parts.terms.forEach((_, i) => {
      const bytes = parts.postingsBytes(i)
      const lists = decodePostings(bytes, 5, parts.header.nextId).map((l) =>
        l
          ? {
              data: Int32Array.from([...l.shorts].flatMap((s, j) => [s, l.counts[j] as number])),
              n: l.shorts.length * 2,
            }
          : undefined,
      )
      expect([...encodePostings(lists, 5)]).toEqual([...bytes])
    })
  })

  test('documents counted elsewhere (a worker: countDoc, then a structured copy) build the same parts', () => {
    const docs = SEEDS.map((s, i) =>
      buildSearchDoc(i * 3, parseLearning(seedText(s), `.learnings/${s.state ?? 'active'}/${s.name}.md`)),
    )
    docs.push({ id: 99, name: 'x', description: '', trigger: 'ECONNREFUSED ECONNREFUSED', tags: '', body: 'a an' })
    const counted = new IndexBuilder()
    for (const { id, ...doc } of docs) counted.addCounted(id, structuredClone(countDoc(doc)))
    const [here, there] = [buildIndexParts(docs), counted.finish()]
    expect(there.terms).toEqual(here.terms)
    expect(there.terms.length).toBeGreaterThan(20)
    expect(there.terms.map((_, i) => [...there.postingsBytes(i)])).toEqual(
      here.terms.map((_, i) => [...here.postingsBytes(i)]),
    )
    expect(JSON.stringify(there.header)).toBe(JSON.stringify(here.header))
    expect(there.docs).toEqual(here.docs)
  })

  test('postings round-trip through their binary form; a torn or foreign one throws', () => {
    const list = (pairs: number[]) => ({ data: Int32Array.from(pairs), n: pairs.length })
    const bytes = encodePostings([list([0, 1, 5, 300, 200_000, 2]), undefined, list([7, 1])], 3)
    const back = decodePostings(bytes, 3, 200_001)
    expect(back.map((l) => l && [[...l.shorts], [...l.counts]])).toEqual([
      [
        [0, 5, 200_000],
        [1, 300, 2],
      ],
      undefined,
      [[7], [1]],
    ])
    expect(() => decodePostings(bytes.subarray(0, bytes.length - 1), 3, 200_001)).toThrow()
    expect(() => decodePostings(bytes, 3, 200_000)).toThrow()
    expect(() => decodePostings(bytes, 2, 200_001)).toThrow()
    expect(() => decodePostings(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), 1, 10)).toThrow()
  })
})

describe('countDoc', () => {
  // The road before it (to 2026-12), with maps of the document's own: each distinct token counted, then processed.
  const byMaps = (doc: Omit<SearchDoc, 'id'>) =>
    indexOptions().fields.map((field) => {
      const raw = new Map<string, number>()
      for (const token of splitTerms(doc[field])) raw.set(token, (raw.get(token) ?? 0) + 1)
      const counts = new Map<string, number>()
      for (const [token, n] of raw) {
        const t = processTerm(token)
        if (t) counts.set(t, (counts.get(t) ?? 0) + n)
      }
      return { length: raw.size, terms: [...counts.keys()], counts: [...counts.values()] }
    })
  let seed = 13
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  const WORDS = ['the', 'Connection', 'connections', 'refused', 'ERR_REQUIRE_ESM', 'ModuleNotFoundError', '42', 'a', '']
  const WORDS2 = ['x-y', '_z_', 'Ünïcode', 'é', 'run', 'running', 'ECONNREFUSED', 'port5432', 'docker.sock', '--']
  let fresh = 0
  const text = (n: number) =>
    Array.from({ length: n }, () => {
      const r = rand()
      // A fresh word now and then: across the documents, more distinct tokens than the table holds.
      if (r < 0.02) return `${'Long'.repeat(10 + Math.floor(rand() * 40))}${fresh++}` // no slot: over 64 characters
      if (r < 0.03) return `${'m'.repeat(45)}${fresh++ % 7}` // a slot, no term: over 40 characters
      const words = r < 0.65 ? WORDS : WORDS2
      return r < 0.3 ? `w${fresh++}` : words[Math.floor(rand() * words.length)]
    }).join(rand() < 0.5 ? ' ' : ', ')
  const doc = (n: number) => ({ name: text(3), description: text(12), trigger: text(8), tags: text(2), body: text(n) })
  test('gives what counting in maps gives, across table restarts and on a field of more tokens than it holds', () => {
    for (let i = 0; i < 1500; i++) {
      const d = doc(200)
      expect(countDoc(d)).toEqual(byMaps(d))
    }
    expect(fresh).toBeGreaterThan(70_000)
    const huge = doc(70_000)
    expect(countDoc(huge)).toEqual(byMaps(huge))
    const again = doc(50)
    expect(countDoc(again)).toEqual(byMaps(again))
  })

  test('tokens over 64 characters are counted without a slot, the same as in maps, however many there are', () => {
    // A field that repeats a long token counts it once in its length; documents of only long, distinct tokens fill no
    // slot but take term ids, and the tables start again in time (a body's token can be 64 KB: none is kept).
    const long = (i: number) => `${'q'.repeat(300)}${String.fromCharCode(97 + (i % 26))}${'z'.repeat(i % 5)}`
    for (let i = 0; i < 200; i++) {
      const d = {
        name: 'a',
        description: `${long(i)} ${long(i)} ${long(i + 1)} refused`,
        trigger: long(i),
        tags: '',
        body: 'x',
      }
      expect(countDoc(d)).toEqual(byMaps(d))
    }
    const many = Array.from({ length: 80_000 }, (_, i) => `Abc${'d'.repeat(70)}${i}`).join(' ')
    for (let i = 0; i < 3; i++) {
      const d = { name: 'b', description: 'c', trigger: 'd', tags: '', body: `${many} connection refused` }
      expect(countDoc(d)).toEqual(byMaps(d))
    }
    const after = doc(100)
    expect(countDoc(after)).toEqual(byMaps(after))
  })
})
