// Benchmarks of the guards (node bench/run.mjs check, after a build): the pre-commit hook in a repository of
// 10,000 learnings, with nothing relevant staged and with one staged learning, the full CI check, and its peak memory.
import { spawnSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { learningText } from './lib.mjs'

const N = 10_000

/** Peak resident memory (MB) of one run of the bin: a wrapper reports process.resourceUsage().maxRSS at exit. */
function peakRssMb(BIN, cwd, args) {
  const wrapper = `process.argv = [process.argv[0], ${JSON.stringify(BIN)}, ...${JSON.stringify(args)}];
process.on('exit', () => process.stderr.write('MAXRSS ' + process.resourceUsage().maxRSS + '\\n'));
await import(${JSON.stringify(`file://${BIN}`)});`
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', wrapper], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 1 << 28 })
  const m = /MAXRSS (\d+)/.exec(r.stderr)
  return m ? Number(m[1]) / 1024 : NaN
}

export async function bench({ base, timeCommand, makeStoreRepo, BIN, log }) {
  log(`check: generating a repository of ${N} learnings…`)
  const { root, git } = makeStoreRepo(N)
  const rows = []
  try {
    writeFileSync(join(root, 'src.txt'), 'unrelated\n')
    git('add', 'src.txt')
    const idle = timeCommand(process.execPath, [BIN, 'check', '--staged'], { cwd: root, runs: 15 })
    rows.push({ what: `check --staged, nothing relevant staged (${N} learnings)`, ms: idle, ratio: idle / base, target: '≤ 1.3× node -e 0' })

    const { text } = learningText(N + 1)
    writeFileSync(join(root, '.learnings', 'pending', 'bench-staged-one.md'), text.replace(/^name: .*$/m, 'name: bench-staged-one'))
    git('add', '.learnings/pending/bench-staged-one.md')
    const one = timeCommand(process.execPath, [BIN, 'check', '--staged'], { cwd: root, runs: 15 })
    rows.push({ what: `check --staged, one staged learning (${N} learnings)`, ms: one, ratio: one / base, target: '≤ 2× node -e 0' })
    git('reset', '-q')

    const full = timeCommand(process.execPath, [BIN, 'check', '--json'], { cwd: root, runs: 3 })
    rows.push({ what: `check (full work tree, ${N} learnings)`, ms: full, target: '< 2000 ms' })
    const rss = peakRssMb(BIN, root, ['check', '--json'])
    rows.push({ what: `check (full) peak RSS, ${N} learnings`, ms: undefined, note: `${rss.toFixed(0)} MB maxRSS` })
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
  return rows
}
