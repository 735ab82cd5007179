// `git learn import` of what `export` writes: 10,000 entries into a fresh repository, one atomic commit. The
// target (issue 16 item 2): within 30× of `node -e 0` per 1,000 entries. Each run starts from a fresh copy of the
// target repository (an import is a commit: a second run into the same repository would only skip).
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const N = Number(process.env.BENCH_IMPORT_N ?? 10_000)

export async function bench(ctx) {
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', NO_COLOR: '1' }
  ctx.log(`import: a store of ${N} to export`)
  const source = ctx.makeStoreRepo(N, { pendingEvery: N + 1 })
  const bundle = join(mkdtempSync(join(tmpdir(), 'gl-bench-bundle-')), 'bundle.json')
  const ex = spawnSync(process.execPath, [ctx.BIN, 'export', '--out', bundle, '--keep-code'], {
    cwd: source.root,
    env,
    encoding: 'utf8',
  })
  if (ex.status !== 0) throw new Error(`export failed: ${ex.stderr}`)
  const target = ctx.makeStoreRepo(0)
  const runs = 3
  const xs = []
  const bs = []
  let added = 0
  for (let i = 0; i < runs; i++) {
    const copy = mkdtempSync(join(tmpdir(), 'gl-bench-import-'))
    cpSync(target.root, copy, { recursive: true })
    bs.push(ctx.timeCommand(process.execPath, ['-e', '0'], { runs: 3, pair: false }))
    const t = process.hrtime.bigint()
    const r = spawnSync(process.execPath, [ctx.BIN, 'import', bundle, '--json'], {
      cwd: copy,
      env,
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    })
    xs.push(Number(process.hrtime.bigint() - t) / 1e6)
    if (r.status !== 0) throw new Error(`import failed: ${r.stderr}`)
    added = JSON.parse(r.stdout).entries.filter((e) => e.action === 'added').length
    rmSync(copy, { recursive: true, force: true })
  }
  const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]
  const ms = median(xs)
  const base = median(bs)
  const per1000 = ms / (N / 1000) / base
  for (const d of [source.root, target.root, join(bundle, '..')]) rmSync(d, { recursive: true, force: true })
  return [
    {
      what: `import of an export of ${N.toLocaleString('en')} learnings (one commit, ${added.toLocaleString('en')} added)`,
      ms,
      ratio: ms / base,
      target: '≤ 30× per 1,000 entries',
      note: `${per1000.toFixed(1)}× node -e 0 per 1,000 entries`,
    },
  ]
}
