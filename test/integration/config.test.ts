// src/adapters/store/config.ts: every reader of .learnings/config.yaml goes through one module and one cache entry
// per content; observe finds that entry through its stat alias and never fails on a configuration the others refuse.
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { makeRepo } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

const cacheEntries = (repo: TestRepo) =>
  readdirSync(join(repo.root, '.git', 'learn', 'cache')).filter((f) => f.startsWith('config-'))
const event = (tool: string) =>
  JSON.stringify({
    session_id: 's1',
    cwd: '/r',
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: {},
    tool_use_id: `t-${tool}`,
  })
const recorded = (repo: TestRepo) =>
  readFileSync(join(repo.root, '.git', 'learn', 'observations.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { tool: string }).tool)

describe('one configuration cache', () => {
  test('a command and observe share one entry for the same bytes', async () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', 'observe:\n  ignore_tools: [Read]\ncontext:\n  max_tokens: 900\n')
    expect((await repo.cli(['status', '--json'])).code).toBe(0)
    const entries = cacheEntries(repo)
    expect(entries).toHaveLength(1)
    await repo.cli(['observe'], { stdin: event('Read') })
    await repo.cli(['observe'], { stdin: event('Bash') })
    expect(recorded(repo)).toEqual(['Bash'])
    expect(cacheEntries(repo)).toEqual(entries)
    expect(JSON.parse(readFileSync(join(repo.root, '.git', 'learn', 'observe-config.json'), 'utf8')).entry).toBe(
      entries[0],
    )
  })

  test('a changed file is a new entry for everyone, the old one replaced', async () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', 'observe:\n  ignore_tools: [Read]\n')
    await repo.cli(['observe'], { stdin: event('Read') })
    const first = cacheEntries(repo)
    repo.write('.learnings/config.yaml', 'observe:\n  ignore_tools: [Bash]\n')
    await repo.cli(['observe'], { stdin: event('Read') })
    await repo.cli(['observe'], { stdin: event('Bash') })
    expect(recorded(repo)).toEqual(['Read'])
    expect(cacheEntries(repo)).toHaveLength(1)
    expect(cacheEntries(repo)).not.toEqual(first)
  })

  test('an invalid file: the commands refuse it every time, observe keeps its own settings', async () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', 'gates:\n  min_discovery_depth: deep\nobserve:\n  ignore_tools: [Read]\n')
    for (let i = 0; i < 2; i++) {
      const r = await repo.cli(['status'])
      expect(r.code).toBe(1)
      expect(r.stderr).toContain('.learnings/config.yaml is not a valid configuration')
      expect(r.stderr).toContain('min_discovery_depth')
    }
    await repo.cli(['observe'], { stdin: event('Read') })
    await repo.cli(['observe'], { stdin: event('Bash') })
    expect(recorded(repo)).toEqual(['Bash'])
  })
})
