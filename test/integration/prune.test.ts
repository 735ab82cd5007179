import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { cliAt, makeRepo, tempDir } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'
import { NOW, good, seedActive, lastMessage, changedIn } from '../helpers/scale-store.js'

describe('git learn prune', () => {
  function pruneRepo(): TestRepo {
    const repo = makeRepo()
    seedActive(repo, {
      'used-often': good('used-often'),
      'never-used': good('never-used'),
      'rarely-used': good('rarely-used'),
    })
    const events = [
      ...Array.from({ length: 5 }, (_, i) => ({
        ts: `2026-11-0${i + 1}T00:00:00Z`,
        kind: 'match',
        name: 'used-often',
      })),
      { ts: '2026-11-10T00:00:00Z', kind: 'match', name: 'rarely-used' },
      { ts: '2025-06-01T00:00:00Z', kind: 'match', name: 'never-used' },
      { ts: '2025-06-02T00:00:00Z', kind: 'match', name: 'never-used' },
    ]
    repo.write('.git/learn/events.jsonl', `${events.map((e) => JSON.stringify(e)).join('\n')}\nnot json\n`)
    return repo
  }

  test('proposes exactly the unused and rarely matched learnings, and changes nothing', async () => {
    const repo = pruneRepo()
    const before = repo.snapshot()
    const r = await repo.cli(['prune', '--json'], { now: NOW })
    expect(r.code).toBe(0)
    const out = r.json()
    expect(out.candidates.map((c: { name: string }) => c.name)).toEqual(['never-used', 'rarely-used'])
    expect(out.candidates[0].reason).toMatch(/^unused for 323 days \(last approved 2026-01-01\); matched 0 times/)
    expect(out.candidates[1].reason).toBe('matched 1 time in 323 days (fewer than 2)')
    expect(out).toMatchObject({ pruned: [], shallow: false, dryRun: true })
    expect(repo.snapshot()).toBe(before)
    const text = await repo.cli(['prune'], { now: NOW })
    expect(text.stdout).toMatch(/would prune 2 active learnings \(nothing changed\)/)
    expect(text.stdout).toMatch(/git learn prune --yes/)
  })

  test('--yes archives each in its own commit with the prune trailers; other staged work stays staged', async () => {
    const repo = pruneRepo()
    repo.write('notes.txt', 'mine\n')
    repo.git('add', 'notes.txt')
    const r = await repo.cli(['prune', '--yes', '--json'], { now: NOW })
    expect(r.code).toBe(0)
    expect(r.json().pruned.map((p: { path: string }) => p.path)).toEqual([
      '.learnings/archived/never-used.md',
      '.learnings/archived/rarely-used.md',
    ])
    expect(repo.exists('.learnings/archived/never-used.md')).toBe(true)
    expect(repo.exists('.learnings/active/used-often.md')).toBe(true)
    const msg = lastMessage(repo)
    expect(msg).toMatch(/^learn: prune rarely-used/)
    expect(msg).toMatch(/Learning-Action: prune\n/)
    expect(msg).toMatch(/Pruned-by: Ada Author <ada@example.com>/)
    expect(msg).toMatch(/Learning-Reason: matched 1 time in 323 days \(fewer than 2\)/)
    expect(changedIn(repo)).toEqual(['R100\t.learnings/active/rarely-used.md\t.learnings/archived/rarely-used.md'])
    expect(lastMessage(repo, 'HEAD~1')).toMatch(/Learning: never-used/)
    expect(repo.git('diff', '--cached', '--name-only').trim()).toBe('notes.txt')
  })

  test('a named active learning is retired with its reason; a pending one is refused with what works', async () => {
    const repo = pruneRepo()
    expect((await repo.cli(['prune', 'used-often'])).code).toBe(2)
    const dry = await repo.cli(['prune', 'used-often', '--reason', 'obsolete since v2'])
    expect(dry.stdout).toMatch(/would retire 1 active learning/)
    expect(repo.exists('.learnings/active/used-often.md')).toBe(true)
    // docs/scale.md: every candidate has its reasons by kind; one named by hand, kind manual with the text given.
    const json = (await repo.cli(['prune', 'used-often', '--reason', 'obsolete since v2', '--json'])).json()
    expect(json.candidates[0]).toMatchObject({
      name: 'used-often',
      reason: 'obsolete since v2',
      reasons: [{ kind: 'manual', text: 'obsolete since v2' }],
    })
    const r = await repo.cli(['prune', 'used-often', '--reason', 'obsolete since v2', '--yes'])
    expect(r.code).toBe(0)
    expect(repo.exists('.learnings/archived/used-often.md')).toBe(true)
    expect(lastMessage(repo)).toMatch(/Learning-Reason: obsolete since v2/)
    repo.write('.learnings/pending/new-one.md', good('new-one'))
    repo.git('add', '.')
    repo.git('commit', '-q', '-m', 'add')
    const bad = await repo.cli(['prune', 'new-one', '--reason', 'x', '--yes'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/git learn approve new-one/)
  })

  // `git log` fails on an unborn branch: before the first commit there is no audit trail, so no approval dates.
  test('before the first commit: a report (the created dates), not a failed git log', async () => {
    const repo = makeRepo({ commit: false })
    repo.write('.learnings/active/old-one.md', good('old-one'))
    const before = repo.snapshot()
    const r = await repo.cli(['prune', '--json'], { now: NOW })
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().candidates.map((c: { name: string }) => c.name)).toEqual(['old-one'])
    expect(r.json().candidates[0].reason).toMatch(/last created 2026-01-01/)
    expect(repo.snapshot()).toBe(before)
  })

  test('a shallow clone says so and holds back what only the created dates would prune', async () => {
    const origin = makeRepo()
    seedActive(origin, { 'old-one': good('old-one') }, '2026-11-15T00:00:00Z')
    origin.git('commit', '-q', '--allow-empty', '-m', 'later')
    const dir = tempDir('gl-shallow-')
    execFileSync('git', ['clone', '-q', '--depth', '1', `file://${origin.root}`, join(dir, 'c')])
    const clone = makeRepo({ commit: false })
    const r = await (async () => {
      const { runCli } = await import('../../src/cli/main.js')
      let stdout = ''
      let stderr = ''
      const code = await runCli(['prune'], {
        cwd: join(dir, 'c'),
        env: process.env,
        now: () => NOW,
        stdout: (t) => void (stdout += t),
        stderr: (t) => void (stderr += t),
        readStdin: async () => Buffer.alloc(0),
        color: false,
      })
      return { code, stdout, stderr }
    })()
    void clone
    expect(r.code).toBe(0)
    // Approved on 2026-11-15 (not prunable), but the clone only knows `created: 2026-01-01`: before, it was proposed
    // ("would prune") from that date; now it is held back, with what the date says and the fetch that dates it.
    expect(r.stdout).toMatch(/^nothing to prune by the dates this clone holds\.\nheld back: this shallow clone/)
    expect(r.stdout).toMatch(/old-one {2}— unused for 323 days \(last created 2026-01-01\)/)
    expect(r.stdout).not.toMatch(/^would prune/m)
    expect(r.stdout).toMatch(/git fetch --unshallow/)
  })
  test('a shallow clone that holds the approval uses its date; only the ones before the cut fall back', async () => {
    const origin = makeRepo()
    seedActive(origin, { 'old-one': good('old-one') }, '2026-11-15T00:00:00Z')
    origin.git('commit', '-q', '--allow-empty', '-m', 'later')
    const clone = join(tempDir('gl-shallow-'), 'c')
    execFileSync('git', ['clone', '-q', '--depth', '2', `file://${origin.root}`, clone])
    const r = await cliAt(clone, ['prune', '--json'], process.env)
    expect(r.code, r.stderr).toBe(0)
    // Approved on 2026-11-15, and that commit is in the clone: not five days active, not 323.
    expect(r.json()).toMatchObject({ candidates: [], shallow: true })
    const text = await cliAt(clone, ['prune'], process.env)
    expect(text.stderr).not.toMatch(/shallow/)
  })
  // A scheduled prune job in CI checks out one commit (fetch-depth: 1): a learning approved last week, whose approval
  // the clone does not hold, must not be archived on the strength of its `created` date.
  test('--yes in a shallow clone holds back the learnings whose approval it lacks; the rest are pruned', async () => {
    const origin = makeRepo()
    seedActive(
      origin,
      {
        fresh: good('fresh'),
        newer: good('newer').replace('created:', 'supersedes: [replaced]\ncreated:'),
        replaced: good('replaced'),
      },
      '2026-11-15T00:00:00Z',
    )
    // The commit at the cut: its own trailers are read, so this approval's date is known.
    seedActive(origin, { 'known-old': good('known-old') }, '2026-02-01T00:00:00Z')
    const clone = join(tempDir('gl-shallow-'), 'c')
    execFileSync('git', ['clone', '-q', '--depth', '1', `file://${origin.root}`, clone])
    const git = (...a: string[]) => execFileSync('git', a, { cwd: clone, encoding: 'utf8' })
    git('config', 'user.name', 'Ada Author')
    git('config', 'user.email', 'ada@example.com')

    const dry = await cliAt(clone, ['prune'], process.env)
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toMatch(
      /would prune 2 active learnings \(nothing changed\):\n {2}known-old {2}— unused for 292 days/,
    )
    expect(dry.stdout).toMatch(/ {2}replaced {2}— superseded by newer\n/)
    expect(dry.stdout).toMatch(
      /held back: this shallow clone holds no approval of 2 learnings[^\n]*\n {2}fresh {2}— .*\n {2}newer {2}— /,
    )
    expect(dry.stdout).toMatch(/git fetch --unshallow/)

    const r = await cliAt(clone, ['prune', '--yes', '--json'], process.env)
    expect(r.code, r.stderr).toBe(0)
    const out = r.json()
    expect(out.pruned.map((p: { name: string }) => p.name)).toEqual(['known-old', 'replaced'])
    expect(out.candidates.find((c: { name: string }) => c.name === 'replaced').reason).toBe('superseded by newer')
    expect(out.heldBack.map((c: { name: string }) => c.name)).toEqual(['fresh', 'newer'])
    expect(out.heldBack[0]).toMatchObject({ path: '.learnings/active/fresh.md' })
    expect(git('ls-files', '.learnings/active').split('\n').filter(Boolean)).toEqual([
      '.learnings/active/fresh.md',
      '.learnings/active/newer.md',
    ])

    // With the whole history the dates are known: fresh (approved 2026-11-15) stays, and nothing is held back.
    git('fetch', '-q', '--unshallow')
    const full = await cliAt(clone, ['prune', '--json'], process.env)
    expect(full.json()).toMatchObject({ candidates: [], heldBack: [], shallow: false })
  })

  test('a re-approval on the side of a merge counts: the approval date is read through every parent', async () => {
    const repo = makeRepo()
    seedActive(repo, { 'came-back': good('came-back') })
    // On a branch: pruned, restored and approved again (recently); active/ ends as it began, so the merge's
    // active/ equals main's and a history-simplified log would only see the approval of 2026-01-01.
    repo.git('checkout', '-q', '-b', 'review')
    const move = (from: string, to: string, action: string, date: string) => {
      mkdirSync(join(repo.root, '.learnings', to), { recursive: true })
      repo.git('mv', `.learnings/${from}/came-back.md`, `.learnings/${to}/came-back.md`)
      execFileSync(
        'git',
        [
          'commit',
          '-q',
          '-m',
          `learn: ${action} came-back\n\nLearning: came-back\nLearning-Action: ${action}\nLearning-From: ${from}\nLearning-To: ${to}\nApproved-by: Bo <bo@example.com>`,
        ],
        { cwd: repo.root, env: { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } },
      )
    }
    move('active', 'archived', 'prune', '2026-11-10T00:00:00Z')
    move('archived', 'pending', 'restore', '2026-11-12T00:00:00Z')
    move('pending', 'active', 'approve', '2026-11-15T00:00:00Z')
    repo.git('checkout', '-q', 'main')
    repo.git('merge', '-q', '--no-ff', '--no-edit', 'review')
    const r = await repo.cli(['prune', '--json'], { now: NOW })
    expect(r.code).toBe(0)
    expect(r.json().candidates).toEqual([])
  })
})

// docs/scale.md, "Dates prune trusts": a teammate's clock or a rebase never makes a learning look older than it is.
describe('git learn prune and the dates of commits', () => {
  /** An active learning `created` as given, approved in a commit with these author and committer dates. */
  function approvedWith(created: string, author: string, committer: string): TestRepo {
    const repo = makeRepo()
    repo.write(
      '.learnings/active/late-one.md',
      good('late-one').replace('created: "2026-01-01"', `created: ${created}`),
    )
    repo.git('add', '.learnings')
    execFileSync(
      'git',
      [
        'commit',
        '-q',
        '-m',
        'learn: approve late-one\n\nLearning: late-one\nLearning-Action: approve\nLearning-From: pending\nLearning-To: active\nApproved-by: Bo <bo@example.com>',
      ],
      { cwd: repo.root, env: { ...process.env, GIT_AUTHOR_DATE: author, GIT_COMMITTER_DATE: committer } },
    )
    return repo
  }
  const candidates = async (repo: TestRepo) => {
    const r = await repo.cli(['prune', '--json'], { now: NOW })
    expect(r.code, r.stderr).toBe(0)
    return r.json().candidates as { name: string; reason: string }[]
  }

  test('an approval rebased onto the branch today is as old as its commit, not as its author date', async () => {
    // Approved on a branch in January, rebased onto main on 2026-11-15: `git rebase` keeps the author date.
    const repo = approvedWith('"2026-01-01"', '2026-01-01T10:00:00Z', '2026-11-15T10:00:00Z')
    expect(await candidates(repo)).toEqual([])
  })

  test('an approval dated before the learning was created (a clock behind) counts from `created`', async () => {
    const repo = approvedWith('"2026-11-01"', '2019-03-01T10:00:00Z', '2019-03-01T10:00:00Z')
    expect(await candidates(repo)).toEqual([])
    // Once `created` is old enough, the reason names it, not the impossible approval date.
    const later = await repo.cli(['prune', '--json'], { now: new Date('2027-03-01T12:00:00Z') })
    expect(later.json().candidates[0].reason).toMatch(/^unused for 120 days \(last created 2026-11-01\)/)
  })

  test('in a shallow clone that holds the approval, a `created` after it is no reason to hold the learning back', async () => {
    const origin = approvedWith('"2026-06-01"', '2026-03-01T10:00:00Z', '2026-03-01T10:00:00Z')
    origin.git('commit', '-q', '--allow-empty', '-m', 'later')
    const clone = join(tempDir('gl-shallow-'), 'c')
    execFileSync('git', ['clone', '-q', '--depth', '2', `file://${origin.root}`, clone])
    // The approval is in the clone (dated, if by a clock behind): pruned from `created` as in a full clone.
    const r = await cliAt(clone, ['prune', '--json'], process.env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({ shallow: true, heldBack: [] })
    expect(r.json().candidates.map((c: { reason: string }) => c.reason)).toEqual([
      expect.stringMatching(/^unused for 172 days \(last created 2026-06-01\)/),
    ])
  })

  test('an approval or a `created` in the future proposes nothing and prints no negative day', async () => {
    const future = approvedWith('"2062-01-01"', '2062-01-01T10:00:00Z', '2062-01-01T10:00:00Z')
    expect(await candidates(future)).toEqual([])
    const text = await future.cli(['prune'], { now: NOW })
    expect(text.stdout).not.toMatch(/-\d+ days|NaN/)
    // A `created` typed in the future is not a date: the approval's counts, as for any learning.
    const typo = approvedWith('"2062-01-01"', '2026-01-01T10:00:00Z', '2026-01-01T10:00:00Z')
    expect((await candidates(typo))[0]?.reason).toMatch(/^unused for 323 days \(last approved 2026-01-01\)/)
  })
})
