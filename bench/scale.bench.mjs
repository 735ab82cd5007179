// Lifecycle at scale: prune (and status, when present) on 10,000 learnings with 1,000,000 usage events, and
// search across three tiers of 10,000 learnings each (read from git objects, cached per pinned commit).
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { learningText } from './lib.mjs'

/** A repository with `n` active learnings numbered from `offset` (distinct content per tier). */
function tierSource(n, offset) {
  const root = mkdtempSync(join(tmpdir(), 'gl-bench-tier-'))
  const git = (...args) => execFileSync('git', args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 })
  git('init', '-q', '-b', 'main')
  git('config', 'user.name', 'Bench')
  git('config', 'user.email', 'bench@example.com')
  mkdirSync(join(root, '.learnings', 'active'), { recursive: true })
  for (let i = offset; i < offset + n; i++) {
    const { name, text } = learningText(i)
    writeFileSync(join(root, '.learnings', 'active', `${name}.md`), text)
  }
  git('add', '-A')
  git('commit', '-q', '-m', 'tier')
  return root
}

/** 1,000,000 usage events over the learnings of a store repo, written straight to events.jsonl. */
function writeEvents(root, names, count) {
  const dir = join(root, '.git', 'learn')
  mkdirSync(dir, { recursive: true })
  const kinds = ['match', 'match', 'match', 'helpful', 'applied', 'harmful']
  const start = Date.parse('2026-01-01T00:00:00Z')
  const chunk = []
  const file = join(dir, 'events.jsonl')
  writeFileSync(file, '')
  for (let i = 0; i < count; i++) {
    // Only the first half of the names ever gets used, so prune has real work to report.
    const name = names[(i * 7919) % Math.max(1, Math.floor(names.length / 2))]
    chunk.push(JSON.stringify({ ts: new Date(start + (i % 300) * 86_400_000).toISOString(), kind: kinds[i % kinds.length], name }))
    if (chunk.length === 50_000) {
      writeFileSync(file, `${chunk.join('\n')}\n`, { flag: 'a' })
      chunk.length = 0
    }
  }
  if (chunk.length) writeFileSync(file, `${chunk.join('\n')}\n`, { flag: 'a' })
}

export async function bench(ctx) {
  const rows = []
  const { root } = ctx.makeStoreRepo(10_000)
  const names = Array.from({ length: 10_000 }, (_, i) => learningText(i).name)
  ctx.log('scale: writing 1,000,000 usage events')
  writeEvents(root, names, 1_000_000)
  const env = { GIT_CONFIG_NOSYSTEM: '1' }
  const prune = ctx.timeCommand(process.execPath, [ctx.BIN, 'prune', '--json'], { cwd: root, runs: 3, env })
  rows.push({ what: 'prune --json: 10,000 learnings, 1,000,000 usage events', ms: prune, note: 'report only; streams the event log once' })
  if (existsSync(join(ctx.ROOT, 'dist', 'cli', 'commands', 'status.js'))) {
    const status = ctx.timeCommand(process.execPath, [ctx.BIN, 'status', '--json'], { cwd: root, runs: 3, env })
    rows.push({ what: 'status --json: 10,000 learnings, 1,000,000 usage events', ms: status })
  }
  rmSync(root, { recursive: true, force: true })

  if (existsSync(join(ctx.ROOT, 'dist', 'cli', 'commands', 'search.js'))) {
    ctx.log('scale: three tiers of 10,000 learnings')
    const host = ctx.makeStoreRepo(10)
    const tiers = [0, 1, 2].map((t) => tierSource(10_000, 100_000 * (t + 1)))
    tiers.forEach((url, t) => execFileSync(process.execPath, [ctx.BIN, 'tier', 'add', `t${t}`, url], { cwd: host.root, stdio: 'ignore', env: { ...process.env, ...env } }))
    const search = ctx.timeCommand(process.execPath, [ctx.BIN, 'search', '--json', 'ECONNREFUSED 127.0.0.1 in postgres'], { cwd: host.root, runs: 5, env })
    rows.push({ what: 'search across 3 tiers × 10,000 learnings (warm: tier cache per pinned commit)', ms: search, target: '≤ 250 ms' })
    for (const d of [host.root, ...tiers]) rmSync(d, { recursive: true, force: true })
  }
  return rows
}
