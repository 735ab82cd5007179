// The hooks' module packs (src/pack.ts, scripts/pack-hot.mjs): on a warm cache each hook path compiles none of our
// modules from its own file, only the bin, the loader and its pack; its answers are those of the same build without
// packs; and a module made from a pack is the one every later `require` of its file gets.
import { spawnSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { describe, expect, test } from 'vitest'
import { PROJECT_ROOT, copyPackage, learningText, makeRepo, tempDir } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

const DIST = join(PROJECT_ROOT, 'dist')
const TRIGGER = 'Error: connect ECONNREFUSED 127.0.0.1:6379'
const failure = (cwd: string) =>
  JSON.stringify({
    session_id: 's',
    cwd,
    hook_event_name: 'PostToolUseFailure',
    tool_name: 'Bash',
    tool_input: { command: 'npm test' },
    error: `${TRIGGER}\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)`,
  })
const observed = JSON.stringify({
  session_id: 's',
  hook_event_name: 'PostToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'ls' },
  tool_response: { stdout: 'a\n', stderr: '' },
})

/** Each pack's path: its arguments and stdin (recall's after its gate, check --staged with a learning staged). */
const PATHS: { pack: string; args: string[]; stdin: (root: string) => string; shown?: string }[] = [
  { pack: 'observe', args: ['observe'], stdin: () => observed },
  { pack: 'recall', args: ['recall'], stdin: failure, shown: 'git-learn: redis-refused' },
  { pack: 'staged', args: ['check', '--staged'], stdin: () => '' },
  { pack: 'search', args: ['search', '--json', TRIGGER], stdin: () => '', shown: 'redis-refused' },
  { pack: 'context', args: ['context'], stdin: () => '', shown: 'redis-refused' },
]

/** A repository with two active learnings and one staged, and the preload that lists what Node compiles from files. */
function setUp(): { repo: TestRepo; preload: string } {
  const repo = makeRepo()
  repo.write('.learnings/active/redis-refused.md', learningText('redis-refused', { trigger: TRIGGER }))
  repo.write('.learnings/active/other-note.md', learningText('other-note'))
  repo.git('add', '-A')
  repo.git('commit', '-q', '-m', 'learnings')
  repo.write('.learnings/pending/staged-note.md', learningText('staged-note'))
  repo.git('add', '.learnings/pending/staged-note.md')
  const preload = join(tempDir('gl-packs-'), 'compiled.cjs')
  // Every module Node compiles from its file goes through Module.prototype._compile; a module made from a pack does not.
  writeFileSync(
    preload,
    'const M = require("module"), seen = [], own = M.prototype._compile\n' +
      'M.prototype._compile = function (c, f) { seen.push(f); return own.apply(this, arguments) }\n' +
      'process.on("exit", () => require("fs").writeFileSync(process.env.COMPILED_OUT, JSON.stringify(seen)))\n',
  )
  return { repo, preload }
}

function run({ repo, preload }: ReturnType<typeof setUp>, dist: string, args: string[], input: string) {
  const out = join(tempDir('gl-packs-out-'), 'compiled.json')
  const r = spawnSync(process.execPath, ['-r', preload, join(dist, 'bin.js'), ...args], {
    cwd: repo.root,
    input,
    encoding: 'utf8',
    env: { ...process.env, COMPILED_OUT: out },
  })
  const all = JSON.parse(readFileSync(out, 'utf8')) as string[]
  const compiled = all
    .filter((f) => f.startsWith(dist) && !relative(dist, f).startsWith('vendor'))
    .map((f) => relative(dist, f))
  const packages = all.filter((f) => f.includes(`${sep}node_modules${sep}`))
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, compiled, packages }
}

describe.each(PATHS)('the $pack pack', ({ pack, args, stdin, shown }) => {
  test('a warm run compiles only the bin, the loader and the pack, and answers as the build without packs', () => {
    const at = setUp()
    const input = stdin(at.repo.root)
    run(at, DIST, args, input) // warms the cache
    const packed = run(at, DIST, args, input)
    const before = pack === 'recall' ? ['cli/context.js', 'core/recall-gate.js'] : []
    expect(packed.compiled.sort()).toEqual(['bin.js', ...before, 'pack.js', `packs/${pack}.js`].sort())
    if (shown) expect(packed.stdout).toContain(shown)
    // "Did you mean" (fastest-levenshtein) is for a mistyped word only; the validators' ajv runtime for staged files.
    expect(packed.packages.filter((f) => !f.includes(`${sep}ajv${sep}`))).toEqual([])

    const copy = copyPackage()
    rmSync(join(copy, 'dist', 'packs'), { recursive: true })
    const plain = run(at, join(copy, 'dist'), args, input)
    expect(plain.compiled.length).toBeGreaterThan(packed.compiled.length + 5)
    expect({ status: packed.status, stdout: packed.stdout, stderr: packed.stderr }).toEqual({
      status: plain.status,
      stdout: plain.stdout,
      stderr: plain.stderr,
    })
  })
})

test('a module made from a pack is the one its file gives every later require, never a second copy', () => {
  const errors = join(DIST, 'core', 'errors.js')
  const script = `
    const M = require('module'), made = []
    const own = M.prototype._compile
    M.prototype._compile = function (c, f) { made.push(f); return own.apply(this, arguments) }
    if (!require(${JSON.stringify(join(DIST, 'pack.js'))}).usePack('staged')) throw new Error('no pack')
    const first = require(${JSON.stringify(errors)})
    const again = M.createRequire(${JSON.stringify(join(DIST, 'adapters', 'x.js'))})('../core/errors.js')
    console.log(JSON.stringify({ same: first === again, cached: require.cache[${JSON.stringify(errors)}].exports === first,
      compiled: made.includes(${JSON.stringify(errors)}), loaded: require.cache[${JSON.stringify(errors)}].loaded }))`
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' })
  expect(r.stderr).toBe('')
  expect(JSON.parse(r.stdout)).toEqual({ same: true, cached: true, compiled: false, loaded: true })
})
