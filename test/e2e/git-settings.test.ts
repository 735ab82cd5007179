import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { learningText, makeRepo, sh, tempDir } from '../helpers/repo.js'

// A user's git settings that change what git prints or how it reads a pathspec, through the built binary: git-learn
// parses git's output and writes its own pathspecs, so none of them may change its answers.

const hasSshKeygen = spawnSync('ssh-keygen', ['-?'], { encoding: 'utf8' }).error === undefined

describe("the user's git settings", () => {
  test('GIT_LITERAL_PATHSPECS=1 does not turn off the zone checks of check and check --base', () => {
    const repo = makeRepo()
    repo.git('commit', '-q', '--allow-empty', '-m', 'base')
    repo.write('.claude/skills/evil/SKILL.md', '---\nname: evil\nsource: me\n---\nhi\n')
    repo.git('add', '.claude')
    repo.git('commit', '-q', '--no-verify', '-m', 'evil')
    const plain = sh(repo.root, 'git', ['learn', 'check', '--base', 'HEAD~1'])
    expect(plain.code).toBe(1)
    expect(plain.stderr + plain.stdout).toMatch(/\[zone\]/)
    for (const args of [['check', '--base', 'HEAD~1'], ['check']]) {
      const literal = sh(repo.root, 'git', ['learn', ...args], { env: { GIT_LITERAL_PATHSPECS: '1' } })
      expect(literal.code).toBe(1)
      expect(literal.stderr + literal.stdout).toMatch(/\[zone\]/)
    }
  })

  test('GIT_LITERAL_PATHSPECS=1 does not let add write over a learning of the same name in another state', () => {
    const repo = makeRepo()
    repo.write('.learnings/active/widget-exploded.md', learningText('widget-exploded'))
    repo.git('add', '.')
    repo.git('commit', '-qm', 'seed')
    const before = repo.snapshot()
    const r = sh(repo.root, 'git', ['learn', 'add', '--file', '-'], {
      input: learningText('widget-exploded'),
      env: { GIT_LITERAL_PATHSPECS: '1' },
    })
    expect(r.code).not.toBe(0)
    expect(repo.snapshot()).toBe(before)
  })

  // The feed's key asks git for the store's changes with `:(top).learnings`: read as a file name, it matched nothing,
  // and an edit of a learning made after the cache was built would not be seen.
  test('GIT_LITERAL_PATHSPECS=1 does not hide an edited learning from the feed', () => {
    const repo = makeRepo()
    repo.write('.learnings/active/widget-exploded.md', learningText('widget-exploded'))
    repo.git('add', '.')
    repo.git('commit', '-qm', 'seed')
    const env = { GIT_LITERAL_PATHSPECS: '1' }
    expect(sh(repo.root, 'git', ['learn', 'search', '--json', 'zanzibar'], { env }).stdout).not.toContain('widget')
    repo.write(
      '.learnings/active/widget-exploded.md',
      learningText('widget-exploded', { description: 'Fix the zanzibar failure. Use when zanzibar fails.' }),
    )
    const after = sh(repo.root, 'git', ['learn', 'search', '--json', 'zanzibar'], { env })
    expect(after.code).toBe(0)
    expect(after.stdout).toContain('widget-exploded')
  })

  test('i18n.logOutputEncoding=latin1 leaves the reasons and names git learn log reads in UTF-8', async () => {
    const repo = makeRepo()
    repo.setIdentity('Zoë Ångström', 'zoe@example.com')
    repo.write('.learnings/pending/widget-exploded.md', learningText('widget-exploded'))
    repo.git('add', '.')
    repo.git('commit', '-qm', 'seed')
    const rej = await repo.cli(['reject', 'widget-exploded', '--reason', 'réécrire à nouveau'])
    expect(rej.stderr).toBe('')
    expect(rej.code).toBe(0)
    repo.git('config', 'i18n.logOutputEncoding', 'latin1')
    const log = sh(repo.root, 'git', ['learn', 'log', '--json'])
    expect(log.code).toBe(0)
    const text = log.stdout
    expect(text).toContain('réécrire à nouveau')
    expect(text).toContain('Zoë Ångström')
    expect(text).not.toContain('\ufffd')
  })

  test.skipIf(!hasSshKeygen)('log.showSignature=true with signed commits leaves git learn log its commit ids', () => {
    const repo = makeRepo()
    const keys = tempDir('gl-sign-')
    const key = join(keys, 'id')
    expect(spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]).status).toBe(0)
    const signers = join(keys, 'allowed')
    writeFileSync(signers, `* ${readFileSync(`${key}.pub`, 'utf8').trim()}\n`)
    for (const [k, v] of [
      ['gpg.format', 'ssh'],
      ['user.signingkey', key],
      ['commit.gpgsign', 'true'],
      ['gpg.ssh.allowedSignersFile', signers],
      ['log.showSignature', 'true'],
    ])
      repo.git('config', k as string, v as string)
    repo.write('.learnings/pending/widget-exploded.md', learningText('widget-exploded'))
    repo.git('add', '.')
    repo.git('commit', '-qm', 'seed')
    const rejected = sh(repo.root, 'git', ['learn', 'reject', 'widget-exploded', '--reason', 'not reusable'])
    expect(rejected.stderr).toBe('')
    expect(rejected.code).toBe(0)
    // The setting is on: git prints a signature line with each commit of a plain log.
    expect(repo.git('log', '-1')).toMatch(/Good "git" signature/)
    const log = sh(repo.root, 'git', ['learn', 'log', '--json'])
    expect(log.code).toBe(0)
    const events = JSON.parse(log.stdout).events ?? JSON.parse(log.stdout)
    const commits = (Array.isArray(events) ? events : []).map((e: { commit: string }) => e.commit)
    expect(commits.length).toBeGreaterThan(0)
    for (const c of commits) expect(c).toMatch(/^[0-9a-f]{7,64}$/)
  })
})
