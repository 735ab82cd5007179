// Other ways search could treat a query or a learning, each judged like the boosts (bench/search-boosts-cv.mjs): on
// the TUNING queries of the real-world set (queries.yaml; never holdout.yaml), per query form, the MRR@10 / top-1 of
// the code and of the code with one change, and the cross-validated figure of choosing between the two on nine folds
// (by source thread) and scoring the choice on the tenth (a tie keeps the code). A change carries when that figure
// beats the code's; its fit alone says nothing. docs/matching.md ("Typed queries", "A trigger held in full") has the
// figures and what was kept. A last table chooses the held trigger's factor (src/core/search.ts HELD_TRIGGER) the same way.
//
// The ranking is rebuilt here on minisearch (search's reference: the same tokenizer, term processing, normalization,
// fields, boosts, prefixes and scores), with switches; the script first checks that with no switch it ranks every
// query exactly as `rankLearnings` does.
// Usage: npm run build && node bench/search-variants-cv.mjs
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import MiniSearch from 'minisearch'
import YAML from 'yaml'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const SET = join(ROOT, 'test', 'fixtures', 'eval', 'real-world')
const dist = (/** @type {string} */ path) => import(join(ROOT, 'dist', path))
const { readLearningFolder } = await dist('adapters/store/folder.js')
const { buildFeed } = await dist('core/search-parts.js')
const { FIELD_BOOSTS, isTypedQuery, rankLearnings } = await dist('core/search.js')
const { splitTerms } = await dist('core/terms.js')
const { MARKER_WORDS, boundQuery, matchableError } = await dist('core/normalize-error.js')
const { triggersOf } = await dist('core/triggers.js')
const { porter2 } = await dist('vendor/stemmer.js')

const FOLDS = 10
const learnings = readLearningFolder(join(SET, 'learnings'), 5000).learnings
const queries = YAML.parse(readFileSync(join(SET, 'queries.yaml'), 'utf8')).filter((e) => e.expect !== 'none')

// src/core/terms.ts STOP_WORDS, and Snowball's English stop list (snowballstem.org/algorithms/english/stop.txt, without
// its contractions, which normalization turns into other words).
const STOP =
  'a an and are as at be but by for from has have in is it its of on or that the this to was were will with when use run not no if then than into via you your we our after before while'.split(
    ' ',
  )
const SNOWBALL =
  'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself they them their theirs themselves what which who whom this that these those am is are was were be been being have has had having do does did doing would should could ought a an the and but if or because as until while of at by for with about against between into through during before after above below to from up down in out on off over under again further then once here there when where why how all any both each few more most other some such no nor not only own same so than too very'.split(
    ' ',
  )
// Snowball's particles and quantifiers, which name what failed in technical text (compose up, out of memory).
const PARTICLES_AND_QUANTIFIERS = new Set(
  'up down out off over under again further above below against between all any few more most other some only own same'.split(
    ' ',
  ),
)

/**
 * @typedef {object} Options
 * @property {string[]} [stop] stop words (index and queries)
 * @property {Set<string>} [typedStop] more words dropped from a typed query only
 * @property {boolean} [numbers] pure numbers are terms (index; a typed query keeps its numbers too)
 * @property {boolean} [stem]
 * @property {boolean} [tags] the tags field
 * @property {boolean} [split] the body as two fields: problem (Problem, Trigger Conditions, Root Cause, …) and fix
 * @property {boolean} [pairs] a field of adjacent word pairs (description, name, trigger, body; a typed query's own)
 * @property {boolean} [typedRaw] a typed query is not normalized
 * @property {number} [typedPrefix] a typed query's terms of this many letters or more are prefixes (Infinity: none)
 * @property {boolean} [typedFuzzy] a typed query's terms of six letters or more also tolerate typos
 * @property {boolean} [once] each of a query's terms is searched once (a term its identifiers' parts repeat, weighed once)
 * @property {'summary' | 'none' | 'sqrt'} [pastedCount] in a pasted query, what multiplies a learning's sum: the
 *   number of the query's terms it holds outside its body, none, or the square root of their number
 * @property {'summary'} [typedCount] the same for a typed query
 * @property {{ weight: number, share?: boolean, pasted?: boolean, markers?: boolean }} [held] a learning one of whose triggers the
 *   query holds in full (reaches every term of it) scores (1 + weight) times (the code: 2, src/core/search.ts
 *   HELD_TRIGGER); share: by the largest share of a trigger's terms held instead; pasted: for pasted queries only;
 *   markers: a trigger is held only when it also holds the query's marker words (ipv6, remotehost, …)
 * @property {boolean} [frames] a pasted query's stack-frame lines (Python's `File "…", line N, in f`, Node's
 *   `at f (path:line:col)`) are left out
 */

/** The code's ranking rebuilt on minisearch, with one or more switches: query → the names of the top 10. */
function system(/** @type {Options} */ o = {}) {
  const stop = new Set(o.stop ?? STOP)
  /** @param {string} word */
  const processTerm = (word) => {
    const t = word.toLowerCase()
    if (t.length < 2 || t.length > 40 || stop.has(t) || (!o.numbers && /^\d+$/.test(t))) return null
    return o.stem !== false && t.length > 3 && /^[a-z]+$/.test(t) ? porter2(t) : t
  }
  /** @param {string} text */
  const termsIn = (text) => splitTerms(text).map(processTerm).filter(Boolean)
  /** @param {string} text */
  const pairs = (text) => {
    const t = termsIn(text).filter((x) => /^[a-z]+$/.test(x))
    return t.slice(1).map((x, i) => `${t[i]}0${x}`)
  }
  const PROBLEM = /^## (?:Problem|Trigger Conditions|Root Cause|Anti-pattern|Rationale)/
  /** @param {string} body */
  const sections = (body) => {
    const parts = body.split(/^(?=## )/m)
    return [parts.filter((p) => PROBLEM.test(p)).join('\n'), parts.filter((p) => !PROBLEM.test(p)).join('\n')]
  }
  const fields = ['name', 'description', 'trigger', ...(o.tags === false ? [] : ['tags']), 'body']
  if (o.split) fields.push('fix')
  if (o.pairs) fields.push('pairs')
  const ms = new MiniSearch({ fields, tokenize: splitTerms, processTerm })
  ms.addAll(
    learnings.map((l, id) => {
      const trigger = matchableError(triggersOf(l.data).join('\n'))
      const body = l.body.slice(0, 64 * 1024)
      const [problem, fix] = sections(body)
      const description = typeof l.data.description === 'string' ? l.data.description : ''
      const name = l.name.replace(/-/g, ' ')
      return {
        id,
        name,
        description,
        trigger,
        tags: (l.data.tags ?? []).join(' '),
        body: matchableError(o.split ? problem : body),
        fix: matchableError(fix),
        pairs: [description, name, trigger, matchableError(body)].flatMap(pairs).join(' '),
      }
    }),
  )
  const boost = { ...FIELD_BOOSTS, fix: 1, pairs: 1 }
  const markers = MARKER_WORDS.map(processTerm)
  const triggerTerms = learnings.map((l) => triggersOf(l.data).map((t) => [...new Set(termsIn(matchableError(t)))]))
  return (/** @type {string} */ query) => {
    const typed = isTypedQuery(query)
    const bounded = boundQuery(!typed && o.frames ? withoutFrames(query) : query)
    const text = typed && o.typedRaw ? bounded : matchableError(bounded)
    const terms = new Set()
    for (const raw of splitTerms(text)) {
      if (typed && o.typedStop?.has(raw.toLowerCase())) continue
      const t = processTerm(raw)
      if (t) terms.add(t)
    }
    if (typed && o.numbers) for (const n of bounded.match(/\b\d{2,}\b/g) ?? []) terms.add(n)
    if (typed && o.pairs) for (const p of pairs(text)) terms.add(p)
    let list = [...terms].slice(0, 64)
    if (!list.length) return []
    const few = list.length <= 4
    if (o.once) list = [...new Set(splitTerms(list.join(' ')).map(processTerm).filter(Boolean))]
    const from = o.typedPrefix ?? 5
    const results = ms.search(list.join(' '), {
      boost,
      ...(o.once
        ? { tokenize: (/** @type {string} */ t) => t.split(' '), processTerm: (/** @type {string} */ t) => t }
        : {}),
      prefix: (t) => (few && t.length >= 4) || (typed && t.length >= from),
      fuzzy: (t) => ((few || (typed && o.typedFuzzy)) && t.length >= 6 ? 0.2 : false),
    })
    const count = typed ? o.typedCount : o.pastedCount
    /** @param {any} r */
    const scoreOf = (r) => {
      const held = o.held ?? { weight: 2 }
      let score = r.score
      if (held.weight && (!typed || !held.pasted)) {
        // The terms the query reaches in this learning (minisearch's match: index term → fields).
        const shares = triggerTerms[r.id].map((ts) =>
          held.markers && markers.some((m) => terms.has(m) && !ts.includes(m))
            ? 0
            : ts.filter((t) => t in r.match).length / (ts.length || Infinity),
        )
        const best = Math.max(0, ...shares)
        score *= 1 + held.weight * (held.share ? best : best === 1 ? 1 : 0)
      }
      if (!count) return score
      const sum = score / r.queryTerms.length
      if (count === 'none') return sum
      if (count === 'sqrt') return sum * Math.sqrt(r.queryTerms.length)
      const summary = r.queryTerms.filter((/** @type {string} */ q) =>
        Object.entries(r.match).some(
          ([t, fs]) => (t === q || t.startsWith(q)) && /** @type {string[]} */ (fs).some((f) => f !== 'body'),
        ),
      )
      return sum * Math.max(1, summary.length)
    }
    return results
      .map((r) => ({ name: learnings[r.id].name, score: Math.round(scoreOf(r) * 1000) / 1000 }))
      .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .slice(0, 10)
      .map((r) => r.name)
  }
}

/** A pasted query without its stack-frame lines. */
const withoutFrames = (/** @type {string} */ query) =>
  query
    .split('\n')
    .filter(
      (line) =>
        !/^\s*(?:File "[^"]*", line \d+(?:, in \S+)?|at \S+(?: \[as \S+\])? \(\S+:\d+:\d+\)|at \S+:\d+:\d+)\s*$/.test(
          line,
        ),
    )
    .join('\n')

/** @type {Record<string, Options>} */
const VARIANTS = {
  'each query term once': { once: true },
  'pasted: count only terms held outside the body': { pastedCount: 'summary' },
  'pasted: no count': { pastedCount: 'none' },
  'pasted: square root of the count': { pastedCount: 'sqrt' },
  'typed: count only terms held outside the body': { typedCount: 'summary' },
  'both: count only terms held outside the body': { pastedCount: 'summary', typedCount: 'summary' },
  'pasted: stack-frame lines left out': { frames: true },
  'a trigger held in full: no factor (before)': { held: { weight: 0 } },
  'a trigger held in full: x1.5': { held: { weight: 0.5 } },
  'a trigger held in full: x2': { held: { weight: 1 } },
  'a trigger held in full: x4': { held: { weight: 3 } },
  'a trigger held in full: x8': { held: { weight: 7 } },
  'a trigger held in full: x3, pasted queries only': { held: { weight: 2, pasted: true } },
  "a trigger held in full and the query's marker words": { held: { weight: 2, markers: true } },
  'a trigger held: x(1 + 2 × the largest share of a trigger held)': { held: { weight: 2, share: true } },
  'typed query: no prefixes (before)': { typedPrefix: Infinity },
  'typed query: prefixes from 4 letters': { typedPrefix: 4 },
  'typed query: typos tolerated too': { typedFuzzy: true },
  'typed query: its function words dropped': {
    typedStop: new Set(SNOWBALL.filter((w) => !STOP.includes(w) && !PARTICLES_AND_QUANTIFIERS.has(w))),
  },
  'typed query: not normalized': { typedRaw: true },
  'numbers are terms (index, typed query)': { numbers: true },
  "Snowball's stop list added": { stop: [...new Set([...STOP, ...SNOWBALL])] },
  '"no" and "not" are terms': { stop: STOP.filter((w) => w !== 'no' && w !== 'not') },
  'no stemming': { stem: false },
  'no tags field': { tags: false },
  'body split: problem, fix fields': { split: true },
  'word pairs as terms': { pairs: true },
}

// The rebuilt ranking with no switch must be search's own.
const { catalog, index } = buildFeed(learnings)
const code = system()
for (const e of queries) {
  const ours = rankLearnings(index, catalog, e.query).map(
    (/** @type {{ entry: { name: string } }} */ h) => h.entry.name,
  )
  if (JSON.stringify(ours) !== JSON.stringify(code(e.query)))
    throw new Error(`search-variants-cv: the rebuilt ranking differs from search's on ${JSON.stringify(e.query)}`)
}

const hash = (/** @type {string} */ s) => {
  let h = 2166136261
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0
  return h
}
/** The reciprocal rank (up to 10, as `git learn eval`) of each case's expected learning. */
const ranks = (/** @type {(q: string) => string[]} */ rank, /** @type {any[]} */ cases) =>
  cases.map((e) => {
    const at = rank(e.query).findIndex((n) => [e.expect].flat().includes(n))
    return at < 0 ? 0 : 1 / (at + 1)
  })
const f3 = (/** @type {number} */ x) => x.toFixed(3)
const fig = (/** @type {number[]} */ rr) =>
  `${f3(rr.reduce((a, b) => a + b, 0) / rr.length)} / ${f3(rr.filter((r) => r === 1).length / rr.length)}`

const forms = ['pasted', 'symptom', 'keywords'].map((form) => {
  const cases = queries.filter((e) => e.form === form)
  return { form, cases, base: ranks(code, cases), folds: cases.map((e) => hash(String(e.source)) % FOLDS) }
})
console.log(
  `| change (MRR / top-1; fit, then cross-validated) | ${forms.map((f) => `${f.form} (${f.cases.length})`).join(' | ')} |`,
)
console.log(`| --- | ${forms.map(() => '---').join(' | ')} |`)
console.log(`| none (the code) | ${forms.map((f) => fig(f.base)).join(' | ')} |`)
for (const [name, options] of Object.entries(VARIANTS)) {
  const rank = system(options)
  const cells = forms.map(({ cases, base, folds }) => {
    const mine = ranks(rank, cases)
    const train = (/** @type {number[]} */ rr, /** @type {number} */ fold) =>
      rr.reduce((s, r, j) => s + (folds[j] === fold ? 0 : r), 0)
    const cv = folds.map((fold, i) => (train(mine, fold) > train(base, fold) + 1e-9 ? mine : base)[i] ?? 0)
    return `${fig(mine)}, ${fig(cv)}`
  })
  console.log(`| ${name} | ${cells.join(' | ')} |`)
}

// The held trigger's factor (src/core/search.ts HELD_TRIGGER) chosen on nine folds from a list and scored on the tenth;
// a tie keeps the first (1: no factor, as before).
const FACTORS = [1, 1.5, 2, 3, 4, 8]
console.log('')
console.log(`| form | ${FACTORS.map((x) => `x${x}`).join(' | ')} | chosen, cross-validated |`)
console.log(`| --- | ${FACTORS.map(() => '---').join(' | ')} | --- |`)
for (const { form, cases, folds } of forms) {
  const rr = FACTORS.map((x) => ranks(system({ held: { weight: x - 1 } }), cases))
  const cv = folds.map((fold, i) => {
    const train = (/** @type {number[]} */ a) => a.reduce((s, r, j) => s + (folds[j] === fold ? 0 : r), 0)
    let best = /** @type {number[]} */ (rr[0])
    for (const a of rr) if (train(a) > train(best) + 1e-9) best = a
    return best[i] ?? 0
  })
  console.log(`| ${form} | ${rr.map(fig).join(' | ')} | ${fig(cv)} |`)
}
