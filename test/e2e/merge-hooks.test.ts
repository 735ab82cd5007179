import { expect, test } from 'vitest'
import { learningText, makeRepo, sh } from '../helpers/repo.js'

// A merge without conflicts commits through pre-merge-commit, not pre-commit; post-merge/post-checkout refresh renders
// only where `git learn render` was used.
test('a clean merge that brings an invalid learning is refused; merges and checkouts do not start rendering', () => {
  const repo = makeRepo()
  expect(sh(repo.root, 'git', ['learn', 'init', '--hooks']).code).toBe(0)
  repo.git('add', '.learnings')
  const g = (...args: string[]) => {
    const r = sh(repo.root, 'git', args)
    expect(r.stderr).not.toMatch(/not found on PATH/)
    return r
  }
  expect(g('commit', '-qm', 'learn: init').code).toBe(0)
  g('checkout', '-qb', 'feat')
  repo.write('.learnings/pending/bad-one.md', learningText('bad-one', { name: 'other-name' }))
  repo.git('add', '.')
  expect(sh(repo.root, 'git', ['commit', '-qm', 'bad'], { env: { GIT_LEARN_HOOKS: '0' } }).code).toBe(0)
  g('checkout', '-q', 'main')
  const merge = g('merge', '--no-ff', '-m', 'merge feat', 'feat')
  expect(merge.code).not.toBe(0)
  expect(merge.stderr).toMatch(/bad-one\.md.*schema/)
  expect(repo.git('log', '-1', '--format=%s').trim()).toBe('learn: init')
  repo.git('merge', '--abort')

  g('checkout', '-q', 'feat')
  repo.write('.learnings/pending/bad-one.md', learningText('bad-one'))
  expect(g('commit', '-qam', 'fixed').code).toBe(0)
  g('checkout', '-q', 'main')
  const ok = g('merge', '--no-ff', '-m', 'merge feat', 'feat')
  expect(ok.stderr).toBe('')
  expect(ok.code).toBe(0)
  expect(repo.exists('.claude')).toBe(false)
  g('checkout', '-q', 'feat')
  expect(repo.exists('.claude')).toBe(false)
})
