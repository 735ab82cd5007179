import { describe, expect, test } from 'vitest'
import { parseLearning } from '../../../src/core/learning.js'
import { buildIndex, buildSearchDoc, splitIndex } from '../../../src/core/search.js'
import type { SearchDoc } from '../../../src/core/search.js'
import { buildIndexParts } from '../../../src/core/search-parts.js'
import { SEEDS, seedText } from '../../helpers/feed-store.js'

// The parts written straight must be byte for byte what minisearch's own index gives once split: the cache reader
// loads them back into minisearch, and ranking must not move.
describe('buildIndexParts', () => {
  const same = (docs: SearchDoc[]) => {
    const oracle = splitIndex(buildIndex(docs))
    const parts = buildIndexParts(docs)
    expect(parts.terms).toEqual(oracle.terms)
    expect(parts.terms.map((_, i) => parts.postingsJson(i))).toEqual(oracle.postings)
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
  })
})
