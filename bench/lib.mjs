// Shared benchmark helpers: generated repositories of N learnings, and timings reported as ratios against
// `node -e 0` measured in the same run (absolute milliseconds vary by machine; the ratio is what we hold).
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../', import.meta.url))
export const BIN = join(ROOT, 'dist', 'bin.js')

/** The pasted 5-line failure every search and recall row of the benches is given (issue 16's query). */
export const FAILURE = `FAIL test/api.test.ts
ReferenceError: Cannot access '__vi_import_0__' before initialization
 ❯ test/api.test.ts:5:1
Error: ECONNREFUSED 127.0.0.1 in postgres/redis module 17
Test Files  1 failed (1)`

/** `--name value` pairs of the command line, by name. @returns {Record<string, string>} */
export function argvOptions(argv = process.argv.slice(2)) {
  /** @type {Record<string, string>} */
  const opt = {}
  for (let i = 0; i < argv.length; i += 2) opt[(argv[i] ?? '').replace(/^--/, '')] = argv[i + 1] ?? ''
  return opt
}

const TOPICS = [
  'vitest',
  'esm',
  'jest',
  'docker',
  'postgres',
  'react',
  'webpack',
  'eslint',
  'node',
  'git',
  'npm',
  'typescript',
  'redis',
  'nginx',
  'python',
  'rust',
  'go',
  'kafka',
  'graphql',
  'prisma',
]
const ERRORS = [
  'ReferenceError: Cannot access',
  'TypeError: undefined is not a function',
  'ECONNREFUSED 127.0.0.1',
  'ERR_REQUIRE_ESM',
  'Module not found',
  'EADDRINUSE',
  'ENOSPC',
  'SyntaxError: Unexpected token',
  'fatal: refusing to merge',
  'segmentation fault',
]

/** Deterministic pseudo-random numbers (mulberry32). */
export function rng(seed = 42) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The text of the i-th generated learning (valid, with all required sections). */
export function learningText(i, rand = rng(i + 1)) {
  const a = TOPICS[Math.floor(rand() * TOPICS.length)]
  const b = TOPICS[Math.floor(rand() * TOPICS.length)]
  const err = ERRORS[Math.floor(rand() * ERRORS.length)]
  const name = `${a}-${b}-fix-${i}`
  return {
    name,
    text: `---
name: ${name}
description: "Fix ${err} when using ${a} with ${b} (case ${i}). Use when ${a} fails with ${err}."
type: error-solution
trigger: "${err} in ${a}/${b} module ${i}"
domain: testing
tags: [${a}, ${b}]
confidence: ${(0.5 + rand() * 0.5).toFixed(2)}
gates:
  discovery_depth: 2
  reusability: [${a}, ${b}]
  verification: "npm test passed"
created: "2026-11-20"
version: "1.0.0"
---
## Problem
${a} with ${b} fails with ${err} at src/${a}/${i}.ts:${i % 300}:${i % 80}.

## Trigger Conditions
Running the ${a} suite after upgrading ${b}.

## Root Cause
We tried clearing caches and reinstalling; the real cause was the ${b} config for ${a} case ${i}.

## Solution
Set the ${a} option for ${b} and rerun.

## Verification
npm test: ${i % 50} passed.
`,
  }
}

/**
 * A temporary repository with `n` learnings numbered from `offset` (every `pendingEvery`-th pending, from the
 * first; 0: none), committed in one commit. git's automatic gc after the commit runs in the foreground: a
 * detached one would pack and prune while a bench copies the repository.
 */
export function makeStoreRepo(n, { pendingEvery = 10, prefix = 'gl-bench-', offset = 0 } = {}) {
  const root = mkdtempSync(join(tmpdir(), prefix))
  const git = (...args) =>
    execFileSync('git', args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 })
  git('init', '-q', '-b', 'main')
  git('config', 'user.name', 'Bench')
  git('config', 'user.email', 'bench@example.com')
  git('config', 'commit.gpgsign', 'false')
  git('config', 'gc.autoDetach', 'false')
  for (const s of ['pending', 'active', 'archived']) mkdirSync(join(root, '.learnings', s), { recursive: true })
  for (let i = 0; i < n; i++) {
    const { name, text } = learningText(offset + i)
    const state = pendingEvery && i % pendingEvery === 0 ? 'pending' : 'active'
    writeFileSync(join(root, '.learnings', state, `${name}.md`), text)
  }
  writeFileSync(join(root, 'README.md'), '# bench\n')
  git('add', '-A')
  git('commit', '-q', '-m', `bench: ${n} learnings`)
  return { root, git }
}

/** A repository of `n` active learnings numbered from `offset`, as an organisation's tier (distinct content per tier). */
export function makeTierSource(n, offset, prefix = 'gl-bench-tier-') {
  return makeStoreRepo(n, { pendingEvery: 0, prefix, offset }).root
}

/** The median `node -e 0` measured alongside the last timeCommand call (see below). */
export const interleaved = { base: undefined }

/**
 * Median wall time in ms of running a command `runs` times (after one warm-up). Each run is paired with a run of
 * `node -e 0` right before it, and the median of those is kept in `interleaved.base`: on a shared machine whose
 * load changes from minute to minute, a ratio is only fair against a baseline measured at the same moment.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, runs?: number, input?: string | Buffer, env?: NodeJS.ProcessEnv, pair?: boolean }} [options]
 */
export function timeCommand(cmd, args, { cwd = ROOT, runs = 15, input, env, pair = true } = {}) {
  const once = (c, a, opts = {}) => {
    const t = process.hrtime.bigint()
    const r = spawnSync(c, a, {
      cwd,
      input: opts.input,
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['pipe', 'ignore', 'pipe'],
    })
    const ms = Number(process.hrtime.bigint() - t) / 1e6
    if (r.status !== 0 && r.status !== 1) throw new Error(`${c} ${a.join(' ')} exited ${r.status}: ${r.stderr}`)
    return ms
  }
  once(cmd, args, { input })
  const xs = []
  const bs = []
  for (let i = 0; i < runs; i++) {
    if (pair) bs.push(once(process.execPath, ['-e', '0']))
    xs.push(once(cmd, args, { input }))
  }
  const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]
  if (pair) interleaved.base = median(bs)
  return median(xs)
}

/** `node -e 0`, the baseline every ratio is against. */
export function baseline(runs = 15) {
  return timeCommand(process.execPath, ['-e', '0'], { runs, pair: false })
}

/** One markdown row. */
export const row = (cells) => `| ${cells.join(' | ')} |`
