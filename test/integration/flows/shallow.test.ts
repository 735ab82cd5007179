/**
 * Shallow clones (`git clone --depth`, actions/checkout's default fetch-depth: 1, GitLab's GIT_DEPTH): a commit at the
 * cut shows every file it holds as added by it, and the commits before it are not here. Who proposed a learning and
 * which commit approved a move are then unknown: said, with the fetch that brings them, never guessed.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { cliAt, learningText, makeRepo, tempDir } from '../../helpers/repo.js'
import type { TestRepo } from '../../helpers/repo.js'

const BOB = ['Bob Reviewer', 'bob@example.com'] as const
const CY = ['Cy Other', 'cy@example.com'] as const

/** A commit of `file` (a new line each time) by `who`. */
function work(repo: TestRepo, who: readonly [string, string], message: string, file = 'work.txt'): void {
  repo.setIdentity(...who)
  repo.write(file, `${message}\n`)
  repo.git('add', file)
  repo.git('commit', '-qm', message)
}

/** `.learnings/pending/<name>.md` committed by Ada Author, the proposer (no trailer: the commit's author says it). */
function propose(repo: TestRepo, name: string, message = `propose ${name}`): void {
  repo.setIdentity('Ada Author', 'ada@example.com')
  repo.write(`.learnings/pending/${name}.md`, learningText(name))
  repo.git('add', '.learnings')
  repo.git('commit', '-qm', message)
}

function shallowClone(origin: TestRepo, depth: number): TestRepo {
  const root = join(tempDir('gl-shallow-'), 'c')
  execFileSync('git', ['clone', '-q', '--depth', String(depth), `file://${origin.root}`, root])
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' })
  git('config', 'commit.gpgsign', 'false')
  return {
    ...origin,
    root,
    git,
    cli: (argv) => cliAt(root, argv),
    setIdentity(name, email) {
      git('config', 'user.name', name)
      git('config', 'user.email', email)
    },
    snapshot: () => [git('status', '--porcelain=v1'), git('rev-parse', 'HEAD')].join('\n'),
  }
}

describe('approve in a shallow clone', () => {
  test('who proposed it is not guessed from the commit at the cut: both the proposer and that author are told to fetch', async () => {
    const origin = makeRepo()
    propose(origin, 'cut-note')
    work(origin, BOB, 'later one')
    work(origin, BOB, 'later two')
    const clone = shallowClone(origin, 1)
    const before = clone.snapshot()

    // Ada proposed it: before, her approval went through (the adding commit is not in a depth-1 clone).
    clone.setIdentity('Ada Author', 'ada@example.com')
    const ada = await clone.cli(['approve', 'cut-note'])
    expect(ada.code).toBe(3)
    expect(ada.stderr).toMatch(/cannot tell who proposed "cut-note": this clone is shallow[\s\S]*git fetch --unshallow/)
    // Bob wrote the commit at the cut, which git shows as adding every file: before, he was named its proposer.
    clone.setIdentity(...BOB)
    const bob = await clone.cli(['approve', 'cut-note'])
    expect(bob.code).toBe(3)
    expect(bob.stderr).not.toMatch(/Bob Reviewer <bob@example.com> proposed/)
    expect(clone.snapshot()).toBe(before)

    clone.git('fetch', '-q', '--unshallow')
    clone.setIdentity('Ada Author', 'ada@example.com')
    expect((await clone.cli(['approve', 'cut-note'])).code).toBe(1)
    clone.setIdentity(...BOB)
    expect((await clone.cli(['approve', 'cut-note'])).code).toBe(0)
    expect(clone.git('ls-files', '.learnings/active')).toBe('.learnings/active/cut-note.md\n')
  })

  test('the commit-msg hook: a hand approval whose proposal is past the cut is refused with the fetch to run', async () => {
    const origin = makeRepo()
    propose(origin, 'hand-moved')
    work(origin, BOB, 'later one')
    work(origin, BOB, 'later two')
    const clone = shallowClone(origin, 1)
    clone.setIdentity('Ada Author', 'ada@example.com')
    mkdirSync(join(clone.root, '.learnings/active'))
    clone.git('mv', '.learnings/pending/hand-moved.md', '.learnings/active/hand-moved.md')
    const msg = join(clone.root, '.git', 'MSG')
    writeFileSync(
      msg,
      'learn: approve hand-moved\n\nLearning: hand-moved\nLearning-Action: approve\nLearning-From: pending\nLearning-To: active\nApproved-by: Ada Author <ada@example.com>\n',
    )
    const r = await clone.cli(['hook', 'commit-msg', msg])
    expect(r.code).toBe(1)
    expect(`${r.stdout}${r.stderr}`).toMatch(/cannot tell who proposed hand-moved[\s\S]*git fetch --unshallow/)
  })

  test('a cut at the learning\'s own "learn: add" commit is read by its trailers', async () => {
    const origin = makeRepo()
    origin.setIdentity(...CY) // the author is not the proposer: the trailer says who proposed
    origin.write('.learnings/pending/at-cut.md', learningText('at-cut'))
    origin.git('add', '.learnings')
    origin.git(
      'commit',
      '-qm',
      'learn: add at-cut\n\nLearning: at-cut\nLearning-Action: add\nLearning-To: pending\nProposed-by: Ada Author <ada@example.com>',
    )
    const clone = shallowClone(origin, 1)
    clone.setIdentity('Ada Author', 'ada@example.com')
    const ada = await clone.cli(['approve', 'at-cut'])
    expect(ada.code).toBe(1)
    expect(ada.stderr).toMatch(/Ada Author <ada@example.com> proposed "at-cut"/)
    clone.setIdentity(...CY)
    expect((await clone.cli(['approve', 'at-cut'])).code).toBe(0)
  })
})

describe('log in a shallow clone', () => {
  test('the trail it holds, and where it stops: not "no lifecycle commits found" as a fact', async () => {
    const origin = makeRepo()
    propose(
      origin,
      'before-cut',
      'learn: add before-cut\n\nLearning: before-cut\nLearning-Action: add\nLearning-To: pending',
    )
    work(origin, CY, 'the commit at the cut')
    const clone = shallowClone(origin, 1)
    const r = await clone.cli(['log'])
    expect(r.code).toBe(0)
    expect(r.stdout).not.toMatch(/no lifecycle commits found/)
    expect(r.stdout).toMatch(/no lifecycle commits in the history this shallow clone holds/)
    expect(r.stderr).toMatch(/shallow: its history stops at [0-9a-f]{12}[\s\S]*git fetch --unshallow/)
    expect((await clone.cli(['log', '--json'])).json()).toEqual({ events: [], shallow: true })

    clone.git('fetch', '-q', '--unshallow')
    const whole = await clone.cli(['log', '--json'])
    expect(whole.json()).toMatchObject({ events: [{ name: 'before-cut', action: 'add' }], shallow: false })
  })
})

describe('check --base in a shallow clone', () => {
  test('an approval whose proposal is past the cut: "cannot tell who proposed", not a pass', async () => {
    const origin = makeRepo()
    propose(origin, 'old-proposal')
    work(origin, CY, 'the commit at the cut')
    origin.setIdentity('Ada Author', 'ada@example.com') // approving her own proposal
    mkdirSync(join(origin.root, '.learnings/active'))
    origin.git('mv', '.learnings/pending/old-proposal.md', '.learnings/active/old-proposal.md')
    origin.git(
      'commit',
      '-qm',
      'learn: approve old-proposal\n\nLearning: old-proposal\nLearning-Action: approve\nLearning-From: pending\nLearning-To: active\nApproved-by: Ada Author <ada@example.com>',
    )
    const clone = shallowClone(origin, 2)
    const cut = await clone.cli(['check', '--base', 'HEAD~1'])
    expect(cut.code).toBe(1)
    expect(cut.stdout).toMatch(/cannot tell who proposed old-proposal[\s\S]*git fetch --unshallow/)

    const far = await clone.cli(['check', '--base', 'HEAD~2'])
    expect(far.code).toBe(3)
    expect(far.stderr).not.toMatch(/git fetch origin HEAD~2/)
    expect(far.stderr).toMatch(/HEAD~2 names no commit here: this clone is shallow[\s\S]*git fetch --deepen=100/)

    clone.git('fetch', '-q', '--unshallow')
    const whole = await clone.cli(['check', '--base', 'HEAD~1'])
    expect(whole.code).toBe(1)
    expect(whole.stdout).toMatch(/approved by Ada Author <ada@example.com>, who proposed it/)
  })

  test("a pull request's merge commit fetched shallowly: the approving commit past the cut is asked for, not called missing", async () => {
    const origin = makeRepo()
    propose(origin, 'pr-note')
    const root = await pullRequestCheckout(origin, async () => {
      origin.setIdentity(...BOB)
      expect((await origin.cli(['approve', 'pr-note'])).code).toBe(0)
    })
    const cut = await cliAt(root, ['check', '--base', 'origin/main'])
    expect(cut.stderr).not.toMatch(/without an approving commit/)
    expect(cut.code).toBe(3)
    expect(cut.stderr).toMatch(
      /shallow: its history between origin\/main and HEAD stops at [0-9a-f]{12}[\s\S]*--unshallow/,
    )

    execFileSync('git', ['fetch', '-q', '--unshallow', 'origin'], { cwd: root })
    const whole = await cliAt(root, ['check', '--base', 'origin/main'])
    expect(whole.stderr).toBe('')
    expect(whole.code).toBe(0)
  })

  test('a range cut short that only proposes a learning is judged from the diff alone', async () => {
    const origin = makeRepo()
    const root = await pullRequestCheckout(origin, async () => propose(origin, 'just-proposed'))
    const r = await cliAt(root, ['check', '--base', 'origin/main'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
  })

  // A file of the store that is no learning (.gitkeep, README.md) moved or removed needs no commit's trailers: the
  // transition rule does not judge it.
  test('a range cut short that proposes a learning and drops pending/.gitkeep is judged from the diff alone', async () => {
    const origin = makeRepo()
    origin.write('.learnings/pending/.gitkeep', '')
    origin.write('.learnings/README.md', 'The store.\n')
    origin.git('add', '.learnings')
    origin.git('commit', '-qm', 'store')
    const root = await pullRequestCheckout(origin, async () => {
      origin.git('rm', '-q', '.learnings/pending/.gitkeep')
      origin.git('mv', '.learnings/README.md', '.learnings/INDEX.md')
      propose(origin, 'first-one')
    })
    const r = await cliAt(root, ['check', '--base', 'origin/main'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
  })
})

/**
 * A pull request from branch feat (`change`, then one more commit) merged with a main that moved on, checked out as
 * actions/checkout does (its merge commit and the base, here two commits deep): feat's first commits are past the cut.
 */
async function pullRequestCheckout(origin: TestRepo, change: () => Promise<void>): Promise<string> {
  origin.git('checkout', '-qb', 'feat')
  await change()
  work(origin, BOB, 'feat work')
  origin.git('checkout', '-q', 'main')
  work(origin, CY, 'main moves', 'main.txt')
  origin.git('checkout', '-qb', 'merge')
  origin.git('merge', '-q', '--no-ff', 'feat', '-m', 'Merge feat')
  const root = join(tempDir('gl-ci-'), 'c')
  execFileSync('git', ['init', '-q', root])
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' })
  git('remote', 'add', 'origin', `file://${origin.root}`)
  git(
    'fetch',
    '-q',
    '--no-tags',
    '--depth=2',
    'origin',
    '+merge:refs/remotes/pull/1/merge',
    '+main:refs/remotes/origin/main',
  )
  git('checkout', '-q', 'refs/remotes/pull/1/merge')
  return root
}
