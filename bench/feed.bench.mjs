// Feeding learnings back, on generated stores of 1,000 and 10,000 learnings: the first build of the cache (no cache
// at all), the rebuild after one learning changed (that file parsed, the others taken from the last rebuild's parse:
// src/adapters/feed/reuse-file.ts), then with the cache current: a typed search, a pasted failure, the recall hook on
// a failure and on a success payload, status and context. Each is a new process.
import { appendFileSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { FAILURE } from './lib.mjs'

export async function bench(ctx) {
  const { timeCommand, makeStoreRepo, BIN, log } = ctx
  const rows = []
  const node = process.execPath
  for (const n of [1000, 10000]) {
    const k = `${n / 1000}k`
    log(`feed: generating ${n} learnings`)
    const { root } = makeStoreRepo(n)
    const run = (args, input) => timeCommand(node, [BIN, ...args], { cwd: root, runs: 9, input })
    const once = (args) => {
      const t0 = process.hrtime.bigint()
      const r = spawnSync(node, [BIN, ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] })
      if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`)
      return Number(process.hrtime.bigint() - t0) / 1e6
    }
    const ratioRow = (what, ms, target, limit) => ({
      what,
      ms,
      ratio: ms / ctx.base,
      target,
      note: ms / ctx.base <= limit ? 'met' : 'NOT met',
    })
    // The search and status target is an absolute time on the bench machine, not a ratio.
    const msRow = (what, ms, limit) => ({
      what,
      ms,
      ratio: ms / ctx.base,
      target: `≤ ${limit} ms`,
      note: ms <= limit ? 'met' : 'NOT met',
    })

    rows.push({
      what: `search ${k}: first build (no cache: every file parsed, index written)`,
      ms: once(['search', 'warm up']),
      note: 'once per clone',
    })
    const active = join(root, '.learnings', 'active')
    appendFileSync(join(active, readdirSync(active)[0] ?? ''), '\nOne more line.\n')
    rows.push({
      what: `search ${k}: after one learning changed (one file parsed, the rest from the last parse, index rebuilt)`,
      ms: once(['search', 'warm up']),
      note: 'once per store change',
    })

    const search = run(['search', '--json', 'ECONNREFUSED postgres redis'])
    rows.push(msRow(`search ${k}: typed query, cache current`, search, 150))
    rows.push(msRow(`search ${k}: pasted failure on stdin`, run(['search', '--json', '-'], FAILURE), 150))

    const failure = JSON.stringify({
      session_id: 's',
      cwd: root,
      hook_event_name: 'PostToolUseFailure',
      tool_name: 'Bash',
      error: FAILURE,
    })
    const success = JSON.stringify({
      session_id: 's',
      cwd: root,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_response: { stdout: 'Tests 3 passed', stderr: '', interrupted: false },
    })
    rows.push(ratioRow(`recall ${k}: failure payload`, run(['recall'], failure), '≤ 2× node -e 0', 2))
    rows.push(ratioRow(`recall ${k}: success payload (no-failure path)`, run(['recall'], success), '≤ 2× node -e 0', 2))
    rows.push(msRow(`status ${k} --json`, run(['status', '--json']), 150))
    rows.push({ what: `context ${k}`, ms: run(['context']) })
    rmSync(root, { recursive: true, force: true })
  }
  return rows
}
