/**
 * The two races of issue 17 made deterministic: a git wrapper first on PATH runs the other party (a user's `git
 * commit`, a second `git learn approve`) after our process read HEAD and before it moves the branch (at its first
 * `git commit-tree`, before it takes the index lock the branch moves under), so the other party always wins the ref
 * first. Each runs 20 times on fresh repositories. The moment the branch moves, under that lock, is
 * transition-index-lock.test.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { BUILT_BIN, racePath } from '../../helpers/fault.js'
import { learningText, makeRepo } from '../../helpers/repo.js'
import type { TestRepo } from '../../helpers/repo.js'

const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()

/** The other party runs at our first `commit-tree`: after HEAD was read, before the index lock and the branch move. */
const AT = { RACE_AT: 'commit-tree', RACE_WHEN: 'before' }

const REVIEWER = {
  GIT_COMMITTER_NAME: 'Rita Reviewer',
  GIT_COMMITTER_EMAIL: 'rita@example.com',
  GIT_AUTHOR_NAME: 'Rita Reviewer',
  GIT_AUTHOR_EMAIL: 'rita@example.com',
}

function run(repo: TestRepo, argv: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [BUILT_BIN, ...argv], {
    cwd: repo.root,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  })
}

function seeded(names: string[]): TestRepo {
  const repo = makeRepo()
  repo.write('.learnings/config.yaml', 'gates: {min_contexts: 1}\n')
  for (const n of names) repo.write(`.learnings/pending/${n}.md`, learningText(n))
  repo.git('add', '.learnings')
  repo.git('commit', '-qm', 'seed')
  return repo
}

describe('races', () => {
  test("a user `git commit` beside `add` 20/20: neither takes nor loses the other's change", () => {
    const wrapper = racePath()
    let passed = 0
    for (let i = 0; i < 20; i++) {
      const repo = seeded([])
      const scratch = mkdtempSync(join(tmpdir(), 'gl-race-'))
      const input = join(scratch, `in-${i}.md`)
      writeFileSync(input, learningText('fresh-one'))
      repo.write('mine.txt', "the user's work\n")
      repo.git('add', 'mine.txt')
      const mark = join(scratch, `mark-${i}`)
      const r = run(repo, ['add', '--file', input], {
        ...AT,
        PATH: `${wrapper}:${process.env['PATH']}`,
        RACE_MARK: mark,
        RACE_CMD: `${REAL_GIT} commit -qm "user commit"`,
      })
      expect(r.status, r.stderr).toBe(0)
      expect(existsSync(mark)).toBe(true)
      // Ours on top of the user's: each commit holds only its own paths, ours with its trailers.
      expect(repo.git('log', '--format=%s', '-2').trim().split('\n')).toEqual(['learn: add fresh-one', 'user commit'])
      expect(repo.git('show', '--name-only', '--format=', 'HEAD~1').trim()).toBe('mine.txt')
      expect(repo.git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('.learnings/pending/fresh-one.md')
      expect(repo.git('log', '-1', '--format=%B')).toMatch(/Learning-Action: add/)
      expect(repo.git('status', '--porcelain')).toBe('')
      expect(existsSync(join(repo.root, '.git/index.lock'))).toBe(false)
      rmSync(scratch, { recursive: true, force: true })
      passed++
    }
    expect(passed).toBe(20)
  }, 300_000)

  test('two `approve`s of the same learning at once 20/20: one approves, the other is refused, nothing lost or doubled', () => {
    const wrapper = racePath()
    let passed = 0
    for (let i = 0; i < 20; i++) {
      const repo = seeded(['pend-one'])
      const scratch = mkdtempSync(join(tmpdir(), 'gl-race-'))
      const mark = join(scratch, `mark-${i}`)
      const second = `${process.execPath} ${BUILT_BIN} approve pend-one > ${join(scratch, `second-${i}.out`)} 2>&1; echo $? > ${join(scratch, `second-${i}.code`)}`
      const r = run(repo, ['approve', 'pend-one'], {
        ...REVIEWER,
        ...AT,
        PATH: `${wrapper}:${process.env['PATH']}`,
        RACE_MARK: mark,
        RACE_CMD: second,
      })
      expect(existsSync(mark), r.stderr + r.stdout).toBe(true)
      const secondCode = Number(execFileSync('cat', [join(scratch, `second-${i}.code`)], { encoding: 'utf8' }).trim())
      expect(secondCode).toBe(0)
      expect(r.status).toBe(1)
      expect(r.stderr).toMatch(
        /was not committed: another commit changed \.learnings\/pending\/pend-one\.md meanwhile[\s\S]*Nothing changed/,
      )
      expect(
        repo
          .git('log', '--format=%s')
          .split('\n')
          .filter((s) => s === 'learn: approve pend-one'),
      ).toHaveLength(1)
      expect(repo.exists('.learnings/active/pend-one.md')).toBe(true)
      expect(repo.exists('.learnings/pending/pend-one.md')).toBe(false)
      expect(repo.git('status', '--porcelain')).toBe('')
      expect(existsSync(join(repo.root, '.git/index.lock'))).toBe(false)
      rmSync(scratch, { recursive: true, force: true })
      passed++
    }
    expect(passed).toBe(20)
  }, 300_000)

  test('two `approve`s of different learnings at once: both land, one after the other', () => {
    const wrapper = racePath()
    const repo = seeded(['pend-one', 'pend-two'])
    const scratch = mkdtempSync(join(tmpdir(), 'gl-race-'))
    const mark = join(scratch, 'mark')
    const r = run(repo, ['approve', 'pend-one'], {
      ...REVIEWER,
      ...AT,
      PATH: `${wrapper}:${process.env['PATH']}`,
      RACE_MARK: mark,
      RACE_CMD: `${process.execPath} ${BUILT_BIN} approve pend-two`,
    })
    expect(r.status, r.stderr).toBe(0)
    expect(repo.git('log', '--format=%s', '-2').trim().split('\n')).toEqual([
      'learn: approve pend-one',
      'learn: approve pend-two',
    ])
    expect(repo.git('status', '--porcelain')).toBe('')
  }, 120_000)
})
