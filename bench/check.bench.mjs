// Benchmarks of the guards (node bench/run.mjs check, after a build), at 1,000 and 10,000 learnings: the pre-commit
// hook with nothing relevant staged and with one staged learning, the full CI check cold (no frontmatter cache: CI,
// a fresh clone) and warm (the cache under <git-common-dir>/learn/cache from the previous run), and its peak memory.
import { spawnSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { learningText } from './lib.mjs'

const SIZES = (process.env.BENCH_CHECK_SIZES ?? '1000,10000').split(',').map(Number)

/** Peak resident memory (MB) of one run of the bin: a wrapper reports process.resourceUsage().maxRSS at exit. */
function peakRssMb(BIN, cwd, args) {
  const wrapper = `process.argv = [process.argv[0], ${JSON.stringify(BIN)}, ...${JSON.stringify(args)}];
process.on('exit', () => process.stderr.write('MAXRSS ' + process.resourceUsage().maxRSS + '\\n'));
await import(${JSON.stringify(`file://${BIN}`)});`
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', wrapper], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 1 << 28,
  })
  const m = /MAXRSS (\d+)/.exec(r.stderr)
  return m ? Number(m[1]) / 1024 : NaN
}

/** Median of `runs` full checks, each after removing the frontmatter cache. */
function coldCheck(BIN, root, runs) {
  const xs = []
  for (let i = 0; i < runs; i++) {
    rmSync(join(root, '.git', 'learn', 'cache'), { recursive: true, force: true })
    const t = process.hrtime.bigint()
    spawnSync(process.execPath, [BIN, 'check', '--json'], {
      cwd: root,
      stdio: 'ignore',
      env: { ...process.env, NO_COLOR: '1' },
    })
    xs.push(Number(process.hrtime.bigint() - t) / 1e6)
  }
  return xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]
}

export async function bench(ctx) {
  const { timeCommand, makeStoreRepo, BIN, log } = ctx
  const rows = []
  for (const N of SIZES) {
    log(`check: generating a repository of ${N} learnings…`)
    const { root, git } = makeStoreRepo(N)
    const big = N >= 10_000
    try {
      writeFileSync(join(root, 'src.txt'), 'unrelated\n')
      git('add', 'src.txt')
      const idle = timeCommand(process.execPath, [BIN, 'check', '--staged'], { cwd: root, runs: 15 })
      rows.push({
        what: `check --staged, nothing relevant staged (${N} learnings)`,
        ms: idle,
        ratio: idle / ctx.base,
        target: '≤ 1.3× node -e 0',
      })

      const { text } = learningText(N + 1)
      writeFileSync(
        join(root, '.learnings', 'pending', 'bench-staged-one.md'),
        text.replace(/^name: .*$/m, 'name: bench-staged-one'),
      )
      git('add', '.learnings/pending/bench-staged-one.md')
      const one = timeCommand(process.execPath, [BIN, 'check', '--staged'], { cwd: root, runs: 15 })
      rows.push({
        what: `check --staged, one staged learning (${N} learnings)`,
        ms: one,
        ratio: one / ctx.base,
        target: '≤ 2× node -e 0',
      })
      git('reset', '-q')

      const cold = coldCheck(BIN, root, 3)
      rows.push({
        what: `check (full work tree, ${N} learnings), cold: no frontmatter cache`,
        ms: cold,
        target: big ? '< 2000 ms' : undefined,
      })
      const warm = timeCommand(process.execPath, [BIN, 'check', '--json'], { cwd: root, runs: 3 })
      rows.push({
        what: `check (full work tree, ${N} learnings), warm: cache from the previous run`,
        ms: warm,
        target: big ? '< 2000 ms' : undefined,
      })
      rmSync(join(root, '.git', 'learn', 'cache'), { recursive: true, force: true })
      const rssCold = peakRssMb(BIN, root, ['check', '--json'])
      const rssWarm = peakRssMb(BIN, root, ['check', '--json'])
      rows.push({
        what: `check (full) peak RSS, ${N} learnings`,
        ms: undefined,
        note: `${rssCold.toFixed(0)} MB cold, ${rssWarm.toFixed(0)} MB warm (maxRSS)`,
      })
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  }
  return rows
}
