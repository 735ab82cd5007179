import { spawnSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { learningText, makeRepo, sh, tempDir, tierRemote } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

// A user's git settings that change what git prints or how it reads a pathspec, through the built binary: git-learn
// parses git's output and writes its own pathspecs, so none of them may change its answers.

const hasSshKeygen = spawnSync('ssh-keygen', ['-?'], { encoding: 'utf8' }).error === undefined

/** `git learn init` committed, then `widget-exploded` proposed by Alice, rejected by her, and restored by Bob. */
function restoredByBob(): TestRepo {
  const repo = makeRepo()
  expect(sh(repo.root, 'git', ['learn', 'init']).code).toBe(0)
  repo.git('add', '.learnings')
  repo.git('commit', '-qm', 'store')
  repo.setIdentity('Alice', 'alice@example.com')
  expect(sh(repo.root, 'git', ['learn', 'add', '--file', '-'], { input: learningText('widget-exploded') }).code).toBe(0)
  expect(sh(repo.root, 'git', ['learn', 'reject', 'widget-exploded', '--reason', 'too narrow']).code).toBe(0)
  repo.setIdentity('Bob', 'bob@example.com')
  expect(sh(repo.root, 'git', ['learn', 'restore', 'widget-exploded', '--reason', 'it is broader']).code).toBe(0)
  return repo
}

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

  // log.follow=true makes `git log` follow renames whenever one path is given. A learning's proposers are read from a
  // one-path log with --diff-filter=A: followed, a restore (a rename from archived/) was no add, and whoever restored
  // a learning could approve it alone.
  test('log.follow=true does not let whoever restored a learning approve it alone', () => {
    const repo = restoredByBob()
    repo.git('config', 'log.follow', 'true')
    const before = repo.snapshot()
    const approve = sh(repo.root, 'git', ['learn', 'approve', 'widget-exploded'])
    expect(approve.stderr).toContain('Bob <bob@example.com> proposed "widget-exploded" (or restored it to pending/')
    expect(approve.code).toBe(1)
    expect(repo.snapshot()).toBe(before)
    // The commit-msg guard reads the proposers the same way: a move by hand with the trailers is refused too.
    expect(sh(repo.root, 'git', ['learn', 'hook', 'install']).code).toBe(0)
    repo.git('mv', '.learnings/pending/widget-exploded.md', '.learnings/active/widget-exploded.md')
    const message = [
      'learn: approve widget-exploded',
      '',
      'Learning: widget-exploded',
      'Learning-Action: approve',
      'Learning-From: pending',
      'Learning-To: active',
      'Approved-by: Bob <bob@example.com>',
    ].join('\n')
    const head = repo.git('rev-parse', 'HEAD')
    const commit = sh(repo.root, 'git', ['commit', '-q', '-m', message])
    expect(commit.stderr).toContain('who proposed it or restored it to pending/')
    expect(commit.code).not.toBe(0)
    expect(repo.git('rev-parse', 'HEAD')).toBe(head)
  })

  // commit-tree labels a message with i18n.commitEncoding: set to latin1, the UTF-8 message git-learn gives it was
  // recorded as latin1 ("encoding latin1"), and every reader (git log, a forge, git learn log) showed "rÃ©Ã©crire".
  test('i18n.commitEncoding=latin1 does not label the UTF-8 messages of lifecycle commits latin1', () => {
    const repo = makeRepo()
    repo.setIdentity('Zoë Ångström', 'zoe@example.com')
    repo.write('.learnings/pending/widget-exploded.md', learningText('widget-exploded'))
    repo.git('add', '.')
    repo.git('commit', '-qm', 'seed')
    repo.git('config', 'i18n.commitEncoding', 'latin1')
    const rej = sh(repo.root, 'git', ['learn', 'reject', 'widget-exploded', '--reason', 'réécrire à nouveau'])
    expect(rej.stderr).toBe('')
    expect(rej.code).toBe(0)
    expect(repo.git('cat-file', 'commit', 'HEAD')).not.toMatch(/^encoding /m)
    // Shown in UTF-8 (this setting would have git log show it in latin1 otherwise), the message reads as written.
    const shown = repo.git('log', '-1', '--encoding=UTF-8', '--format=%an%n%B')
    expect(shown).toContain('Zoë Ångström')
    expect(shown).toContain('Learning-Reason: réécrire à nouveau')
    const log = sh(repo.root, 'git', ['learn', 'log', '--json'])
    expect(log.code).toBe(0)
    expect(log.stdout).toContain('"reason":"réécrire à nouveau"')
    expect(log.stdout).toContain('Zoë Ångström')
    // The same setting given in the environment (GIT_CONFIG_COUNT, as some CI runners set it) is outweighed alike.
    const restored = sh(repo.root, 'git', ['learn', 'restore', 'widget-exploded', '--reason', 'à revoir'], {
      env: { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'i18n.commitEncoding', GIT_CONFIG_VALUE_0: 'latin1' },
    })
    expect(restored.code).toBe(0)
    expect(repo.git('cat-file', 'commit', 'HEAD')).not.toMatch(/^encoding /m)
    expect(repo.git('log', '-1', '--encoding=UTF-8', '--format=%B')).toContain('Learning-Reason: à revoir')
  })

  // submodule.recurse=true (or fetch.recurseSubmodules=true) makes every `git fetch` fetch the submodules too: a tier's
  // fetch also went to each submodule's remote, and one that cannot be reached (a private host off the VPN) failed
  // `tier add` with "Errors during submodule fetch", and the fetch of a fresh clone's pinned tier with it.
  test('submodule.recurse=true: tier add and verify fetch the tier alone, not the submodules', () => {
    const { bare } = tierRemote({ 'org-wide': learningText('org-wide') })
    const upstream = makeRepo()
    const repo = makeRepo()
    repo.git('-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', upstream.root, 'vendor/lib')
    repo.git('commit', '-qm', 'vendor lib')
    rmSync(upstream.root, { recursive: true, force: true })
    repo.git('config', 'submodule.recurse', 'true')
    const add = sh(repo.root, 'git', ['learn', 'tier', 'add', 'org', bare])
    expect(add.stderr).not.toContain('submodule')
    expect(add.code).toBe(0)
    // A fresh clone's case: the pin is in config.yaml, the tier's objects are not here; verify fetches them.
    repo.git('update-ref', '-d', 'refs/learn/tiers/org')
    const verify = sh(repo.root, 'git', ['learn', 'tier', 'verify'])
    expect(verify.stderr).not.toContain('submodule')
    expect(verify.code).toBe(0)
    expect(repo.git('rev-parse', 'refs/learn/tiers/org').trim()).toMatch(/^[0-9a-f]{40}$/)
  })
})
