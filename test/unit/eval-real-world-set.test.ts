// The real-world evaluation set (test/fixtures/eval/real-world) keeps its invariants: every expectation names a
// learning of the set, the forms have their minimum counts, every learning is valid and cites its source threads.
// The fresh split (fresh.yaml) and the second, third and fourth tuning splits (tune2.yaml, tune3.yaml, tune4.yaml) keep
// the same entry invariants, their own minimum counts, and threads no other file used.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import YAML from 'yaml'
import { loadLearningValidator } from '../../src/adapters/store/validators.js'
import { parseEvalSet } from '../../src/core/eval.js'
import { parseLearning, validateLearning } from '../../src/core/learning.js'
import { PROJECT_ROOT } from '../helpers/repo.js'
// @ts-expect-error: plain ESM bench script without declarations
import { bm25Ranker, grepMatcher, loadSet } from '../../bench/eval-baselines.mjs'

const SET = join(PROJECT_ROOT, 'test/fixtures/eval/real-world')
const FORMS = ['pasted', 'symptom', 'keywords', 'unrelated'] as const
const MIN: Record<(typeof FORMS)[number], number> = { pasted: 70, symptom: 35, keywords: 20, unrelated: 45 }
const FRESH_MIN: Record<(typeof FORMS)[number], number> = { pasted: 60, symptom: 20, keywords: 10, unrelated: 30 }
/** The fresh split spreads its pasted failures: at most this many name the same learning. */
const FRESH_MAX_PASTED_PER_LEARNING = 3
const TUNE2_MIN: Record<(typeof FORMS)[number], number> = { pasted: 30, symptom: 30, keywords: 15, unrelated: 30 }
/** The second tuning split spreads every form: at most this many queries of one form name the same learning. */
const TUNE2_MAX_PER_LEARNING_AND_FORM = 3
/** The third tuning split is for recall's decision: pasted and unrelated failures only need their minimums. */
const TUNE3_MIN: Record<(typeof FORMS)[number], number> = { pasted: 30, symptom: 0, keywords: 0, unrelated: 40 }
/** Like the second, the third tuning split spreads every form over the learnings. */
const TUNE3_MAX_PER_LEARNING_AND_FORM = 3
/** The fourth tuning split is for symptoms in other words and recall's decision: no keywords. */
const TUNE4_MIN: Record<(typeof FORMS)[number], number> = { pasted: 15, symptom: 30, keywords: 0, unrelated: 25 }
/** Like the second and third, the fourth tuning split spreads every form over the learnings. */
const TUNE4_MAX_PER_LEARNING_AND_FORM = 3
const MAX_QUERY_BYTES = 8 * 1024

interface Entry {
  query: unknown
  expect: unknown
  form: unknown
  source: unknown
}

const load = (file: string): Entry[] => YAML.parse(readFileSync(join(SET, file), 'utf8')) as Entry[]
const tuning = load('queries.yaml')
const holdout = load('holdout.yaml')
const all = [...tuning, ...holdout]
const fresh = load('fresh.yaml')
const tune2 = load('tune2.yaml')
const tune3 = load('tune3.yaml')
const tune4 = load('tune4.yaml')
const every = [...all, ...fresh, ...tune2, ...tune3, ...tune4]
const names = readdirSync(join(SET, 'learnings'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => f.slice(0, -3))
const readme = readFileSync(join(SET, 'README.md'), 'utf8')
const expected = (e: Entry): string[] => (Array.isArray(e.expect) ? e.expect : [e.expect]) as string[]

describe('the real-world evaluation set', () => {
  test('has at least 55 learnings, each a valid learning file named after itself', async () => {
    expect(names.length).toBeGreaterThanOrEqual(55)
    const validator = await loadLearningValidator()
    for (const name of names) {
      const path = `.learnings/active/${name}.md`
      const learning = parseLearning(readFileSync(join(SET, 'learnings', `${name}.md`), 'utf8'), path)
      expect(learning.data.name, path).toBe(name)
      expect(validateLearning(learning, validator).errors, path).toEqual([])
      const trigger = learning.data.trigger
      const triggers = Array.isArray(trigger) ? (trigger as unknown[]) : [trigger]
      expect(
        triggers.length > 0 && triggers.every((t) => typeof t === 'string' && t.trim()),
        `${path} has a trigger`,
      ).toBe(true)
    }
  })

  test('every entry has a query, an expectation, a known form and a source thread', () => {
    for (const [i, e] of every.entries()) {
      const at = `entry ${i + 1}: ${String(e.query).slice(0, 60)}`
      expect(typeof e.query === 'string' && e.query.trim().length > 0, at).toBe(true)
      expect(FORMS, at).toContain(e.form)
      expect(String(e.source), at).toMatch(/^https:\/\/github\.com\/[^/\s]+\/[^/\s]+\/(issues|pull)\/\d+$/)
      for (const x of expected(e))
        expect(x === 'none' || names.includes(x), `${at}: expect ${x} names no learning`).toBe(true)
      expect(expected(e).includes('none') ? e.form : 'ok', `${at}: only unrelated queries expect none`).toBe(
        expected(e).includes('none') ? 'unrelated' : 'ok',
      )
    }
  })

  test('the forms meet their minimum counts, and about 30% of the queries are held out', () => {
    expect(all.length).toBeGreaterThanOrEqual(170)
    for (const form of FORMS) expect(all.filter((e) => e.form === form).length, form).toBeGreaterThanOrEqual(MIN[form])
    const share = holdout.length / all.length
    expect(share).toBeGreaterThan(0.25)
    expect(share).toBeLessThan(0.35)
  })

  test('no query is longer than 8 KB or appears twice', () => {
    const seen = new Set<string>()
    for (const e of every) {
      const q = e.query as string
      expect(Buffer.byteLength(q, 'utf8'), q.slice(0, 60)).toBeLessThanOrEqual(MAX_QUERY_BYTES)
      expect(seen.has(q), `duplicate: ${q.slice(0, 60)}`).toBe(false)
      seen.add(q)
    }
  })

  test('every learning is listed in the README with the thread(s) it was written from', () => {
    for (const name of names) {
      const row = readme.split('\n').find((l) => l.startsWith(`| \`${name}\` |`))
      expect(row, `${name} has no row in README.md`).toBeDefined()
      expect(row, name).toMatch(/<https:\/\/github\.com\/[^>]+\/(issues|pull)\/\d+>/)
    }
  })

  test('the fresh split meets its own minimum counts, spreads its pasted failures and uses only new threads', () => {
    for (const form of FORMS)
      expect(fresh.filter((e) => e.form === form).length, form).toBeGreaterThanOrEqual(FRESH_MIN[form])
    const pasted = new Map<string, number>()
    for (const e of fresh.filter((x) => x.form === 'pasted'))
      for (const x of expected(e)) pasted.set(x, (pasted.get(x) ?? 0) + 1)
    for (const [name, n] of pasted) expect(n, name).toBeLessThanOrEqual(FRESH_MAX_PASTED_PER_LEARNING)
    const used = new Set(all.map((e) => String(e.source)))
    for (const e of fresh) {
      const source = String(e.source)
      expect(used.has(source), `${source} is a source of queries.yaml or holdout.yaml`).toBe(false)
      expect(readme.includes(`<${source}>`), `${source} is a learning's thread in README.md`).toBe(false)
    }
  })

  test('the second tuning split meets its own minimum counts, spreads every form and uses only new threads', () => {
    for (const form of FORMS)
      expect(tune2.filter((e) => e.form === form).length, form).toBeGreaterThanOrEqual(TUNE2_MIN[form])
    const perLearningAndForm = new Map<string, number>()
    for (const e of tune2)
      for (const x of expected(e).filter((n) => n !== 'none'))
        perLearningAndForm.set(`${String(e.form)} ${x}`, (perLearningAndForm.get(`${String(e.form)} ${x}`) ?? 0) + 1)
    for (const [key, n] of perLearningAndForm) expect(n, key).toBeLessThanOrEqual(TUNE2_MAX_PER_LEARNING_AND_FORM)
    const used = new Set([...all, ...fresh].map((e) => String(e.source)))
    for (const e of tune2) {
      const source = String(e.source)
      expect(used.has(source), `${source} is a source of queries.yaml, holdout.yaml or fresh.yaml`).toBe(false)
      expect(readme.includes(`<${source}>`), `${source} is a learning's thread in README.md`).toBe(false)
    }
  })

  test('the third tuning split meets its own minimum counts, spreads every form and uses only new threads', () => {
    for (const form of FORMS)
      expect(tune3.filter((e) => e.form === form).length, form).toBeGreaterThanOrEqual(TUNE3_MIN[form])
    const perLearningAndForm = new Map<string, number>()
    for (const e of tune3)
      for (const x of expected(e).filter((n) => n !== 'none'))
        perLearningAndForm.set(`${String(e.form)} ${x}`, (perLearningAndForm.get(`${String(e.form)} ${x}`) ?? 0) + 1)
    for (const [key, n] of perLearningAndForm) expect(n, key).toBeLessThanOrEqual(TUNE3_MAX_PER_LEARNING_AND_FORM)
    const used = new Set([...all, ...fresh, ...tune2].map((e) => String(e.source).toLowerCase()))
    const seen = new Set<string>()
    for (const e of tune3) {
      const source = String(e.source)
      expect(used.has(source.toLowerCase()), `${source} is a source of another file`).toBe(false)
      expect(seen.has(source.toLowerCase()), `${source} is used twice in tune3.yaml`).toBe(false)
      seen.add(source.toLowerCase())
      expect(readme.toLowerCase().includes(`<${source.toLowerCase()}>`), `${source} is a learning's thread`).toBe(false)
    }
  })

  test('the fourth tuning split meets its own minimum counts, spreads every form and uses only new threads', () => {
    for (const form of FORMS)
      expect(tune4.filter((e) => e.form === form).length, form).toBeGreaterThanOrEqual(TUNE4_MIN[form])
    const perLearningAndForm = new Map<string, number>()
    for (const e of tune4)
      for (const x of expected(e).filter((n) => n !== 'none'))
        perLearningAndForm.set(`${String(e.form)} ${x}`, (perLearningAndForm.get(`${String(e.form)} ${x}`) ?? 0) + 1)
    for (const [key, n] of perLearningAndForm) expect(n, key).toBeLessThanOrEqual(TUNE4_MAX_PER_LEARNING_AND_FORM)
    const used = new Set([...all, ...fresh, ...tune2, ...tune3].map((e) => String(e.source).toLowerCase()))
    const seen = new Set<string>()
    for (const e of tune4) {
      const source = String(e.source)
      expect(used.has(source.toLowerCase()), `${source} is a source of another file`).toBe(false)
      expect(seen.has(source.toLowerCase()), `${source} is used twice in tune4.yaml`).toBe(false)
      seen.add(source.toLowerCase())
      expect(readme.toLowerCase().includes(`<${source.toLowerCase()}>`), `${source} is a learning's thread`).toBe(false)
    }
  })

  test('git learn eval accepts all six files', () => {
    for (const file of ['queries.yaml', 'holdout.yaml', 'fresh.yaml', 'tune2.yaml', 'tune3.yaml', 'tune4.yaml']) {
      const cases = parseEvalSet(readFileSync(join(SET, file), 'utf8'))
      expect(cases.length).toBe(load(file).length)
    }
  })
})

describe('the baselines of bench/eval-baselines.mjs', () => {
  const set = loadSet(SET) as { learnings: { name: string; trigger: string }[] }
  const bm25 = bm25Ranker(set.learnings) as (q: string) => string[]
  const grep = grepMatcher(set.learnings) as (q: string) => string[]

  test('grep ranks a learning first for a failure that quotes its trigger, and matches nothing in plain prose', () => {
    for (const l of set.learnings)
      expect(grep(`$ npm test\n${l.trigger}\n    at main (index.js:1:1)`)[0], l.name).toBe(l.name)
    expect(grep('the build is slow on mondays')).toEqual([])
  })

  test('plain BM25 puts each learning in its top three for its own trigger', () => {
    for (const l of set.learnings) expect(bm25(l.trigger).slice(0, 3), l.name).toContain(l.name)
  })
})
