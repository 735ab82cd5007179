import { describe, expect, test } from 'vitest'
import { readStore } from '../../src/adapters/store/store.js'
import { filterLearnings } from '../../src/core/query.js'
import { listTable } from '../../src/cli/messages/lifecycle.js'
import { makeRepo, learningText } from '../helpers/repo.js'

function storeRepo() {
  const repo = makeRepo()
  repo.write('.learnings/active/alpha-fix.md', learningText('alpha-fix'))
  // A description with runs of spaces and a tag list: list prints them as written, not as the search catalog keeps them.
  repo.write(
    '.learnings/active/beta-fix.md',
    learningText('beta-fix', {
      description: '"  Spaced   out\\tdescription.  Use when beta fails.  "',
      tags: '[beta, ci]',
    }),
  )
  repo.write('.learnings/pending/gamma-fix.md', learningText('gamma-fix', { type: 'pattern' }))
  repo.write('.learnings/archived/delta-fix.md', learningText('delta-fix'))
  repo.write('.learnings/pending/broken.md', '---\nname: [unclosed\n---\nbody\n')
  repo.git('add', '.')
  repo.git('commit', '-q', '-m', 'seed')
  return repo
}

/** What list printed before it read the cache: every file parsed. */
function direct(root: string, states: Parameters<typeof readStore>[1], f: { type?: string; tag?: string } = {}) {
  return filterLearnings(readStore(root, states).learnings, f)
}

describe('git learn list from the feed cache', () => {
  test.each([
    [['list', '--json'], ['pending', 'active', 'archived'] as const, {}],
    [['list', '--json', '--state', 'active'], ['active'] as const, {}],
    [['list', '--json', '--tag', 'beta'], ['pending', 'active', 'archived'] as const, { tag: 'beta' }],
    [['list', '--json', '--type', 'pattern'], ['pending', 'active', 'archived'] as const, { type: 'pattern' }],
  ])('%j prints what parsing every file prints, cold and warm', async (argv, states, f) => {
    const repo = storeRepo()
    const want = { learnings: direct(repo.root, states, f) }
    expect((await repo.cli(argv)).json()).toEqual(want)
    expect((await repo.cli(argv)).json()).toEqual(want)
  })

  test('the text table is the same, and unreadable files are warned about in their state only', async () => {
    const repo = storeRepo()
    const r = await repo.cli(['list'])
    expect(r.stdout).toBe(listTable(direct(repo.root, ['pending', 'active', 'archived'])))
    expect(r.stdout).toContain('Spaced out description.')
    expect(r.stderr).toMatch(/warning: skipped \.learnings\/pending\/broken\.md/)
    const warm = await repo.cli(['list'])
    expect(warm.stderr).toMatch(/warning: skipped \.learnings\/pending\/broken\.md/)
    expect((await repo.cli(['list', '--state', 'active'])).stderr).toBe('')
  })

  test('an edited, added or removed file shows at once (uncommitted)', async () => {
    const repo = storeRepo()
    await repo.cli(['list'])
    repo.write(
      '.learnings/active/alpha-fix.md',
      learningText('alpha-fix', { description: '"Rewritten just now. Use when alpha fails."' }),
    )
    repo.write('.learnings/pending/new-fix.md', learningText('new-fix'))
    repo.git('rm', '-q', '.learnings/archived/delta-fix.md')
    const out = (await repo.cli(['list', '--json'])).json()
    expect(out).toEqual({ learnings: direct(repo.root, ['pending', 'active', 'archived']) })
    expect(out.learnings.map((l: { name: string }) => l.name)).toEqual([
      'alpha-fix',
      'beta-fix',
      'gamma-fix',
      'new-fix',
    ])
    expect(out.learnings[0].description).toBe('Rewritten just now. Use when alpha fails.')
  })
})

describe('git learn prune from the caches', () => {
  test('a use appended after a report counts in the next one', async () => {
    const repo = makeRepo()
    repo.write('.learnings/active/lonely-fix.md', learningText('lonely-fix', { created: '"2026-01-01"' }))
    repo.git('add', '.')
    repo.git('commit', '-q', '-m', 'seed')
    const now = new Date('2026-11-20T12:00:00Z')
    repo.write(
      '.git/learn/events.jsonl',
      `${JSON.stringify({ ts: '2026-11-01T00:00:00Z', kind: 'match', name: 'lonely-fix' })}\n`,
    )
    const first = (await repo.cli(['prune', '--json'], { now })).json()
    expect(first.candidates[0].reason).toBe('matched 1 time in 323 days (fewer than 2)')
    repo.write(
      '.git/learn/events.jsonl',
      `${JSON.stringify({ ts: '2026-11-01T00:00:00Z', kind: 'match', name: 'lonely-fix' })}\n${JSON.stringify({ ts: '2026-11-02T00:00:00Z', kind: 'match', name: 'lonely-fix' })}\n`,
    )
    expect((await repo.cli(['prune', '--json'], { now })).json().candidates).toEqual([])
  })
})
