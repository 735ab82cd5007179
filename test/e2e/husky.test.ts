import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { HUSKY_LINES } from '../../src/adapters/git/hooks.js'
import { PROJECT_ROOT, learningText, makeRepo, sh } from '../helpers/repo.js'

// The real husky (its own bin, as `npm exec husky` would run it) in a fresh repository, then `git learn hook install`
// appends its marked lines, and real commits go through .husky/_ → .husky/pre-commit → git learn check --staged.
test('with husky: hook install appends marked lines, a pasted token is blocked, a clean learning commits', () => {
  const repo = makeRepo()
  const husky = sh(repo.root, process.execPath, [join(PROJECT_ROOT, 'node_modules', 'husky', 'bin.js')])
  expect(husky.code).toBe(0)
  expect(repo.git('config', 'core.hooksPath').trim()).toBe('.husky/_')
  repo.write('.husky/pre-commit', 'echo "own hook ran"\n')

  const install = sh(repo.root, 'git', ['learn', 'hook', 'install'])
  expect(install.code).toBe(0)
  const pre = readFileSync(join(repo.root, '.husky/pre-commit'), 'utf8')
  expect(pre).toMatch(/^echo "own hook ran"\n/)
  expect(pre).toContain(`\n${HUSKY_LINES['pre-commit']}\n`)
  expect(readFileSync(join(repo.root, '.husky/commit-msg'), 'utf8')).toBe(`${HUSKY_LINES['commit-msg']}\n`)
  expect(sh(repo.root, 'git', ['learn', 'hook', 'install']).code).toBe(0)
  expect(readFileSync(join(repo.root, '.husky/pre-commit'), 'utf8')).toBe(pre)

  const token = `ghp_${'aB3dE6gH9jK2mN5pQ8sT1vW4yZ7cF0hJ3lO6'.slice(0, 36)}`
  repo.write(
    '.learnings/pending/leaky.md',
    learningText(
      'leaky',
      {},
      `## Problem\nCI could not pull.\n\n## Trigger Conditions\nE401.\n\n## Root Cause\nTried A; the token was missing.\n\n## Solution\nexport GITHUB_TOKEN=${token}\n\n## Verification\nnpm ci passed.\n`,
    ),
  )
  repo.git('add', '.learnings/pending/leaky.md')
  const blocked = sh(repo.root, 'git', ['commit', '-m', 'add leaky'])
  expect(blocked.code).not.toBe(0)
  expect(blocked.stdout + blocked.stderr).toMatch(/own hook ran/)
  expect(blocked.stderr).toMatch(/\.learnings\/pending\/leaky\.md:\d+.*secrets/)
  expect(blocked.stderr).not.toContain(token)
  repo.git('rm', '-q', '--cached', '.learnings/pending/leaky.md')

  repo.write('.learnings/pending/clean.md', learningText('clean'))
  repo.git('add', '.learnings/pending/clean.md')
  const ok = sh(repo.root, 'git', ['commit', '-q', '-m', 'add clean'])
  expect(ok.stderr).not.toMatch(/error/)
  expect(ok.code).toBe(0)

  const skip = sh(repo.root, 'git', ['commit', '-q', '--allow-empty', '-m', 'skip'], { env: { HUSKY: '0' } })
  expect(skip.code).toBe(0)

  const un = sh(repo.root, 'git', ['learn', 'hook', 'uninstall'])
  expect(un.code).toBe(0)
  expect(readFileSync(join(repo.root, '.husky/pre-commit'), 'utf8')).toBe('echo "own hook ran"\n')
})

// A husky hook that ends in `exit 0` (a common template): a line appended after it never runs.
test('with husky: the guard goes before a final exit 0, an install behind one is moved, a conditional exit is warned about', async () => {
  const repo = makeRepo()
  expect(sh(repo.root, process.execPath, [join(PROJECT_ROOT, 'node_modules', 'husky', 'bin.js')]).code).toBe(0)
  repo.write('.husky/commit-msg', 'echo "commitlint ran"\nexit 0\n')
  repo.write('.husky/pre-commit', '[ -n "$SKIP_HOOKS" ] && exit 0\nnpx lint-staged\n')
  const init = sh(repo.root, 'git', ['learn', 'init', '--hooks'])
  expect(init.code).toBe(0)
  expect(init.stdout).toMatch(
    /inserted\s+\.husky\/commit-msg \(line 2, before `exit 0` \(line 3\): nothing after it runs\)\n/,
  )
  expect(repo.read('.husky/commit-msg')).toBe(`echo "commitlint ran"\n${HUSKY_LINES['commit-msg']}\nexit 0\n`)
  expect(init.stderr).toBe(
    'warning: .husky/pre-commit:1: `[ -n "$SKIP_HOOKS" ] && exit 0` can end the hook before the git learn line, which then does not run: make sure it cannot skip the check, or move the git learn line above it\n',
  )
  repo.write('.husky/pre-commit', 'echo "own hook ran"\n')
  expect(sh(repo.root, 'git', ['learn', 'hook', 'install']).code).toBe(0)
  repo.git('add', '.')
  expect(sh(repo.root, 'git', ['commit', '-qm', 'setup']).code).toBe(0)
  repo.write('draft.md', learningText('hand-moved'))
  expect(sh(repo.root, 'git', ['learn', 'add', '--file', 'draft.md']).code).toBe(0)
  rmSync(join(repo.root, 'draft.md'))

  const handMove = () => {
    mkdirSync(join(repo.root, '.learnings/active'), { recursive: true })
    repo.git('mv', '.learnings/pending/hand-moved.md', '.learnings/active/hand-moved.md')
    const r = sh(repo.root, 'git', ['commit', '-m', 'x'])
    repo.git('reset', '-q', '--hard', 'HEAD')
    return r
  }
  const refused = handMove()
  expect(refused.stdout + refused.stderr).toMatch(/commitlint ran/)
  expect(refused.stderr).toMatch(/git learn approve/)
  expect(refused.code).not.toBe(0)

  // An install of an earlier version, behind the exit: reported as unchanged before, now moved and said so.
  repo.write('.husky/commit-msg', `echo "commitlint ran"\nexit 0\n${HUSKY_LINES['commit-msg']}\n`)
  const repair = sh(repo.root, 'git', ['learn', 'hook', 'install'])
  expect(repair.code).toBe(0)
  expect(repair.stdout).toMatch(
    /moved\s+\.husky\/commit-msg \(it was line 3, after `exit 0`, and never ran: now line 2, before `exit 0` \(line 3\)\)\n/,
  )
  expect(repo.read('.husky/commit-msg')).toBe(`echo "commitlint ran"\n${HUSKY_LINES['commit-msg']}\nexit 0\n`)
  expect(sh(repo.root, 'git', ['learn', 'hook', 'install']).stdout).toMatch(/unchanged\s+\.husky\/commit-msg\n/)
  expect(handMove().code).not.toBe(0)
})
