/**
 * A file a lifecycle commit replaces (config.yaml of `tier add`, `tier update` and `tier remove`; a pending learning
 * `import` updates) edited by the user while the commit is made: the edit is never overwritten. Edited before the
 * branch moves, the command is refused with nothing changed; edited in the moment after, the commit stands and the
 * file is left as the user has it, named, with `git learn doctor` to settle it. A git wrapper first on PATH makes the
 * edit at those moments.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { BUILT_BIN, racePath } from '../../helpers/fault.js'
import { learningText, repoWithConfig, tempDir, tierRemote } from '../../helpers/repo.js'
import type { TestRepo } from '../../helpers/repo.js'

const EDIT = "printf '# my note, saved just now\\n' >> .learnings/config.yaml"

function tierAddWithEdit(repo: TestRepo, at: string, cmd = EDIT) {
  const bare = tierRemote({ 'org-note': learningText('org-note') }).bare
  const mark = join(tempDir('gl-replace-race-'), 'mark')
  const r = spawnSync(process.execPath, [BUILT_BIN, 'tier', 'add', 'org', bare], {
    cwd: repo.root,
    encoding: 'utf8',
    env: {
      ...process.env,
      PATH: `${racePath()}:${process.env['PATH']}`,
      RACE_AT: at,
      RACE_WHEN: 'before',
      RACE_MARK: mark,
      RACE_CMD: cmd,
    },
  })
  expect(existsSync(mark), r.stderr).toBe(true)
  return r
}

describe('a replaced file edited while the commit is made', () => {
  test('edited before the branch moves: refused, nothing changed, the edit kept', () => {
    const repo = repoWithConfig()
    const head = repo.git('rev-parse', 'HEAD').trim()
    const r = tierAddWithEdit(repo, 'commit-tree')
    expect(r.status, r.stderr).toBe(1)
    expect(r.stderr).toMatch(/\.learnings\/config\.yaml has unstaged changes/)
    expect(repo.git('rev-parse', 'HEAD').trim()).toBe(head)
    expect(repo.read('.learnings/config.yaml')).toBe(
      '# my config\napproval:\n  distinct_approver: false\n# my note, saved just now\n',
    )
    expect(repo.git('status', '--porcelain')).toBe(' M .learnings/config.yaml\n')
    // The fetch is put back as for any refused tier add.
    expect(repo.git('for-each-ref', 'refs/learn/')).toBe('')
  }, 60_000)

  test('edited as the branch moves: the commit stands, the edit is kept and named, doctor settles it', () => {
    const repo = repoWithConfig()
    const r = tierAddWithEdit(repo, 'update-ref')
    expect(r.status, r.stderr).toBe(3)
    expect(r.stderr).toMatch(/was committed[\s\S]*\.learnings\/config\.yaml[\s\S]*left as it is/)
    expect(repo.git('show', 'HEAD:.learnings/config.yaml')).toMatch(/name: org/)
    expect(repo.read('.learnings/config.yaml')).toBe(
      '# my config\napproval:\n  distinct_approver: false\n# my note, saved just now\n',
    )
    const doctor = spawnSync(process.execPath, [BUILT_BIN, 'doctor'], { cwd: repo.root, encoding: 'utf8' })
    expect(doctor.status).toBe(1)
    expect(doctor.stdout + doctor.stderr).toMatch(/"learn: tier add org" was committed[\s\S]*config\.yaml/)
  }, 60_000)

  // A SIGTERM in the critical section waits for its end; the section ended half done, and the line said "nothing is
  // left half done" where the journal stayed for `doctor --continue`.
  test('edited as the branch moves, and a signal meanwhile: the line says what is left half done', () => {
    const repo = repoWithConfig()
    const r = tierAddWithEdit(repo, 'update-ref', `${EDIT}; kill -s TERM "$GL_PARENT"`)
    expect(r.signal ?? r.status, r.stderr).toBe('SIGTERM')
    expect(repo.git('show', 'HEAD:.learnings/config.yaml')).toMatch(/name: org/)
    expect(r.stderr).not.toMatch(/nothing is left half done/)
    expect(r.stderr).toMatch(/interrupted by SIGTERM after its commit landed[\s\S]*git learn doctor --continue/)
  }, 60_000)

  // Two `tier update`s at once: the second to commit finds config.yaml changed by the first. It used to be told of
  // "unstaged changes" and to put refs/learn/tiers/<name> back where it was before its fetch, under the pin the
  // first one committed: `tier verify` then called the tier tampered with ("the ref was moved outside ...").
  test('two tier updates at once: one pins, the other is refused and leaves the ref at the pin', () => {
    const repo = repoWithConfig()
    const { bare, src } = tierRemote({ 'org-note': learningText('org-note') })
    const bin = (args: string[], env: Record<string, string> = {}) =>
      spawnSync(process.execPath, [BUILT_BIN, ...args], {
        cwd: repo.root,
        encoding: 'utf8',
        env: { ...process.env, ...env },
      })
    expect(bin(['tier', 'add', 'org', bare]).status).toBe(0)
    src.write('.learnings/active/org-note.md', learningText('org-note', { domain: 'build' }))
    src.git('commit', '-qam', 'org: moved on')
    src.git('push', '-q', bare, 'main')
    const tip = src.git('rev-parse', 'HEAD').trim()
    const mark = join(tempDir('gl-replace-race-'), 'mark')
    const r = bin(['tier', 'update', 'org'], {
      PATH: `${racePath()}:${process.env['PATH']}`,
      RACE_AT: 'commit-tree',
      RACE_WHEN: 'before',
      RACE_MARK: mark,
      RACE_CMD: `${process.execPath} ${BUILT_BIN} tier update org`,
    })
    expect(existsSync(mark)).toBe(true)
    expect(r.status, r.stderr).toBe(1)
    expect(r.stderr).toMatch(/another commit changed \.learnings\/config\.yaml meanwhile/)
    expect(repo.git('show', 'HEAD:.learnings/config.yaml')).toContain(tip)
    expect(repo.git('rev-parse', 'refs/learn/tiers/org').trim()).toBe(tip)
    const verify = bin(['tier', 'verify'])
    expect(verify.status, verify.stdout + verify.stderr).toBe(0)
    expect(repo.git('status', '--porcelain')).toBe('')
  }, 60_000)
})
