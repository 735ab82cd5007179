/** Retrieval measured on a team's own queries: top-1, precision@k, hit@k, MRR and the misses. */
import * as YAML from '../vendor/yaml.js'
import { MAX_YAML_ALIASES } from './learning.js'

/** The kinds of query a set may label (free text is accepted too): a figure is printed per form. */
export const QUERY_FORMS = ['pasted', 'symptom', 'keywords', 'unrelated'] as const

/** Forms that are a tool's failure output: recall is measured on them. */
export const FAILURE_FORMS: readonly string[] = ['pasted', 'unrelated']

export interface EvalCase {
  query: string
  /** The learning(s) that should rank first; any of them counts as relevant. Empty: `expect: none`, nothing should. */
  expect: string[]
  /** How the query was written (pasted output, a symptom in other words, keywords, an unrelated failure), or null. */
  form: string | null
}

/**
 * Parse a queries file: a YAML list (or `{queries: [...]}`) of `{query, expect, form?}`, where expect is a learning
 * name, a list of names, or `none` (nothing should be found or recalled); throws Error with the entry at fault.
 */
export function parseEvalSet(text: string): EvalCase[] {
  // Not parseYamlMapping: a queries file may be a top-level list. Aliases are bounded the same way.
  const v: unknown = YAML.parse(text, { maxAliasCount: MAX_YAML_ALIASES, uniqueKeys: true })
  const list = Array.isArray(v)
    ? v
    : v && typeof v === 'object' && Array.isArray((v as Record<string, unknown>)['queries'])
      ? ((v as Record<string, unknown>)['queries'] as unknown[])
      : undefined
  if (!list) throw new Error('expected a YAML list of {query, expect} entries (or queries: [...])')
  return list.map((e, i) => {
    const o = (e ?? {}) as Record<string, unknown>
    const q = o['query']
    const x = o['expect']
    const f = o['form']
    const none = x === 'none' || x === null || (Array.isArray(x) && x.length === 0)
    const expect = none
      ? []
      : typeof x === 'string'
        ? [x]
        : Array.isArray(x)
          ? x.filter((s): s is string => typeof s === 'string')
          : []
    if (typeof q !== 'string' || !q.trim() || (!none && !expect.length))
      throw new Error(
        `entry ${i + 1} needs a non-empty "query" and an "expect" (a learning name, a list of names, or none)`,
      )
    if (f !== undefined && (typeof f !== 'string' || !/^[\w-]{1,32}$/.test(f)))
      throw new Error(`entry ${i + 1}: "form" must be a word such as ${QUERY_FORMS.join(', ')}`)
    return { query: q, expect, form: typeof f === 'string' ? f : null }
  })
}

export interface EvalOutcome {
  query: string
  expect: string[]
  form?: string | null
  /** Names search returned, best first. */
  ranked: string[]
  /** Names recall returned for the query as a failure, best first (absent: recall not measured). */
  recalled?: string[]
}

/** The figures are shares of their queries; null when there are none (a share of nothing is no figure). */
export interface SearchFigures {
  /** Queries that expect a learning (those that expect none are not in search's figures). */
  queries: number
  top1: number | null
  precisionAtK: number | null
  hitAtK: number | null
  mrr: number | null
}

export interface RecallFigures {
  /** Queries that expect a learning, and the share of them whose expected learning recall names first. */
  failures: number
  rightFix: number | null
  /** Queries that expect none, and the share of them recall stays silent on. */
  unrelated: number
  silence: number | null
}

export interface EvalReport extends SearchFigures {
  k: number
  misses: { query: string; expect: string[]; got: string | null; rank: number | null }[]
  /** Queries that expect none. */
  none: number
  /** Recall over every query (absent when not measured). */
  recall?: RecallFigures
  /** The same figures per form, for sets that label their queries' form. */
  forms?: Record<string, SearchFigures & { none: number; recall?: RecallFigures }>
  /** Recall's mistakes: a wrong or missing fix, or a fix named for a query that expects none. */
  recallMisses?: { query: string; expect: string[]; got: string | null }[]
}

const r4 = (x: number) => Math.round(x * 10000) / 10000

function searchFigures(outcomes: readonly EvalOutcome[], k: number): SearchFigures {
  let top1 = 0
  let prec = 0
  let hit = 0
  let rr = 0
  const scored = outcomes.filter((o) => o.expect.length)
  for (const o of scored) {
    const want = new Set(o.expect)
    const idx = o.ranked.findIndex((n) => want.has(n))
    if (idx === 0) top1++
    const inK = o.ranked.slice(0, k).filter((n) => want.has(n)).length
    prec += inK / k
    if (inK) hit++
    if (idx >= 0) rr += 1 / (idx + 1)
  }
  const n = scored.length
  const share = (x: number) => (n ? r4(x / n) : null)
  return { queries: n, top1: share(top1), precisionAtK: share(prec), hitAtK: share(hit), mrr: share(rr) }
}

/** Whether recall named the right fix (the expected learning first) or, for a query that expects none, stayed silent. */
export function recallRight(o: EvalOutcome): boolean {
  const first = o.recalled?.[0]
  return o.expect.length ? first !== undefined && o.expect.includes(first) : first === undefined
}

function recallFigures(outcomes: readonly EvalOutcome[]): RecallFigures | undefined {
  const measured = outcomes.filter((o) => o.recalled)
  if (!measured.length) return undefined
  const failures = measured.filter((o) => o.expect.length)
  const unrelated = measured.filter((o) => !o.expect.length)
  const share = (xs: EvalOutcome[]) => (xs.length ? r4(xs.filter(recallRight).length / xs.length) : null)
  return {
    failures: failures.length,
    rightFix: share(failures),
    unrelated: unrelated.length,
    silence: share(unrelated),
  }
}

/**
 * Score ranked results against their expectations. Search figures count the queries that expect a learning (a miss:
 * its expected learning is not first); recall figures, when measured, count the right fix on those and silence on the
 * queries that expect none; with forms, the same per form.
 */
export function scoreEval(outcomes: readonly EvalOutcome[], k: number): EvalReport {
  const misses: EvalReport['misses'] = []
  for (const o of outcomes) {
    if (!o.expect.length) continue
    const want = new Set(o.expect)
    const idx = o.ranked.findIndex((n) => want.has(n))
    if (idx !== 0)
      misses.push({ query: o.query, expect: o.expect, got: o.ranked[0] ?? null, rank: idx < 0 ? null : idx + 1 })
  }
  const report: EvalReport = {
    ...searchFigures(outcomes, k),
    k,
    misses,
    none: outcomes.filter((o) => !o.expect.length).length,
  }
  const recall = recallFigures(outcomes)
  if (recall) {
    report.recall = recall
    report.recallMisses = outcomes
      .filter((o) => o.recalled && !recallRight(o))
      .map((o) => ({ query: o.query, expect: o.expect, got: o.recalled?.[0] ?? null }))
  }
  const forms = [...new Set(outcomes.map((o) => o.form).filter((f): f is string => !!f))].sort()
  if (forms.length) {
    report.forms = {}
    for (const f of forms) {
      const of = outcomes.filter((o) => o.form === f)
      const r = recallFigures(of)
      report.forms[f] = {
        ...searchFigures(of, k),
        none: of.filter((o) => !o.expect.length).length,
        ...(r ? { recall: r } : {}),
      }
    }
  }
  return report
}
