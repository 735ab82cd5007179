// Growth with the size of the store (issue 16): on generated stores of 1,000, 10,000 and 100,000 learnings (each made
// on the fly and removed after; `node bench/run.mjs growth --sizes 1000,10000` to choose), every command the hooks and
// agents run, as a ratio to `node -e 0` runs interleaved one-for-one with its own, the range of those ratios over the
// runs, the growth from one size to the next (10× more learnings), and the peak resident memory of one run.
// With BENCH_BEFORE=<a built dist/ of another version> (bin.js inside), each run of that version is interleaved with
// the same run of this one, so a before/after table comes from one run on one machine state (BENCH_AFTER=<a dist/>
// measures a copy instead of ./dist, so the tree can be rebuilt while the bench runs).
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FAILURE, learningText, makeStoreRepo, makeTierSource } from './lib.mjs'

/** The 5-line pasted failure every search and recall row asks with. */

export const DEFAULT_SIZES = [1000, 10_000, 100_000]

const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined

/**
 * One run: wall ms and (with /usr/bin/time) peak RSS in MB.
 * @param {string[]} argv
 * @param {{ cwd: string, input?: string, env?: Record<string, string> }} o
 */
function runOnce(argv, { cwd, input, env }) {
  const out = join(tmpdir(), `gl-growth-${process.pid}.rss`)
  const [cmd, args] = TIME ? [TIME, ['-f', '%M', '-o', out, ...argv]] : [argv[0] ?? process.execPath, argv.slice(1)]
  const t = process.hrtime.bigint()
  const r = spawnSync(cmd, args, {
    cwd,
    input,
    env: { ...process.env, NO_COLOR: '1', GIT_CONFIG_NOSYSTEM: '1', ...env },
    stdio: ['pipe', 'ignore', 'pipe'],
    maxBuffer: 1 << 26,
  })
  const ms = Number(process.hrtime.bigint() - t) / 1e6
  if (r.status !== 0 && r.status !== 1) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`)
  let mb = NaN
  if (TIME) {
    try {
      mb = Number(readFileSync(out, 'utf8').trim().split('\n').pop()) / 1024
    } catch {
      // no reading
    }
  }
  return { ms, mb }
}

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]

/**
 * `runs` rounds of: `node -e 0`, then each version's run (before first when there is one) in its own copy of the
 * repository (`cwds[v]`: a version's cache files would otherwise replace the other's), with `prepare(v)` before each
 * run (e.g. removing the cache). Returns per version: median ms, median ratio, min–max ratio, peak MB.
 * @param {string[]} bins
 * @param {string[]} argsOf
 * @param {{ cwds: string[], input?: (v: number) => string, runs: number, prepare?: (v: number) => void, warm?: boolean }} o
 */
function measure(bins, argsOf, { cwds, input = () => '', runs, prepare = () => {}, warm = true }) {
  const cwd = cwds[0] ?? '.'
  if (warm)
    bins.forEach((bin, v) => runOnce([process.execPath, bin, ...argsOf], { cwd: cwds[v] ?? cwd, input: input(v) }))
  /** @type {number[]} */
  const base = []
  /** @type {{ ms: number[], ratio: number[], mb: number[] }[]} */
  const per = bins.map(() => ({ ms: [], ratio: [], mb: [] }))
  for (let i = 0; i < runs; i++) {
    const b = runOnce([process.execPath, '-e', '0'], { cwd }).ms
    base.push(b)
    bins.forEach((bin, v) => {
      prepare(v)
      const r = runOnce([process.execPath, bin, ...argsOf], { cwd: cwds[v] ?? cwd, input: input(v) })
      const p = per[v]
      if (!p) return
      p.ms.push(r.ms)
      p.ratio.push(r.ms / b)
      p.mb.push(r.mb)
    })
  }
  return per.map((p) => ({
    ms: median(p.ms),
    ratio: median(p.ratio),
    lo: Math.min(...p.ratio),
    hi: Math.max(...p.ratio),
    mb: Math.max(...p.mb),
    base: median(base),
  }))
}

/** Bytes under a directory. */
function du(dir) {
  let n = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    n += e.isDirectory() ? du(p) : statSync(p).size
  }
  return n
}

/** A copy of a generated repository (work tree and .git), so each measured version keeps its own cache. */
function copyRepo(root) {
  const copy = mkdtempSync(join(tmpdir(), 'gl-growth-copy-'))
  execFileSync('cp', ['-a', `${root}/.`, copy])
  // A copied index's stat cache no longer matches the files (new inodes and ctimes): without a refresh every
  // `git status --no-optional-locks` of the copy would hash the whole store again.
  execFileSync('git', ['update-index', '-q', '--refresh'], { cwd: copy })
  return copy
}

/** Rows of the growth table: [label, {size → per-version results}]. */
const results = new Map()
let sizesRun = []
let versions = []
let stateBytes = new Map()

function record(label, size, res) {
  if (!results.has(label)) results.set(label, new Map())
  results.get(label).set(size, res)
}

export async function bench(ctx) {
  const sizes = ctx.sizes ?? DEFAULT_SIZES
  const before = process.env.BENCH_BEFORE
  const bin = process.env.BENCH_AFTER ? join(process.env.BENCH_AFTER, 'bin.js') : ctx.BIN
  const bins = before ? [join(before, 'bin.js'), bin] : [bin]
  versions = before ? ['before', 'after'] : ['']
  sizesRun = sizes
  const rows = []
  for (const n of sizes) {
    const big = n >= 100_000
    ctx.log(`growth: generating ${n} learnings`)
    const { root } = makeStoreRepo(n, { prefix: 'gl-growth-' })
    const roots = bins.map((_b, v) => (v === 0 ? root : copyRepo(root)))
    const clear = (v) => rmSync(join(roots[v] ?? root, '.git', 'learn', 'cache'), { recursive: true, force: true })
    const runs = big ? 3 : 9
    const coldRuns = big ? 2 : 5
    try {
      const m = (label, args, opts) => {
        ctx.log(`growth: ${n} ${label}`)
        const res = measure(bins, args, { cwds: roots, ...opts })
        record(label, n, res)
        for (const [v, r] of res.entries())
          rows.push({
            what: `${label} (${n}${versions[v] ? `, ${versions[v]}` : ''})`,
            ms: r.ms,
            ratio: r.ratio,
            note: `${r.lo.toFixed(2)}–${r.hi.toFixed(2)}×, ${r.mb.toFixed(0)} MB`,
          })
      }
      const pasted = () => FAILURE
      m('search after the cache is gone', ['search', '--json', '-'], {
        input: pasted,
        runs: coldRuns,
        prepare: clear,
        warm: false,
      })
      m('search, cache warm', ['search', '--json', '-'], { input: pasted, runs })
      const failure = (v) =>
        JSON.stringify({
          session_id: 's',
          cwd: roots[v],
          hook_event_name: 'PostToolUseFailure',
          tool_name: 'Bash',
          error: FAILURE,
        })
      m('recall on a failure', ['recall'], { input: failure, runs })
      m('status --json', ['status', '--json'], { runs })
      m('context', ['context'], { runs })
      m('list', ['list'], { runs })
      m('full check (CI, no cache)', ['check', '--json'], { runs: coldRuns, prepare: clear, warm: false })
      const { text } = learningText(n + 1)
      for (const r of roots) {
        writeFileSync(
          join(r, '.learnings', 'pending', 'bench-staged-one.md'),
          text.replace(/^name: .*$/m, 'name: bench-staged-one'),
        )
        execFileSync('git', ['add', '.learnings/pending/bench-staged-one.md'], { cwd: r })
      }
      m('check --staged, one learning', ['check', '--staged'], { runs })
      for (const r of roots) execFileSync('git', ['reset', '-q'], { cwd: r })
      // The local state each version leaves after a search, recall, status and full check from no state at all.
      stateBytes.set(
        n,
        bins.map((bin, v) => {
          const cwd = roots[v] ?? root
          rmSync(join(cwd, '.git', 'learn'), { recursive: true, force: true })
          runOnce([process.execPath, bin, 'search', '--json', '-'], { cwd, input: FAILURE })
          runOnce([process.execPath, bin, 'recall'], { cwd, input: failure(v) })
          runOnce([process.execPath, bin, 'status', '--json'], { cwd })
          runOnce([process.execPath, bin, 'check', '--json'], { cwd })
          return du(join(cwd, '.git', 'learn'))
        }),
      )
    } finally {
      for (const r of roots) rmSync(r, { recursive: true, force: true })
    }
  }
  const largest = Math.max(...sizes)
  if (largest >= 10_000 && !process.env.BENCH_NO_TIER) {
    ctx.log(`growth: a project of 10 learnings with a tier of ${largest}`)
    const host = makeStoreRepo(10, { prefix: 'gl-growth-' })
    const tier = makeTierSource(largest, 1_000_000, 'gl-growth-tier-')
    /** @type {string[]} */
    const hosts = []
    try {
      execFileSync(process.execPath, [bin, 'tier', 'add', 'org', tier], { cwd: host.root, stdio: 'ignore' })
      hosts.push(...bins.map((_b, v) => (v === 0 ? host.root : copyRepo(host.root))))
      const clear = (v) =>
        rmSync(join(hosts[v] ?? host.root, '.git', 'learn', 'cache'), { recursive: true, force: true })
      const label = `search, project + a tier of ${largest}`
      // A project edit: the project's index is rebuilt, the tier's (one per pinned commit) is not.
      let edits = 0
      /** @param {number} v */
      const edit = (v) =>
        writeFileSync(
          join(hosts[v] ?? host.root, '.learnings', 'active', 'bench-edited.md'),
          learningText(2_000_000 + edits++).text.replace(/^name: .*$/m, 'name: bench-edited'),
        )
      const search = ['search', '--json', '-']
      /** @type {[string, string[], { runs: number, prepare?: (v: number) => void, warm?: boolean }][]} */
      const cases = [
        [`${label}, cache gone`, search, { runs: 2, prepare: clear, warm: false }],
        [`${label}, cache warm`, search, { runs: 5 }],
        [`${label}, after a project edit`, search, { runs: 3, prepare: edit }],
        // The SessionStart hook of every agent session in such a project.
        [`context, project + a tier of ${largest}, cache warm`, ['context'], { runs: 5 }],
      ]
      for (const [what, argv, opts] of cases) {
        ctx.log(`growth: ${what}`)
        const res = measure(bins, argv, { cwds: hosts, input: () => FAILURE, ...opts })
        record(what, largest, res)
        for (const [v, r] of res.entries())
          rows.push({
            what: `${what}${versions[v] ? ` (${versions[v]})` : ''}`,
            ms: r.ms,
            ratio: r.ratio,
            note: `${r.lo.toFixed(2)}–${r.hi.toFixed(2)}×, ${r.mb.toFixed(0)} MB`,
          })
      }
    } finally {
      for (const r of new Set([host.root, ...hosts])) rmSync(r, { recursive: true, force: true })
      rmSync(tier, { recursive: true, force: true })
    }
  }
  return rows
}

/** The growth table in markdown: per command, per size, the ratio (range) and peak MB; then growth per decade. */
export function table() {
  const lines = []
  const cols = sizesRun.map((n) => (n >= 1000 ? `${n / 1000}k` : String(n)))
  const growthCols = sizesRun.slice(1).map((_n, i) => `growth ${cols[i]}→${cols[i + 1]}`)
  lines.push(`| work | ${versions[0] ? 'version | ' : ''}${cols.join(' | ')} | ${growthCols.join(' | ')} |`)
  lines.push(
    `| --- | ${versions[0] ? '--- | ' : ''}${cols.map(() => '---').join(' | ')} | ${growthCols.map(() => '---').join(' | ')} |`,
  )
  for (const [label, bySize] of results) {
    versions.forEach((v, vi) => {
      const cells = sizesRun.map((n) => {
        const r = bySize.get(n)?.[vi]
        return r
          ? `${r.ratio.toFixed(1)}× (${r.lo.toFixed(1)}–${r.hi.toFixed(1)}) ${fmtMs(r.ms)}, ${r.mb.toFixed(0)} MB`
          : ''
      })
      const growth = sizesRun.slice(1).map((n, i) => {
        const a = bySize.get(sizesRun[i])?.[vi]
        const b = bySize.get(n)?.[vi]
        return a && b ? `×${(b.ms / a.ms).toFixed(1)}` : ''
      })
      lines.push(`| ${label} | ${v ? `${v} | ` : ''}${cells.join(' | ')} | ${growth.join(' | ')} |`)
    })
  }
  versions.forEach((v, vi) => {
    const state = sizesRun.map((n) => (stateBytes.has(n) ? `${(stateBytes.get(n)[vi] / 1048576).toFixed(1)} MB` : ''))
    lines.push(
      `| local state (.git/learn) | ${v ? `${v} | ` : ''}${state.join(' | ')} | ${growthCols.map(() => '').join(' | ')} |`,
    )
  })
  return lines.join('\n')
}

const fmtMs = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`)
