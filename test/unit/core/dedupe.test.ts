import { describe, expect, test } from 'vitest'
import { DedupeIndex, findDuplicates, learningEntry } from '../../../src/core/dedupe.js'
import type { Learning } from '../../../src/core/learning.js'

/** A small deterministic generator of learnings that share words, so near and related verdicts happen. */
function makeLearnings(n: number, seed: number): Learning[] {
  let s = seed
  const rand = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  const words = [
    'vitest',
    'mock',
    'hoisted',
    'esm',
    'import',
    'kafka',
    'rebalance',
    'storm',
    'timeout',
    'docker',
    'cache',
    'layer',
    'node',
    'fetch',
    'retry',
  ]
  const pick = (k: number) => Array.from({ length: k }, () => words[Math.floor(rand() * words.length)]).join(' ')
  return Array.from({ length: n }, (_, i) => ({
    path: `.learnings/active/l-${i}.md`,
    name: `l-${i}`,
    state: 'active' as const,
    data: { name: `l-${i}`, type: 'error-solution', description: `Fix ${pick(4)}`, trigger: `Error: ${pick(3)}` },
    body: `## Solution\n${pick(6)}\n`,
    bodyLine: 1,
  }))
}

describe('DedupeIndex', () => {
  test.each([1, 2, 3, 4, 5])('gives the verdicts of findDuplicates on 300 random learnings (seed %i)', (seed) => {
    const store = makeLearnings(300, seed)
    const entries = store.map((l) => learningEntry(l, ''))
    const index = new DedupeIndex(entries)
    const thresholds = { similar: 0.8, related: 0.5 }
    let verdicts = 0
    for (const candidate of makeLearnings(60, seed + 100)) {
      const skip = new Set([store[seed]?.name as string])
      const slow = findDuplicates(
        candidate,
        entries.filter((e) => !skip.has(e.id)),
        thresholds,
      )
      const fast = index.find(candidate, thresholds, skip)
      expect(fast.exact?.id).toBe(slow.exact?.id)
      expect(fast.near && { id: fast.near.entry.id, s: fast.near.similarity }).toEqual(
        slow.near && { id: slow.near.entry.id, s: slow.near.similarity },
      )
      expect(fast.related.map((r) => [r.entry.id, r.similarity])).toEqual(
        slow.related.map((r) => [r.entry.id, r.similarity]),
      )
      verdicts += slow.related.length + (slow.near ? 1 : 0)
    }
    expect(verdicts).toBeGreaterThan(0)
  })

  test('an exact twin (same description and solution) is found by its hash; added entries are seen by the next', () => {
    const [a, b] = makeLearnings(2, 9) as [Learning, Learning]
    const index = new DedupeIndex([learningEntry(a, '')])
    const twin = { ...b, data: { ...b.data, description: a.data.description }, body: a.body }
    expect(index.find(twin, { similar: 0.8, related: 0.5 }).exact?.id).toBe(a.name)
    index.add(learningEntry(b, ''))
    expect(index.find(b, { similar: 0.8, related: 0.5 }, new Set()).exact?.id).toBe(b.name)
  })
})
