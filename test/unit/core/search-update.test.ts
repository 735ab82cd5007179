/**
 * An index updated from an earlier one (src/core/search-update.ts) is the index a build from nothing gives over the
 * same documents in the same order: the same terms, the same postings bytes, the same document table and averages.
 */
import { describe, expect, test } from 'vitest'
import { IndexBuilder, countDoc } from '../../../src/core/search-parts.js'
import type { BuiltParts, CountedDoc } from '../../../src/core/search-parts.js'
import { updateIndexParts } from '../../../src/core/search-update.js'
import type { EarlierIndex } from '../../../src/core/search-update.js'
import { propertyRuns, seeded } from '../../helpers/random.js'

const WORDS = [
  'connect',
  'ECONNREFUSED',
  '127.0.0.1:6379',
  'redis',
  'mongo',
  'timeout',
  'jest',
  'esm',
  'import',
  'module',
  'not',
  'found',
  'docker',
  'build',
  'failed',
  'npm',
  'ERR!',
  'peer',
  'dependency',
  'typescript',
  'TS2345',
  'prisma',
  'migrate',
]

function doc(rnd: ReturnType<typeof seeded>, tag: string): CountedDoc {
  const words = (n: number) => Array.from({ length: n }, () => rnd.pick(WORDS)).join(' ')
  return countDoc({
    name: `${tag} ${words(2)}`,
    description: words(1 + Math.floor(rnd.next() * 8)),
    trigger: rnd.next() < 0.2 ? '' : words(1 + Math.floor(rnd.next() * 5)),
    tags: words(Math.floor(rnd.next() * 3)),
    body: words(Math.floor(rnd.next() * 30)),
  })
}

function build(docs: readonly CountedDoc[]): BuiltParts {
  const b = new IndexBuilder()
  docs.forEach((d, i) => b.addCounted(i, d))
  return b.finish()
}

/** The new documents' own index, as a rebuild makes it: in their order, each with its short id in the result as its id. */
function addedOf(added: ReadonlyMap<number, CountedDoc> = new Map()): BuiltParts {
  const b = new IndexBuilder()
  for (const s of [...added.keys()].sort((x, y) => x - y)) b.addCounted(s, added.get(s) as CountedDoc)
  return b.finish()
}

function earlierOf(parts: BuiltParts): EarlierIndex {
  return {
    terms: parts.terms,
    nextId: parts.header.nextId,
    postingsBytes: (i) => parts.postingsBytes(i),
    fieldLength: (short, f) => parts.docs[short]?.[1][f] ?? 0,
  }
}

function same(a: BuiltParts, b: BuiltParts): void {
  expect(a.header).toEqual(b.header)
  expect(a.terms).toEqual(b.terms)
  a.terms.forEach((_t, i) => expect(Buffer.from(a.postingsBytes(i))).toEqual(Buffer.from(b.postingsBytes(i))))
  expect(a.docs).toEqual(b.docs)
}

describe('updateIndexParts', () => {
  test('kept, changed, added and removed documents: the index a build from nothing gives', () => {
    for (let run = 0; run < propertyRuns(60); run++) {
      const rnd = seeded(9100 + run)
      const before = Array.from({ length: Math.floor(rnd.next() * 40) }, (_, i) => doc(rnd, `d${i}`))
      // The new commit: each earlier document kept, changed in place or removed; new ones put between them.
      const after: CountedDoc[] = []
      const from: number[] = []
      const added = new Map<number, CountedDoc>()
      const fresh = () => {
        added.set(after.length, (after[after.length] = doc(rnd, `n${after.length}`)))
        from.push(-1)
      }
      before.forEach((d, i) => {
        while (rnd.next() < 0.15) fresh()
        const r = rnd.next()
        if (r < 0.6) {
          after.push(d)
          from.push(i)
        } else if (r < 0.8) fresh()
      })
      while (rnd.next() < 0.3) fresh()
      const updated = updateIndexParts(earlierOf(build(before)), Int32Array.from(from), addedOf(added))
      same(updated, build(after))
    }
  })

  test('every document kept: the earlier postings are taken as they were', () => {
    const rnd = seeded(7)
    const docs = Array.from({ length: 25 }, (_, i) => doc(rnd, `d${i}`))
    const parts = build(docs)
    const updated = updateIndexParts(earlierOf(parts), Int32Array.from(docs.map((_d, i) => i)), addedOf())
    same(updated, parts)
  })

  test('refuses kept documents out of their earlier order, and a document neither kept nor added', () => {
    const rnd = seeded(8)
    const docs = Array.from({ length: 4 }, (_, i) => doc(rnd, `d${i}`))
    const earlier = earlierOf(build(docs))
    expect(() => updateIndexParts(earlier, Int32Array.from([1, 0, 2, 3]), addedOf())).toThrow(/earlier order/)
    expect(() => updateIndexParts(earlier, Int32Array.from([0, -1, 2]), addedOf())).toThrow(/neither kept nor added/)
    expect(() => updateIndexParts(earlier, Int32Array.from([0, 9]), addedOf())).toThrow(/earlier order/)
    const two = addedOf(
      new Map([
        [1, doc(rnd, 'x')],
        [2, doc(rnd, 'y')],
      ]),
    )
    expect(() => updateIndexParts(earlier, Int32Array.from([0, -1, 1]), two)).toThrow(/more documents added/)
    expect(() => updateIndexParts(earlier, Int32Array.from([0, 1, -1]), two)).toThrow(/neither kept nor added/)
  })

  test('earlier postings that do not hold together are refused', () => {
    const rnd = seeded(9)
    const docs = Array.from({ length: 6 }, (_, i) => doc(rnd, `d${i}`))
    const parts = build(docs)
    const cut: EarlierIndex = {
      ...earlierOf(parts),
      postingsBytes: (i) => parts.postingsBytes(i).subarray(0, Math.max(0, parts.postingsBytes(i).length - 1)),
    }
    const fresh = doc(rnd, 'x')
    expect(() =>
      updateIndexParts(cut, Int32Array.from([0, 1, 2, 3, 4, 5, -1]), addedOf(new Map([[6, fresh]]))),
    ).toThrow(/earlier postings/)
  })
})
