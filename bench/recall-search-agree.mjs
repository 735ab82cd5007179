// Would search's ranking, as a second opinion, let recall name more right fixes without speaking on unrelated
// failures? Measured on the TUNING queries of the real-world set (test/fixtures/eval/real-world/queries.yaml: its
// pasted failures and its unrelated ones); it never reads holdout.yaml.
//
//   npm run build && node bench/recall-search-agree.mjs
//
// For each failure recall is silent on, the rule tried speaks when recall's best candidate (by its evidence, under the
// model file) is also search's first result for the failure, its evidence is at least `e`, and search's first score is
// at least `r` times its second. Printed per (e, r): the right fixes gained, wrong fixes named, unrelated failures
// spoken on, and the two shares, each point scored on the set it is chosen on; then the rule cross-validated (10 folds
// by group, as bench/recall-fit.mjs: the failures of one expected learning, or an unrelated failure's thread, held out
// together): in each fold the point of the grid, or no rule at all, with the best right-fix share plus silence share
// on the other nine folds, scored on the fold (docs/matching.md, "Search as a second opinion").
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import YAML from 'yaml'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const SET = join(ROOT, 'test', 'fixtures', 'eval', 'real-world')
const { readLearningFolder } = await import(join(ROOT, 'dist', 'adapters', 'store', 'folder.js'))
const { buildFeed } = await import(join(ROOT, 'dist', 'core', 'search-parts.js'))
const { rankLearnings } = await import(join(ROOT, 'dist', 'core', 'search.js'))
// The folds of bench/recall-fit.mjs (importing it runs nothing: its work is behind a check that it is the script run).
const { FOLDS, foldOf, groupOf } = await import('./recall-fit.mjs')
const { buildRecallIndex, evidenceOf, invertRecall, rankRecall, recallEvidence, recallQueryTerms } = await import(
  join(ROOT, 'dist', 'core', 'recall-rank.js')
)

const feed = buildFeed(readLearningFolder(join(SET, 'learnings'), 5000).learnings)
const recallIndex = buildRecallIndex(feed.catalog).index
const postings = invertRecall(recallIndex)
/** @type {{ query: string, expect: string | string[], form: string, source: string }[]} */
const all = YAML.parse(readFileSync(join(SET, 'queries.yaml'), 'utf8'))
const rows = all
  .filter((e) => e.form === 'pasted' || e.form === 'unrelated')
  .map((e) => {
    const expect = [e.expect].flat().filter((x) => x !== 'none')
    const group = groupOf(expect, e.source)
    const terms = recallQueryTerms(e.query)
    const { docs, features } = recallEvidence(postings, terms)
    /** @type {Map<string, number>} */
    const best = new Map()
    docs.forEach((doc, i) => {
      const name = /** @type {string} */ (recallIndex.names[doc])
      const ev = evidenceOf(features, i, 1)
      if (!best.has(name) || /** @type {number} */ (best.get(name)) < ev) best.set(name, ev)
    })
    const [first] = [...best].sort((a, b) => b[1] - a[1])
    const hits = rankLearnings(feed.index, feed.catalog, e.query, { states: ['active'] }, 2)
    return {
      group,
      expect,
      named: rankRecall(postings, terms, 2).map((c) => recallIndex.names[c.doc]),
      pick: first?.[0],
      evidence: first?.[1] ?? -Infinity,
      top: hits[0]?.entry.name,
      // Search's first score over its second (no second result, or one of score 0: as sure as it gets).
      ratio: hits[1]?.score ? (hits[0]?.score ?? 0) / hits[1].score : Infinity,
    }
  })
const expected = rows.filter((r) => r.expect.length)
const unrelated = rows.filter((r) => !r.expect.length)
const right = expected.filter((r) => r.named[0] !== undefined && r.expect.includes(r.named[0])).length
const silent = unrelated.filter((r) => !r.named.length).length
const agreeing = expected.filter((x) => !x.named.length && x.top !== undefined && x.expect.includes(x.top)).length
console.log(
  `recall silent on ${expected.filter((x) => !x.named.length).length} expected failures, search first on the expected learning for ${agreeing} of them`,
)
console.log(
  `recall as it is: right fix ${right}/${expected.length} (${(right / expected.length).toFixed(4)}), silent on unrelated ${silent}/${unrelated.length} (${(silent / unrelated.length).toFixed(4)})`,
)
const GRID = [-2, -1.5, -1, -0.5, 0].flatMap((e) => [1.5, 2, 3, 5, 8].map((r) => ({ e, r })))

/** What the rule at (e, r) adds over `cases`: right fixes gained, wrong fixes named, unrelated failures spoken on. */
function added(/** @type {typeof rows} */ cases, /** @type {{ e: number, r: number }} */ { e, r }) {
  let gained = 0
  let wrong = 0
  let spoke = 0
  for (const x of cases) {
    if (x.named.length || x.pick === undefined || x.pick !== x.top || x.evidence < e || x.ratio < r) continue
    if (!x.expect.length) spoke++
    else if (x.expect.includes(x.pick)) gained++
    else wrong++
  }
  return { gained, wrong, spoke }
}

/** Right fixes and silences over `cases`, recall as it is plus the rule at `point` (none: as it is). */
function scored(/** @type {typeof rows} */ cases, /** @type {{ e: number, r: number } | undefined} */ point) {
  const ex = cases.filter((x) => x.expect.length)
  const un = cases.filter((x) => !x.expect.length)
  const add = point ? added(cases, point) : { gained: 0, spoke: 0 }
  return {
    right: ex.filter((x) => x.named[0] !== undefined && x.expect.includes(x.named[0])).length + add.gained,
    expected: ex.length,
    silent: un.filter((x) => !x.named.length).length - add.spoke,
    unrelated: un.length,
  }
}

const share = (/** @type {number} */ a, /** @type {number} */ b) => (b ? a / b : 1)
console.log(
  '| evidence at least | search ratio at least | right fixes gained | wrong fixes | unrelated spoken on | right fix | silent |',
)
console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
for (const point of GRID) {
  const { gained, wrong, spoke } = added(rows, point)
  const s = scored(rows, point)
  console.log(
    `| ${point.e} | ${point.r} | ${gained} | ${wrong} | ${spoke} | ${share(s.right, s.expected).toFixed(4)} | ${share(s.silent, s.unrelated).toFixed(4)} |`,
  )
}

const total = { right: 0, expected: 0, silent: 0, unrelated: 0 }
/** @type {string[]} */
const chosen = []
for (let fold = 0; fold < FOLDS; fold++) {
  const train = rows.filter((x) => foldOf(x.group) !== fold)
  const test = rows.filter((x) => foldOf(x.group) === fold)
  const criterion = (/** @type {{ e: number, r: number } | undefined} */ p) => {
    const s = scored(train, p)
    return share(s.right, s.expected) + share(s.silent, s.unrelated)
  }
  /** @type {{ e: number, r: number } | undefined} */
  let best
  for (const p of GRID) if (criterion(p) > criterion(best)) best = p
  chosen.push(best ? `${best.e}/${best.r}` : 'none')
  const s = scored(test, best)
  for (const k of /** @type {const} */ (['right', 'expected', 'silent', 'unrelated'])) total[k] += s[k]
}
console.log(
  `cross-validated (folds chose ${chosen.join(', ')}): right fix ${total.right}/${total.expected} (${share(total.right, total.expected).toFixed(4)}), silent ${total.silent}/${total.unrelated} (${share(total.silent, total.unrelated).toFixed(4)})`,
)
