// Observation benchmarks: one `git learn observe` call against `node -e 0` (target ≤ 1.2×), throughput with 8
// concurrent writers, and `git learn retro` over 1,000,000 generated observations (time and peak memory).
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { rng } from './lib.mjs'

function scratchRepo() {
  const root = mkdtempSync(join(tmpdir(), 'gl-bench-observe-'))
  const git = (...a) => execFileSync('git', a, { cwd: root, stdio: 'ignore' })
  git('init', '-q', '-b', 'main')
  git('config', 'user.name', 'Bench')
  git('config', 'user.email', 'bench@example.com')
  git('config', 'commit.gpgsign', 'false')
  writeFileSync(join(root, 'README.md'), '# bench\n')
  git('add', '-A')
  git('commit', '-q', '-m', 'initial')
  return root
}

const PAYLOAD = JSON.stringify({
  session_id: '8c1f2d3e-1111-4a5b-9c7d-000000000001',
  transcript_path: '/home/dev/.claude/projects/p/s.jsonl',
  cwd: '/home/dev/shop',
  permission_mode: 'default',
  hook_event_name: 'PostToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'npx vitest run test/api.test.ts', description: 'run the tests' },
  tool_response: {
    stdout: ' ✓ test/api.test.ts (14 tests) 41ms\n\n Test Files  1 passed (1)\n      Tests  14 passed (14)\n'.repeat(
      20,
    ),
    stderr: '',
    interrupted: false,
  },
  tool_use_id: 'toolu_01ABC',
})

/** A Claude Code transcript (2.1.x shape) of one prompt and `calls` Bash calls, each with a ~1 KB result. */
function claudeTranscript(file, calls) {
  const session = '8c1f2d3e-1111-4a5b-9c7d-000000000002'
  const t0 = Date.UTC(2026, 10, 20, 12)
  let n = 0
  const line = (type, content, extra = {}) =>
    JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      type,
      uuid: `u-${n}`,
      timestamp: new Date(t0 + n++ * 1000).toISOString(),
      sessionId: session,
      cwd: '/home/dev/shop',
      message: { role: type, content },
      ...extra,
    })
  const out = [line('user', 'run the tests and fix what fails')]
  for (let i = 0; i < calls; i++) {
    const id = `toolu_${String(i).padStart(4, '0')}`
    const stdout = ` ✓ test/api-${i}.test.ts (14 tests) 41ms\n`.repeat(20)
    out.push(
      line('assistant', [
        {
          type: 'tool_use',
          id,
          name: 'Bash',
          input: { command: `npx vitest run test/api-${i}.test.ts`, description: 'run the tests' },
        },
      ]),
    )
    out.push(
      line('user', [{ type: 'tool_result', tool_use_id: id, content: stdout }], {
        toolUseResult: { stdout, stderr: '', interrupted: false, isImage: false },
      }),
    )
  }
  writeFileSync(file, `${out.join('\n')}\n`)
  return session
}

/** Median ms of `git learn capture` reading the whole transcript (its read state and the log removed before each run),
 * interleaved with `node -e 0`; the medians of both. */
function timeCapture(bin, root, payload, runs) {
  const learn = join(root, '.git', 'learn')
  const once = (args, input) => {
    const t = process.hrtime.bigint()
    const r = spawnSync(process.execPath, args, { cwd: root, input, stdio: ['pipe', 'ignore', 'pipe'] })
    if (r.status !== 0) throw new Error(`capture exited ${r.status}: ${r.stderr}`)
    return Number(process.hrtime.bigint() - t) / 1e6
  }
  const xs = []
  const bs = []
  for (let i = 0; i <= runs; i++) {
    rmSync(learn, { recursive: true, force: true })
    const x = once([bin, 'capture'], payload)
    const b = once(['-e', '0'])
    if (i === 0) continue // warm-up
    xs.push(x)
    bs.push(b)
  }
  const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]
  return { ms: median(xs), base: median(bs) }
}

function runWriters(bin, cwd, writers, each) {
  const script = `const { spawnSync } = require('node:child_process'); const [bin, p, n] = process.argv.slice(1);
    for (let i = 0; i < Number(n); i++) spawnSync(process.execPath, [bin, 'observe'], { input: p })`
  return Promise.all(
    Array.from(
      { length: writers },
      () =>
        new Promise((done) =>
          spawn(process.execPath, ['-e', script, bin, PAYLOAD, String(each)], { cwd, stdio: 'ignore' }).on(
            'exit',
            done,
          ),
        ),
    ),
  )
}

const TOOLS = ['Read', 'Grep', 'Glob', 'Edit', 'Bash', 'Bash', 'Bash', 'Write']
const CMDS = [
  'npm test',
  'pnpm lint',
  'git status',
  'git diff',
  'npx vitest run test/a.test.ts',
  'rg -n foo src',
  'npm run build',
  'ls -la',
  'git commit -am wip',
  'cargo test',
]
const PROMPTS = ['now add a test for it', 'no, use pnpm here', 'looks good', "don't touch the lockfile", 'continue']

/** Write `n` observation lines (sessions of 200 events) into archive files of 100,000 lines and a live file. */
async function generateObservations(stateDir, n) {
  const rand = rng(7)
  const archive = join(stateDir, 'observations.archive')
  mkdirSync(archive, { recursive: true })
  let out
  const t0 = Date.UTC(2026, 10, 1)
  for (let i = 0; i < n; i++) {
    if (i % 100000 === 0) {
      if (out) await new Promise((r) => out.end(r))
      const last = i + 100000 >= n
      out = createWriteStream(
        last ? join(stateDir, 'observations.jsonl') : join(archive, `observations-${String(i).padStart(8, '0')}.jsonl`),
      )
    }
    const session = `s${Math.floor(i / 200)}`
    const ts = new Date(t0 + i * 1000).toISOString()
    let rec
    if (rand() < 0.03)
      rec = {
        v: 1,
        ts,
        agent: 'claude-code',
        session,
        event: 'UserPromptSubmit',
        tool: null,
        tool_use_id: null,
        input: PROMPTS[Math.floor(rand() * PROMPTS.length)],
        ok: null,
        cwd: '/r',
      }
    else {
      const tool = TOOLS[Math.floor(rand() * TOOLS.length)]
      const ok = rand() > 0.12
      const input =
        tool === 'Bash'
          ? { command: CMDS[Math.floor(rand() * CMDS.length)] }
          : { file_path: `/r/src/f${Math.floor(rand() * 50)}.ts` }
      rec = {
        v: 1,
        ts,
        agent: 'claude-code',
        session,
        event: ok ? 'PostToolUse' : 'PostToolUseFailure',
        tool,
        tool_use_id: `t${i}`,
        ok,
        cwd: '/r',
        input,
        ...(ok
          ? { output: { stdout: 'ok' } }
          : { error: `Exit code 1\nError: E${Math.floor(rand() * 20)} failed in module m${Math.floor(rand() * 5)}` }),
      }
    }
    const stream = /** @type {import('node:fs').WriteStream} */ (out) // opened at i = 0
    if (!stream.write(`${JSON.stringify(rec)}\n`)) await new Promise((r) => stream.once('drain', () => r(undefined)))
  }
  await new Promise((r) => out.end(r))
}

export async function bench(ctx) {
  const rows = []
  const root = scratchRepo()
  try {
    ctx.log('observe: one call')
    const one = ctx.timeCommand(process.execPath, [ctx.BIN, 'observe'], { cwd: root, input: PAYLOAD, runs: 31 })
    rows.push({
      what: 'observe: one PostToolUse event (2 KB payload)',
      ms: one,
      ratio: one / ctx.base,
      target: '≤ 1.2× node -e 0',
    })

    // The hook never reads the store: a repository of 1,000 learnings (and a config.yaml) costs the same.
    ctx.log('observe: one call in a repository of 1,000 learnings')
    const store = ctx.makeStoreRepo(1000)
    try {
      writeFileSync(join(store.root, '.learnings', 'config.yaml'), 'observe:\n  max_field_bytes: 4096\n')
      const inStore = ctx.timeCommand(process.execPath, [ctx.BIN, 'observe'], {
        cwd: store.root,
        input: PAYLOAD,
        runs: 31,
      })
      rows.push({
        what: 'observe: one event, repository of 1,000 learnings with a config.yaml',
        ms: inStore,
        ratio: inStore / ctx.base,
        target: '≤ 1.2× node -e 0',
      })
    } finally {
      rmSync(store.root, { recursive: true, force: true })
    }

    // Per tool call: hook capture runs observe twice (PreToolUse and PostToolUse); transcript capture reads the
    // transcript once a turn (here one Stop over a 200-call transcript), so its cost per call is that read / 200.
    ctx.log('capture: hook observe vs the Stop read of a 200-call transcript')
    const CALLS = 200
    const transcript = join(root, '..', `gl-bench-transcript-${process.pid}.jsonl`)
    const session = claudeTranscript(transcript, CALLS)
    const stop = JSON.stringify({
      session_id: session,
      transcript_path: transcript,
      cwd: root,
      permission_mode: 'default',
      hook_event_name: 'Stop',
      stop_hook_active: false,
    })
    const pre = JSON.stringify({ ...JSON.parse(PAYLOAD), hook_event_name: 'PreToolUse', tool_response: undefined })
    const hookPre = ctx.timeCommand(process.execPath, [ctx.BIN, 'observe'], { cwd: root, input: pre, runs: 21 })
    const hookPost = ctx.timeCommand(process.execPath, [ctx.BIN, 'observe'], { cwd: root, input: PAYLOAD, runs: 21 })
    const hookBase = ctx.base
    const cap = timeCapture(ctx.BIN, root, stop, 11)
    rmSync(transcript, { force: true })
    rows.push({
      what: 'hook capture: one tool call (observe on PreToolUse + PostToolUse, 2 processes)',
      ms: hookPre + hookPost,
      ratio: (hookPre + hookPost) / hookBase,
      note: `${hookPre.toFixed(1)} + ${hookPost.toFixed(1)} ms`,
    })
    rows.push({
      what: `transcript capture: the Stop read of a ${CALLS}-call transcript (one process)`,
      ms: cap.ms,
      ratio: cap.ms / cap.base,
      note: `${(cap.ms / CALLS).toFixed(2)} ms a call = ${(cap.ms / CALLS / cap.base).toFixed(3)}× node -e 0 a call`,
    })
    ctx.log('recall: a passed Bash call')
    const recall = ctx.timeCommand(process.execPath, [ctx.BIN, 'recall'], { cwd: root, input: PAYLOAD, runs: 31 })
    rows.push({
      what: 'recall: a Bash call that passed (the synchronous hook every Bash call pays)',
      ms: recall,
      ratio: recall / ctx.base,
      target: "ends after Node's start",
    })
    rmSync(join(root, '.git', 'learn'), { recursive: true, force: true })

    ctx.log('observe: 8 concurrent writers')
    const WRITERS = 8
    const EACH = 15
    const t = process.hrtime.bigint()
    await runWriters(ctx.BIN, root, WRITERS, EACH)
    const secs = Number(process.hrtime.bigint() - t) / 1e9
    rows.push({
      what: `observe: ${WRITERS} concurrent writers × ${EACH} events`,
      ms: (secs * 1000) / (WRITERS * EACH),
      note: `${((WRITERS * EACH) / secs).toFixed(0)} events/s in total`,
    })

    const N = Number(process.env.BENCH_RETRO_LINES ?? 1_000_000)
    ctx.log(`retro: generating ${N} observations`)
    const stateDir = join(root, '.git', 'learn')
    rmSync(stateDir, { recursive: true, force: true })
    await generateObservations(stateDir, N)
    const hook = join(root, '..', `gl-bench-rss-${process.pid}.cjs`)
    writeFileSync(
      hook,
      'process.on("exit", () => process.stderr.write(`maxrss=${process.resourceUsage().maxRSS}\\n`))\n',
    )
    ctx.log('retro: analysing')
    const t1 = process.hrtime.bigint()
    const r = await new Promise((done) => {
      let err = ''
      const p = spawn(process.execPath, ['--require', hook, ctx.BIN, 'retro', '--json'], {
        cwd: root,
        stdio: ['ignore', 'ignore', 'pipe'],
      })
      p.stderr.on('data', (d) => (err += d))
      p.on('exit', (code) => done({ code, err }))
    })
    const ms = Number(process.hrtime.bigint() - t1) / 1e6
    rmSync(hook, { force: true })
    const rss = /maxrss=(\d+)/.exec(r.err)?.[1]
    rows.push({
      what: `retro --json over ${N.toLocaleString('en')} observations`,
      ms,
      note: `exit ${r.code}; peak RSS ${rss ? (Number(rss) / 1024).toFixed(0) : '?'} MB; ${(N / (ms / 1000)).toFixed(0)} lines/s`,
    })
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
  return rows
}
