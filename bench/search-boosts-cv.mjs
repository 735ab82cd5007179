// Whether search's field boosts (src/core/search.ts FIELD_BOOSTS) generalise: on the TUNING queries of the
// real-world set (queries.yaml; never holdout.yaml), per query form, the MRR@10 and top-1 of the boosts in the code,
// of equal boosts (plain BM25's choice), and the cross-validated figure of choosing boosts from a small grid: 10
// folds by source thread, the grid's best on nine folds scored on the tenth. When that figure is no better than equal
// boosts, tuning boosts on these queries fits them and nothing more.
// A second table asks the same of a typed query's prefixes (src/core/search.ts TYPED_PREFIX: a query on one line
// matches its terms of five letters or more as prefixes): the figures with none (a query of more than four terms
// matched exactly, as before), from four, five (the code) or six letters, and the cross-validated figure of choosing
// the length on nine folds and scoring it on the tenth (a tie keeps the shorter list's first: none).
// Usage: npm run build && node bench/search-boosts-cv.mjs
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import YAML from 'yaml'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const SET = join(ROOT, 'test', 'fixtures', 'eval', 'real-world')
const { readLearningFolder } = await import(join(ROOT, 'dist', 'adapters', 'store', 'folder.js'))
const { buildFeed } = await import(join(ROOT, 'dist', 'core', 'search-parts.js'))
const { scoreQuery } = await import(join(ROOT, 'dist', 'core', 'search-score.js'))
const { FIELD_BOOSTS, HELD_TRIGGER, buildQueryTerms, holdsTrigger, indexOptions, isTypedQuery, querySpecs } =
  await import(join(ROOT, 'dist', 'core', 'search.js'))

const FOLDS = 10
const { catalog, index } = buildFeed(readLearningFolder(join(SET, 'learnings'), 5000).learnings)
const fields = indexOptions().fields
/** @param {Record<string, number>} boosts */
const vector = (boosts) => fields.map((/** @type {string} */ f) => boosts[f] ?? 1)

/** The reciprocal rank (up to 10, as `git learn eval`) of a case's expected learning under these boosts. */
function reciprocalRank(boosts, c, specs = c.specs) {
  const s = scoreQuery(index, specs, boosts)
  // As search ranks (src/core/search.ts): a learning whose trigger the query holds in full scores HELD_TRIGGER times.
  const held = (/** @type {number} */ short) =>
    holdsTrigger(catalog[index.docId(short)].triggers, s.reaches) ? HELD_TRIGGER : 1
  const ranked = [...s.order]
    .map((short) => ({
      score: Math.round(s.score[short] * held(short) * 1000) / 1000,
      name: catalog[index.docId(short)].name,
    }))
    .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, 10)
  const at = ranked.findIndex((r) => c.expect.includes(r.name))
  return at < 0 ? 0 : 1 / (at + 1)
}
const figures = (boosts, cases) => {
  const rr = cases.map((c) => reciprocalRank(boosts, c))
  return { mrr: rr.reduce((a, b) => a + b, 0) / cases.length, top1: rr.filter((r) => r === 1).length / cases.length }
}

const grid = []
for (const name of [1, 2])
  for (const trigger of [1, 2, 3])
    for (const description of [1, 2, 3])
      for (const tags of [1, 2, 3])
        for (const body of [0.5, 1]) grid.push(vector({ name, trigger, description, tags, body }))

const hash = (/** @type {string} */ s) => {
  let h = 2166136261
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0
  return h
}

const queries = YAML.parse(readFileSync(join(SET, 'queries.yaml'), 'utf8'))
const f3 = (/** @type {number} */ x) => x.toFixed(3)
const FORMS = ['pasted', 'symptom', 'keywords']
/** @param {string} form */
const casesOf = (form) =>
  queries
    .filter((e) => e.form === form)
    .map((e) => {
      const terms = buildQueryTerms(e.query)
      return {
        specs: querySpecs(terms, isTypedQuery(e.query)),
        // Without a typed query's prefixes: only a query of a few terms gets them.
        exact: querySpecs(terms),
        typed: isTypedQuery(e.query),
        expect: [e.expect].flat(),
        group: String(e.source),
      }
    })
console.log('| form | n | boosts in the code: MRR / top-1 | equal boosts | grid chosen, cross-validated |')
console.log('| --- | ---: | --- | --- | --- |')
for (const form of FORMS) {
  const cases = casesOf(form)
  const cv = { rr: 0, top: 0 }
  for (let fold = 0; fold < FOLDS; fold++) {
    const train = cases.filter((c) => hash(c.group) % FOLDS !== fold)
    const test = cases.filter((c) => hash(c.group) % FOLDS === fold)
    if (!test.length) continue
    let best = grid[0]
    let bestMrr = -1
    for (const g of grid) {
      const m = figures(g, train).mrr
      if (m > bestMrr + 1e-9) [best, bestMrr] = [g, m]
    }
    for (const c of test) {
      const r = reciprocalRank(best, c)
      cv.rr += r
      if (r === 1) cv.top++
    }
  }
  const code = figures(vector(FIELD_BOOSTS), cases)
  const equal = figures(vector({}), cases)
  console.log(
    `| ${form} | ${cases.length} | ${f3(code.mrr)} / ${f3(code.top1)} | ${f3(equal.mrr)} / ${f3(equal.top1)} | ` +
      `${f3(cv.rr / cases.length)} / ${f3(cv.top / cases.length)} |`,
  )
}

/** A typed query's specs when its terms of `from` letters or more are prefixes (Infinity: none). */
const prefixedFrom = (c, /** @type {number} */ from) =>
  c.exact.map((/** @type {{ term: string, prefix: boolean }} */ s) => ({
    ...s,
    prefix: s.prefix || (c.typed && s.term.length >= from),
  }))
/** @type {[string, number][]} */
const LENGTHS = [
  ['none', Infinity],
  ['4', 4],
  ['5', 5],
  ['6', 6],
]
const fig = (/** @type {number[]} */ rr) =>
  `${f3(rr.reduce((a, b) => a + b, 0) / rr.length)} / ${f3(rr.filter((r) => r === 1).length / rr.length)}`
console.log('')
console.log('| form | n | typed prefixes: none | from 4 letters | 5 (the code) | 6 | chosen, cross-validated |')
console.log('| --- | ---: | --- | --- | --- | --- | --- |')
const code = vector(FIELD_BOOSTS)
for (const form of [...FORMS, 'all']) {
  const cases = form === 'all' ? FORMS.flatMap(casesOf) : casesOf(form)
  const rr = Object.fromEntries(
    LENGTHS.map(([k, from]) => [k, cases.map((c) => reciprocalRank(code, c, prefixedFrom(c, from)))]),
  )
  // The code's specs are the 5-letter choice: a check that this table measures what search does.
  cases.forEach((c, i) => {
    if (reciprocalRank(code, c) !== rr['5'][i]) throw new Error(`search-boosts-cv: prefixes differ from the code's`)
  })
  const cv = []
  for (let fold = 0; fold < FOLDS; fold++) {
    const train = (/** @type {number[]} */ a) =>
      a.reduce((s, r, i) => s + (hash(cases[i].group) % FOLDS === fold ? 0 : r), 0)
    let best = 'none'
    for (const [k] of LENGTHS) if (train(rr[k]) > train(rr[best]) + 1e-9) best = k
    cases.forEach((c, i) => {
      if (hash(c.group) % FOLDS === fold) cv[i] = rr[best][i]
    })
  }
  console.log(`| ${form} | ${cases.length} | ${LENGTHS.map(([k]) => fig(rr[k])).join(' | ')} | ${fig(cv)} |`)
}
