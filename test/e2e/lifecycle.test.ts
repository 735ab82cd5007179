import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { PROJECT_ROOT, learningText, makeRepo, sh } from '../helpers/repo.js'

describe('the built binary as `git learn` on PATH', () => {
  test('init → add → approve → reject → log, with exit codes', () => {
    const repo = makeRepo()
    const gl = (args: string[], input?: string) =>
      sh(repo.root, 'git', ['learn', ...args], input === undefined ? {} : { input })
    expect(gl(['init']).code).toBe(0)
    repo.git('add', '.learnings')
    repo.git('commit', '-qm', 'learn: init')
    const add = gl(['add', '--file', '-', '--json'], learningText('e2e-one'))
    expect(add.stderr).toBe('')
    expect(add.code).toBe(0)
    expect(JSON.parse(add.stdout)).toMatchObject({ name: 'e2e-one', to: 'pending' })
    expect(gl(['add', '--file', '-'], learningText('e2e-two')).code).toBe(0)

    const self = gl(['approve', 'e2e-one'])
    expect(self.code).toBe(1)
    expect(self.stderr).toMatch(/cannot approve it too/)

    repo.setIdentity('Rita Reviewer', 'rita@example.com')
    expect(gl(['approve', 'e2e-one']).code).toBe(0)
    expect(gl(['reject', 'e2e-two', '--reason', 'too narrow']).code).toBe(0)
    expect(repo.exists('.learnings/active/e2e-one.md')).toBe(true)
    expect(repo.exists('.learnings/archived/e2e-two.md')).toBe(true)

    const log = gl(['log'])
    expect(log.code).toBe(0)
    expect(log.stdout).toMatch(
      /reject\s+e2e-two\s+pending → archived\s+by Rita Reviewer <rita@example.com>[^\n]*\n\s+reason: too narrow/,
    )
    expect(
      log.stdout
        .split('\n')
        .filter((l) => /^\d{4}-/.test(l))
        .map((l) => l.split(/\s+/).slice(1, 3).join(' ')),
    ).toEqual(['reject e2e-two', 'approve e2e-one', 'add e2e-two', 'add e2e-one'])
    expect(gl(['approve', 'nope']).code).toBe(2)
    expect(gl(['show', '--bogus']).code).toBe(2)
  })

  test('outside a repository: exit 3', () => {
    const dir = join(makeRepo().root, '..')
    const r = sh(dir, 'git', ['learn', 'list'], { env: { GIT_CEILING_DIRECTORIES: dir } })
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/not inside a git repository/)
    const c = sh(dir, 'git', ['learn', 'check', '--staged'], { env: { GIT_CEILING_DIRECTORIES: dir } })
    expect(c.code).toBe(3)
    expect(c.stderr).toMatch(/git learn check: not inside a git repository/)
  })

  test('-h, help <cmd>, --version; the man page is built', () => {
    const repo = makeRepo()
    expect(sh(repo.root, 'git', ['learn', 'approve', '-h']).stdout).toMatch(/usage: git learn approve/)
    expect(sh(repo.root, 'git', ['learn', 'help', 'add']).stdout).toMatch(/--body-file <path\|->/)
    expect(sh(repo.root, 'git-learn', ['--version']).stdout).toMatch(/^git-learn \d+\.\d+\.\d+/)
    const man = join(PROJECT_ROOT, 'man', 'git-learn.1')
    expect(existsSync(man)).toBe(true)
    expect(readFileSync(man, 'utf8')).toMatch(/^\.TH GIT-LEARN 1/)
  })

  test('a bad config.yaml is named with its line, exit 1', () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', 'gates:\n  min_contexts: "two"\nbogus: 1\n')
    writeFileSync(join(repo.root, 'd.md'), learningText('boom'))
    const r = sh(repo.root, 'git', ['learn', 'add', '--file', 'd.md'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/\.learnings\/config\.yaml is not a valid configuration/)
    expect(r.stderr).toMatch(/field "gates\.min_contexts" must be an integer/)
    expect(r.stderr).toMatch(/unknown key "bogus"/)
    repo.write('.learnings/config.yaml', 'gates: [\n')
    expect(sh(repo.root, 'git', ['learn', 'add', '--file', 'd.md']).stderr).toMatch(/malformed YAML \(line \d\)/)
  })
})
