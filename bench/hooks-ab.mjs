// The two hook paths of issue 16 (`check --staged` with one staged learning, `recall` on a failure), and with --rows
// a warm `search` of a pasted failure (what an agent runs when it looks) and the warm SessionStart `context` and
// `status`, a search after the cache is gone (`cold`), a search after one learning changed (`changed`: each round
// appends a line to another learning first) and a search in a project of 10 learnings after `tier update` moved the
// pin of its tier of n learnings (`tier`: each round the tier commits one edited learning, and each build's copy of the
// project pins it, untimed), two builds against each other and `node -e 0`, at each size, on a host other sessions
// share:
//
//   node bench/hooks-ab.mjs --before <dist> --after <dist> [--sizes 1000,10000,100000] [--rounds 61] [--gate 3]
//     [--rows staged,recall,search,context,status,cold,changed,tier]
//
// Each round runs `node -e 0`, then the two builds (in alternating order), each in its own copy of the same generated
// store (bench/lib.mjs makeStoreRepo, staged and warmed as bench/growth.bench.mjs does), and records the wall time, the
// CPU of the run (its process tree, from this process's children times) and the CPU the rest of the host used meanwhile
// (/proc/stat less the run's own). With --gate N a round waits (up to N s) for a 200 ms window in which the host was at
// least 85 % idle. Printed per row: medians and quartiles of all rounds, and of the quiet rounds (the rest of the host
// under 30 ms of CPU during each run of the round); the paired difference after − before and how often after won.
// Linux only (/proc). A store of `n` may be given as STORE_<n>=<dir> (copied, never changed) instead of generated.
import { execFileSync, spawnSync } from 'node:child_process'
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FAILURE, argvOptions, learningText, makeStoreRepo } from './lib.mjs'

const opt = argvOptions()
const { before, after } = opt
if (!before || !after) throw new Error('usage: node bench/hooks-ab.mjs --before <dist> --after <dist> [--sizes …]')
// A build that is not there fails at once, in about the time of `node -e 0`: a row of ratios near 1 measuring nothing.
for (const dist of [before, after])
  if (!existsSync(join(dist, 'bin.js')))
    throw new Error(`${dist}/bin.js is missing: --before and --after name dist folders`)
const sizes = (opt['sizes'] ?? '1000,10000,100000').split(',').map(Number)
const rounds = Number(opt['rounds'] ?? 61)
const gate = Number(opt['gate'] ?? 3)
const QUIET_MS = 30
/** The rows to measure (--rows: each size's `check --staged`, recall, and warm search, context and status). */
const rows = (opt['rows'] ?? 'staged,recall').split(',')
for (const r of rows)
  if (!['staged', 'recall', 'search', 'context', 'status', 'cold', 'changed', 'tier'].includes(r))
    throw new Error(`--rows: no row "${r}"`)

/** @param {string} root */
function copyRepo(root) {
  const copy = mkdtempSync(join(tmpdir(), 'gl-hooks-ab-'))
  execFileSync('cp', ['-a', `${root}/.`, copy])
  execFileSync('git', ['update-index', '-q', '--refresh'], { cwd: copy })
  return copy
}

const jiffies = () => readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? []
/** CPU ms the whole host used so far (user, nice, system, irq, softirq, steal). */
const hostBusy = () => {
  const f = jiffies()
  return ((f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0) + (f[5] ?? 0) + (f[6] ?? 0) + (f[7] ?? 0)) * 10
}
/** CPU ms of this process's waited-for children. */
const childCpu = () => {
  const s = readFileSync('/proc/self/stat', 'utf8')
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ')
  return (Number(f[13]) + Number(f[14])) * 10
}
const sleep = (/** @type {number} */ ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
function waitQuiet() {
  for (let w = 0; w < gate * 5; w++) {
    const a = jiffies()
    sleep(200)
    const b = jiffies()
    const idle = (b[3] ?? 0) + (b[4] ?? 0) - (a[3] ?? 0) - (a[4] ?? 0)
    const all = b.reduce((x, y) => x + y, 0) - a.reduce((x, y) => x + y, 0)
    if (idle / Math.max(1, all) > 0.85) return
  }
}

/** @param {{ argv: string[], cwd: string, input?: string, prepare?: () => void }} run */
function once(run) {
  run.prepare?.()
  const [b0, c0] = [hostBusy(), childCpu()]
  const t = process.hrtime.bigint()
  const r = spawnSync(run.argv[0] ?? 'node', run.argv.slice(1), {
    cwd: run.cwd,
    input: run.input ?? '',
    stdio: ['pipe', 'ignore', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', GIT_CONFIG_NOSYSTEM: '1' },
  })
  const ms = Number(process.hrtime.bigint() - t) / 1e6
  if (r.status !== 0 && r.status !== 1) throw new Error(`${run.argv.join(' ')} exited ${r.status}: ${r.stderr}`)
  const cpu = childCpu() - c0
  return { ms, cpu, others: Math.max(0, hostBusy() - b0 - cpu) }
}

const sorted = (/** @type {number[]} */ v) => [...v].sort((a, b) => a - b)
const q = (/** @type {number[]} */ v, /** @type {number} */ p) => sorted(v)[Math.floor((v.length - 1) * p)] ?? NaN
const f1 = (/** @type {number} */ x) => x.toFixed(1)
const f2 = (/** @type {number} */ x) => x.toFixed(2)

/**
 * @param {string} label
 * @param {{ argv: string[], cwd: string, input?: string, prepare?: () => void }[]} runs node -e 0, before, after
 */
function measure(label, runs) {
  /** @type {{ ms: number, cpu: number, others: number }[][]} */
  const got = runs.map(() => [])
  for (let i = 0; i < rounds; i++) {
    if (gate) waitQuiet()
    for (const j of i % 2 ? [0, 2, 1] : [0, 1, 2]) got[j]?.push(once(/** @type {any} */ (runs[j])))
  }
  const quiet = [...Array(rounds).keys()].filter((i) => got.every((g) => (g[i]?.others ?? 0) < QUIET_MS))
  for (const [what, idx] of /** @type {[string, number[]][]} */ ([
    ['all', [...Array(rounds).keys()]],
    ['quiet', quiet],
  ])) {
    if (!idx.length) {
      console.log(`| ${label} | ${what}: 0 rounds |`)
      continue
    }
    const col = (/** @type {number} */ j) => {
      const ms = idx.map((i) => got[j]?.[i]?.ms ?? NaN)
      const ratio = idx.map((i) => (got[j]?.[i]?.ms ?? NaN) / (got[0]?.[i]?.ms ?? NaN))
      const cpu = idx.map((i) => got[j]?.[i]?.cpu ?? NaN)
      return `${f2(q(ratio, 0.5))}× (${f2(q(ratio, 0.25))}–${f2(q(ratio, 0.75))}) ${f1(q(ms, 0.5))} ms, CPU ${q(cpu, 0.5)} ms`
    }
    const d = idx.map((i) => (got[2]?.[i]?.ms ?? NaN) - (got[1]?.[i]?.ms ?? NaN))
    const node = idx.map((i) => got[0]?.[i]?.ms ?? NaN)
    console.log(
      `| ${label} | ${what} (${idx.length}) | ${f1(q(node, 0.5))} ms | ${col(1)} | ${col(2)} | ${f1(q(d, 0.5))} ms (${f1(q(d, 0.25))} to ${f1(q(d, 0.75))}), after faster in ${d.filter((x) => x < 0).length}/${d.length} |`,
    )
  }
}

console.log('| row | rounds | node -e 0 | before | after | after − before, paired |')
console.log('| --- | --- | ---: | --- | --- | --- |')
for (const n of sizes) {
  const given = process.env[`STORE_${n}`]
  const root = given ?? makeStoreRepo(n, { prefix: 'gl-hooks-ab-' }).root
  const bins = [join(before, 'bin.js'), join(after, 'bin.js')]
  // The copies a row needs, and only those (a copy of 100,000 learnings is most of a minute).
  const warm = rows.some((r) => ['staged', 'recall', 'search', 'context', 'status'].includes(r))
  const recall = warm ? bins.map(() => copyRepo(root)) : []
  const staged = warm ? bins.map(() => copyRepo(root)) : []
  const changing = rows.some((r) => r === 'cold' || r === 'changed') ? bins.map(() => copyRepo(root)) : []
  try {
    const failure = (/** @type {string} */ cwd) =>
      JSON.stringify({ session_id: 's', cwd, hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', error: FAILURE })
    const { text } = learningText(n + 1)
    bins.forEach((bin, v) => {
      if (!warm) return
      // Warm, as the growth bench leaves them: a search builds the cache (and its directory) in each copy.
      for (const cwd of [recall[v], staged[v]])
        once({
          argv: [process.execPath, bin, 'search', '--json', '-'],
          cwd: /** @type {string} */ (cwd),
          input: FAILURE,
        })
      once({
        argv: [process.execPath, bin, 'recall'],
        cwd: /** @type {string} */ (recall[v]),
        input: failure(/** @type {string} */ (recall[v])),
      })
      const s = /** @type {string} */ (staged[v])
      writeFileSync(
        join(s, '.learnings', 'pending', 'bench-staged-one.md'),
        text.replace(/^name: .*$/m, 'name: bench-staged-one'),
      )
      execFileSync('git', ['add', '.learnings/pending/bench-staged-one.md'], { cwd: s })
    })
    const node = { argv: [process.execPath, '-e', '0'], cwd: tmpdir() }
    if (rows.includes('search'))
      measure(`search, cache warm (${n})`, [
        node,
        ...bins.map((bin, v) => ({
          argv: [process.execPath, bin, 'search', '--json', '-'],
          cwd: /** @type {string} */ (recall[v]),
          input: FAILURE,
        })),
      ])
    /** @type {[string, string[]][]} */
    const warmRows = [
      ['context', ['context']],
      ['status', ['status', '--json']],
    ]
    for (const [row, argv] of warmRows)
      if (rows.includes(row))
        measure(`${row}, cache warm (${n})`, [
          node,
          ...bins.map((bin, v) => ({
            argv: [process.execPath, bin, ...argv],
            cwd: /** @type {string} */ (recall[v]),
          })),
        ])
    if (rows.includes('staged'))
      measure(`check --staged, one learning (${n})`, [
        node,
        ...bins.map((bin, v) => ({
          argv: [process.execPath, bin, 'check', '--staged'],
          cwd: /** @type {string} */ (staged[v]),
        })),
      ])
    if (rows.includes('recall'))
      measure(`recall on a failure (${n})`, [
        node,
        ...bins.map((bin, v) => {
          const cwd = /** @type {string} */ (recall[v])
          return { argv: [process.execPath, bin, 'recall'], cwd, input: failure(cwd) }
        }),
      ])
    if (rows.includes('cold'))
      measure(`search after the cache is gone (${n})`, [
        node,
        ...bins.map((bin, v) => {
          const cwd = /** @type {string} */ (changing[v])
          const prepare = () => rmSync(join(cwd, '.git', 'learn'), { recursive: true, force: true })
          return { argv: [process.execPath, bin, 'search', '--json', '-'], cwd, input: FAILURE, prepare }
        }),
      ])
    if (rows.includes('changed')) {
      bins.forEach((bin, v) =>
        once({
          argv: [process.execPath, bin, 'search', '--json', '-'],
          cwd: /** @type {string} */ (changing[v]),
          input: FAILURE,
        }),
      )
      measure(`search after one learning changed (${n})`, [
        node,
        ...bins.map((bin, v) => {
          const cwd = /** @type {string} */ (changing[v])
          const active = join(cwd, '.learnings', 'active')
          const names = readdirSync(active).sort()
          let edits = 0
          // Another learning each round, as a pull that brings one edit: the cache's key moves, one file differs.
          const prepare = () =>
            appendFileSync(join(active, names[(edits++ * 7919) % names.length] ?? ''), '\nEdited.\n')
          return { argv: [process.execPath, bin, 'search', '--json', '-'], cwd, input: FAILURE, prepare }
        }),
      ])
    }
    if (rows.includes('tier')) {
      // The generated store as the tier (its active learnings), a project of 10 learnings pinning it in each copy.
      const tier = copyRepo(root)
      const project = makeStoreRepo(10, { prefix: 'gl-hooks-ab-project-' }).root
      const hosts = bins.map(() => copyRepo(project))
      changing.push(tier, project, ...hosts)
      const updater = /** @type {string} */ (bins[1])
      const git = (/** @type {string} */ cwd, /** @type {string[]} */ args) => execFileSync('git', args, { cwd })
      bins.forEach((bin, v) => {
        const cwd = /** @type {string} */ (hosts[v])
        execFileSync(process.execPath, [updater, 'tier', 'add', 'org', tier], { cwd, stdio: 'ignore' })
        once({ argv: [process.execPath, bin, 'search', '--json', '-'], cwd, input: FAILURE })
      })
      const active = join(tier, '.learnings', 'active')
      const names = readdirSync(active).sort()
      let commits = 0
      const pinned = bins.map(() => 0)
      measure(`search after the tier's pin moved (${n})`, [
        node,
        ...bins.map((bin, v) => {
          const cwd = /** @type {string} */ (hosts[v])
          // The round's tier commit (made by whichever build runs first in it), pinned in this build's copy.
          const prepare = () => {
            pinned[v] = (pinned[v] ?? 0) + 1
            if ((pinned[v] ?? 0) > commits) {
              appendFileSync(join(active, names[(commits++ * 7919) % names.length] ?? ''), '\nEdited.\n')
              git(tier, ['commit', '-qam', `edit ${commits}`])
            }
            execFileSync(process.execPath, [updater, 'tier', 'update', 'org'], { cwd, stdio: 'ignore' })
          }
          return { argv: [process.execPath, bin, 'search', '--json', '-'], cwd, input: FAILURE, prepare }
        }),
      ])
    }
  } finally {
    for (const r of [...recall, ...staged, ...changing]) rmSync(r, { recursive: true, force: true })
    if (!given) rmSync(root, { recursive: true, force: true })
  }
}
