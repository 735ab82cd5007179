import { describe, expect, test } from 'vitest'
import { buildQueryTerms, termsOf } from '../../../src/core/search.js'
import { processTerm } from '../../../src/core/terms.js'
import { NAME_TERM_FACTOR, invertRecall, passesRecall, rankRecall, termWeight } from '../../../src/core/recall-rank.js'
import type { RecallIndex } from '../../../src/core/recall-rank.js'

describe('rankRecall', () => {
  const index = {
    names: ['pg-refused', 'vitest-hoist', 'one-word', 'pg-refused-tier'],
    weights: [1, 1, 1, 0.9],
    triggers: [
      [...termsOf('ECONNREFUSED postgres')],
      [...termsOf("ReferenceError: Cannot access '__vi_import_0__' before initialization")],
      [...termsOf('ENOSPC')],
      [...termsOf('ECONNREFUSED postgres')],
    ],
  }
  test('only triggers the error holds pass; the project beats an equal tier copy', () => {
    const got = rankRecall(index, new Set(buildQueryTerms('Error: connect ECONNREFUSED 127.0.0.1:5432 (postgres)')))
    expect(got.map((c) => index.names[c.doc])).toEqual(['pg-refused', 'pg-refused-tier'])
    expect(got[0]!.coverage).toBe(1)
    expect(got[1]!.score).toBeLessThan(got[0]!.score)
  })
  test('a partial trigger below the coverage threshold is not recalled', () => {
    expect(rankRecall(index, new Set(buildQueryTerms('ReferenceError: something else')))).toEqual([])
  })
  test('a one-term trigger is enough when it is there', () => {
    expect(
      rankRecall(index, new Set(buildQueryTerms('write failed: ENOSPC no space left'))).map((c) => index.names[c.doc]),
    ).toEqual(['one-word'])
  })
  test('only the common words of a trigger are not enough', () => {
    const twins = {
      names: ['redis-refused', 'mongo-ipv6'],
      weights: [1, 1],
      triggers: [
        [...termsOf('Error: connect ECONNREFUSED 127.0.0.1:6379')],
        [...termsOf('MongooseServerSelectionError: connect ECONNREFUSED ::1:27017')],
      ],
    }
    expect(rankRecall(twins, new Set(buildQueryTerms('Error: connect ETIMEDOUT 10.0.0.3:443')))).toEqual([])
    const python = 'redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379. Connection refused.'
    expect(rankRecall(twins, new Set(buildQueryTerms(python))).map((c) => twins.names[c.doc])).toEqual([
      'redis-refused',
    ])
    expect(
      rankRecall(twins, new Set(buildQueryTerms('MongooseServerSelectionError: connect ECONNREFUSED ::1:27017'))).map(
        (c) => twins.names[c.doc],
      ),
    ).toEqual(['mongo-ipv6'])
  })
  test('a generic trigger met in share stays silent when another learning holds more of the failure', () => {
    const ix = {
      names: ['eslint-flat-config-not-found', 'ts7016-missing-declaration-file'],
      weights: [1, 1],
      triggers: [
        [...termsOf('Error: Could not find config file.')],
        [...termsOf("error TS7016: Could not find a declaration file for module 'crypto-js'")],
      ],
    }
    const failure = "src/run.ts(9,24): error TS7016: Could not find a declaration file for module 'node-config-ts'."
    expect(rankRecall(ix, new Set(buildQueryTerms(failure)))).toEqual([])
    // The generic trigger alone, with nothing that outweighs it, is still recalled.
    const alone = { names: ix.names.slice(0, 1), weights: [1], triggers: ix.triggers.slice(0, 1) }
    expect(rankRecall(alone, new Set(buildQueryTerms(failure))).map((c) => alone.names[c.doc])).toEqual([
      'eslint-flat-config-not-found',
    ])
  })
  test('a learning with several triggers is recalled once, by its best trigger', () => {
    const ix = {
      names: ['pg', 'pg', 'other'],
      weights: [1, 1, 1],
      triggers: [
        [...termsOf('ECONNREFUSED 127.0.0.1:5432')],
        [...termsOf('psql: could not connect to server: Connection refused')],
        [...termsOf('ENOSPC')],
      ],
    }
    const got = rankRecall(
      ix,
      new Set(
        buildQueryTerms('psql: could not connect to server: Connection refused. Is the server running on port 5432?'),
      ),
    )
    expect(got.map((c) => ix.names[c.doc])).toEqual(['pg'])
  })

  // The hook ranks from the inverted form read from the cache; this is the scan over every trigger it replaced.
  const scanEveryTrigger = (ix: RecallIndex, q: ReadonlySet<string>) => {
    const n = ix.triggers.length
    const df = (x: string) => ix.triggers.filter((t) => t.includes(x)).length
    const best = new Map<string, { doc: number; coverage: number; score: number }>()
    const sums: number[] = []
    ix.triggers.forEach((t, doc) => {
      const terms = [...new Set(t)].sort()
      const hit = terms.filter((x) => q.has(x))
      const total = Math.round(terms.reduce((s, x) => s + termWeight(x, df(x), n), 0) * 1000) / 1000
      const sum = hit.reduce((s, x) => s + termWeight(x, df(x), n), 0)
      const coverage = Math.min(1, sum / total)
      if (hit.length) sums[doc] = sum
      if (!hit.length || !passesRecall(coverage, hit.length)) return
      const c = {
        doc,
        coverage: Math.round(coverage * 1000) / 1000,
        score: Math.round(sum * coverage * (ix.weights[doc] ?? 1) * 1000) / 1000,
      }
      const prev = best.get(ix.names[doc] as string)
      if (!prev || c.score > prev.score || (c.score === prev.score && c.coverage > prev.coverage))
        best.set(ix.names[doc] as string, c)
    })
    const ranked = [...best.values()].sort(
      (a, b) =>
        b.score - a.score ||
        b.coverage - a.coverage ||
        ((ix.names[a.doc] as string) < (ix.names[b.doc] as string) ? -1 : 1),
    )
    // Silent unless the pick leads every learning the failure touches, its matched trigger weight plus its name's words.
    const nameWeight = (name: string) =>
      NAME_TERM_FACTOR *
      [...new Set(name.split('-').map((w) => processTerm(w)))]
        .filter((x): x is string => !!x && q.has(x))
        .reduce((s, x) => s + termWeight(x, df(x), n), 0)
    const pick = ranked[0]
    if (!pick) return ranked
    const lead = (sums[pick.doc] as number) + nameWeight(ix.names[pick.doc] as string)
    return sums.some(
      (sum, doc) => ix.names[doc] !== ix.names[pick.doc] && sum + nameWeight(ix.names[doc] as string) > lead,
    )
      ? []
      : ranked
  }

  test('ranking from the inverted triggers (what the cache holds) equals a scan of every trigger, on 300 random stores', () => {
    let seed = 5
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    const vocab = Array.from({ length: 40 }, (_, i) => `term${i}`)
    for (let round = 0; round < 300; round++) {
      const n = 1 + Math.floor(rand() * 60)
      const ix: RecallIndex = {
        // Names of vocabulary words, so a name's words weigh in whether the pick leads.
        names: Array.from(
          { length: n },
          (_, i) => `${vocab[Math.floor(rand() * 14)]}-${vocab[Math.floor(rand() * 14)]}-${i}`,
        ),
        weights: Array.from({ length: n }, () => (rand() < 0.3 ? 0.9 : 1)),
        triggers: Array.from({ length: n }, () => [
          ...new Set(
            Array.from({ length: 1 + Math.floor(rand() * 6) }, () => vocab[Math.floor(rand() * 12)] as string),
          ),
        ]),
      }
      const q = new Set(Array.from({ length: Math.floor(rand() * 10) }, () => vocab[Math.floor(rand() * 14)] as string))
      const inverted = invertRecall(ix)
      expect(rankRecall(inverted, q)).toEqual(scanEveryTrigger(ix, q))
    }
  })
})
