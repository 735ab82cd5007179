// Scores retrieval on the real-world evaluation set (test/fixtures/eval/real-world) in one run, three ways:
//   git-learn  — `git learn eval --json` (search) and `git learn recall` (the PostToolUse hook) in a scratch repo
//   bm25       — MiniSearch with default options over name, description, trigger and body, no normalization
//   grep       — a learning matches when its trigger's longest line (or a run of at least 40 characters of it)
//                occurs in the query, case-insensitively; ranked by the length of the match
// Tuning (queries.yaml, and the second, third and fourth tuning splits tune2.yaml, tune3.yaml, tune4.yaml), held-out (holdout.yaml) and
// fresh (fresh.yaml) queries are reported separately, per form.
// Usage: npm run build && node bench/eval-baselines.mjs [--json] [--set <dir>]
// --json adds every miss on the tuning queries (not on the held-out ones): the query's error line, what was
// expected, what came first (or what recall named).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import MiniSearch from 'minisearch'
import YAML from 'yaml'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const BIN = join(ROOT, 'dist', 'bin.js')
export const DEFAULT_SET = join(ROOT, 'test', 'fixtures', 'eval', 'real-world')
/**
 * The splits; tune2.yaml, tune3.yaml and tune4.yaml (the second, third and fourth tuning splits) and fresh.yaml (new threads, frozen before
 * it was scored) are optional in a --set folder.
 */
const SPLITS = {
  tuning: 'queries.yaml',
  tune2: 'tune2.yaml',
  tune3: 'tune3.yaml',
  tune4: 'tune4.yaml',
  holdout: 'holdout.yaml',
  fresh: 'fresh.yaml',
}
const OPTIONAL_SPLITS = new Set(['tune2', 'tune3', 'tune4', 'fresh'])
const SEARCH_FORMS = ['pasted', 'symptom', 'keywords']
/** Ranks past this count as not found (git learn eval ranks at most 10 results). */
const MRR_CUTOFF = 10
const GREP_RUN = 40

/** The set's learnings ({name, description, trigger, body}) and queries per split. */
export function loadSet(dir = DEFAULT_SET) {
  const learnings = readdirSync(join(dir, 'learnings'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => {
      const text = readFileSync(join(dir, 'learnings', f), 'utf8')
      const m = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text)
      if (!m) throw new Error(`${f}: no frontmatter`)
      const data = YAML.parse(m[1] ?? '')
      return {
        file: f,
        name: data.name,
        description: data.description ?? '',
        // A list of triggers is one trigger field of several lines for BM25; grep tries each trigger.
        trigger: [data.trigger ?? ''].flat().map(String).join('\n'),
        triggers: [data.trigger ?? ''].flat().map(String),
        body: m[2] ?? '',
      }
    })
  const queries = {}
  for (const [split, file] of Object.entries(SPLITS)) {
    if (OPTIONAL_SPLITS.has(split) && !existsSync(join(dir, file))) continue
    queries[split] = YAML.parse(readFileSync(join(dir, file), 'utf8')).map((e) => ({
      query: e.query,
      expect: (Array.isArray(e.expect) ? e.expect : [e.expect]).filter((x) => x !== 'none'),
      form: e.form,
    }))
  }
  return { dir, learnings, queries }
}

// ---------------------------------------------------------------- baselines

/** Plain BM25: MiniSearch defaults (tokenizer, no stemming, OR, no fuzzy/prefix) over the four fields. */
export function bm25Ranker(learnings) {
  const ms = new MiniSearch({ fields: ['name', 'description', 'trigger', 'body'] })
  ms.addAll(
    learnings.map((l) => ({ id: l.name, name: l.name, description: l.description, trigger: l.trigger, body: l.body })),
  )
  return (query) => ms.search(query).map((r) => r.id)
}

/** Grep-style: the longest line of each trigger, or its longest run of >= 40 characters found in the query. */
export function grepMatcher(learnings) {
  const keys = learnings.flatMap((l) =>
    (l.triggers ?? [l.trigger]).map((t) => ({
      name: l.name,
      line: t
        .split('\n')
        .reduce((a, b) => (b.trim().length > a.length ? b.trim() : a), '')
        .toLowerCase(),
    })),
  )
  return (query) => {
    const q = query.toLowerCase()
    const grams = new Set()
    for (let i = 0; i + GREP_RUN <= q.length; i++) grams.add(q.slice(i, i + GREP_RUN))
    const hits = []
    for (const { name, line } of keys) {
      const len = matchLength(line, q, grams)
      if (len > 0) hits.push({ name, len })
    }
    const names = hits.sort((a, b) => b.len - a.len || a.name.localeCompare(b.name)).map((h) => h.name)
    return [...new Set(names)]
  }
}

function matchLength(line, q, grams) {
  if (!line) return 0
  if (line.length <= GREP_RUN) return q.includes(line) ? line.length : 0
  let best = 0
  let i = 0
  while (i + GREP_RUN <= line.length) {
    if (!grams.has(line.slice(i, i + GREP_RUN))) {
      i++
      continue
    }
    let j = i + GREP_RUN
    while (j < line.length && q.includes(line.slice(i, j + 1))) j++
    best = Math.max(best, j - i)
    i = j - GREP_RUN + 1
  }
  return best
}

// ---------------------------------------------------------------- git-learn in a scratch repository

function git(cwd, ...args) {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
  return r.stdout
}

function cli(cwd, args, input) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** A temporary repository with the set's learnings active, as `git learn init` and a commit leave it. */
export function makeRepo(set) {
  const root = mkdtempSync(join(tmpdir(), 'gl-eval-'))
  git(root, 'init', '-q', '-b', 'main')
  git(root, 'config', 'user.name', 'Eval Bench')
  git(root, 'config', 'user.email', 'eval@example.com')
  git(root, 'config', 'commit.gpgsign', 'false')
  const init = cli(root, ['init'])
  if (init.code !== 0) throw new Error(`git learn init: ${init.stderr}`)
  for (const l of set.learnings)
    copyFileSync(join(set.dir, 'learnings', l.file), join(root, '.learnings', 'active', l.file))
  git(root, 'add', '-A')
  git(root, '-c', 'core.hooksPath=/dev/null', 'commit', '-q', '--no-verify', '-m', 'eval: the real-world learnings')
  return root
}

/** `git learn eval --json` on a temporary set: top-1 and MRR@10, with the rank of every miss. */
function gitLearnSearch(root, cases) {
  if (!cases.length) return { n: 0, top1: null, mrr: null, misses: [] }
  const file = join(root, '.git', 'eval-set.yaml')
  writeFileSync(file, YAML.stringify(cases.map((c) => ({ query: c.query, expect: c.expect }))))
  const r = cli(root, ['eval', '--set', file, '--k', String(MRR_CUTOFF), '--json'])
  if (r.code !== 0) throw new Error(`git learn eval: ${r.stderr}`)
  const out = JSON.parse(r.stdout)
  const misses = out.misses.map((m) => ({ query: short(m.query), expect: m.expect, got: m.got, rank: m.rank }))
  return { n: out.queries, top1: out.top1, mrr: out.mrr, misses }
}

/** The names `git learn recall` puts in its hook output for a failing Bash call whose output is `text`. */
function gitLearnRecall(root, text) {
  rmSync(join(root, '.git', 'learn', 'events.jsonl'), { force: true })
  const payload = JSON.stringify({
    session_id: 'eval-baselines',
    cwd: root,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'npm test' },
    tool_use_id: 'toolu_eval',
    tool_response: { stdout: '', stderr: text, exit_code: 1 },
  })
  const r = cli(root, ['recall'], payload)
  if (!r.stdout.trim()) return []
  const ctx = JSON.parse(r.stdout).hookSpecificOutput?.additionalContext ?? ''
  return [...ctx.matchAll(/^git-learn: ([a-z0-9-]+) —/gm)].map((m) => m[1])
}

// ---------------------------------------------------------------- scoring

const r4 = (x) => (x === null ? null : Math.round(x * 10000) / 10000)
/** A query as the JSON report names it: its first line that reads like an error (else its first line), cut at 160. */
const short = (q) => {
  const lines = q.trim().split('\n')
  return (lines.find((l) => /error|fatal|failed|denied|refused|warning/i.test(l)) ?? lines[0] ?? '')
    .trim()
    .slice(0, 160)
}

function scoreRanked(cases, rank) {
  if (!cases.length) return { n: 0, top1: null, mrr: null, misses: [] }
  let top1 = 0
  let rr = 0
  const misses = []
  for (const c of cases) {
    const ranked = rank(c.query)
    const i = ranked.findIndex((n) => c.expect.includes(n))
    if (i === 0) top1++
    else misses.push({ query: short(c.query), expect: c.expect, got: ranked[0] ?? null, rank: i < 0 ? null : i + 1 })
    if (i >= 0 && i < MRR_CUTOFF) rr += 1 / (i + 1)
  }
  return { n: cases.length, top1: r4(top1 / cases.length), mrr: r4(rr / cases.length), misses }
}

/** Recall figures: on expected queries, the share whose first named learning is right (rightFix), names a wrong
 * one first (wrongFix) or stays silent; on unrelated queries, the share left silent. */
function scoreRecall(cases, recall) {
  const expected = cases.filter((c) => c.expect.length)
  const unrelated = cases.filter((c) => !c.expect.length)
  let right = 0
  let wrong = 0
  let silentOnExpected = 0
  const misses = []
  for (const c of expected) {
    const names = recall(c.query)
    if (!names.length) silentOnExpected++
    else if (c.expect.includes(names[0])) right++
    else wrong++
    if (!c.expect.includes(names[0])) misses.push({ query: short(c.query), expect: c.expect, named: names })
  }
  let silent = 0
  for (const c of unrelated) {
    const names = recall(c.query)
    if (!names.length) silent++
    else misses.push({ query: short(c.query), expect: [], named: names })
  }
  const rate = (x, n) => (n ? r4(x / n) : null)
  return {
    expected: expected.length,
    rightFix: rate(right, expected.length),
    wrongFix: rate(wrong, expected.length),
    silentOnExpected: rate(silentOnExpected, expected.length),
    unrelated: unrelated.length,
    silentOnUnrelated: rate(silent, unrelated.length),
    misses,
  }
}

/**
 * Every figure of the three systems on both splits.
 * @param {{ dir?: string, log?: (message: string) => void }} [options]
 */
export async function runBaselines({ dir = DEFAULT_SET, log = () => {} } = {}) {
  const set = loadSet(dir)
  const bm25 = bm25Ranker(set.learnings)
  const grep = grepMatcher(set.learnings)
  const root = makeRepo(set)
  try {
    const result = { set: dir, learnings: set.learnings.length, mrrCutoff: MRR_CUTOFF, search: {}, recall: {} }
    for (const [split, cases] of Object.entries(set.queries)) {
      log(`eval-baselines: ${split}: search`)
      const search = {}
      const forms = [...SEARCH_FORMS, 'all']
      for (const form of forms) {
        const sel = cases.filter((c) => c.expect.length && (form === 'all' || c.form === form))
        search[form] = {
          'git-learn': gitLearnSearch(root, sel),
          bm25: scoreRanked(sel, bm25),
          grep: scoreRanked(sel, grep),
        }
      }
      result.search[split] = search
      log(
        `eval-baselines: ${split}: recall (${cases.filter((c) => c.form === 'pasted' || c.form === 'unrelated').length} hook calls)`,
      )
      const recallCases = cases.filter((c) => c.form === 'pasted' || c.form === 'unrelated')
      result.recall[split] = {
        'git-learn': scoreRecall(recallCases, (q) => gitLearnRecall(root, q)),
        grep: scoreRecall(recallCases, grep),
      }
    }
    // The held-out and fresh queries are reported by their figures only: their misses are not for reading while tuning.
    // The tuning splits (queries.yaml, tune2.yaml, tune3.yaml, tune4.yaml) keep their misses.
    for (const forms of [
      result.search.holdout ?? {},
      result.recall.holdout ?? {},
      result.search.fresh ?? {},
      result.recall.fresh ?? {},
    ])
      for (const systems of Object.values(forms))
        if ('misses' in systems) delete systems.misses
        else for (const x of Object.values(systems)) delete x.misses
    return result
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------- report

const f2 = (x) => (x === null || x === undefined ? '–' : x.toFixed(2))

/** Markdown tables: search top-1 / MRR per form and split, then recall. */
export function formatTable(r) {
  const lines = [
    `Retrieval on the real-world set (${r.learnings} learnings; MRR counts ranks up to ${r.mrrCutoff}; top-1 / MRR)`,
    '',
  ]
  lines.push('| split | form | n | git-learn | plain BM25 | grep |', '| --- | --- | ---: | --- | --- | --- |')
  for (const [split, forms] of Object.entries(r.search)) {
    for (const [form, s] of Object.entries(forms)) {
      const cell = (x) => `${f2(x.top1)} / ${f2(x.mrr)}`
      lines.push(
        `| ${split} | ${form} | ${s['git-learn'].n} | ${cell(s['git-learn'])} | ${cell(s.bm25)} | ${cell(s.grep)} |`,
      )
    }
  }
  lines.push(
    '',
    'Recall on failing Bash calls (pasted: first named learning right / wrong / silent; unrelated: silent)',
    '',
  )
  lines.push(
    '| split | system | pasted n | right fix | wrong fix | silent | unrelated n | silent on unrelated |',
    '| --- | --- | ---: | --- | --- | --- | ---: | --- |',
  )
  for (const [split, systems] of Object.entries(r.recall)) {
    for (const [system, x] of Object.entries(systems)) {
      lines.push(
        `| ${split} | ${system} | ${x.expected} | ${f2(x.rightFix)} | ${f2(x.wrongFix)} | ${f2(x.silentOnExpected)} | ${x.unrelated} | ${f2(x.silentOnUnrelated)} |`,
      )
    }
  }
  return lines.join('\n')
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  const at = args.indexOf('--set')
  const dir = at >= 0 ? resolve(args[at + 1] ?? '.') : DEFAULT_SET
  const result = await runBaselines({ dir, log: (m) => process.stderr.write(`${m}\n`) })
  process.stdout.write(args.includes('--json') ? `${JSON.stringify(result)}\n` : `${formatTable(result)}\n`)
}
