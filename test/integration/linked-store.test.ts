/**
 * A store folder that is a symbolic link. git tracks the link, not what lies behind it, so nothing there was ever
 * reviewed, and `check` refuses it; but the feed listed the folder through the link and fed what it found to agents
 * as "learnings reviewed in this project" (context, recall, search), and add wrote its file through the link, outside
 * the repository. Now readers leave a linked folder out and say so, and committing commands refuse, changing nothing.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { SEEDS, VITEST_FAILURE, seedStore } from '../helpers/feed-store.js'
import { learningText, makeRepo, tempDir, tierRemote } from '../helpers/repo.js'

/** A repository whose `.learnings/<state>` is a link to a folder outside it holding the seeds' learnings. */
function linkedRepo(state: 'active' | 'pending') {
  const repo = makeRepo()
  seedStore(repo)
  const outside = tempDir('gl-outside-')
  // The files behind the link are copies the repository never tracked.
  for (const f of readdirSync(join(repo.root, '.learnings', 'active')))
    writeFileSync(join(outside, f), readFileSync(join(repo.root, '.learnings', 'active', f)))
  rmSync(join(repo.root, '.learnings', state), { recursive: true, force: true })
  symlinkSync(outside, join(repo.root, '.learnings', state))
  return { repo, outside }
}

describe('a store folder that is a symbolic link', () => {
  test('search, context and recall feed nothing from behind it; list and status say it was skipped', async () => {
    const { repo } = linkedRepo('active')
    const search = await repo.cli(['search', 'vi.mock', 'hoisted', '--json'])
    expect(search.code).toBe(0)
    expect(search.json().results).toEqual([])
    const context = await repo.cli(['context'])
    expect(context.code).toBe(0)
    for (const s of SEEDS) expect(context.stdout).not.toContain(s.name)
    const recall = await repo.cli(['recall'], {
      stdin: JSON.stringify({
        session_id: 's',
        cwd: repo.root,
        hook_event_name: 'PostToolUseFailure',
        tool_name: 'Bash',
        tool_input: { command: 'npx vitest run' },
        tool_use_id: 't',
        error: VITEST_FAILURE,
      }),
    })
    expect(recall.code).toBe(0)
    expect(recall.stdout).not.toContain('vitest-esm-mock-hoisting')
    for (const argv of [['list'], ['status']]) {
      const r = await repo.cli(argv)
      expect(r.code).toBe(0)
      expect(r.stdout).not.toContain('vitest-esm-mock-hoisting')
      expect(r.stderr).toMatch(/\.learnings\/active: is a symbolic link/)
    }
    expect((await repo.cli(['show', 'vitest-esm-mock-hoisting'])).code).toBe(2)
    const check = await repo.cli(['check'])
    expect(check.code).toBe(1)
  })

  test('add refuses (exit 3) and writes nothing behind the link; approve too', async () => {
    const { repo, outside } = linkedRepo('pending')
    const head = repo.git('rev-parse', 'HEAD')
    const before = readdirSync(outside).sort()
    repo.write('draft.md', learningText('new-thing'))
    const add = await repo.cli(['add', '--file', 'draft.md'])
    expect(add.code).toBe(3)
    expect(add.stderr).toMatch(/^git learn add: \.learnings\/pending is a symbolic link: .*Nothing was changed\./)
    expect(readdirSync(outside).sort()).toEqual(before)
    expect(existsSync(join(outside, 'new-thing.md'))).toBe(false)
    // A learning behind the link is not one of the store's: approve neither finds it nor moves it.
    const approve = await repo.cli(['approve', 'react-hooks-order'])
    expect(approve.code).not.toBe(0)
    expect(readdirSync(outside).sort()).toEqual(before)
    expect(repo.git('rev-parse', 'HEAD')).toBe(head)
  })

  test('.learnings itself a link: add refuses, naming it', async () => {
    const repo = makeRepo()
    const outside = tempDir('gl-outside-store-')
    for (const st of ['pending', 'active', 'archived']) mkdirSync(join(outside, st))
    symlinkSync(outside, join(repo.root, '.learnings'))
    repo.write('draft.md', learningText('new-thing'))
    const add = await repo.cli(['add', '--file', 'draft.md'])
    expect(add.code).toBe(3)
    expect(add.stderr).toMatch(/\.learnings is a symbolic link/)
    expect(readdirSync(join(outside, 'pending'))).toEqual([])
  })

  // config.yaml names the tiers whose learnings agents are given: one behind a link was never reviewed, so its tiers
  // are neither fetched nor fed (its other settings, observe's say, still apply), and readers say so.
  test('config.yaml a link: the tiers it names are neither fetched nor fed; list and status say why', async () => {
    const { bare } = tierRemote({ 'org-wide-fix': learningText('org-wide-fix', { confidence: '0.9' }) })
    const repo = makeRepo()
    repo.write('.learnings/active/.gitkeep', '')
    repo.git('add', '.')
    repo.git('commit', '-qm', 'store')
    const outside = join(tempDir('gl-outside-config-'), 'config.yaml')
    const commit = repo.git('ls-remote', bare, 'refs/heads/main').split('\t')[0] as string
    writeFileSync(outside, `tiers:\n  - name: org\n    url: ${bare}\n    ref: main\n    commit: ${commit}\n`)
    symlinkSync(outside, join(repo.root, '.learnings', 'config.yaml'))
    const context = await repo.cli(['context', '--format', 'text'])
    expect(context.code).toBe(0)
    expect(context.stdout).not.toContain('org-wide-fix')
    const search = await repo.cli(['search', '--json', 'org-wide-fix'])
    expect(search.json().results).toEqual([])
    for (const argv of [['list'], ['status']]) {
      const r = await repo.cli(argv)
      expect(r.code).toBe(0)
      expect(r.stderr).toMatch(/\.learnings\/config\.yaml: is a symbolic link/)
    }
    expect(() => repo.git('rev-parse', '--verify', '-q', 'refs/learn/tiers/org')).toThrow()
  })
})
