// Fits recall's decision (src/core/data/recall-model.json) on the TUNING queries of the real-world set
// (test/fixtures/eval/real-world/queries.yaml, tune2.yaml and tune3.yaml: their pasted failures and their unrelated
// ones) and estimates by cross-validation whether it generalises. It never reads holdout.yaml or fresh.yaml.
//
// The model (src/core/recall-rank.ts RecallModel): each trigger a failure reaches and does not rule out has features
// (recallEvidence: coverage, matched, missing, …); its evidence is intercept + weights · features; the learning of most
// evidence is named when sigmoid(evidence) >= threshold (THRESHOLD below). Fitted in two steps, both L2-regularised logistic
// regressions (ridge 1, intercept free) solved by Newton's method, so the result is deterministic:
//   1. the weights: every (failure, learning) pair a failure reaches, by the learning's best trigger (most matched
//      weight × coverage), labelled 1 when the learning is the failure's expected fix, else 0;
//   2. the calibration: one row per failure that reaches some learning, its pick's evidence under step 1, labelled 1
//      when the pick is the expected fix (an unrelated failure: 0); the weights are scaled by its slope, and its
//      intercept is the model's. Step 1 ranks; step 2 says how sure the pick is.
// Cross-validation: 10 folds by group, a group being the expected learning (every failure of a learning is held out
// together, so the model is judged on learnings it was not fitted on) or, for an unrelated failure, its source thread.
// The figures are `git learn eval`'s: right fix on the failures that expect one, silence on the unrelated ones.
//
// The threshold is not fitted: the calibration makes the model's probability honest, and recall speaks when it is at
// least THRESHOLD, chosen by nested cross-validation (--thresholds: in each outer fold, the threshold of the grid whose
// inner cross-validation on the nine other folds scores best, right-fix share plus silence share summed over the set
// as it is and its first-trigger form, as a user's learnings usually carry one trigger; a tie keeps the lower). On the
// tuning set of 2026-12-06 (branch recall9) it chose 0.6 in seven folds and 0.65 in three; over the whole grid 0.6 and
// 0.65 tie and 0.5 names more right fixes on one-trigger stores but speaks on more unrelated failures. With branch
// recall10's rules (prefer, file extensions) the folds choose 0.65 to 0.7 and the criterion is flat from 0.65 to 0.8;
// the model file was not refitted. docs/matching.md, "The fourth pass", its review and "The fifth pass", has the tables.
//
// Usage: npm run build && node bench/recall-fit.mjs [--only-first] [--features a,b,c] [--first-trigger] [--write | --compare | --sets 'a,b;c,d' | --small | --thresholds]
//   --only-first queries.yaml alone (the model in the file was fitted so, on 2026-12-06)
//   (no option)  the fit on every tuning failure and its cross-validation, for the model's features
//   --features   other features than the model's (src/core/recall-rank.ts RECALL_FEATURES)
//   --write      write the model fitted on every tuning failure to src/core/data/recall-model.json (then rebuild)
//   --compare    the same figures for other feature sets and without each rule (docs/matching.md's table)
//   --sets       the same figures for the feature sets given
//   --thresholds the cross-validation at each threshold of a grid, and the nested one that chooses it (slow: ~2 min),
//                on the set as it is and on its first-trigger form (the model fitted on the first, scored on both)
//   --first-trigger every learning keeps only its first trigger, as a user's usually has one (the other options'
//                figures on that form; the fit still reads the form given, so --write with it fits on that form)
//   --small      the model in the file, on stores of about 5, 15 and 30 of the set's learnings (10 draws each): a
//                failure whose learning is not drawn expects silence
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import YAML from 'yaml'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const SET = join(ROOT, 'test', 'fixtures', 'eval', 'real-world')
const MODEL_FILE = join(ROOT, 'src', 'core', 'data', 'recall-model.json')
const { readLearningFolder } = await import(join(ROOT, 'dist', 'adapters', 'store', 'folder.js'))
const { buildFeed } = await import(join(ROOT, 'dist', 'core', 'search-parts.js'))
const { RECALL_FEATURES, RECALL_RULES, buildRecallIndex, invertRecall, recallEvidence, recallQueryTerms } =
  await import(join(ROOT, 'dist', 'core', 'recall-rank.js'))

/** The model's features (--features a,b,c tries others). */
const given = process.argv.indexOf('--features')
export const FEATURES = given >= 0 ? (process.argv[given + 1] ?? '').split(',') : ['coverage', 'matched', 'missing']
export const FOLDS = 10
const RIDGE = 1
const THRESHOLD = 0.6
const THRESHOLD_GRID = [0.5, 0.55, 0.6, 0.65, 0.7]
/** The tuning files (--only-first: the first alone, as the model of 2026-12-06 was fitted). */
const TUNING = process.argv.includes('--only-first') ? ['queries.yaml'] : ['queries.yaml', 'tune2.yaml', 'tune3.yaml']
/** --first-trigger: every learning of the set keeps only its first trigger (a one-trigger store). */
const FIRST_TRIGGER = process.argv.includes('--first-trigger')

// ---------------------------------------------------------------- data

/**
 * The recall queries of the tuning file, each with its group (for the folds), its expected learnings, and the
 * learnings it reaches under these rules, each with the features of all its triggers reached and of its best one.
 */
export function loadCases(rules = RECALL_RULES, keep = (/** @type {string} */ _name) => true, first = FIRST_TRIGGER) {
  const learnings = readLearningFolder(join(SET, 'learnings'), 5000)
    .learnings.filter((l) => keep(l.name))
    // A user's learning usually carries one trigger: the set's learnings cut to their first.
    .map((l) => (first ? { ...l, data: { ...l.data, trigger: [l.data.trigger ?? ''].flat()[0] } } : l))
  const names = new Set(learnings.map((l) => l.name))
  const index = invertRecall(buildRecallIndex(buildFeed(learnings).catalog).index)
  const queries = TUNING.flatMap((file) => YAML.parse(readFileSync(join(SET, file), 'utf8'))).filter(
    (e) => e.form === 'pasted' || e.form === 'unrelated',
  )
  const F = RECALL_FEATURES.length
  return queries.map((e) => {
    const expect = [e.expect].flat().filter((x) => x !== 'none' && names.has(x))
    const { docs, features } = recallEvidence(index, recallQueryTerms(e.query), rules)
    const byName = new Map()
    docs.forEach((doc, i) => {
      const x = Object.fromEntries(RECALL_FEATURES.map((f, k) => [f, features[i * F + k]]))
      const name = index.names[doc]
      const strength = x.matched * x.coverage
      const prev = byName.get(name)
      if (!prev) byName.set(name, { name, x, strength, triggers: [x] })
      else {
        prev.triggers.push(x)
        if (strength > prev.strength) Object.assign(prev, { x, strength })
      }
    })
    return {
      group: groupOf(expect, e.source),
      expect,
      candidates: [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1)),
    }
  })
}

// ---------------------------------------------------------------- logistic regression (Newton, L2 ridge)

/** Coefficients (intercept first) of an L2-regularised logistic regression; the intercept is not penalised. */
export function logistic(rows, labels, ridge = RIDGE, iterations = 100) {
  const d = (rows[0]?.length ?? 0) + 1
  let beta = new Array(d).fill(0)
  for (let it = 0; it < iterations; it++) {
    const grad = new Array(d).fill(0)
    /** @type {number[][]} */
    const hess = Array.from({ length: d }, () => new Array(d).fill(0))
    rows.forEach((r, k) => {
      const x = [1, ...r]
      const p = 1 / (1 + Math.exp(-x.reduce((s, v, j) => s + v * beta[j], 0)))
      const w = Math.max(p * (1 - p), 1e-9)
      for (let i = 0; i < d; i++) {
        grad[i] += (p - labels[k]) * x[i]
        const h = /** @type {number[]} */ (hess[i])
        for (let j = 0; j < d; j++) h[j] = (h[j] ?? 0) + w * x[i] * x[j]
      }
    })
    for (let i = 1; i < d; i++) {
      grad[i] += ridge * beta[i]
      const h = /** @type {number[]} */ (hess[i])
      h[i] = (h[i] ?? 0) + ridge
    }
    const step = solve(hess, grad)
    beta = beta.map((b, i) => b - step[i])
    if (Math.max(...step.map(Math.abs)) < 1e-10) break
  }
  return beta
}

/** Gaussian elimination with partial pivoting: x with a x = b. */
function solve(a, b) {
  const n = b.length
  const m = a.map((row, i) => [...row, b[i]])
  for (let c = 0; c < n; c++) {
    let p = c
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r
    ;[m[c], m[p]] = [m[p], m[c]]
    const v = m[c][c] || 1e-12
    for (let r = 0; r < n; r++) {
      if (r === c) continue
      const f = m[r][c] / v
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k]
    }
  }
  return m.map((row, i) => row[n] / (row[i] || 1e-12))
}

// ---------------------------------------------------------------- the model

const evidence = (model, x) => Object.entries(model.weights).reduce((s, [f, w]) => s + w * x[f], model.intercept)

/** The pick (the learning of most evidence by its best trigger; ties by coverage) and its evidence. */
function pickOf(model, c) {
  let best
  for (const k of c.candidates) {
    const s = Math.max(...k.triggers.map((x) => evidence(model, x)))
    if (!best || s > best.s || (s === best.s && k.x.coverage > best.k.x.coverage)) best = { k, s }
  }
  return best && { name: best.k.name, s: best.s }
}

/** What recall names first for a case under a model (undefined: silent). */
export function decide(model, c) {
  const p = pickOf(model, c)
  return p && 1 / (1 + Math.exp(-p.s)) >= model.threshold ? p.name : undefined
}

/** Fit both steps on these cases. */
export function fit(cases, features = FEATURES, ridge = RIDGE) {
  const rows = []
  const labels = []
  for (const c of cases)
    for (const k of c.candidates) {
      rows.push(features.map((f) => k.x[f]))
      labels.push(c.expect.includes(k.name) ? 1 : 0)
    }
  const w = logistic(rows, labels, ridge).slice(1)
  const ranking = { intercept: 0, weights: Object.fromEntries(features.map((f, i) => [f, w[i]])), threshold: THRESHOLD }
  const picks = cases.map((c) => ({ c, p: pickOf(ranking, c) })).filter((x) => x.p)
  const [a, b] = logistic(
    picks.map((x) => [x.p.s]),
    picks.map((x) => (x.c.expect.includes(x.p.name) ? 1 : 0)),
    ridge,
  )
  const scale = b > 0 ? b : 1
  return {
    intercept: a,
    weights: Object.fromEntries(Object.entries(ranking.weights).map(([f, v]) => [f, v * scale])),
    threshold: THRESHOLD,
  }
}

/** Right fix on the failures that expect one, silence on the unrelated. */
export function score(model, cases) {
  const s = { right: 0, expected: 0, silent: 0, unrelated: 0 }
  for (const c of cases) {
    const got = decide(model, c)
    if (c.expect.length) {
      s.expected++
      if (got !== undefined && c.expect.includes(got)) s.right++
    } else {
      s.unrelated++
      if (got === undefined) s.silent++
    }
  }
  return s
}

// FNV-1a: a group's fold, the same on every run and machine.
const hash = (s) => {
  let h = 2166136261
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0
  return h
}

/**
 * A failure's group for the folds: its expected learning (every failure of a learning held out together), or for an
 * unrelated failure the thread it came from.
 * @param {string[]} expect
 * @param {string} source
 */
export const groupOf = (expect, source) => (expect.length ? `learning:${[...expect].sort()[0]}` : `thread:${source}`)

/** The fold (0 … FOLDS-1) of a group. */
export const foldOf = (/** @type {string} */ group) => hash(group) % FOLDS

/** Grouped k-fold: each group's cases held out together, the model fitted on the others' and scored on them. */
export function crossValidate(cases, features = FEATURES, ridge = RIDGE, threshold = THRESHOLD, skip = -1) {
  return /** @type {Score} */ (crossValidateForms(cases, [cases], features, ridge, threshold, skip)[0])
}

/** @typedef {{ right: number, expected: number, silent: number, unrelated: number }} Score */

/** Adds to each variant's total the model's score on that variant's cases of `fold`. */
function addFold(totals, model, tests, folds, fold) {
  tests.forEach((variant, v) => {
    const s = score(
      model,
      variant.filter((_, i) => folds[i] === fold),
    )
    const total = /** @type {Score} */ (totals[v])
    for (const k of Object.keys(s)) total[k] += s[k]
  })
}

/**
 * crossValidate scoring other forms of the same queries (`tests`, case for case with `cases`: the first-trigger set,
 * `loadCases(…, true)`) with the model fitted on `cases`, as the model file fitted on the set is used on a user's
 * store; one total per form.
 * @returns {Score[]}
 */
export function crossValidateForms(cases, tests, features = FEATURES, ridge = RIDGE, threshold = THRESHOLD, skip = -1) {
  const totals = tests.map(() => ({ right: 0, expected: 0, silent: 0, unrelated: 0 }))
  const folds = cases.map((c) => foldOf(c.group))
  for (let fold = 0; fold < FOLDS; fold++) {
    if (fold === skip) continue
    const train = cases.filter((_, i) => folds[i] !== fold && folds[i] !== skip)
    const model = { ...fit(train, features, ridge), threshold }
    addFold(totals, model, tests, folds, fold)
  }
  return totals
}

/** The criterion: right-fix share plus silence share, summed over the variants scored. */
const value = (totals) => totals.reduce((sum, s) => sum + s.right / s.expected + s.silent / s.unrelated, 0)

/**
 * Nested cross-validation of the threshold: in each outer fold, the threshold of THRESHOLD_GRID whose cross-validation
 * on the other nine folds scores best (right-fix share plus silence share, summed over the variants in `tests`: the set
 * as it is and its first-trigger form; a tie keeps the lower), scored on the fold; one total per variant.
 */
export function nestedThreshold(cases, tests = [cases]) {
  const totals = tests.map(() => ({ right: 0, expected: 0, silent: 0, unrelated: 0 }))
  const chosen = []
  const folds = cases.map((c) => foldOf(c.group))
  for (let fold = 0; fold < FOLDS; fold++) {
    let best = { t: THRESHOLD, v: -Infinity }
    for (const t of THRESHOLD_GRID) {
      const v = value(crossValidateForms(cases, tests, FEATURES, RIDGE, t, fold))
      if (v > best.v + 1e-12) best = { t, v }
    }
    chosen.push(best.t)
    const model = { ...fit(cases.filter((_, i) => folds[i] !== fold)), threshold: best.t }
    addFold(totals, model, tests, folds, fold)
  }
  return { chosen, totals }
}

const share = (x, n) => `${(x / n).toFixed(3)} (${x}/${n})`
const cells = (s) => `${share(s.right, s.expected)} | ${share(s.silent, s.unrelated)}`
const round = (x) => Math.round(x * 1e4) / 1e4

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2)
  const cases = loadCases()
  console.log(
    `tuning failures: ${cases.filter((c) => c.expect.length).length} pasted, ` +
      `${cases.filter((c) => !c.expect.length).length} unrelated`,
  )
  const head =
    '| rules | features | fit: right fix | fit: silent | CV: right fix | CV: silent |\n| --- | --- | --- | --- | --- | --- |'
  const row = (rules, features, of) =>
    `| ${rules.join(', ')} | ${features.join(', ')} | ${cells(score(fit(of, features), of))} | ${cells(crossValidate(of, features))} |`
  if (args.includes('--small')) {
    // Stores of a few learnings (each a deterministic draw): a failure whose learning is not among them expects none.
    const model = JSON.parse(readFileSync(MODEL_FILE, 'utf8'))
    for (const size of [5, 15, 30]) {
      const total = { right: 0, expected: 0, silent: 0, unrelated: 0 }
      for (let draw = 0; draw < 10; draw++) {
        const s = score(
          model,
          loadCases(RECALL_RULES, (name) => hash(`${draw}:${name}`) % 67 < size),
        )
        for (const k of Object.keys(total)) total[k] += s[k]
      }
      console.log(`| stores of about ${size} learnings (10 draws) | ${cells(total)} |`)
    }
  } else if (args.includes('--thresholds')) {
    // Both variants, whatever --first-trigger says: the model is fitted on the set as it is and judged on both.
    const full = FIRST_TRIGGER ? loadCases(RECALL_RULES, undefined, false) : cases
    const tests = [full, FIRST_TRIGGER ? cases : loadCases(RECALL_RULES, undefined, true)]
    const file = JSON.parse(readFileSync(MODEL_FILE, 'utf8'))
    const refit = fit(full)
    console.log(
      '| threshold | CV: right fix | CV: silent | first trigger, CV: right fix | CV: silent | criterion |\n' +
        '| --- | --- | --- | --- | --- | --- |',
    )
    for (const t of THRESHOLD_GRID) {
      const cv = crossValidateForms(full, tests, FEATURES, RIDGE, t)
      console.log(`| ${t} | ${cv.map(cells).join(' | ')} | ${value(cv).toFixed(4)} |`)
    }
    const { chosen, totals } = nestedThreshold(full, tests)
    console.log(
      `| chosen in each fold (${chosen.join(', ')}), nested | ${totals.map(cells).join(' | ')} | ${value(totals).toFixed(4)} |`,
    )
    for (const t of THRESHOLD_GRID) {
      const [a, b] = tests.map((v) => score({ ...refit, threshold: t }, v))
      console.log(`| refit on every failure at ${t} | ${cells(a)} | ${cells(b)} | ${value([a, b]).toFixed(4)} |`)
    }
    const [a, b] = tests.map((v) => score(file, v))
    console.log(`| the model file (${file.threshold}) | ${cells(a)} | ${cells(b)} | ${value([a, b]).toFixed(4)} |`)
  } else if (args.includes('--sets')) {
    console.log(head)
    for (const fs of (args[args.indexOf('--sets') + 1] ?? '').split(';'))
      console.log(row(RECALL_RULES, fs.split(','), cases))
  } else if (args.includes('--compare')) {
    console.log(head)
    const sets = [
      FEATURES,
      ...FEATURES.map((f) => FEATURES.filter((g) => g !== f)),
      ...RECALL_FEATURES.filter((f) => !FEATURES.includes(f)).map((f) => [...FEATURES, f]),
    ]
    for (const features of sets) console.log(row(RECALL_RULES, features, cases))
    for (const without of RECALL_RULES) {
      const rules = RECALL_RULES.filter((r) => r !== without)
      console.log(row(rules, FEATURES, loadCases(rules)))
    }
  } else {
    console.log(head)
    console.log(row(RECALL_RULES, FEATURES, cases))
    const m = fit(cases)
    const out = {
      intercept: round(m.intercept),
      weights: Object.fromEntries(Object.entries(m.weights).map(([f, v]) => [f, round(v)])),
      threshold: m.threshold,
    }
    const current = JSON.parse(readFileSync(MODEL_FILE, 'utf8'))
    console.log(`fitted: ${JSON.stringify(out)}`)
    console.log(`in ${MODEL_FILE.slice(ROOT.length)}: ${JSON.stringify(current)} (${cells(score(current, cases))})`)
    if (args.includes('--write') && FIRST_TRIGGER)
      throw new Error('--write fits the set as it is: drop --first-trigger')
    if (args.includes('--write')) writeFileSync(MODEL_FILE, `${JSON.stringify(out, null, 2)}\n`)
  }
}
