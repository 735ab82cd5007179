// `npm run bench`: runs every bench/*.bench.mjs against the same `node -e 0` baseline and prints one markdown
// table (plus BENCH_JSON=1 for machine output). Each module exports `bench(ctx)` returning rows
// `{what, ms, ratio?, target?, note?}`.
import { readdirSync } from 'node:fs'
import { baseline, interleaved, timeCommand, makeStoreRepo, BIN, ROOT } from './lib.mjs'

// `--sizes 1000,10000` (or `--sizes=…`) chooses the store sizes of the growth bench; other arguments pick bench files.
const argv = process.argv.slice(2)
let sizes
const only = []
for (let i = 0; i < argv.length; i++) {
  const a = argv[i] ?? ''
  if (a === '--sizes' || a.startsWith('--sizes='))
    sizes = ((a === '--sizes' ? argv[++i] : a.slice(8)) ?? '').split(',').map(Number)
  else only.push(a)
}
if (sizes && !sizes.every((n) => Number.isInteger(n) && n > 0))
  throw new Error('--sizes takes positive integers, e.g. --sizes 1000,10000')
const base = baseline(25)
// ctx.base is the baseline measured alongside the latest timeCommand call (the start-up one before any).
const ctx = {
  get base() {
    return interleaved.base ?? base
  },
  timeCommand,
  makeStoreRepo,
  BIN,
  ROOT,
  sizes,
  log: (m) => process.stderr.write(`${m}\n`),
}
const rows = []
const tables = []
for (const file of readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.bench.mjs'))
  .sort()) {
  if (only.length && !only.some((o) => file.includes(o))) continue
  ctx.log(`bench: ${file}`)
  const mod = await import(new URL(file, import.meta.url).href)
  for (const r of await mod.bench(ctx)) rows.push({ file, ...r })
  if (mod.table) tables.push(mod.table())
}
const fmt = (x) => (typeof x === 'number' ? (x >= 100 ? x.toFixed(0) : x.toFixed(1)) : (x ?? ''))
console.log(
  `node ${process.version}, ${process.platform}/${process.arch}; \`node -e 0\` at start: ${base.toFixed(1)} ms (median); each ratio is against \`node -e 0\` runs interleaved with that row's runs\n`,
)
console.log('| benchmark | median ms | × node -e 0 | target | note |')
console.log('| --- | ---: | ---: | --- | --- |')
for (const r of rows)
  console.log(
    `| ${r.what} | ${fmt(r.ms)} | ${typeof r.ratio === 'number' ? r.ratio.toFixed(2) : ''} | ${r.target ?? ''} | ${r.note ?? ''} |`,
  )
for (const t of tables) console.log(`\n${t}`)
// Retrieval quality on the real-world evaluation set beside two baselines (bench/eval-baselines.mjs), not a timing.
let evalBaselines
if (!only.length || only.some((o) => 'eval-baselines'.includes(o))) {
  ctx.log('bench: eval-baselines.mjs')
  const { runBaselines, formatTable } = await import('./eval-baselines.mjs')
  evalBaselines = await runBaselines({ log: ctx.log })
  console.log(`\n${formatTable(evalBaselines)}`)
}
if (process.env.BENCH_JSON) console.log(JSON.stringify({ base, rows, evalBaselines }))
