import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { makeRepo, tempDir } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'
import { sessionPayloads } from '../helpers/sessions.js'

const TOKEN = 'ghp_R7kq2Lw9XbT4mZpV8sYc3NdJ6fHa1Ue5Gi0o'
const live = (repo: TestRepo) => join(repo.root, '.git', 'learn', 'observations.jsonl')
const lines = (repo: TestRepo) =>
  existsSync(live(repo)) ? readFileSync(live(repo), 'utf8').split('\n').filter(Boolean) : []
const records = (repo: TestRepo) => lines(repo).map((l) => JSON.parse(l))
const payload = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    session_id: 's1',
    transcript_path: '/h/.claude/projects/p/s1.jsonl',
    cwd: '/r',
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'ls' },
    tool_response: { stdout: 'a\nb', stderr: '' },
    tool_use_id: 'toolu_1',
    ...over,
  })

async function observe(repo: TestRepo, stdin: string | Buffer) {
  const r = await repo.cli(['observe'], { stdin })
  expect(r.code).toBe(0)
  expect(r.stdout).toBe('')
  return r
}

describe('git learn observe', () => {
  test('appends one record per event to <git-common-dir>/learn/observations.jsonl and prints nothing', async () => {
    const repo = makeRepo()
    for (const p of sessionPayloads('claude-every-detector.jsonl', repo.root)) await observe(repo, p)
    const recs = records(repo)
    expect(recs).toHaveLength(47)
    expect(recs[0]).toMatchObject({
      v: 1,
      agent: 'claude-code',
      session: '8c1f2d3e-1111-4a5b-9c7d-000000000001',
      event: 'SessionStart',
      input: { source: 'startup' },
    })
    const failure = recs.find((r) => r.event === 'PostToolUseFailure')
    expect(failure).toMatchObject({ tool: 'Bash', ok: false, input: { command: 'npx vitest run test/api.test.ts' } })
    expect(failure.error).toContain('ReferenceError')
    expect(recs.map((r) => r.event)).toEqual(
      expect.arrayContaining([
        'PreToolUse',
        'PostToolUse',
        'PostToolUseFailure',
        'UserPromptSubmit',
        'Stop',
        'SessionStart',
        'SessionEnd',
      ]),
    )
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  test('a token in a tool output never reaches observations.jsonl', async () => {
    const repo = makeRepo()
    await observe(
      repo,
      payload({
        tool_input: { command: `curl -H "Authorization: token ${TOKEN}" x` },
        tool_response: { stdout: `GITHUB_TOKEN=${TOKEN}\n` },
      }),
    )
    await observe(repo, payload({ hook_event_name: 'UserPromptSubmit', prompt: `my token is ${TOKEN}` }))
    const text = readFileSync(live(repo), 'utf8')
    expect(text).not.toContain(TOKEN)
    expect(text).not.toContain(TOKEN.slice(4, 20))
    expect(text).toContain('[REDACTED:')
  })

  test('a credential used as a key, or known only by its key (an env object), never reaches observations.jsonl', async () => {
    const repo = makeRepo()
    const secrets = ['AKIAZ3MXP7Q2LN4TB6WD', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8aBv3Lk2', 'Tr0ub4dor&3xQz9']
    await observe(
      repo,
      payload({
        tool_name: 'mcp__vault__set',
        tool_input: {
          [secrets[0] as string]: 'x',
          env: { AWS_SECRET_ACCESS_KEY: secrets[1], DB_PASSWORD: secrets[2] },
        },
      }),
    )
    const text = readFileSync(live(repo), 'utf8')
    for (const secret of secrets) expect(text).not.toContain(secret)
    expect(records(repo)[0].input).toEqual({
      '[REDACTED:aws-access-key-id]': 'x',
      env: { AWS_SECRET_ACCESS_KEY: '[REDACTED:aws-secret-access-key]', DB_PASSWORD: '[REDACTED:generic-assignment]' },
    })
  })

  test("the words of a tool's output do not decide whether a key in its input is redacted", async () => {
    const repo = makeRepo()
    const key = '0x3f9a1c7e5b2d8046e1f3a9c7b5d2e8f4a6c1b3d5e7f9a2c4b6d8e0f1a3c5b7d9'
    for (const stdout of ['transaction hash block', 'ok'])
      await observe(
        repo,
        payload({ tool_input: { command: `echo wallet private key ${key}` }, tool_response: { stdout } }),
      )
    expect(readFileSync(live(repo), 'utf8')).not.toContain(key.slice(2, 20))
    expect(records(repo).map((r) => r.input.command)).toEqual([
      'echo wallet private key [REDACTED:hex-private-key]',
      'echo wallet private key [REDACTED:hex-private-key]',
    ])
  })

  test('a huge tool response is cut to observe.max_field_bytes, the line still parses', async () => {
    const repo = makeRepo()
    await observe(repo, payload({ tool_response: { stdout: 'x'.repeat(3_000_000), stderr: '' } }))
    const [line] = lines(repo)
    expect(Buffer.byteLength(line as string)).toBeLessThan(3 * 5120)
    const rec = JSON.parse(line as string)
    expect(rec.truncated).toBe(true)
    expect(rec.output.stdout).toMatch(/…\[truncated \d+ bytes\]$/)
  })

  test.each([
    ['not JSON', 'hello {'],
    ['binary', Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80, 0x7b, 0x22])],
    ['cut JSON', payload().slice(0, 80)],
  ])('%s: a parse-error record with a redacted excerpt, exit 0', async (_what, stdin) => {
    const repo = makeRepo()
    await observe(repo, stdin)
    const [rec] = records(repo)
    expect(rec.parse_error).toMatch(/not JSON/)
    expect(typeof rec.input).toBe('string')
    expect(readFileSync(join(repo.root, '.git', 'learn', 'observe.log'), 'utf8')).toMatch(/not JSON/)
  })

  test('a payload carrying quotes, backticks, $() and NUL bytes is recorded as data and runs nothing', async () => {
    const repo = makeRepo()
    const marker = join(repo.root, 'pwned')
    const nasty = `'''\`touch ${marker}\`$(touch ${marker})\u0000"; touch ${marker}`
    await observe(repo, payload({ tool_name: nasty, tool_input: { command: nasty }, prompt: nasty }))
    expect(existsSync(marker)).toBe(false)
    const [rec] = records(repo)
    expect(rec.input.command).toBe(nasty)
  })

  test('empty stdin: nothing recorded, exit 0', async () => {
    const repo = makeRepo()
    await observe(repo, '')
    expect(lines(repo)).toEqual([])
  })

  test('outside a git repository: exit 0, nothing written', async () => {
    const dir = tempDir()
    const { runCli } = await import('../../src/cli/main.js')
    let out = ''
    const code = await runCli(['observe'], {
      cwd: dir,
      env: {},
      now: () => new Date(),
      stdout: (t) => void (out += t),
      stderr: (t) => void (out += t),
      readStdin: async () => Buffer.from(payload()),
      color: false,
    })
    expect(code).toBe(0)
    expect(out).toBe('')
    expect(readdirSync(dir)).toEqual([])
  })

  test('honours observe.enabled, ignore_tools and skip_subagents from .learnings/config.yaml', async () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', 'observe:\n  ignore_tools: [Read, "mcp__*"]\n  skip_subagents: true\n')
    await observe(repo, payload({ tool_name: 'Read' }))
    await observe(repo, payload({ tool_name: 'mcp__github__search' }))
    await observe(repo, payload({ agent_id: 'a1', agent_type: 'Explore' }))
    await observe(repo, payload())
    expect(records(repo).map((r) => r.tool)).toEqual(['Bash'])
    // The settings were cached as JSON; a changed config.yaml is read again.
    expect(existsSync(join(repo.root, '.git', 'learn', 'observe-config.json'))).toBe(true)
    repo.write('.learnings/config.yaml', 'observe:\n  enabled: false\n# changed\n')
    await observe(repo, payload())
    expect(records(repo)).toHaveLength(1)
  })

  test('a wrong config value falls back to the default and is logged, never fatal', async () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', 'observe:\n  max_field_bytes: lots\n')
    await observe(repo, payload())
    expect(records(repo)).toHaveLength(1)
    expect(readFileSync(join(repo.root, '.git', 'learn', 'observe.log'), 'utf8')).toMatch(/max_field_bytes/)
  })

  test('rotates into observations.archive/ at observe.rotate_bytes and loses no line', async () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', 'observe:\n  rotate_bytes: 2048\n')
    for (let i = 0; i < 40; i++) await observe(repo, payload({ tool_use_id: `toolu_${i}` }))
    const archive = join(repo.root, '.git', 'learn', 'observations.archive')
    const files = readdirSync(archive)
    expect(files.length).toBeGreaterThan(2)
    for (const f of files) expect(f).toMatch(/^observations-\d{4}-\d\d-\d\dT[\d-]+Z-\d+-\d+\.jsonl$/)
    const all = [
      ...files.map((f) => readFileSync(join(archive, f), 'utf8')),
      existsSync(live(repo)) ? readFileSync(live(repo), 'utf8') : '',
    ]
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).tool_use_id)
    expect(all.sort()).toEqual(Array.from({ length: 40 }, (_, i) => `toolu_${i}`).sort())
  })

  test('with GIT_DIR set (discovery redirected), git is asked where the repository is', async () => {
    const repo = makeRepo()
    const elsewhere = tempDir()
    const { runCli } = await import('../../src/cli/main.js')
    const env = { ...process.env, GIT_DIR: join(repo.root, '.git'), GIT_WORK_TREE: repo.root }
    const code = await runCli(['observe'], {
      cwd: elsewhere,
      env,
      now: () => new Date(),
      stdout: () => {},
      stderr: () => {},
      readStdin: async () => Buffer.from(payload()),
      color: false,
    })
    expect(code).toBe(0)
    expect(records(repo)).toHaveLength(1)
  })

  test('a linked worktree writes to the shared common dir', async () => {
    const repo = makeRepo()
    const wt = join(tempDir(), 'wt')
    repo.git('worktree', 'add', '-q', wt)
    const { runCli } = await import('../../src/cli/main.js')
    const code = await runCli(['observe'], {
      cwd: join(wt),
      env: {},
      now: () => new Date(),
      stdout: () => {},
      stderr: () => {},
      readStdin: async () => Buffer.from(payload()),
      color: false,
    })
    expect(code).toBe(0)
    expect(records(repo)).toHaveLength(1)
  })
})
