// Agents side by side in worktrees of one clone: a warm search of a pasted failure and the SessionStart `context`,
// run in two worktrees in turn (the main one, and a linked one on a branch with one more learning: another cache
// key), two builds against each other and `node -e 0`:
//
//   node bench/worktrees-ab.mjs --before <dist> --after <dist> [--size 10000] [--rounds 9]
//
// Each build runs in its own copy of one generated store (bench/lib.mjs makeStoreRepo; STORE_<n>=<dir> copies one
// instead), its cache removed and warmed once in each worktree first. Each round runs, in both worktrees in turn,
// `node -e 0` then the command; printed per build and row: the median ratio to the `node -e 0` run just before it,
// its range, and the median time.
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { FAILURE, argvOptions, makeStoreRepo } from './lib.mjs'

const opt = argvOptions()
const { before, after } = opt
if (!before || !after) throw new Error('usage: node bench/worktrees-ab.mjs --before <dist> --after <dist> [--size n]')
const size = Number(opt['size'] ?? 10000)
const rounds = Number(opt['rounds'] ?? 9)

const tmp = mkdtempSync(join(tmpdir(), 'gl-bench-wt-'))
const git = (cwd, ...args) => execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], { cwd, stdio: 'pipe' })

/** A copy of the store, and a linked worktree of it on a branch with one more learning. */
function worktrees(name) {
  const main = join(tmp, name)
  const given = process.env[`STORE_${size}`]
  if (given) cpSync(given, main, { recursive: true })
  else {
    const made = makeStoreRepo(size, { prefix: 'gl-bench-wt-store-' }).root
    cpSync(made, main, { recursive: true })
    rmSync(made, { recursive: true, force: true })
  }
  git(main, 'update-index', '--refresh')
  const linked = `${main}-linked`
  git(main, 'worktree', 'add', '-q', '-b', 'linked', linked)
  const active = join(linked, '.learnings', 'active')
  const first = readdirSync(active).find((f) => f.endsWith('.md'))
  if (!first) throw new Error(`no active learning in ${main}`)
  const text = readFileSync(join(active, first), 'utf8').replace(/^name: .*$/m, 'name: only-on-the-linked-branch')
  writeFileSync(join(active, 'only-on-the-linked-branch.md'), text)
  git(linked, 'add', '.learnings/active/only-on-the-linked-branch.md')
  git(linked, 'commit', '-qm', 'one more learning')
  return [main, linked]
}

const ms = (cmd, args, cwd, input) => {
  const t = process.hrtime.bigint()
  const r = spawnSync(cmd, args, { cwd, input, stdio: ['pipe', 'pipe', 'pipe'] })
  if (r.status !== 0) throw new Error(`${args.join(' ')} in ${cwd}: ${r.stderr}`)
  return Number(process.hrtime.bigint() - t) / 1e6
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const ROWS = {
  search: { args: ['search', '--json', '-'], input: FAILURE },
  context: { args: ['context'], input: undefined },
}

try {
  const trees = { before: worktrees('before'), after: worktrees('after') }
  const bins = { before: resolve(before, 'bin.js'), after: resolve(after, 'bin.js') }
  console.log(`worktrees side by side, ${size} learnings, ${rounds} rounds of both worktrees in turn`)
  console.log('| row | build | × node -e 0 (range) | median ms |\n| --- | --- | --- | --- |')
  for (const [row, { args, input }] of Object.entries(ROWS))
    for (const build of ['before', 'after']) {
      const [main, linked] = trees[build]
      rmSync(join(main, '.git', 'learn', 'cache'), { recursive: true, force: true })
      for (const cwd of [main, linked]) ms(process.execPath, [bins[build], ...args], cwd, input)
      const ratios = []
      const times = []
      for (let i = 0; i < rounds; i++)
        for (const cwd of [main, linked]) {
          const node = ms(process.execPath, ['-e', '0'], cwd)
          const t = ms(process.execPath, [bins[build], ...args], cwd, input)
          ratios.push(t / node)
          times.push(t)
        }
      const r = (x) => x.toFixed(2)
      console.log(
        `| ${row} | ${build} | ${r(median(ratios))}× (${r(Math.min(...ratios))}–${r(Math.max(...ratios))}) | ${median(times).toFixed(0)} |`,
      )
    }
} finally {
  rmSync(tmp, { recursive: true, force: true })
}
