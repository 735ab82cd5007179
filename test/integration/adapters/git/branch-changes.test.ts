import { describe, expect, test } from 'vitest'
import { readBranchChanges } from '../../../../src/adapters/git/fast.js'
import { makeRepo } from '../../../helpers/repo.js'

// What the SessionStart context calls the files changed on this branch: committed since it left the default branch,
// and edited in the work tree, the store's own files aside (they are not work on the code, and git need not stat them).
describe('readBranchChanges', () => {
  test('committed on the branch and edited in the work tree, without the learning files', async () => {
    const repo = makeRepo()
    repo.write('src/kept.ts', 'x')
    repo.write('.learnings/active/old-fix.md', 'x')
    repo.git('add', '-A')
    repo.git('commit', '-qm', 'base')
    repo.git('checkout', '-q', '-b', 'feature')
    repo.write('kafka/consumer.ts', 'x')
    repo.write('.learnings/pending/new-fix.md', 'x')
    repo.git('add', '-A')
    repo.git('commit', '-qm', 'kafka work')
    repo.write('src/kept.ts', 'edited')
    repo.write('.learnings/active/old-fix.md', 'edited')
    expect((await readBranchChanges(repo.root)).sort()).toEqual(['kafka/consumer.ts', 'src/kept.ts'])
  })

  test('no default branch to leave: none', async () => {
    const repo = makeRepo()
    repo.write('a.ts', 'x')
    repo.git('add', '-A')
    repo.git('commit', '-qm', 'base')
    repo.git('branch', '-qm', 'main', 'trunk')
    repo.write('a.ts', 'edited')
    expect(await readBranchChanges(repo.root)).toEqual([])
  })
})
