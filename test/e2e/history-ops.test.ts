import { describe, expect, test } from 'vitest'
import { learningText, makeRepo, sh, tierRemote } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

// Teams undo and carry commits with git itself (revert, cherry-pick, rebase, amend, hand moves). Each is run here with
// the hooks installed (githooks shims, real git commits) and judged the way CI judges it (`check --base`).

const ADA = ['Ada Author', 'ada@example.com'] as const
const BOB = ['Bob Reviewer', 'bob@example.com'] as const

function setUp(): { repo: TestRepo; run: (cmd: string, ...args: string[]) => ReturnType<typeof sh> } {
  const repo = makeRepo()
  const run = (cmd: string, ...args: string[]) => sh(repo.root, cmd, args, { env: { GIT_EDITOR: 'true' } })
  expect(run('git', 'learn', 'init', '--hooks').code).toBe(0)
  repo.git('add', '-A')
  expect(run('git', 'commit', '-qm', 'set up the store').code).toBe(0)
  return { repo, run }
}

function propose(repo: TestRepo, name: string): void {
  repo.setIdentity(...ADA)
  const added = sh(repo.root, 'git', ['learn', 'add', '--file', '-'], { input: learningText(name) })
  expect(added.code, added.stderr).toBe(0)
}

/** The trailers `git learn approve` writes, by `who`. */
const approval = (name: string, who: readonly [string, string]) =>
  `Learning: ${name}\nLearning-Action: approve\nLearning-From: pending\nLearning-To: active\nApproved-by: ${who[0]} <${who[1]}>`

/** The trailers `git learn add` writes for `name`, proposed by `who`. */
const proposal = (who: readonly [string, string]) => (name: string) =>
  `Learning: ${name}\nLearning-Action: add\nLearning-To: pending\nProposed-by: ${who[0]} <${who[1]}>`

describe('approval by hand-written trailers', () => {
  test('the proposer moving it into active/ with an Approved-by of their own is refused by commit-msg and by CI', () => {
    const { repo, run } = setUp()
    propose(repo, 'self-served')
    const base = repo.git('rev-parse', 'HEAD').trim()
    repo.git('mv', '.learnings/pending/self-served.md', '.learnings/active/self-served.md')
    const hooked = run('git', 'commit', '-q', '-m', 'learn: approve self-served', '-m', approval('self-served', ADA))
    expect(hooked.code).toBe(1)
    expect(hooked.stderr).toMatch(
      /self-served is approved by Ada Author <ada@example\.com>, who proposed it or restored it to pending\/.*git learn approve self-served/,
    )
    expect(repo.git('rev-parse', 'HEAD').trim()).toBe(base)

    const skipped = sh(
      repo.root,
      'git',
      ['commit', '-q', '-m', 'learn: approve self-served', '-m', approval('self-served', ADA)],
      { env: { GIT_LEARN_HOOKS: '0' } },
    )
    expect(skipped.code).toBe(0)
    const ci = run('git', 'learn', 'check', '--base', base)
    expect(ci.code).toBe(1)
    expect(ci.stdout).toMatch(/active\/self-served\.md:1: error \[transition\] self-served is approved by Ada Author/)
  })

  test('a branch where the proposer approves by hand, squashed with its trailers, is refused too', () => {
    const { repo, run } = setUp()
    const base = repo.git('rev-parse', 'HEAD').trim()
    repo.git('checkout', '-q', '-b', 'learn/squashed-self')
    propose(repo, 'squashed-self')
    repo.git('mv', '.learnings/pending/squashed-self.md', '.learnings/active/squashed-self.md')
    sh(repo.root, 'git', ['commit', '-q', '-m', 'approve', '-m', approval('squashed-self', ADA)], {
      env: { GIT_LEARN_HOOKS: '0' },
    })
    repo.git('checkout', '-q', 'main')
    repo.setIdentity(...BOB)
    expect(run('git', 'merge', '--squash', '-q', 'learn/squashed-self').code).toBe(0)
    const squashed = run('git', 'commit', '-q', '--no-edit')
    expect(squashed.code).toBe(1)
    expect(squashed.stderr).toMatch(/squashed-self is approved by Ada Author <ada@example\.com>, who proposed it/)
    sh(repo.root, 'git', ['commit', '-q', '--no-edit'], { env: { GIT_LEARN_HOOKS: '0' } })
    const ci = run('git', 'learn', 'check', '--base', base)
    expect(ci.code).toBe(1)
    expect(ci.stdout).toMatch(/squashed-self is approved by Ada Author/)
  })

  // The proposers of every learning a range puts into active/ are read in one git log: by name for a few, from the
  // whole pending/ folder past 64. Either way each approval is judged against its own learning's proposers.
  test.each([[3], [70]])(
    '%i learnings approved by hand in one commit: only the self-approval is refused',
    (n) => {
      const { repo, run } = setUp()
      const names = Array.from({ length: n }, (_, i) => `batch-note-${i}`)
      repo.setIdentity(...ADA)
      for (const name of names.slice(0, -1)) repo.write(`.learnings/pending/${name}.md`, learningText(name))
      repo.git('add', '.learnings/pending')
      sh(repo.root, 'git', ['commit', '-qm', 'learn: add', '-m', names.slice(0, -1).map(proposal(ADA)).join('\n\n')], {
        env: { GIT_LEARN_HOOKS: '0' },
      })
      const last = names[n - 1] as string
      repo.setIdentity(...BOB)
      repo.write(`.learnings/pending/${last}.md`, learningText(last))
      repo.git('add', '.learnings/pending')
      sh(repo.root, 'git', ['commit', '-qm', `learn: add ${last}`, '-m', proposal(BOB)(last)], {
        env: { GIT_LEARN_HOOKS: '0' },
      })
      const base = repo.git('rev-parse', 'HEAD').trim()
      // Bob approves Ada's learnings, and his own last one.
      for (const name of names) repo.git('mv', `.learnings/pending/${name}.md`, `.learnings/active/${name}.md`)
      const message = names.map((name) => approval(name, BOB)).join('\n\n')
      const hooked = run('git', 'commit', '-q', '-m', 'learn: approve a batch', '-m', message)
      expect(hooked.code).toBe(1)
      const refused = [...hooked.stderr.matchAll(/(batch-note-\d+) is approved by Bob Reviewer/g)].map((m) => m[1])
      expect(refused).toEqual([last])
      sh(repo.root, 'git', ['commit', '-q', '-m', 'learn: approve a batch', '-m', message], {
        env: { GIT_LEARN_HOOKS: '0' },
      })
      const ci = run('git', 'learn', 'check', '--base', base)
      expect(ci.code).toBe(1)
      expect([...ci.stdout.matchAll(/(batch-note-\d+) is approved by Bob Reviewer/g)].map((m) => m[1])).toEqual([last])
    },
    60_000,
  )

  test('with approval.distinct_approver: false (solo use) the same commit goes through', () => {
    const { repo, run } = setUp()
    repo.write('.learnings/config.yaml', 'approval:\n  distinct_approver: false\n')
    repo.git('add', '.learnings/config.yaml')
    expect(run('git', 'commit', '-qm', 'solo').code).toBe(0)
    propose(repo, 'solo-served')
    const base = repo.git('rev-parse', 'HEAD').trim()
    repo.git('mv', '.learnings/pending/solo-served.md', '.learnings/active/solo-served.md')
    const hooked = run('git', 'commit', '-q', '-m', 'learn: approve solo-served', '-m', approval('solo-served', ADA))
    expect(hooked.code, hooked.stderr).toBe(0)
    expect(run('git', 'learn', 'check', '--base', base).code).toBe(0)
  })
})

describe('git revert and git rebase -i, as CI meets them', () => {
  /** `name` proposed by Ada and approved by Bob on main. */
  function approved(name: string) {
    const { repo, run } = setUp()
    propose(repo, name)
    repo.setIdentity(...BOB)
    const ok = run('git', 'learn', 'approve', name)
    expect(ok.code, ok.stderr).toBe(0)
    return { repo, run }
  }

  test('a revert of an approval: no commit hook runs, and CI names the revert and the commands that do it', () => {
    const { repo, run } = approved('taken-back')
    const base = repo.git('rev-parse', 'HEAD').trim()
    const reverted = run('git', 'revert', '--no-edit', 'HEAD')
    expect(reverted.code, reverted.stderr).toBe(0)
    expect(repo.exists('.learnings/pending/taken-back.md')).toBe(true)
    const ci = run('git', 'learn', 'check', '--base', base)
    expect(ci.code).toBe(1)
    expect(ci.stdout).toMatch(
      /taken-back moved active → pending, which the lifecycle does not allow .*a `git revert` of its approval does not do that: take that commit out of the branch .*`git learn prune taken-back --reason "…" --yes` \(and `git learn restore taken-back`/,
    )
    // The way it names: drop the revert, prune, restore; CI accepts that.
    repo.git('reset', '-q', '--hard', base)
    expect(run('git', 'learn', 'prune', 'taken-back', '--reason', 'wrong', '--yes').code).toBe(0)
    repo.setIdentity(...ADA)
    expect(run('git', 'learn', 'restore', 'taken-back').code).toBe(0)
    expect(run('git', 'learn', 'check', '--base', base).code).toBe(0)
  })

  test('a revert of a prune brings it back to active/ unreviewed: CI refuses it and names restore and approve', () => {
    const { repo, run } = approved('pruned-back')
    expect(run('git', 'learn', 'prune', 'pruned-back', '--reason', 'old', '--yes').code).toBe(0)
    const base = repo.git('rev-parse', 'HEAD').trim()
    expect(run('git', 'revert', '--no-edit', 'HEAD').code).toBe(0)
    const ci = run('git', 'learn', 'check', '--base', base)
    expect(ci.code).toBe(1)
    expect(ci.stdout).toMatch(
      /pruned-back moved archived → active, .*a `git revert` of its prune skips it: .*`git learn restore pruned-back` and have a teammate run `git learn approve pruned-back`/,
    )
  })

  test('a fixup of the approval into the proposal drops its trailers: CI says so, not "use git learn add"', () => {
    const { repo, run } = setUp()
    repo.git('checkout', '-q', '-b', 'learn/fixed-up')
    propose(repo, 'fixed-up')
    repo.setIdentity(...BOB)
    expect(run('git', 'learn', 'approve', 'fixed-up').code).toBe(0)
    const fixup = sh(repo.root, 'git', ['rebase', '-q', '-i', 'main'], {
      env: { GIT_SEQUENCE_EDITOR: "sed -i '2s/^pick/fixup/'", GIT_EDITOR: 'true' },
    })
    expect(fixup.code, fixup.stderr).toBe(0)
    expect(repo.git('log', '--format=%s', 'main..').trim()).toBe('learn: add fixed-up')
    const ci = run('git', 'learn', 'check', '--base', 'main')
    expect(ci.code).toBe(1)
    expect(ci.stdout).toMatch(
      /active\/fixed-up\.md was added straight into active\/: the range proposes fixed-up but no commit in it carries its approval \(Approved-by\), as a rebase's `fixup`/,
    )
    expect(ci.stdout).not.toMatch(/git learn add --file/)
  })
})

describe('an approval carried to another branch', () => {
  // A release branch cut after the proposal takes the approval by `git cherry-pick -x` or by `git am` of its patch
  // (format-patch keeps the message, author and rename): no commit hook runs for either; the trailers travel, CI
  // accepts the move, and the log tells who approved it.
  test.each(['cherry-pick -x', 'format-patch | git am'])(
    '%s: CI accepts it, git learn log names the approver',
    (how) => {
      const { repo, run } = setUp()
      propose(repo, 'carried')
      repo.git('branch', 'release')
      repo.setIdentity(...BOB)
      expect(run('git', 'learn', 'approve', 'carried').code).toBe(0)
      const approval = repo.git('rev-parse', 'HEAD').trim()
      const patch = repo.git('format-patch', '-1', '--stdout', approval)
      repo.git('checkout', '-q', 'release')
      const base = repo.git('rev-parse', 'HEAD').trim()
      repo.setIdentity('Cat Releaser', 'cat@example.com')
      const carried =
        how === 'cherry-pick -x'
          ? run('git', 'cherry-pick', '-x', approval)
          : sh(repo.root, 'git', ['am', '-q'], { input: patch })
      expect(carried.code, carried.stderr).toBe(0)
      expect(repo.exists('.learnings/active/carried.md')).toBe(true)
      const ci = run('git', 'learn', 'check', '--base', base)
      expect(ci.stdout + ci.stderr).toMatch(/git learn check: ok/)
      expect(ci.code).toBe(0)
      const log = JSON.parse(run('git', 'learn', 'log', 'carried', '--json').stdout).events as {
        action: string
        by: string
      }[]
      expect(log.map((e) => `${e.action} by ${e.by}`)).toEqual([
        'approve by Bob Reviewer <bob@example.com>',
        'add by Ada Author <ada@example.com>',
      ])
    },
  )
})

describe('a git revert of a tier add', () => {
  test('unpins the tier (search no longer serves it); doctor names the revert and deletes the ref it left', () => {
    const { bare } = tierRemote({ 'org-wide': learningText('org-wide') })
    const { repo, run } = setUp()
    expect(run('git', 'learn', 'tier', 'add', 'org', bare).code).toBe(0)
    expect(run('git', 'learn', 'search', 'org-wide exploded').stdout).toMatch(/org-wide/)
    expect(run('git', 'revert', '--no-edit', 'HEAD').code).toBe(0)
    expect(run('git', 'learn', 'search', 'org-wide exploded').stdout).not.toMatch(/org-wide/)
    const doctor = run('git', 'learn', 'doctor')
    expect(doctor.code).toBe(1)
    expect(doctor.stdout + doctor.stderr).toMatch(
      /refs\/learn\/tiers\/org .*or the commit that pinned it was reverted or reset away.*`git learn doctor --abort`/,
    )
    expect(run('git', 'learn', 'doctor', '--abort').code).toBe(0)
    expect(repo.git('for-each-ref', 'refs/learn/tiers').trim()).toBe('')
  })
})
