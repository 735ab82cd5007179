// src/adapters/store/config.ts: every reader of .learnings/config.yaml goes through one module and one cache entry
// per content; observe finds that entry through its stat alias and never fails on a configuration the others refuse.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { cliAt, makeRepo, tempDir } from '../helpers/repo.js'
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
const aliasText = (repo: TestRepo) => readFileSync(join(repo.root, '.git', 'learn', 'observe-config.json'), 'utf8')
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
    expect(JSON.parse(aliasText(repo)).aliases.map((a: { entry: string }) => a.entry)).toEqual(entries)
  })

  test('a changed file is a new entry for everyone; the 32 newest are kept, older ones go', async () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', 'observe:\n  ignore_tools: [Read]\n')
    await repo.cli(['observe'], { stdin: event('Read') })
    const first = cacheEntries(repo)
    repo.write('.learnings/config.yaml', 'observe:\n  ignore_tools: [Bash]\n')
    await repo.cli(['observe'], { stdin: event('Read') })
    await repo.cli(['observe'], { stdin: event('Bash') })
    expect(recorded(repo)).toEqual(['Read'])
    expect(cacheEntries(repo)).toHaveLength(2)
    expect(cacheEntries(repo)).toEqual(expect.arrayContaining(first))
    // 32, not 8: a dozen agents' worktrees, each on a branch whose config.yaml may differ (a tier pin moved on one).
    for (let i = 0; i < 34; i++) {
      repo.write('.learnings/config.yaml', `context:\n  max_tokens: ${900 + i}\n`)
      expect((await repo.cli(['status', '--json'])).code).toBe(0)
    }
    expect(cacheEntries(repo)).toHaveLength(32)
  })

  // An agent in each of a dozen worktrees: each worktree's config.yaml is a file of its own (its own stat alias), and
  // 8 aliases had the ninth evict one at every tool call, which then hashed its config.yaml again.
  test('a dozen work trees observed in turn: each keeps its alias, none is written again', async () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', 'observe:\n  ignore_tools: [Read]\n')
    repo.git('add', '.learnings/config.yaml')
    repo.git('commit', '-qm', 'config')
    const base = tempDir('gl-wts-')
    const trees = Array.from({ length: 12 }, (_, i) => join(base, `agent-${i}`))
    for (const [i, wt] of trees.entries()) repo.git('worktree', 'add', '-q', '-b', `agent-${i}`, wt)
    const round = async () => {
      for (const wt of trees) expect((await cliAt(wt, ['observe'], process.env, event('Bash'))).code).toBe(0)
    }
    await round()
    const aliases = aliasText(repo)
    const aliasFile = join(repo.root, '.git', 'learn', 'observe-config.json')
    const ino = statSync(aliasFile).ino
    expect(cacheEntries(repo)).toHaveLength(1) // the same bytes: one entry for all
    await round()
    expect(statSync(aliasFile).ino).toBe(ino) // not written again (a rewrite is a new file, renamed into place)
    expect(
      JSON.parse(aliases)
        .aliases.map((a: { root: string }) => a.root)
        .sort(),
    ).toEqual([...trees].sort())
    // A worktree removed: its alias goes at the next write (here a new worktree's first tool call).
    repo.git('worktree', 'remove', trees[0] as string)
    const added = join(base, 'agent-new')
    repo.git('worktree', 'add', '-q', '-b', 'agent-new', added)
    expect((await cliAt(added, ['observe'], process.env, event('Bash'))).code).toBe(0)
    const roots = JSON.parse(aliasText(repo)).aliases.map((a: { root: string }) => a.root)
    expect(roots).toHaveLength(12)
    expect(roots).not.toContain(trees[0])
  })

  // One clone, an agent in each `git worktree`, each on its own branch's config.yaml: keeping only the last entry had
  // each work tree evict the other's, so every tool call and every command of both parsed the YAML again.
  test('two work trees with different config.yaml, used in turn: each keeps its entry, nothing is rebuilt', async () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', 'observe:\n  ignore_tools: [Read]\n')
    repo.git('add', '.learnings/config.yaml')
    repo.git('commit', '-qm', 'config')
    const wt = join(tempDir('gl-wt-'), 'agent')
    repo.git('worktree', 'add', '-q', '-b', 'agent', wt)
    writeFileSync(join(wt, '.learnings/config.yaml'), 'observe:\n  ignore_tools: [Bash]\n')
    // Each work tree's own settings: the main one ignores Read, the agent's Bash.
    const inMain = () => repo.cli(['observe'], { stdin: event('Bash') })
    const inWorktree = () => cliAt(wt, ['observe'], process.env, event('Read'))
    for (const run of [inMain, inWorktree, () => repo.cli(['status', '--json']), () => cliAt(wt, ['status'])])
      expect((await run()).code).toBe(0)
    const entries = cacheEntries(repo)
    expect(entries).toHaveLength(2)
    const dir = join(repo.root, '.git', 'learn', 'cache')
    const files = () => [...entries.map((e) => statSync(join(dir, e)).ino), aliasText(repo)]
    const before = files()
    for (let i = 0; i < 3; i++)
      for (const run of [inMain, inWorktree, () => repo.cli(['status', '--json']), () => cliAt(wt, ['status'])])
        expect((await run()).code).toBe(0)
    // Neither entry was written again (a rewrite is a new file, renamed into place), nor the aliases.
    expect(files()).toEqual(before)
    expect(recorded(repo)).toEqual(Array(4).fill(['Bash', 'Read']).flat())
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

  // A tier's learnings are labelled to agents by its name; "project" would pass for this repository's own.
  test('a tier named "project" makes the file invalid', async () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', `tiers:\n  - name: project\n    url: ../org\n    commit: ${'a'.repeat(40)}\n`)
    const r = await repo.cli(['status'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('.learnings/config.yaml is not a valid configuration')
    expect(r.stderr).toMatch(/tiers/)
  })

  // `tier add project` was accepted before 2026-12-07: a team that upgrades finds it in its committed config.yaml,
  // and every command refuses the file; each says why and what to do, and none rewrites a teammate's file.
  test('a tier named "project" by an earlier git-learn: the refusal says why and how to rename it', async () => {
    const repo = makeRepo()
    const text = `tiers:\n  - name: project\n    url: ../org\n    ref: main\n    commit: ${'a'.repeat(40)}\n`
    repo.write('.learnings/config.yaml', text)
    const status = await repo.cli(['status'])
    const check = await repo.cli(['check'])
    expect(check.code).toBe(1)
    for (const out of [status.stderr, check.stdout]) {
      expect(out).toContain(`"tiers[0].name" may not be "project", which names this repository's own learnings`)
      expect(out).toContain('rename the tier in .learnings/config.yaml')
    }
    expect(repo.read('.learnings/config.yaml')).toBe(text)
  })

  // The schema's sentences are shared with learnings, whose fields live in the frontmatter; config.yaml has none.
  test.each([
    ['a list, not a mapping', '- gates\n', /the file must be a mapping of keys to values/],
    [
      'a tier without its url',
      'tiers:\n  - {name: org}\n',
      /"tiers\[0\]\.url" is required; add it to \.learnings\/config\.yaml/,
    ],
  ])('%s: the message speaks of the file, not of frontmatter', async (_, text, says) => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', text)
    const r = await repo.cli(['list', '--json'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(says)
    expect(r.stderr).not.toMatch(/frontmatter/)
    expect(r.json().error.problems).toHaveLength(1)
  })
})

// The pre-commit hook reads the staged config.yaml through the same cache (check --staged, configFromBytes).
describe("the hook's entry for the staged config", () => {
  test('is kept beside the work tree entry, and one damaged into other JSON is rebuilt, not trusted', async () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', 'secrets:\n  allow: []\n')
    repo.git('add', '.learnings/config.yaml')
    repo.git('commit', '-q', '-m', 'config')
    // An unstaged edit: the work tree's config is other bytes than the staged one.
    repo.write('.learnings/config.yaml', 'context:\n  max_tokens: 900\n')
    expect((await repo.cli(['status', '--json'])).code).toBe(0)
    const worktree = cacheEntries(repo)
    expect(worktree).toHaveLength(1)
    repo.write('.learnings/pending/x.md', 'not a learning\n')
    repo.git('add', '.learnings/pending/x.md')
    const first = await repo.cli(['check', '--staged', '--json'])
    expect(first.code).toBe(1)
    const both = cacheEntries(repo)
    expect(both).toHaveLength(2)
    expect(both).toEqual(expect.arrayContaining(worktree))
    const staged = join(repo.root, '.git', 'learn', 'cache', both.find((f) => !worktree.includes(f)) as string)
    // Well-formed JSON of the entry's format that is no config: a miss, rebuilt from the bytes.
    const entry = JSON.parse(readFileSync(staged, 'utf8')) as Record<string, unknown>
    writeFileSync(staged, JSON.stringify({ ...entry, config: {} }))
    const again = await repo.cli(['check', '--staged', '--json'])
    expect([again.code, again.stdout]).toEqual([first.code, first.stdout])
    expect(JSON.parse(readFileSync(staged, 'utf8'))).toEqual(entry)
  })
})
