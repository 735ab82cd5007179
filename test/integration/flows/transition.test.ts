/**
 * Lifecycle commits built in a temporary index and moved in by a compare-and-swap (src/flows/transition.ts): what
 * the user has staged or edited never enters them, none of the user's commit hooks runs for them, approve is a pure
 * rename byte for byte, and what a crash leaves is found and settled by `git learn doctor`.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { processTag } from '../../../src/adapters/state/process-tag.js'
import { openRepo } from '../../../src/adapters/store/repo.js'
import { RefLockedError } from '../../../src/core/errors.js'
import { commitTransition } from '../../../src/flows/transition.js'
import { learningText, makeRepo } from '../../helpers/repo.js'
import type { TestRepo } from '../../helpers/repo.js'

const P = (name: string, state = 'pending') => `.learnings/${state}/${name}.md`

/** A repository with an empty store committed. */
function withStore(): TestRepo {
  const repo = makeRepo()
  repo.write('.learnings/config.yaml', 'gates: {min_contexts: 1}\n')
  repo.git('add', '.learnings')
  repo.git('commit', '-qm', 'store')
  return repo
}

/** A journal as a process killed after the branch moved leaves it (pid of no process), for `paths` of HEAD's commit. */
function leaveJournal(repo: TestRepo, subject: string, paths: object[]): string {
  const dir = join(repo.root, '.git/learn/transitions')
  mkdirSync(dir, { recursive: true })
  writeFileSync(
    join(dir, '1-1-abc.json'),
    JSON.stringify({
      version: 1,
      pid: 999999,
      started: '',
      subject,
      ref: 'refs/heads/main',
      old: repo.git('rev-parse', 'HEAD~1').trim(),
      commit: repo.git('rev-parse', 'HEAD').trim(),
      gitDir: join(repo.root, '.git'),
      paths,
    }),
  )
  return dir
}

async function withPending(name = 'pend-one'): Promise<TestRepo> {
  const repo = withStore()
  repo.write('d.md', learningText(name))
  const r = await repo.cli(['add', '--file', 'd.md'])
  expect(r.code, r.stderr).toBe(0)
  repo.git('rm', '-q', '--cached', '--ignore-unmatch', 'd.md')
  writeFileSync(join(repo.root, 'd.md'), '')
  repo.git('clean', '-qf', 'd.md')
  repo.setIdentity('Rita Reviewer', 'rita@example.com')
  return repo
}

function hook(repo: TestRepo, name: string, body: string): void {
  repo.write(`.git/hooks/${name}`, `#!/bin/sh\n${body}\n`)
  chmodSync(join(repo.root, '.git/hooks', name), 0o755)
}

describe('commits built aside from the user', () => {
  test('approve is a pure rename: the blob in active/ is the reviewed pending blob, the file is the same bytes', async () => {
    const repo = await withPending()
    const reviewed = repo.git('rev-parse', `HEAD:${P('pend-one')}`).trim()
    const bytes = repo.read(P('pend-one'))
    const r = await repo.cli(['approve', 'pend-one'])
    expect(r.code, r.stderr).toBe(0)
    expect(repo.git('rev-parse', `HEAD:${P('pend-one', 'active')}`).trim()).toBe(reviewed)
    expect(repo.read(P('pend-one', 'active'))).toBe(bytes)
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  test("a user's pre-commit hook that runs `git add -u` and a formatter hook do not run: no unrelated work enters, what reaches active/ is what was reviewed", async () => {
    const repo = await withPending()
    const reviewed = repo.git('rev-parse', `HEAD:${P('pend-one')}`).trim()
    hook(
      repo,
      'pre-commit',
      'git add -u\nfor f in $(git diff --cached --name-only -- "*.md"); do printf "formatted\\n" >> "$f"; git add "$f"; done\necho ran > .git/pre-commit-ran',
    )
    hook(repo, 'commit-msg', 'echo ran > .git/commit-msg-ran')
    repo.write('README.md', '# scratch\nunrelated unstaged work\n')
    repo.write('staged.txt', 'staged by the user\n')
    repo.git('add', 'staged.txt')
    const r = await repo.cli(['approve', 'pend-one'])
    expect(r.code, r.stderr).toBe(0)
    expect(repo.git('show', '--name-status', '--no-renames', '--format=', 'HEAD').trim().split('\n').sort()).toEqual(
      [`A\t${P('pend-one', 'active')}`, `D\t${P('pend-one')}`].sort(),
    )
    expect(repo.git('rev-parse', `HEAD:${P('pend-one', 'active')}`).trim()).toBe(reviewed)
    expect(existsSync(join(repo.root, '.git/pre-commit-ran'))).toBe(false)
    expect(existsSync(join(repo.root, '.git/commit-msg-ran'))).toBe(false)
    expect(repo.git('status', '--porcelain').split('\n').filter(Boolean).sort()).toEqual([
      ' M README.md',
      'A  staged.txt',
    ])
  })

  test('add leaves the staged and unstaged work of the user staged and unstaged, out of its commit', async () => {
    const repo = makeRepo()
    repo.write('staged.txt', 'mine\n')
    repo.git('add', 'staged.txt')
    repo.write('README.md', 'changed\n')
    repo.write('../d-add.md', learningText('fresh-one'))
    const r = await repo.cli(['add', '--file', '../d-add.md'])
    expect(r.code, r.stderr).toBe(0)
    expect(repo.git('show', '--name-only', '--format=', 'HEAD').trim()).toBe(P('fresh-one'))
    expect(repo.git('log', '-1', '--format=%B')).toMatch(/Learning-Action: add/)
    expect(repo.git('status', '--porcelain').split('\n').filter(Boolean).sort()).toEqual([
      ' M README.md',
      'A  staged.txt',
    ])
  })

  test('commit.gpgsign is honoured: commit-tree is asked to sign (and fails here without a key, changing nothing)', async () => {
    const repo = await withPending()
    repo.git('config', 'commit.gpgsign', 'true')
    repo.git('config', 'gpg.program', 'false')
    const snap = repo.snapshot()
    const r = await repo.cli(['approve', 'pend-one'])
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/git could not sign the commit \(commit\.gpgsign is set\), so nothing was changed/)
    expect(r.stderr).toMatch(/`git -c commit\.gpgsign=false learn approve …`/)
    expect(repo.snapshot()).toBe(snap)
  })
})

describe('recovery that tells the truth', () => {
  test('a staged move never committed (an older git-learn killed mid-approve) is not called done; doctor --abort undoes it', async () => {
    const repo = await withPending()
    repo.write('.learnings/active/.gitkeep', '')
    repo.git('add', '.learnings/active/.gitkeep')
    repo.git('commit', '-qm', 'keep')
    repo.git('mv', P('pend-one'), P('pend-one', 'active'))
    const approve = await repo.cli(['approve', 'pend-one'])
    expect(approve.code).toBe(3)
    expect(approve.stderr).toMatch(/staged but was never committed[\s\S]*git learn doctor --abort/)
    const list = await repo.cli(['list'])
    expect(list.stderr).toMatch(/never committed/)
    expect(list.stdout).toMatch(/not committed/)
    const doctor = await repo.cli(['doctor', '--json'])
    expect(doctor.code).toBe(1)
    expect(doctor.json().problems).toEqual([{ kind: 'staged-move', from: P('pend-one'), to: P('pend-one', 'active') }])
    expect((await repo.cli(['doctor', '--abort'])).code).toBe(0)
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(repo.exists(P('pend-one'))).toBe(true)
    expect((await repo.cli(['doctor'])).code).toBe(0)
  })

  test('a move made by hand and staged counts where HEAD has it in status and list, as the warning says', async () => {
    const repo = await withPending()
    repo.write('.learnings/active/.gitkeep', '')
    repo.git('add', '.learnings/active/.gitkeep')
    repo.git('commit', '-qm', 'keep')
    repo.git('mv', P('pend-one'), P('pend-one', 'active'))
    const warning =
      `${P('pend-one')} → ${P('pend-one', 'active')} is staged but was never committed ` +
      '(an interrupted move of an older git-learn, or a move by hand): nothing was approved, rejected or archived: ' +
      `it is still pending, though agents are fed it as active until then. Undo it: \`git learn doctor --abort\` (or \`git mv ${P('pend-one', 'active')} ` +
      `${P('pend-one')}\`), then make the move with \`git learn approve pend-one\``

    const status = await repo.cli(['status', '--json'])
    expect(status.stderr).toContain(warning)
    const report = status.json()
    expect(report.counts).toEqual({ pending: 1, active: 0, archived: 0 })
    expect(report.tiers).toEqual({ project: { pending: 1, active: 0, archived: 0 } })
    expect(report.domains).toEqual([])
    expect(report.pending).toEqual([{ name: 'pend-one', description: expect.stringContaining('pend-one failure') }])
    const text = await repo.cli(['status'])
    expect(text.stdout).toMatch(/learnings: 0 active · 1 pending · 0 archived/)
    expect(text.stdout).toMatch(/pending review[^\n]*\n {2}pend-one: Fix the pend-one failure/)

    const active = await repo.cli(['list', '--state', 'active', '--json'])
    expect(active.json().learnings).toEqual([])
    expect(active.stderr).toContain(warning)
    const pending = await repo.cli(['list', '--state', 'pending', '--json'])
    expect(pending.json().learnings).toMatchObject([
      { name: 'pend-one', state: 'pending (staged move to active, not committed)', path: P('pend-one', 'active') },
    ])
  })

  test('a left index.lock is named by every command, with what to do', async () => {
    const repo = await withPending()
    writeFileSync(join(repo.root, '.git/index.lock'), '')
    const list = await repo.cli(['list'])
    expect(list.stderr).toMatch(/index\.lock exists[\s\S]*rm /)
    const approve = await repo.cli(['approve', 'pend-one'])
    expect(approve.code).toBe(3)
    expect(approve.stderr).toMatch(/index is locked/)
  })

  test('a lock left on the branch (a git killed inside update-ref) is named with what to do, never taken for a moving branch', async () => {
    const repo = await withPending()
    const lock = join(repo.root, '.git/refs/heads/main.lock')
    writeFileSync(lock, '')
    const snap = repo.snapshot()
    const approve = await repo.cli(['approve', 'pend-one'])
    expect(approve.code).toBe(3)
    expect(approve.stderr).toContain(`refs/heads/main is locked (${lock} exists)`)
    expect(approve.stderr).toMatch(/a git process is moving it, or one was killed[\s\S]*rm /)
    expect(approve.stderr).not.toMatch(/kept moving/)
    expect(repo.snapshot()).toBe(snap)
    expect((await repo.cli(['list'])).stderr).toContain(`rm ${lock}`)
    const doctor = await repo.cli(['doctor', '--json'])
    expect(doctor.code).toBe(1)
    expect(doctor.json().problems).toEqual([{ kind: 'ref-lock', ref: 'refs/heads/main', path: lock }])
    rmSync(lock)
    expect((await repo.cli(['doctor'])).code).toBe(0)
    expect((await repo.cli(['approve', 'pend-one'])).code).toBe(0)
  })

  test('a branch lock that appears after the checks (held by a git beside us, or left) is reported as the lock, nothing changed', async () => {
    const repo = withStore()
    const lock = join(repo.root, '.git/refs/heads/main.lock')
    writeFileSync(lock, '')
    const snap = repo.snapshot()
    const { git } = await openRepo(repo.root)
    const err = await commitTransition(
      git,
      [{ kind: 'create', path: P('new-one'), text: learningText('new-one') }],
      'learn: add new-one',
    ).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RefLockedError)
    expect(err).toMatchObject({ ref: 'refs/heads/main', lock })
    expect(repo.snapshot()).toBe(snap)
    expect(readdirSync(join(repo.root, '.git/learn/transitions'))).toEqual([])
  })

  test('a journal that cannot be written stops the transition before the branch moves: nothing changed, the path named', async () => {
    const repo = await withPending()
    rmSync(join(repo.root, '.git/learn/transitions'), { recursive: true, force: true })
    writeFileSync(join(repo.root, '.git/learn/transitions'), 'x\n')
    const snap = repo.snapshot()
    const r = await repo.cli(['approve', 'pend-one'])
    expect(r.code).toBe(3)
    expect(r.stderr).toContain(`cannot use the transition journal "${join(repo.root, '.git/learn/transitions')}"`)
    expect(r.stderr).toMatch(/Nothing changed/)
    expect(r.stderr).not.toMatch(/doctor/)
    expect(repo.snapshot()).toBe(snap)
  })

  test("a transition refused before the branch moves leaves no copy of the index, in git learn's folder or beside the index", async () => {
    const repo = await withPending()
    // .git/learn a file: no scratch folder (the index is prepared beside .git/index) and no journal (refused there).
    rmSync(join(repo.root, '.git/learn'), { recursive: true, force: true })
    writeFileSync(join(repo.root, '.git/learn'), 'x\n')
    const before = readdirSync(join(repo.root, '.git')).sort()
    const r = await repo.cli(['approve', 'pend-one'])
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/Nothing changed/)
    expect(readdirSync(join(repo.root, '.git')).sort()).toEqual(before)
    // A journal folder that is a file: the index was prepared in the scratch folder, and is gone from it too.
    rmSync(join(repo.root, '.git/learn'))
    mkdirSync(join(repo.root, '.git/learn/tmp'), { recursive: true })
    writeFileSync(join(repo.root, '.git/learn/transitions'), 'x\n')
    expect((await repo.cli(['approve', 'pend-one'])).code).toBe(3)
    expect(readdirSync(join(repo.root, '.git/learn/tmp'))).toEqual([])
  })

  test('an interrupted transition (committed, index not followed) is reported and finished by doctor --continue', async () => {
    const repo = await withPending()
    // What a kill right after the branch moved leaves: the commit made, a journal, the index and work tree behind.
    const r = await repo.cli(['approve', 'pend-one'])
    expect(r.code).toBe(0)
    const commit = repo.git('rev-parse', 'HEAD').trim()
    repo.git('reset', '-q', '--hard', 'HEAD~1')
    repo.git('update-ref', 'refs/heads/main', commit)
    const oid = repo.git('rev-parse', `HEAD:${P('pend-one', 'active')}`).trim()
    const dir = leaveJournal(repo, 'learn: approve pend-one', [
      { path: P('pend-one'), entry: null },
      { path: P('pend-one', 'active'), entry: { mode: '100644', oid }, from: P('pend-one') },
    ])
    const status = await repo.cli(['status'])
    expect(status.stderr).toMatch(
      /was committed \([0-9a-f]{12}\), but the process stopped[\s\S]*git learn doctor --continue/,
    )
    const fixed = await repo.cli(['doctor', '--continue'])
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0)
    expect(repo.git('status', '--porcelain')).toBe('')
    expect(repo.exists(P('pend-one', 'active'))).toBe(true)
    expect(readdirSync(dir)).toEqual([])
  })

  test('a copy a killed write left beside the file is removed by doctor --continue only when it holds the committed bytes', async () => {
    const repo = withStore()
    repo.write('d.md', learningText('new-one'))
    expect((await repo.cli(['add', '--file', 'd.md'])).code).toBe(0)
    const commit = repo.git('rev-parse', 'HEAD').trim()
    const oid = repo.git('rev-parse', `HEAD:${P('new-one')}`).trim()
    const bytes = repo.read(P('new-one'))
    // What a kill between writing the temporary copy and linking it left (git-learn before scratch directories):
    // the commit made, its journal, the file absent, a copy beside it; and a file of someone else's that looks alike.
    repo.git('reset', '-q', '--hard', 'HEAD~1')
    repo.git('update-ref', 'refs/heads/main', commit)
    repo.git('read-tree', 'HEAD~1')
    const ours = '.learnings/pending/.new-one.md.0123456789ab.tmp'
    const theirs = '.learnings/pending/.new-one.md.ba9876543210.tmp'
    repo.write(ours, bytes)
    repo.write(theirs, 'not what was committed\n')
    leaveJournal(repo, 'learn: add new-one', [{ path: P('new-one'), entry: { mode: '100644', oid } }])
    const fixed = await repo.cli(['doctor', '--continue'])
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0)
    expect(repo.read(P('new-one'))).toBe(bytes)
    expect(repo.exists(ours)).toBe(false)
    expect(repo.read(theirs)).toBe('not what was committed\n')
    expect(repo.git('status', '--porcelain', '--untracked-files=all').split('\n')).toEqual([
      `?? ${theirs}`,
      '?? d.md',
      '',
    ])
  })

  test('a transition writes its files through a scratch directory of its own, and clears what a dead process left there', async () => {
    const repo = withStore()
    const scratch = join(repo.root, '.git/learn/tmp')
    mkdirSync(scratch, { recursive: true })
    // A copy left by a process that is gone (a kill between writing and linking), and one of a live process.
    writeFileSync(join(scratch, '999999.00aa11bb22cc.tmp'), 'left by a killed run\n')
    writeFileSync(join(scratch, `${process.ppid}.00aa11bb22cd.tmp`), 'being written\n')
    // Named with this side's tag (process-tag.ts) the same; another side's (a dev container's, seen from its host)
    // cannot be judged by its pid here: kept while younger than a day, then taken for left behind.
    const ours = processTag()
    const theirs = ours === '00000000' ? '00000001' : '00000000'
    writeFileSync(join(scratch, `999999@${ours}.00aa11bb22ce.tmp`), 'left by a killed run\n')
    writeFileSync(join(scratch, `${process.ppid}@${ours}.00aa11bb22cf.tmp`), 'being written\n')
    writeFileSync(join(scratch, `999999@${theirs}.00aa11bb22d0.tmp`), 'being written over there\n')
    writeFileSync(join(scratch, `999998@${theirs}.00aa11bb22d1.tmp`), 'left over there two days ago\n')
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3_600_000)
    utimesSync(join(scratch, `999998@${theirs}.00aa11bb22d1.tmp`), twoDaysAgo, twoDaysAgo)
    repo.write('d.md', learningText('new-one'))
    const r = await repo.cli(['add', '--file', 'd.md'])
    expect(r.code, r.stderr).toBe(0)
    expect(readdirSync(scratch).sort()).toEqual(
      [
        `${process.ppid}.00aa11bb22cd.tmp`,
        `${process.ppid}@${ours}.00aa11bb22cf.tmp`,
        `999999@${theirs}.00aa11bb22d0.tmp`,
      ].sort(),
    )
    expect(readdirSync(join(repo.root, '.learnings/pending'))).toEqual(['new-one.md'])
  })
})
