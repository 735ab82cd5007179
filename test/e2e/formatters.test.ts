import { symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { PROJECT_ROOT, learningText, makeRepo, sh } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

// An app whose pre-commit runs lint-staged with prettier on *.md (real husky 9, lint-staged and prettier from this
// repository's node_modules). Every git learn command that commits leaves the work tree and index equal to the commit,
// and a move commits the reviewed bytes or nothing. These tests look only at the outcome, however commits are built.

/** A body prettier rewrites: `*` bullets become `-`, `*x*` becomes `_x_`, headings get a blank line after them. */
const UNFORMATTED = `## Problem\nIt *broke*.\n\n## Trigger Conditions\n* Running the tests.\n* Twice.\n\n## Root Cause\nWe tried A and B; the cause was C.\n\n## Solution\nDo D.\n\n## Verification\nnpx vitest run: 14 passed.\n`

function app(): { repo: TestRepo; run: (cmd: string, ...args: string[]) => ReturnType<typeof sh> } {
  const repo = makeRepo()
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(repo.root, 'node_modules'))
  repo.write('.gitignore', 'node_modules\n')
  repo.write(
    'package.json',
    `${JSON.stringify({ name: 'app', private: true, 'lint-staged': { '*.md': 'prettier --write' } }, null, 2)}\n`,
  )
  const run = (cmd: string, ...args: string[]) => sh(repo.root, cmd, args)
  expect(run(process.execPath, join(PROJECT_ROOT, 'node_modules', 'husky', 'bin.js')).code).toBe(0)
  repo.write('.husky/pre-commit', 'lint-staged\n')
  expect(run('git', 'learn', 'init', '--hooks').code).toBe(0)
  repo.git('add', '-A')
  const c = run('git', 'commit', '-qm', 'app with husky, lint-staged and git-learn')
  expect(c.code, c.stderr).toBe(0)
  return { repo, run }
}

function expectClean(repo: TestRepo, step: string): void {
  expect(repo.git('status', '--porcelain', '--untracked-files=all'), step).toBe('')
  // The next checkout works (it refuses when the index or work tree differs from the commit under a path it changes).
  repo.git('checkout', '-q', '-b', `after-${step}`)
  repo.git('checkout', '-q', '-')
  repo.git('branch', '-q', '-D', `after-${step}`)
}

test('add, approve, prune and restore through lint-staged + prettier: clean after each, reviewed bytes reach active/', () => {
  const { repo, run } = app()
  repo.write('draft.md', learningText('formatted-thing', {}, UNFORMATTED))
  repo.git('add', 'draft.md')
  repo.git('commit', '-qm', 'draft', '--no-verify')
  const added = run('git', 'learn', 'add', '--file', 'draft.md')
  expect(added.code, added.stderr).toBe(0)
  expectClean(repo, 'add')
  // What the pull request shows is what the reviewer reviews, whatever the formatter would make of it.
  const reviewed = repo.git('show', 'HEAD:.learnings/pending/formatted-thing.md')
  expect(repo.read('.learnings/pending/formatted-thing.md')).toBe(reviewed)

  repo.setIdentity('Bob Reviewer', 'bob@example.com')
  const approved = run('git', 'learn', 'approve', 'formatted-thing')
  expect(approved.code, approved.stderr).toBe(0)
  expectClean(repo, 'approve')
  expect(repo.git('show', 'HEAD:.learnings/active/formatted-thing.md')).toBe(reviewed)
  expect(repo.read('.learnings/active/formatted-thing.md')).toBe(reviewed)

  const pruned = run('git', 'learn', 'prune', 'formatted-thing', '--reason', 'superseded by the framework fix', '--yes')
  expect(pruned.code, pruned.stderr).toBe(0)
  expectClean(repo, 'prune')
  const restored = run('git', 'learn', 'restore', 'formatted-thing')
  expect(restored.code, restored.stderr).toBe(0)
  expectClean(repo, 'restore')
  expect(repo.read('.learnings/pending/formatted-thing.md')).toBe(reviewed)
})

test('a pending file the formatter would rewrite: the move commits the reviewed bytes, or nothing and says why', () => {
  const { repo, run } = app()
  // Proposed without the hooks (a teammate without lint-staged): the pending file is not formatted.
  repo.write('.learnings/pending/raw-thing.md', learningText('raw-thing', {}, UNFORMATTED))
  repo.git('add', '.learnings')
  expect(
    sh(
      repo.root,
      'git',
      [
        'commit',
        '-qm',
        'learn: add raw-thing\n\nLearning: raw-thing\nLearning-Action: add\nLearning-To: pending\nProposed-by: Ada Author <ada@example.com>',
      ],
      { env: { HUSKY: '0' } },
    ).code,
  ).toBe(0)
  const reviewed = repo.git('show', 'HEAD:.learnings/pending/raw-thing.md')
  const before = repo.snapshot()
  repo.setIdentity('Bob Reviewer', 'bob@example.com')
  const r = run('git', 'learn', 'approve', 'raw-thing')
  if (r.code === 0) {
    expect(repo.git('show', 'HEAD:.learnings/active/raw-thing.md')).toBe(reviewed)
    expect(repo.read('.learnings/active/raw-thing.md')).toBe(reviewed)
    expectClean(repo, 'approve')
  } else {
    expect(r.stderr).toMatch(/nothing was committed/)
    expect(repo.snapshot()).toBe(before)
  }
})
