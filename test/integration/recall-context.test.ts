import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { binPath, makeRepo } from '../helpers/repo.js'
import { SEEDS, VITEST_FAILURE, seedStore } from '../helpers/feed-store.js'

const NOW = new Date('2026-11-20T12:00:00Z')

const events = (root: string) => {
  const f = join(root, '.git', 'learn', 'events.jsonl')
  return existsSync(f)
    ? readFileSync(f, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : []
}

const failurePayload = (root: string, over: Record<string, unknown> = {}) =>
  JSON.stringify({
    session_id: 'sess-1',
    cwd: root,
    hook_event_name: 'PostToolUseFailure',
    tool_name: 'Bash',
    tool_input: { command: 'npx vitest run' },
    tool_use_id: 'toolu_1',
    error: VITEST_FAILURE,
    ...over,
  })

describe('git learn recall', () => {
  test('a PostToolUseFailure payload returns the matching fix and records a match event', async () => {
    const repo = makeRepo()
    seedStore(repo)
    const r = await repo.cli(['recall'], { stdin: failurePayload(repo.root) })
    expect(r.code).toBe(0)
    const out = r.json()
    expect(out.hookSpecificOutput.hookEventName).toBe('PostToolUseFailure')
    expect(out.hookSpecificOutput.additionalContext).toMatch(
      /^git-learn: vitest-esm-mock-hoisting — Move the variables .*vi\.hoisted.*\(git learn show vitest-esm-mock-hoisting\)$/m,
    )
    expect(events(repo.root)).toEqual([
      expect.objectContaining({ kind: 'match', name: 'vitest-esm-mock-hoisting', session: 'sess-1' }),
    ])
  })

  test('a PostToolUse Bash response with a non-zero exit code and a failing run is a failure', async () => {
    const repo = makeRepo()
    seedStore(repo)
    const payload = failurePayload(repo.root, {
      hook_event_name: 'PostToolUse',
      error: undefined,
      tool_response: {
        stdout: '',
        stderr: 'Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect',
        exit_code: 1,
      },
    })
    const r = await repo.cli(['recall'], { stdin: payload })
    expect(r.json().hookSpecificOutput).toMatchObject({
      hookEventName: 'PostToolUse',
      additionalContext: expect.stringContaining('postgres-econnrefused'),
    })
  })

  test('a successful tool call prints nothing and records nothing', async () => {
    const repo = makeRepo()
    seedStore(repo)
    const payload = JSON.stringify({
      session_id: 's',
      cwd: repo.root,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_response: { stdout: 'Tests 14 passed', stderr: '', interrupted: false },
    })
    const r = await repo.cli(['recall'], { stdin: payload })
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' })
    expect(events(repo.root)).toEqual([])
  })

  test('a failure that matches no trigger well enough prints nothing', async () => {
    const repo = makeRepo()
    seedStore(repo)
    const r = await repo.cli(['recall'], {
      stdin: failurePayload(repo.root, { error: 'Error: the flux capacitor overheated' }),
    })
    expect(r).toMatchObject({ code: 0, stdout: '' })
  })

  test('archived and pending learnings are never recalled', async () => {
    const repo = makeRepo()
    seedStore(
      repo,
      SEEDS.filter((s) => s.name !== 'vitest-esm-mock-hoisting'),
    )
    const r = await repo.cli(['recall'], { stdin: failurePayload(repo.root) })
    expect(r.stdout).not.toMatch(/archived-vitest-old/)
  })

  test.each([
    ['not JSON', 'this is { not json'],
    ['empty', ''],
    ['a JSON array', '[1,2]'],
    ['missing fields', '{}'],
    ['null', 'null'],
  ])('payload %s → exit 0, silent', async (_what, stdin) => {
    const repo = makeRepo()
    seedStore(repo)
    const r = await repo.cli(['recall'], { stdin })
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' })
  })

  test('a usage log that cannot be appended still gives the fix; hooks.log says it was not recorded', async () => {
    const repo = makeRepo()
    seedStore(repo)
    // A link into a folder that does not exist: the append fails as on a read-only mount or a file another user owns
    // (chmod cannot stop root, who runs these tests in CI containers).
    mkdirSync(join(repo.root, '.git', 'learn'), { recursive: true })
    symlinkSync(join(repo.root, 'gone', 'events.jsonl'), join(repo.root, '.git', 'learn', 'events.jsonl'))
    const r = await repo.cli(['recall', '--json'], { stdin: failurePayload(repo.root) })
    expect(r.code).toBe(0)
    expect(r.json()).toMatchObject({ failed: true, recalled: [{ name: 'vitest-esm-mock-hoisting' }] })
    const hook = await repo.cli(['recall'], { stdin: failurePayload(repo.root) })
    expect(hook.json().hookSpecificOutput.additionalContext).toContain('vitest-esm-mock-hoisting')
    expect(readFileSync(join(repo.root, '.git', 'learn', 'hooks.log'), 'utf8')).toMatch(
      /recall: the recalled fixes were given but not recorded in learn\/events\.jsonl \(ENOENT/,
    )
  })

  test('outside a repository it exits 0, silently', async () => {
    const repo = makeRepo()
    const r = await repo.cli(['recall'], { stdin: failurePayload('/nonexistent-dir-gl') })
    expect(r).toMatchObject({ code: 0, stdout: '' })
  })
})

describe('git learn context', () => {
  test('prints SessionStart hook JSON within 1,500 tokens, directives first, then the index', async () => {
    const repo = makeRepo()
    seedStore(repo)
    const r = await repo.cli(['context'])
    expect(r.code).toBe(0)
    const out = r.json()
    expect(out.hookSpecificOutput.hookEventName).toBe('SessionStart')
    const text: string = out.hookSpecificOutput.additionalContext
    expect(Math.ceil(text.length / 4)).toBeLessThanOrEqual(1500)
    expect(text).toMatch(/Apply these:\n- (prefer-git-mv|vitest-esm-mock-hoisting): /)
    expect(text).toMatch(/- postgres-econnrefused: Fix tests failing with ECONNREFUSED/)
    expect(text).toMatch(/git learn show <name>/)
    expect(text).not.toMatch(/pending-example|archived-vitest-old/)
  })

  test('hundreds of learnings still fit the budget, with a pointer to the rest', async () => {
    const repo = makeRepo()
    const many = Array.from({ length: 300 }, (_, i) => ({
      ...SEEDS[3]!,
      name: `filler-learning-${i}`,
      description: `Filler learning number ${i} with a long enough description to take room in the index.`,
    }))
    seedStore(repo, many)
    const text: string = (await repo.cli(['context'])).json().hookSpecificOutput.additionalContext
    expect(Math.ceil(text.length / 4)).toBeLessThanOrEqual(1500)
    expect(text).toMatch(/\(\+\d+ more: `git learn list --state active`\)/)
  })

  // The cached road decides what fits by the line lengths stored with the cache (lines-<key>.bin) and reads the catalog
  // only for the lines it takes; at a small budget, where most lines do not fit, it must print what the rebuild does.
  test.each([250, 400, 700])('at a budget of %i tokens, the cached context is the rebuilt one', async (max) => {
    const repo = makeRepo()
    const many = Array.from({ length: 40 }, (_, i) => ({
      ...SEEDS[i % SEEDS.length]!,
      name: `varied-learning-${i}`,
      description: `Varied learning ${i}${' with more words'.repeat(i % 6)}.`,
      state: 'active' as const,
    }))
    seedStore(repo, [...SEEDS, ...many])
    repo.write('.learnings/config.yaml', `context:\n  max_tokens: ${max}\n`)
    repo.git('add', '-A')
    repo.git('commit', '-qm', 'budget')
    const context = async () => (await repo.cli(['context', '--format', 'text'], { now: NOW })).stdout
    const rebuilt = await context()
    expect(await context()).toBe(rebuilt)
    rmSync(join(repo.root, '.git', 'learn', 'cache'), { recursive: true, force: true })
    expect(await context()).toBe(rebuilt)
    expect(rebuilt).toMatch(/Apply these:\n- /)
    expect(rebuilt).toMatch(/\(\+\d+ more: /)
  })

  test('learnings touching files changed on the branch come first in the index', async () => {
    const repo = makeRepo()
    seedStore(repo)
    repo.git('checkout', '-q', '-b', 'feature')
    repo.write('kafka/consumer.ts', 'x')
    repo.git('add', '-A')
    repo.git('commit', '-q', '-m', 'kafka work')
    const text: string = (await repo.cli(['context', '--format', 'text'])).stdout
    const index = text.split('Also available:')[1] ?? text.split('Available:')[1] ?? ''
    expect(index.trim().split('\n')[0]).toMatch(/^- kafka-config-fix:/)
    // The first run built the cache; the second ranks by its status rows (their tags), with the same answer.
    expect((await repo.cli(['context', '--format', 'text'])).stdout).toBe(text)
    // With GIT_DIR set the repository is not found by walking up: the built binary asks git, and diffs the branch after.
    const viaGitDir = spawnSync(process.execPath, [join(binPath(), 'git-learn'), 'context', '--format', 'text'], {
      cwd: repo.root,
      env: { ...process.env, GIT_DIR: join(repo.root, '.git'), GIT_WORK_TREE: repo.root },
      encoding: 'utf8',
    })
    expect(viaGitDir.stdout).toBe(text)
  })

  test('a usage log that cannot be read costs the usage counts, not the context; hooks.log says why', async () => {
    const repo = makeRepo()
    seedStore(repo)
    const full = (await repo.cli(['context', '--format', 'text'])).stdout
    mkdirSync(join(repo.root, '.git', 'learn', 'events.jsonl'), { recursive: true })
    const r = await repo.cli(['context', '--format', 'text'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(full)
    expect(readFileSync(join(repo.root, '.git', 'learn', 'hooks.log'), 'utf8')).toMatch(
      /context: the context was given without the usage counts of learn\/events\.jsonl \(EISDIR/,
    )
  })

  // --json is --format json: beside --format text one of them was ignored (the JSON won). Refused like any bad flag of
  // a hook: exit 0, nothing printed, hooks.log says why.
  test('--json with --format text is refused as a hook refuses a bad flag, not half obeyed', async () => {
    const repo = makeRepo()
    seedStore(repo)
    const r = await repo.cli(['context', '--format', 'text', '--json'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('')
    expect(readFileSync(join(repo.root, '.git', 'learn', 'hooks.log'), 'utf8')).toMatch(
      /context: --json is --format json, and --format says text; use one of them/,
    )
    expect((await repo.cli(['context', '--format', 'json', '--json'])).json().hookSpecificOutput).toBeDefined()
  })

  test('a broken environment still gives a minimal context and exit 0, logged', async () => {
    const repo = makeRepo()
    seedStore(repo)
    repo.write('.learnings/config.yaml', 'confidence: [not a mapping\n')
    const r = await repo.cli(['context'])
    expect(r.code).toBe(0)
    expect(r.json().hookSpecificOutput.additionalContext).toMatch(/git learn search/)
    expect(readFileSync(join(repo.root, '.git', 'learn', 'hooks.log'), 'utf8')).toMatch(/context: /)
  })
})

describe('git learn feedback', () => {
  test('--helpful raises and --harmful lowers the effective confidence, each one event', async () => {
    const repo = makeRepo()
    seedStore(repo)
    const now = new Date('2026-11-20T12:00:00Z')
    const a = await repo.cli(['feedback', 'vitest-esm-mock-hoisting', '--helpful', '--json', '--note', 'it worked'], {
      now,
    })
    expect(a.json()).toEqual({ name: 'vitest-esm-mock-hoisting', kind: 'helpful', previous: 0.8, confidence: 0.85 })
    const b = await repo.cli(['feedback', 'vitest-esm-mock-hoisting', '--harmful', '--json'], { now })
    expect(b.json()).toEqual({ name: 'vitest-esm-mock-hoisting', kind: 'harmful', previous: 0.85, confidence: 0.75 })
    expect(events(repo.root).map((e) => e.kind)).toEqual(['helpful', 'harmful'])
    expect(events(repo.root)[0].note).toBe('it worked')
    const text = await repo.cli(['feedback', 'vitest-esm-mock-hoisting', '--helpful'], { now })
    expect(text.stdout).toMatch(/0\.75 → 0\.80/)
  })

  test('unknown learning, both flags, or neither are refused', async () => {
    const repo = makeRepo()
    seedStore(repo)
    expect((await repo.cli(['feedback', 'no-such-thing', '--helpful'])).code).toBe(2)
    expect((await repo.cli(['feedback', 'docker-enospc'])).code).toBe(2)
    expect((await repo.cli(['feedback', 'docker-enospc', '--helpful', '--harmful'])).code).toBe(2)
    expect(events(repo.root)).toEqual([])
  })
})

describe('a learning with a list of triggers', () => {
  test('add takes --trigger twice; search and recall find it by either trigger; a vague one is refused', async () => {
    const repo = makeRepo()
    seedStore(repo)
    repo.write(
      'body.md',
      '## Problem\nRedis is not running.\n\n## Trigger Conditions\nA client connects to localhost:6379.\n\n## Root Cause\nWe checked the port: nothing listens, the server was never started.\n\n## Solution\nStart it: `docker compose up -d redis`.\n\n## Verification\n`redis-cli ping` answers PONG; the suite passed.\n',
    )
    const base = [
      'add',
      '--name',
      'redis-not-running',
      '--type',
      'error-solution',
      '--description',
      'Redis refuses connections on 6379 because it is not running. Use when a client cannot connect to redis locally.',
      '--tags',
      'redis,docker',
      '--domain',
      'debugging',
      '--body-file',
      'body.md',
      '--json',
    ]
    const vague = await repo.cli([
      ...base,
      '--trigger',
      'Error: connect ECONNREFUSED 127.0.0.1:6379',
      '--trigger',
      'it sometimes breaks',
    ])
    expect(vague.code).toBe(1)
    expect(vague.stderr).toMatch(/it sometimes breaks/)
    const r = await repo.cli([
      ...base,
      '--trigger',
      'Error: connect ECONNREFUSED 127.0.0.1:6379',
      '--trigger',
      'redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379. Connection refused.',
    ])
    expect(r.code, r.stderr).toBe(0)
    expect(repo.read('.learnings/pending/redis-not-running.md')).toMatch(
      /trigger:\n {2}- "?Error: connect ECONNREFUSED 127\.0\.0\.1:6379"?\n {2}- /,
    )
    repo.git('mv', '.learnings/pending/redis-not-running.md', '.learnings/active/redis-not-running.md')
    repo.git('commit', '-q', '-m', 'activate')
    const python =
      'Traceback (most recent call last):\nredis.exceptions.ConnectionError: Error 111 connecting to localhost:6379. Connection refused.'
    expect((await repo.cli(['search', '--json', python])).json().results[0].name).toBe('redis-not-running')
    const recalled = await repo.cli(['recall'], { stdin: failurePayload(repo.root, { error: python }) })
    expect(recalled.json().hookSpecificOutput.additionalContext).toMatch(/^git-learn: redis-not-running — /)
    const node = await repo.cli(['recall'], {
      stdin: failurePayload(repo.root, {
        error: 'Error: connect ECONNREFUSED 127.0.0.1:6379\n    at TCPConnectWrap.afterConnect',
      }),
    })
    expect(node.json().hookSpecificOutput.additionalContext).toMatch(/^git-learn: redis-not-running — /)
    const other = await repo.cli(['recall'], {
      stdin: failurePayload(repo.root, { error: 'Error: connect ETIMEDOUT 10.0.0.7:443' }),
    })
    expect(other.stdout).not.toMatch(/redis-not-running/)
  })
})
