import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { learningText, makeRepo, sh, tempDir } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

// A branch that proposes a learning (Ada) and approves it (Bob) lands on main by each merge style a team uses; the
// hooks (githooks shims, real git commits) accept each, `check --base` agrees, and `git learn log` tells the same story.

const ADA = ['Ada Author', 'ada@example.com'] as const
const BOB = ['Bob Reviewer', 'bob@example.com'] as const

function setUp(): { repo: TestRepo; run: (cmd: string, ...args: string[]) => ReturnType<typeof sh> } {
  const repo = makeRepo()
  const run = (cmd: string, ...args: string[]) => sh(repo.root, cmd, args)
  expect(run('git', 'learn', 'init', '--hooks').code).toBe(0)
  repo.git('add', '-A')
  expect(run('git', 'commit', '-qm', 'set up the store').code).toBe(0)
  return { repo, run }
}

/** Ada proposes `name` on branch `learn/<name>`, Bob approves it there (unless `approve` is false); back on main. */
function proposeOnBranch(repo: TestRepo, run: ReturnType<typeof setUp>['run'], name: string, approve = true): void {
  repo.git('checkout', '-q', '-b', `learn/${name}`)
  repo.setIdentity(...ADA)
  const added = sh(repo.root, 'git', ['learn', 'add', '--file', '-'], { input: learningText(name) })
  expect(added.code, added.stderr).toBe(0)
  if (approve) {
    repo.setIdentity(...BOB)
    const ok = run('git', 'learn', 'approve', name)
    expect(ok.code, ok.stderr).toBe(0)
  }
  repo.git('checkout', '-q', 'main')
  // main moves on meanwhile, so a rebase really rewrites the branch.
  repo.write(`notes-${name}.txt`, 'elsewhere\n')
  repo.git('add', '.')
  expect(run('git', 'commit', '-qm', `meanwhile ${name}`).code).toBe(0)
}

/** A forge's squash message: the PR title, then each branch commit as "* subject" and its body, indented or not. */
function forgeSquashMessage(repo: TestRepo, branch: string, indent: string): string {
  const commits = repo.git('log', '--reverse', '--format=%H', `main..${branch}`).trim().split('\n')
  const parts = commits.map((c) => {
    const subject = repo.git('log', '-1', '--format=%s', c).trim()
    const body = repo.git('log', '-1', '--format=%b', c).trim()
    return `* ${subject}\n\n${body
      .split('\n')
      .map((l) => (l ? indent + l : l))
      .join('\n')}`
  })
  return `Learn ${branch.slice('learn/'.length)} (#12)\n\n${parts.join('\n\n')}\n`
}

function story(run: ReturnType<typeof setUp>['run'], name: string) {
  const log = run('git', 'learn', 'log', name, '--json')
  expect(log.code, log.stderr).toBe(0)
  return (JSON.parse(log.stdout).events as { action: string; to: string; by: string }[])
    .map((e) => `${e.action} → ${e.to} by ${e.by}`)
    .reverse()
}

const STORY = ['add → pending by Ada Author <ada@example.com>', 'approve → active by Bob Reviewer <bob@example.com>']

describe('every merge style', () => {
  const styles: Record<
    string,
    (repo: TestRepo, run: ReturnType<typeof setUp>['run'], branch: string) => ReturnType<typeof sh>
  > = {
    'merge commit': (_repo, run, branch) => run('git', 'merge', '--no-ff', '-m', `Merge ${branch}`, branch),
    'rebase merge': (repo, run, branch) => {
      repo.git('checkout', '-q', branch)
      const r = run('git', 'rebase', '-q', 'main')
      repo.git('checkout', '-q', 'main')
      return r.code ? r : run('git', 'merge', '--ff-only', '-q', branch)
    },
    'forge squash, trailers folded flush': (repo, run, branch) => forgeSquash(repo, run, branch, ''),
    'forge squash, trailers indented': (repo, run, branch) => forgeSquash(repo, run, branch, '    '),
    'git merge --squash + git commit (SQUASH_MSG)': (_repo, run, branch) => {
      const m = run('git', 'merge', '--squash', '-q', branch)
      return m.code ? m : run('git', 'commit', '-q', '--no-edit')
    },
  }
  for (const [style, land] of Object.entries(styles))
    test(style, () => {
      const { repo, run } = setUp()
      proposeOnBranch(repo, run, 'landed-thing')
      const base = repo.git('rev-parse', 'main').trim()
      repo.setIdentity(...BOB)
      const landed = land(repo, run, 'learn/landed-thing')
      expect(landed.code, landed.stderr).toBe(0)
      expect(landed.stderr).not.toMatch(/git learn check|transition/)
      expect(repo.exists('.learnings/active/landed-thing.md')).toBe(true)
      expect(repo.git('status', '--porcelain')).toBe('')
      const ci = run('git', 'learn', 'check', '--base', base)
      expect(ci.code, ci.stdout + ci.stderr).toBe(0)
      expect(story(run, 'landed-thing')).toEqual(STORY)
    })

  test('a file put into active/ by hand with no approval anywhere is refused by the hooks and by CI, squashed or not', () => {
    const { repo, run } = setUp()
    repo.git('checkout', '-q', '-b', 'sneaky')
    repo.write('.learnings/active/sneaky-thing.md', learningText('sneaky-thing'))
    repo.git('add', '.')
    const hooked = run('git', 'commit', '-qm', 'add sneaky')
    expect(hooked.code).toBe(1)
    expect(hooked.stderr).toMatch(/sneaky-thing\.md.*added straight into active/)
    expect(sh(repo.root, 'git', ['commit', '-qm', 'add sneaky'], { env: { GIT_LEARN_HOOKS: '0' } }).code).toBe(0)
    repo.git('checkout', '-q', 'main')
    const base = repo.git('rev-parse', 'main').trim()
    for (const land of [
      styles['forge squash, trailers indented'],
      styles['git merge --squash + git commit (SQUASH_MSG)'],
    ]) {
      const r = land!(repo, run, 'sneaky')
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/added straight into active/)
      repo.git('reset', '-q', '--hard', base)
    }
    repo.git('checkout', '-q', 'sneaky')
    const ci = run('git', 'learn', 'check', '--base', base)
    expect(ci.code).toBe(1)
    expect(ci.stdout + ci.stderr).toMatch(/sneaky-thing\.md.*added straight into active/)
  })

  test("a forge's squash with the pull request's title alone: landed, and refused by a push check with --base", () => {
    const { repo, run } = setUp()
    proposeOnBranch(repo, run, 'title-only')
    const base = repo.git('rev-parse', 'main').trim()
    expect(run('git', 'merge', '--squash', '-q', 'learn/title-only').code).toBe(0)
    // The forge commits on its server: no hooks of ours run there.
    expect(run('git', 'commit', '-q', '--no-verify', '-m', 'Learn title-only (#12)').code).toBe(0)
    expect(repo.exists('.learnings/active/title-only.md')).toBe(true)
    const ci = run('git', 'learn', 'check', '--base', base)
    expect(ci.code).toBe(1)
    expect(ci.stdout + ci.stderr).toMatch(/title-only\.md.*added straight into active/)
    expect(ci.stdout + ci.stderr).toMatch(/squash/)
  })

  test('git merge --squash, then git commit -m: refused, and told that -m dropped the trailers SQUASH_MSG held', () => {
    const { repo, run } = setUp()
    proposeOnBranch(repo, run, 'squashed-away')
    repo.setIdentity(...BOB)
    expect(run('git', 'merge', '--squash', '-q', 'learn/squashed-away').code).toBe(0)
    const dropped = run('git', 'commit', '-qm', 'squash')
    expect(dropped.code).toBe(1)
    expect(dropped.stderr).toMatch(/This is a squash merge: the message git prepared \(\.git\/SQUASH_MSG\)/)
    const kept = run('git', 'commit', '-q', '--no-edit')
    expect(kept.code, kept.stderr).toBe(0)
    expect(story(run, 'squashed-away')).toEqual(STORY)
  })
})

function forgeSquash(repo: TestRepo, run: ReturnType<typeof setUp>['run'], branch: string, indent: string) {
  const message = forgeSquashMessage(repo, branch, indent)
  const m = run('git', 'merge', '--squash', '-q', branch)
  if (m.code) return m
  const file = join(tempDir('gl-msg-'), 'MSG')
  writeFileSync(file, message)
  return run('git', 'commit', '-q', '-F', file)
}

describe('a restore and an approval on one branch', () => {
  // From the merge base the learning moved archived → active, which no single command does; the branch's commits
  // show the two steps the lifecycle allows, each with its trailers.

  /** `came-back` proposed by Ada and rejected by Bob on main; `base` is main then. */
  function archivedOnMain() {
    const { repo, run } = setUp()
    repo.setIdentity(...ADA)
    expect(sh(repo.root, 'git', ['learn', 'add', '--file', '-'], { input: learningText('came-back') }).code).toBe(0)
    repo.setIdentity(...BOB)
    expect(run('git', 'learn', 'reject', 'came-back', '--reason', 'not yet').code).toBe(0)
    return { repo, run, base: repo.git('rev-parse', 'main').trim() }
  }

  for (const style of ['merge commit', 'forge squash']) {
    test(`land together: ${style}`, () => {
      const { repo, run, base } = archivedOnMain()
      repo.git('checkout', '-q', '-b', 'learn/came-back')
      repo.setIdentity(...ADA)
      const restored = run('git', 'learn', 'restore', 'came-back', '--reason', 'the cause is confirmed')
      expect(restored.code, restored.stderr).toBe(0)
      repo.setIdentity(...BOB)
      const approved = run('git', 'learn', 'approve', 'came-back')
      expect(approved.code, approved.stderr).toBe(0)
      repo.git('checkout', '-q', 'main')
      const landed =
        style === 'merge commit'
          ? run('git', 'merge', '--no-ff', '-m', 'Merge learn/came-back', 'learn/came-back')
          : forgeSquash(repo, run, 'learn/came-back', '')
      expect(landed.code, landed.stderr).toBe(0)
      expect(repo.exists('.learnings/active/came-back.md')).toBe(true)
      const ci = run('git', 'learn', 'check', '--base', base)
      expect(ci.code, ci.stdout + ci.stderr).toBe(0)
    })
  }

  test('a restore, then a hand move into active/, is still refused', () => {
    const { repo, run, base } = archivedOnMain()
    expect(run('git', 'learn', 'restore', 'came-back').code).toBe(0)
    repo.git('mv', '.learnings/pending/came-back.md', '.learnings/active/came-back.md')
    repo.git('commit', '-q', '--no-verify', '-m', 'by hand')
    const ci = run('git', 'learn', 'check', '--base', base)
    expect(ci.code).toBe(1)
    expect(ci.stdout + ci.stderr).toMatch(/came-back moved archived → active, which the lifecycle does not allow/)
  })
})

describe('the approver is not the proposer, by the record', () => {
  test('after a squash merge done by the reviewer, the reviewer can approve and the proposer cannot', () => {
    const { repo, run } = setUp()
    proposeOnBranch(repo, run, 'squashed-proposal', false)
    repo.setIdentity(...BOB)
    const landed = run('git', 'merge', '--squash', '-q', 'learn/squashed-proposal')
    expect(landed.code).toBe(0)
    expect(run('git', 'commit', '-q', '--no-edit').code).toBe(0)
    // Bob authored the commit that added the file; Ada's Proposed-by trailer is in its body.
    expect(repo.git('log', '-1', '--format=%an', '--', '.learnings/pending/squashed-proposal.md').trim()).toBe(
      'Bob Reviewer',
    )

    repo.setIdentity(...ADA)
    const self = run('git', 'learn', 'approve', 'squashed-proposal')
    expect(self.code).toBe(1)
    expect(self.stderr).toMatch(
      /Ada Author <ada@example\.com> proposed "squashed-proposal" \(or restored it[^)]*\) and cannot approve it/,
    )
    repo.setIdentity(...BOB)
    const ok = run('git', 'learn', 'approve', 'squashed-proposal')
    expect(ok.code, ok.stderr).toBe(0)
    expect(story(run, 'squashed-proposal')).toEqual([
      'add → pending by Ada Author <ada@example.com>',
      'approve → active by Bob Reviewer <bob@example.com>',
    ])
  })
})
