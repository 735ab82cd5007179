// Lifecycle at scale: prune (cold and warm), status and list on 10,000 learnings with 1,000,000 usage events, and
// search across three tiers of 10,000 learnings each (read from git objects, cached per pinned commit).
import { execFileSync, spawnSync } from 'node:child_process'
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { learningText, makeTierSource } from './lib.mjs'

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
    chunk.push(
      JSON.stringify({
        ts: new Date(start + (i % 300) * 86_400_000).toISOString(),
        kind: kinds[i % kinds.length],
        name,
      }),
    )
    if (chunk.length === 50_000) {
      writeFileSync(file, `${chunk.join('\n')}\n`, { flag: 'a' })
      chunk.length = 0
    }
  }
  if (chunk.length) writeFileSync(file, `${chunk.join('\n')}\n`, { flag: 'a' })
}

/** One cold run: the caches under <common dir>/learn/cache removed first. */
function timeCold(ctx, args, cwd, env, { clear = true } = {}) {
  if (clear) rmSync(join(cwd, '.git', 'learn', 'cache'), { recursive: true, force: true })
  const t = process.hrtime.bigint()
  const r = spawnSync(process.execPath, [ctx.BIN, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  return Number(process.hrtime.bigint() - t) / 1e6
}

export async function bench(ctx) {
  const rows = []
  const env = { GIT_CONFIG_NOSYSTEM: '1' }
  const { root } = ctx.makeStoreRepo(10_000)
  const names = Array.from({ length: 10_000 }, (_, i) => learningText(i).name)
  ctx.log('scale: writing 1,000,000 usage events')
  writeEvents(root, names, 1_000_000)
  const pruneCold = timeCold(ctx, ['prune', '--json'], root, env)
  rows.push({
    what: 'prune --json, cold: 10,000 learnings, 1,000,000 usage events',
    ms: pruneCold,
    note: 'no cache: parses 10,000 files and folds the whole event log once',
  })
  const prune = ctx.timeCommand(process.execPath, [ctx.BIN, 'prune', '--json'], { cwd: root, runs: 3, env })
  rows.push({
    what: 'prune --json, warm: 10,000 learnings, 1,000,000 usage events',
    ms: prune,
    target: '≈ 1 s',
    note: 'feed cache + usage-summary cache + one git log',
  })
  appendFileSync(
    join(root, '.git', 'learn', 'events.jsonl'),
    `${JSON.stringify({ ts: '2026-11-01T00:00:00.000Z', kind: 'match', name: names[1] })}\n`,
  )
  ctx.timeCommand(process.execPath, [ctx.BIN, 'status', '--json'], { cwd: root, runs: 1, env })
  appendFileSync(
    join(root, '.git', 'learn', 'events.jsonl'),
    `${JSON.stringify({ ts: '2026-11-02T00:00:00.000Z', kind: 'helpful', name: names[1] })}\n`,
  )
  const appended = timeCold(ctx, ['status', '--json'], root, env, { clear: false })
  rows.push({
    what: 'status --json after one appended event: 10,000 learnings, 1,000,000 usage events',
    ms: appended,
    note: 'reads only the appended bytes',
  })
  const status = ctx.timeCommand(process.execPath, [ctx.BIN, 'status', '--json'], { cwd: root, runs: 3, env })
  rows.push({ what: 'status --json, warm: 10,000 learnings, 1,000,000 usage events', ms: status })
  const list = ctx.timeCommand(process.execPath, [ctx.BIN, 'list'], { cwd: root, runs: 3, env })
  rows.push({ what: 'list, warm: 10,000 learnings', ms: list, note: 'rows from the feed cache (project-<key>.json)' })
  rmSync(root, { recursive: true, force: true })

  ctx.log('scale: three tiers of 10,000 learnings')
  const host = ctx.makeStoreRepo(10)
  const tiers = [0, 1, 2].map((t) => makeTierSource(10_000, 100_000 * (t + 1)))
  tiers.forEach((url, t) =>
    execFileSync(process.execPath, [ctx.BIN, 'tier', 'add', `t${t}`, url], {
      cwd: host.root,
      stdio: 'ignore',
      env: { ...process.env, ...env },
    }),
  )
  const query = ['search', '--json', 'ECONNREFUSED 127.0.0.1 in postgres']
  const cold = timeCold(ctx, query, host.root, env)
  rows.push({ what: 'search across project + 3 tiers × 10,000, cold (no cache at all)', ms: cold })
  const search = ctx.timeCommand(process.execPath, [ctx.BIN, ...query], { cwd: host.root, runs: 5, env })
  rows.push({ what: 'search across project + 3 tiers × 10,000, warm', ms: search, target: '≤ 250 ms' })
  // A project edit changes the key: the index is rebuilt, the tiers' parsed items come from tier-items-<commit>.
  const edited = join(host.root, '.learnings', 'active', `${learningText(1).name}.md`)
  appendFileSync(edited, '\n')
  rows.push({
    what: 'search across project + 3 tiers × 10,000, after a project edit',
    ms: timeCold(ctx, query, host.root, env, { clear: false }),
    note: 'index rebuilt; tier items cached per pinned commit',
  })
  for (const d of [host.root, ...tiers]) rmSync(d, { recursive: true, force: true })
  return rows
}
