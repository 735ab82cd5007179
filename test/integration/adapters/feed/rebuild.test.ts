import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { learningText, makeRepo } from '../../../helpers/repo.js'

// The rebuild reads clean learnings from git's object store in bulk; what it indexes must still be the work tree.
describe('the feed rebuild reads clean learnings from git in bulk', () => {
  test('many clean learnings across states are all found, and an edit not yet staged is what search sees', async () => {
    const repo = makeRepo()
    for (let i = 0; i < 30; i++)
      repo.write(`.learnings/${i % 3 ? 'active' : 'pending'}/bulk-note-${i}.md`, learningText(`bulk-note-${i}`))
    repo.git('add', '-A')
    repo.git('commit', '-q', '-m', 'store')
    repo.write(
      '.learnings/active/bulk-note-7.md',
      learningText('bulk-note-7', {
        description: 'Fix the quokka failure. Use when the build prints the quokka error.',
      }),
    )
    const names = async (q: string) =>
      (await repo.cli(['search', '--json', '--state', 'all', '--limit', '50', q]))
        .json()
        .results.map((r: { name: string }) => r.name)
    expect((await names('exploded')).length).toBe(30)
    expect(await names('quokka')).toEqual(['bulk-note-7'])
  })

  test('a file converted on checkout (a smudge filter) is indexed as it is in the work tree, not as its blob', async () => {
    const repo = makeRepo()
    repo.git('config', 'filter.animal.clean', 'sed s/wombat/PLACEHOLDER/g')
    repo.git('config', 'filter.animal.smudge', 'sed s/PLACEHOLDER/wombat/g')
    repo.write('.gitattributes', '*.md filter=animal\n')
    repo.write(
      '.learnings/active/filtered-note.md',
      learningText('filtered-note', {
        description: 'Fix the wombat failure. Use when the build prints the wombat error.',
      }),
    )
    repo.git('add', '-A')
    repo.git('commit', '-q', '-m', 'store')
    // Check the file out again so the work tree holds the smudged text and the index's stat matches it (clean).
    rmSync(join(repo.root, '.learnings/active/filtered-note.md'))
    repo.git('checkout', '--', '.learnings/active/filtered-note.md')
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(repo.git('cat-file', '-p', 'HEAD:.learnings/active/filtered-note.md')).not.toContain('wombat')
    const r = (await repo.cli(['search', '--json', 'wombat'])).json()
    expect(r.results.map((x: { name: string }) => x.name)).toEqual(['filtered-note'])
  })
})
