import { describe, expect, test } from 'vitest'
import { agentHookCommand } from '../../src/adapters/agents/claude-settings.js'
import { makeRepo } from '../helpers/repo.js'
import { seedStore } from '../helpers/feed-store.js'

describe('git learn init --agent claude', () => {
  test('merges the hooks without clobbering others, writes the commands, and is idempotent', async () => {
    const repo = makeRepo()
    const mine = {
      permissions: { allow: ['Bash(npm test)'] },
      hooks: {
        PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'npx prettier --write', timeout: 30 }] }],
      },
    }
    repo.write('.claude/settings.json', JSON.stringify(mine, null, 2))
    const r = await repo.cli(['init', '--agent', 'claude', '--json'])
    expect(r.code).toBe(0)
    const s = JSON.parse(repo.read('.claude/settings.json'))
    expect(s.permissions).toEqual(mine.permissions)
    expect(s.hooks.PostToolUse[0]).toEqual(mine.hooks.PostToolUse[0])
    expect(s.hooks.SessionStart).toContainEqual({
      hooks: [{ type: 'command', command: agentHookCommand('context'), timeout: 10 }],
    })
    expect(s.hooks.PostToolUseFailure).toContainEqual({
      matcher: '*',
      hooks: [{ type: 'command', command: agentHookCommand('recall'), timeout: 5 }],
    })
    expect(s.hooks.PostToolUse).toContainEqual({
      matcher: 'Bash',
      hooks: [{ type: 'command', command: agentHookCommand('recall'), timeout: 5 }],
    })
    // Transcript capture, synchronous, once a turn; no per-call observe hooks.
    for (const ev of ['Stop', 'SubagentStop', 'PreCompact', 'SessionEnd'])
      expect(s.hooks[ev], ev).toEqual([
        { hooks: [{ type: 'command', command: agentHookCommand('capture'), timeout: 30 }] },
      ])
    expect(JSON.stringify(s.hooks)).not.toMatch(/git learn observe|exec "\$b" observe/)
    expect(repo.read('.claude/commands/learn.md')).toMatch(/git learn add/)
    expect(repo.read('.claude/commands/learnings.md')).toMatch(/git learn search/)
    const before = repo.read('.claude/settings.json')
    const again = await repo.cli(['init', '--agent', 'claude', '--json'])
    expect(again.json().agent.hooksAdded).toEqual([])
    expect(repo.read('.claude/settings.json')).toBe(before)
  })

  test("edits settings.json in place: every byte of the user's file is kept, older git learn hooks are updated", async () => {
    const repo = makeRepo()
    // Tabs, a key order of the user's own, numbers written their way and an older git learn hook.
    const mine =
      '{\n\t"model": "opus",\n\t"hooks": {\n\t\t"SessionStart": [\n\t\t\t{ "hooks": [ { "type": "command", "command": "git learn context", "timeout": 10 } ] }\n\t\t]\n\t},\n\t"env": { "A": "1.50" }\n}\n'
    repo.write('.claude/settings.json', mine)
    const r = await repo.cli(['init', '--agent', 'claude', '--json'])
    expect(r.code).toBe(0)
    expect(r.json().agent.hooksUpdated).toEqual(['SessionStart: git learn context'])
    const text = repo.read('.claude/settings.json')
    // What was there stays byte for byte: the text before our first insertion and the user's closing part.
    expect(text.startsWith('{\n\t"model": "opus",\n\t"hooks": {\n')).toBe(true)
    expect(text.endsWith('\n\t},\n\t"env": { "A": "1.50" }\n}\n')).toBe(true)
    expect(text).not.toContain('"command": "git learn context"')
    expect(text).toMatch(/\n\t\t"PostToolUseFailure": \[/)
    const s = JSON.parse(text)
    expect(s.hooks.SessionStart).toEqual([
      { hooks: [{ type: 'command', command: agentHookCommand('context'), timeout: 10 }] },
    ])
    const again = await repo.cli(['init', '--agent', 'claude', '--json'])
    expect(again.json().agent).toMatchObject({ hooksAdded: [], hooksUpdated: [] })
    expect(repo.read('.claude/settings.json')).toBe(text)
  })

  test('the async observe hooks of an older init give way to transcript capture; other hooks stay', async () => {
    const repo = makeRepo()
    const observe = { type: 'command', command: 'git learn observe', timeout: 5, async: true }
    const mine = { type: 'command', command: 'notify-send done', timeout: 5 }
    const old = {
      hooks: {
        PreToolUse: [{ matcher: '*', hooks: [observe] }],
        Stop: [{ hooks: [observe, mine] }],
        UserPromptSubmit: [{ hooks: [{ ...observe, async: false }] }],
      },
    }
    repo.write('.claude/settings.json', JSON.stringify(old, null, 2))
    const r = await repo.cli(['init', '--agent', 'claude', '--json'])
    expect(r.code).toBe(0)
    expect(r.json().agent.hooksRemoved).toEqual(['PreToolUse: git learn observe', 'Stop: git learn observe'])
    const s = JSON.parse(repo.read('.claude/settings.json'))
    expect(s.hooks.PreToolUse).toBeUndefined()
    expect(s.hooks.Stop).toEqual([
      { hooks: [mine] },
      { hooks: [{ type: 'command', command: agentHookCommand('capture'), timeout: 30 }] },
    ])
    // A hook the user wrote by hand (not async) is theirs: kept.
    expect(s.hooks.UserPromptSubmit).toEqual(old.hooks.UserPromptSubmit)
    const text = await repo.cli(['init', '--agent', 'claude'])
    expect(text.stdout).toContain('already has the git learn hooks')
  })

  test('a malformed settings.json is refused with its line, and nothing changes', async () => {
    const repo = makeRepo()
    repo.write('.claude/settings.json', '{\n  "hooks": {\n    "Stop": [,]\n  }\n}\n')
    repo.git('add', '-A')
    repo.git('commit', '-q', '-m', 'settings')
    const before = repo.snapshot()
    const r = await repo.cli(['init', '--agent', 'claude'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/\.claude\/settings\.json/)
    expect(r.stderr).toMatch(/line 3/)
    expect(repo.snapshot()).toBe(before)
  })

  test('an unsupported agent is a usage error', async () => {
    const repo = makeRepo()
    expect((await repo.cli(['init', '--agent', 'emacs'])).code).toBe(2)
  })
})

describe('git learn eval', () => {
  test('top-1, precision@k, MRR, misses and context tokens', async () => {
    const repo = makeRepo()
    seedStore(repo)
    repo.write(
      'queries.yaml',
      [
        '- query: "ReferenceError: Cannot access \'__vi_import_0__\' before initialization"',
        '  expect: vitest-esm-mock-hoisting',
        '- query: connect ECONNREFUSED 127.0.0.1:5432',
        '  expect: postgres-econnrefused',
        '- query: the flux capacitor overheated',
        '  expect: docker-enospc',
      ].join('\n'),
    )
    const r = await repo.cli(['eval', '--set', 'queries.yaml', '--json'])
    expect(r.code).toBe(0)
    const j = r.json()
    expect(j.queries).toBe(3)
    expect(j.top1).toBeCloseTo(2 / 3, 3)
    expect(j.k).toBe(3)
    expect(j.mrr).toBeGreaterThanOrEqual(2 / 3)
    expect(j.misses).toEqual([
      expect.objectContaining({ query: 'the flux capacitor overheated', expect: ['docker-enospc'], rank: null }),
    ])
    expect(j.contextTokens).toBeGreaterThan(0)
    expect(j.contextTokens).toBeLessThanOrEqual(1500)
    const text = await repo.cli(['eval', '--set', 'queries.yaml'])
    expect(text.stdout).toMatch(/top-1 66\.7%/)
    expect(text.stdout).toMatch(/miss: "the flux capacitor overheated"/)
  })

  test('a bad set file is refused naming it; a missing one cannot be read', async () => {
    const repo = makeRepo()
    seedStore(repo)
    repo.write('bad.yaml', 'just: a mapping\n')
    const r = await repo.cli(['eval', '--set', 'bad.yaml'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/bad\.yaml/)
    expect((await repo.cli(['eval', '--set', 'missing.yaml'])).code).toBe(3)
  })
})

test('the shipped eval set for the test store scores every query first', async () => {
  const { readFileSync } = await import('node:fs')
  const repo = makeRepo()
  seedStore(repo)
  repo.write('set.yaml', readFileSync(new URL('../fixtures/eval/seeds.yaml', import.meta.url), 'utf8'))
  const j = (await repo.cli(['eval', '--set', 'set.yaml', '--json'])).json()
  expect(j.misses).toEqual([])
  expect(j.top1).toBe(1)
})

describe('git learn eval --learnings <dir>', () => {
  test('evaluates over a folder of learnings: figures per form, recall right fix and silence', async () => {
    const repo = makeRepo()
    const dir = new URL('../fixtures/eval/real-world/learnings/', import.meta.url).pathname
    repo.write(
      'set.yaml',
      [
        '- query: "Error: connect ECONNREFUSED 127.0.0.1:6379"',
        '  expect: redis-econnrefused-6379-server-down',
        '  form: pasted',
        '- query: my local redis refuses every connection',
        '  expect: redis-econnrefused-6379-server-down',
        '  form: symptom',
        '- query: "Error: the flux capacitor overheated at 88 mph"',
        '  expect: none',
        '  form: unrelated',
      ].join('\n'),
    )
    const r = await repo.cli(['eval', '--set', 'set.yaml', '--learnings', dir, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const j = r.json()
    expect(j).toMatchObject({
      queries: 2,
      top1: 1,
      none: 1,
      recall: { failures: 1, rightFix: 1, unrelated: 1, silence: 1 },
    })
    expect(Object.keys(j.forms)).toEqual(['pasted', 'symptom', 'unrelated'])
    expect(j.forms.symptom.recall).toBeUndefined()
    // A share of no query is no figure: null, and the text's counts are the JSON's.
    expect(j.forms.unrelated).toEqual({
      queries: 0,
      top1: null,
      precisionAtK: null,
      hitAtK: null,
      mrr: null,
      none: 1,
      recall: { failures: 0, rightFix: null, unrelated: 1, silence: 1 },
    })
    expect(j.forms.pasted.recall).toEqual({ failures: 1, rightFix: 1, unrelated: 0, silence: null })
    const text = await repo.cli(['eval', '--set', 'set.yaml', '--learnings', dir])
    expect(text.stdout).toMatch(/^ {2}pasted: 1 query · top-1 100\.0% · MRR 1\.000 · recall: right fix 100\.0% of 1$/m)
    expect(text.stdout).toMatch(/^ {2}unrelated: 0 queries \(1 more expect none\) · recall: silent 100\.0% of 1$/m)
    const missing = await repo.cli(['eval', '--set', 'set.yaml', '--learnings', 'no-such-dir'])
    expect(missing.code).toBe(3)
    expect(missing.stderr).toMatch(/cannot use the learnings folder ".*no-such-dir": it does not exist/)
    // A folder without learning files (the set's root, not its learnings/) is named, not scored as 0 % found.
    const root = new URL('../fixtures/eval/real-world/', import.meta.url).pathname
    const empty = await repo.cli(['eval', '--set', 'set.yaml', '--learnings', root])
    expect(empty.code).toBe(2)
    expect(empty.stdout).toBe('')
    expect(empty.stderr).toContain('holds no learning (*.md besides README.md)')
  })
})
