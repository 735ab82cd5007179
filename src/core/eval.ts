/** Retrieval measured on a team's own queries: top-1, precision@k, hit@k, MRR and the misses. */
import * as YAML from '../vendor/yaml.js'
import { MAX_YAML_ALIASES } from './learning.js'

export interface EvalCase {
  query: string
  /** The learning(s) that should rank first; any of them counts as relevant. */
  expect: string[]
}

/** Parse a queries file: a YAML list (or `{queries: [...]}`) of `{query, expect}`; throws Error with the entry at fault. */
export function parseEvalSet(text: string): EvalCase[] {
  // Not parseYamlMapping: a queries file may be a top-level list. Aliases are bounded the same way.
  const v: unknown = YAML.parse(text, { maxAliasCount: MAX_YAML_ALIASES, uniqueKeys: true })
  const list = Array.isArray(v) ? v : v && typeof v === 'object' && Array.isArray((v as Record<string, unknown>)['queries']) ? ((v as Record<string, unknown>)['queries'] as unknown[]) : undefined
  if (!list) throw new Error('expected a YAML list of {query, expect} entries (or queries: [...])')
  return list.map((e, i) => {
    const o = (e ?? {}) as Record<string, unknown>
    const q = o['query']
    const x = o['expect']
    const expect = typeof x === 'string' ? [x] : Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : []
    if (typeof q !== 'string' || !q.trim() || !expect.length) throw new Error(`entry ${i + 1} needs a non-empty "query" and an "expect" (a learning name or a list of names)`)
    return { query: q, expect }
  })
}

export interface EvalOutcome {
  query: string
  expect: string[]
  /** Names returned, best first. */
  ranked: string[]
}

export interface EvalReport {
  queries: number
  k: number
  top1: number
  precisionAtK: number
  hitAtK: number
  mrr: number
  misses: { query: string; expect: string[]; got: string | null; rank: number | null }[]
}

const r4 = (x: number) => Math.round(x * 10000) / 10000

/** Score ranked results against their expectations; a miss is a query whose expected learning is not first. */
export function scoreEval(outcomes: readonly EvalOutcome[], k: number): EvalReport {
  let top1 = 0
  let prec = 0
  let hit = 0
  let rr = 0
  const misses: EvalReport['misses'] = []
  for (const o of outcomes) {
    const want = new Set(o.expect)
    const idx = o.ranked.findIndex((n) => want.has(n))
    const rank = idx < 0 ? null : idx + 1
    if (rank === 1) top1++
    else misses.push({ query: o.query, expect: o.expect, got: o.ranked[0] ?? null, rank })
    const inK = o.ranked.slice(0, k).filter((n) => want.has(n)).length
    prec += inK / k
    if (inK) hit++
    if (rank !== null) rr += 1 / rank
  }
  const n = outcomes.length || 1
  return { queries: outcomes.length, k, top1: r4(top1 / n), precisionAtK: r4(prec / n), hitAtK: r4(hit / n), mrr: r4(rr / n), misses }
}
