// The built bin as `git learn` on PATH, installed as real hooks, fired by real `git commit`s.
import { describe, expect, test } from 'vitest'
import { learningText, makeRepo, sh } from '../helpers/repo.js'

const TOKEN = `ghp_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`

function setUp() {
  const repo = makeRepo()
  const run = (cmd: string, ...args: string[]) => sh(repo.root, cmd, args)
  const init = run('git', 'learn', 'init', '--hooks')
  expect(init.code, init.stderr).toBe(0)
  expect(init.stdout).toContain('.git/hooks/pre-commit')
  const first = run('git', 'add', '-A')
  expect(first.code).toBe(0)
  const c = run('git', 'commit', '-q', '-m', 'set up the store')
  expect(c.code, c.stderr).toBe(0)
  return { repo, run }
}

describe('hooks in a fresh repository', () => {
  test('a pasted token stops the commit without showing the token; a clean learning commits', () => {
    const { repo, run } = setUp()
    repo.write(
      '.learnings/pending/leaky.md',
      learningText(
        'leaky',
        {},
        `## Problem\nx\n\n## Trigger Conditions\nx\n\n## Root Cause\nWe tried A.\n\n## Solution\nexport GITHUB_TOKEN=${TOKEN}\n\n## Verification\nok\n`,
      ),
    )
    run('git', 'add', '.learnings/pending/leaky.md')
    const bad = run('git', 'commit', '-q', '-m', 'add leaky')
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain('.learnings/pending/leaky.md')
    expect(bad.stderr).toContain('[secrets]')
    expect(bad.stderr).toContain('pre-commit')
    expect(bad.stderr + bad.stdout).not.toContain(TOKEN)
    expect(repo.git('log', '--format=%s')).not.toContain('add leaky')

    repo.write('.learnings/pending/leaky.md', learningText('leaky'))
    run('git', 'add', '.learnings/pending/leaky.md')
    const good = run('git', 'commit', '-q', '-m', 'add leaky')
    expect(good.code, good.stderr).toBe(0)
    expect(good.stderr).toBe('')
  })

  test('a hand-made move into active/ is refused; git learn approve commits through the hooks', () => {
    const { repo, run } = setUp()
    const added = sh(repo.root, 'git', ['learn', 'add', '--file', '-'], { input: learningText('vitest-thing') })
    expect(added.code, added.stderr).toBe(0)

    expect(run('git', 'mv', '.learnings/pending/vitest-thing.md', '.learnings/active/vitest-thing.md').code).toBe(0)
    const wip = run('git', 'commit', '-q', '-m', 'wip')
    expect(wip.code).toBe(1)
    expect(wip.stderr).toContain('git learn approve vitest-thing')
    expect(run('git', 'mv', '.learnings/active/vitest-thing.md', '.learnings/pending/vitest-thing.md').code).toBe(0)

    repo.setIdentity('Bob Reviewer', 'bob@example.com')
    const approved = run('git', 'learn', 'approve', 'vitest-thing')
    expect(approved.code, approved.stderr).toBe(0)
    expect(repo.exists('.learnings/active/vitest-thing.md')).toBe(true)
    expect(repo.git('log', '-1', '--format=%B')).toContain('Approved-by: Bob Reviewer <bob@example.com>')
  })

  test('--no-verify skips the hooks, but check --base main still fails', () => {
    const { repo, run } = setUp()
    run('git', 'checkout', '-q', '-b', 'feature')
    repo.write('.learnings/active/sneaky.md', learningText('sneaky'))
    run('git', 'add', '-A')
    expect(run('git', 'commit', '-q', '-m', 'wip').code).toBe(1) // the hook sees an add straight into active
    const skipped = run('git', 'commit', '-q', '--no-verify', '-m', 'wip')
    expect(skipped.code).toBe(0)
    const ci = run('git', 'learn', 'check', '--base', 'main', '--format', 'github')
    expect(ci.code).toBe(1)
    expect(ci.stdout).toContain('::error file=.learnings/active/sneaky.md,line=1,title=git-learn transition::')
  })

  test('GIT_LEARN_HOOKS=0 skips the hooks', () => {
    const { repo } = setUp()
    repo.write('.learnings/active/sneaky.md', learningText('sneaky'))
    repo.git('add', '-A')
    const r = sh(repo.root, 'git', ['commit', '-q', '-m', 'wip'], { env: { GIT_LEARN_HOOKS: '0' } })
    expect(r.code, r.stderr).toBe(0)
  })
})
