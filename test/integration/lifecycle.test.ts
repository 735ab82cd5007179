import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test, vi } from 'vitest'
import { cliAt, learningText, makeRepo, tempDir } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

const P = (name: string, state = 'pending') => `.learnings/${state}/${name}.md`

async function withPending(name = 'vitest-esm-hoist'): Promise<TestRepo> {
  const repo = makeRepo()
  expect((await repo.cli(['init'])).code).toBe(0)
  repo.git('add', '.learnings')
  repo.git('commit', '-q', '-m', 'learn: init')
  repo.write('draft.md', learningText(name))
  const r = await repo.cli(['add', '--file', 'draft.md'])
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  rmSync(join(repo.root, 'draft.md'))
  repo.setIdentity('Rita Reviewer', 'rita@example.com')
  return repo
}

const lastMessage = (repo: TestRepo) => repo.git('log', '-1', '--format=%B')
const filesOfLastCommit = (repo: TestRepo) => repo.git('show', '--name-status', '--format=', 'HEAD').trim().split('\n')

describe('init', () => {
  test('creates the store and config, says what it created, and is idempotent', async () => {
    const repo = makeRepo()
    const first = await repo.cli(['init', '--json'])
    expect(first.code).toBe(0)
    expect(first.json().created).toEqual(
      expect.arrayContaining([
        '.learnings/pending/',
        '.learnings/active/',
        '.learnings/archived/',
        '.learnings/config.yaml',
      ]),
    )
    expect(repo.read('.learnings/config.yaml')).toContain('distinct_approver: true')
    const again = await repo.cli(['init'])
    expect(again.code).toBe(0)
    expect(again.stdout).toMatch(/already set up/)
  })
  test('works on an unborn branch', async () => {
    const repo = makeRepo({ commit: false })
    expect((await repo.cli(['init'])).code).toBe(0)
    expect(repo.exists('.learnings/active/.gitkeep')).toBe(true)
  })
  test('refuses outside a git repository with exit 3', async () => {
    const dir = tempDir()
    const r = await cliAt(dir, ['init'], { ...process.env, GIT_CEILING_DIRECTORIES: dir })
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/not inside a git repository/)
    expect(readdirSync(dir)).toEqual([])
  })
})

describe('add', () => {
  test('from flags: writes pending/<name>.md from the template and commits only it, with trailers', async () => {
    const repo = makeRepo()
    repo.write('other.txt', 'mine\n')
    repo.git('add', 'other.txt')
    repo.write('README.md', '# edited, unstaged\n')
    const r = await repo.cli([
      'add',
      '--name',
      'pnpm-not-npm',
      '--type',
      'instinct',
      '--description',
      'Use pnpm in this repo. Use when installing packages.',
      '--trigger',
      'npm install in a pnpm workspace',
      '--tags',
      'pnpm, npm',
      '--domain',
      'tooling',
      '--confidence',
      '0.6',
      '--json',
    ])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const out = r.json()
    expect(out).toMatchObject({ name: 'pnpm-not-npm', from: null, to: 'pending', path: P('pnpm-not-npm') })
    expect(out.commit).toMatch(/^[0-9a-f]{40}$/)
    const text = repo.read(P('pnpm-not-npm'))
    expect(text).toMatch(/^---\nname: pnpm-not-npm\n/)
    expect(text).toContain('tags:\n  - pnpm\n  - npm')
    expect(text).toContain('created: "2026-11-20"')
    expect(text).toContain('## Action')
    expect(filesOfLastCommit(repo)).toEqual([`A\t${P('pnpm-not-npm')}`])
    const msg = lastMessage(repo)
    expect(msg).toContain('learn: add pnpm-not-npm')
    expect(msg).toContain(
      'Learning: pnpm-not-npm\nLearning-Action: add\nLearning-To: pending\nProposed-by: Ada Author <ada@example.com>',
    )
    expect(repo.git('status', '--porcelain')).toBe(' M README.md\nA  other.txt\n')
  })

  test('from a file and from stdin', async () => {
    const repo = makeRepo()
    repo.write('d.md', learningText('from-file'))
    expect((await repo.cli(['add', '--file', 'd.md'])).code).toBe(0)
    expect(repo.read(P('from-file'))).toBe(learningText('from-file'))
    const r = await repo.cli(['add', '--file', '-'], { stdin: learningText('from-stdin') })
    expect(r.code).toBe(0)
    expect(repo.exists(P('from-stdin'))).toBe(true)
  })

  test('--no-commit writes and stages; --dry-run writes nothing', async () => {
    const repo = makeRepo()
    repo.write('d.md', learningText('staged-only'))
    const before = repo.git('rev-parse', 'HEAD')
    expect((await repo.cli(['add', '--file', 'd.md', '--no-commit'])).code).toBe(0)
    expect(repo.git('rev-parse', 'HEAD')).toBe(before)
    expect(repo.git('status', '--porcelain', '--', '.learnings')).toBe(`A  ${P('staged-only')}\n`)
    repo.write('e.md', learningText('dry'))
    const snap = repo.snapshot()
    const r = await repo.cli(['add', '--file', 'e.md', '--dry-run'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/would add dry .* and commit it alone/)
    expect(repo.snapshot()).toBe(snap)
    // Together, the dry run says what --no-commit would do: it used to say "commit it alone", as if --no-commit were not there.
    const staged = await repo.cli(['add', '--file', 'e.md', '--dry-run', '--no-commit'])
    expect(staged.code).toBe(0)
    expect(staged.stdout).toMatch(/would add dry .* and stage it, not committed \(dry run: nothing written\)/)
    expect(repo.snapshot()).toBe(snap)
  })

  test('--no-commit prints the git commit that records the audit trail, and it does', async () => {
    const repo = makeRepo()
    repo.write('d.md', learningText('its-staged'))
    const r = await repo.cli(['add', '--file', 'd.md', '--no-commit'])
    expect(r.code).toBe(0)
    const line = r.stdout.split('\n').find((l) => l.startsWith('  printf '))
    expect(line).toMatch(/ 'Proposed-by: Ada Author <ada@example.com>' /)
    expect(line).toMatch(/ 'Learning-Action: add' .* \| git commit -F - -- \.learnings\/pending\/its-staged\.md$/)
    // What a user does: paste the printed command into a shell.
    execFileSync('sh', ['-c', (line as string).trim()], { cwd: repo.root, stdio: 'pipe' })
    const log = await repo.cli(['log', 'its-staged', '--json'])
    expect(log.code).toBe(0)
    expect(log.json().events).toMatchObject([
      { action: 'add', to: 'pending', by: 'Ada Author <ada@example.com>', name: 'its-staged' },
    ])
    const json = await repo.cli(['add', '--file', '-', '--no-commit', '--json'], { stdin: learningText('json-staged') })
    expect(json.json().message).toMatch(/^learn: add json-staged\n[\s\S]*\nProposed-by: Ada Author <ada@example.com>/)
  })

  // git matches trailer keys by prefix: with trailer.ifExists=replace a `--trailer 'Learning-Action: add'` replaced
  // `Learning: <name>` (doNothing dropped it), and the commit the user pasted was no event of `git learn log`.
  test.each(['replace', 'doNothing'])(
    '--no-commit prints a commit that keeps every trailer under trailer.ifExists=%s',
    async (ifExists) => {
      const repo = makeRepo()
      repo.git('config', 'trailer.ifExists', ifExists)
      repo.git('config', 'trailer.where', 'start')
      repo.write('d.md', learningText('its-staged'))
      const r = await repo.cli(['add', '--file', 'd.md', '--no-commit'])
      expect(r.code).toBe(0)
      const line = r.stdout.split('\n').find((l) => /^ {2}(printf|git) /.test(l))
      execFileSync('sh', ['-c', (line as string).trim()], { cwd: repo.root, stdio: 'pipe' })
      expect(repo.git('log', '-1', '--format=%B')).toMatch(
        /^learn: add its-staged\n\nLearning: its-staged\nLearning-Action: add\n/,
      )
      const log = await repo.cli(['log', 'its-staged', '--json'])
      expect(log.json().events).toMatchObject([
        { action: 'add', to: 'pending', by: 'Ada Author <ada@example.com>', name: 'its-staged' },
      ])
    },
  )

  test('add, approve, reject and restore --dry-run write no local state either', async () => {
    const repo = makeRepo()
    expect((await repo.cli(['init'])).code).toBe(0)
    repo.git('add', '-A')
    repo.git('commit', '-qm', 'init')
    repo.write('.learnings/pending/dry-pending.md', learningText('dry-pending'))
    repo.write('.learnings/archived/dry-archived.md', learningText('dry-archived'))
    repo.git('add', '-A')
    repo.git('commit', '-qm', 'seed')
    rmSync(join(repo.root, '.git', 'learn'), { recursive: true, force: true })
    repo.setIdentity('Bob Reviewer', 'bob@example.com')
    for (const argv of [
      ['add', '--file', '-', '--dry-run'],
      ['approve', 'dry-pending', '--dry-run'],
      ['reject', 'dry-pending', '--reason', 'no', '--dry-run'],
      ['restore', 'dry-archived', '--dry-run'],
    ]) {
      const r = await repo.cli(argv, { stdin: learningText('dry-new') })
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0)
      expect(existsSync(join(repo.root, '.git', 'learn')), argv.join(' ')).toBe(false)
    }
  })

  test('works on an unborn branch (the first commit)', async () => {
    const repo = makeRepo({ commit: false })
    repo.write('d.md', learningText('first-ever'))
    const r = await repo.cli(['add', '--file', 'd.md'])
    expect(r.code).toBe(0)
    expect(repo.git('log', '--format=%s')).toBe('learn: add first-ever\n')
  })

  const big = `${learningText('too-big')}\n${'x'.repeat(1024 * 1024)}`
  const bomb = `---\nname: bomb\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n---\n`
  test.each([
    [
      'malformed YAML',
      learningText('bad-yaml').replace('domain: "testing"', 'domain: [testing'),
      1,
      /malformed YAML frontmatter/,
    ],
    ['missing required field', learningText('no-desc', { description: '' }), 1, /field "description" is required/],
    [
      'missing section',
      learningText('no-sections', {}, '## Problem\nx\n'),
      1,
      /needs the sections "## Trigger Conditions"/,
    ],
    ['unknown type', learningText('odd-type', { type: 'recipe' }), 1, /field "type" must be one of/],
    ['name not kebab-case', learningText('Not_Kebab'), 1, /not kebab-case/],
    ['name too long', learningText('a'.repeat(65)), 1, /the limit is 64/],
    ['name with ..', learningText('..'), 1, /path separator or "\.\."/],
    [
      'not UTF-8',
      Buffer.concat([Buffer.from(learningText('latin')), Buffer.from([0xff, 0xfe, 0x41])]),
      1,
      /not valid UTF-8/,
    ],
    ['larger than 1 MB', big, 1, /limit is 1048576/],
    ['YAML alias bomb', bomb, 1, /malformed YAML|alias/i],
  ])('refuses %s, changes nothing', async (_l, text, code, message) => {
    const repo = makeRepo()
    repo.write('draft.md', text)
    repo.git('add', 'draft.md')
    const snap = repo.snapshot()
    const r = await repo.cli(['add', '--file', 'draft.md'])
    expect(r.stderr).toMatch(message)
    expect(r.code).toBe(code)
    expect(repo.snapshot()).toBe(snap)
    expect(repo.exists('.learnings')).toBe(false)
  })

  test('refuses a name that exists in any state', async () => {
    const repo = await withPending('taken')
    repo.write('.learnings/archived/gone.md', learningText('gone'))
    repo.git('add', '.')
    repo.git('commit', '-qm', 'archived one')
    for (const name of ['taken', 'gone']) {
      repo.write('d.md', learningText(name))
      const snap = repo.snapshot()
      const r = await repo.cli(['add', '--file', 'd.md'])
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(new RegExp(`"${name}" already exists: \\.learnings/(pending|archived)/${name}\\.md`))
      expect(repo.snapshot()).toBe(snap)
    }
  })

  test('usage errors: missing flags, unknown flag, --file with field flags', async () => {
    const repo = makeRepo()
    expect((await repo.cli(['add', '--name', 'x'])).stderr).toMatch(/missing --type, --description/)
    expect((await repo.cli(['add', '--bogus'])).code).toBe(2)
    const r = await repo.cli(['add', '--file', 'x.md', '--name', 'y'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/do not combine/)
    const missing = await repo.cli(['add', '--file', 'missing.md'])
    expect(missing.code).toBe(3)
    expect(missing.stderr).toMatch(/cannot use the learning file "missing.md": it does not exist/)
  })

  // docs/design.md: a bad value is a usage error (exit 2) like --type bogus; what the file says stays refused content.
  test.each([
    ['--confidence abc', ['--confidence', 'abc'], /--confidence must be a number; it is "abc"/],
    ['--confidence 2', ['--confidence', '2'], /--confidence must be ≤ 1; it is 2/],
    ['--domain nope', ['--domain', 'nope'], /--domain must be one of testing, .*; it is "nope"/],
    ['a long --description', ['--description', 'd'.repeat(1025)], /--description must be at most 1024 characters/],
    ['no --trigger for its type', ['--type', 'error-solution'], /--trigger is required for this type/],
  ])('a bad flag value (%s): exit 2 with the usage hint, nothing written', async (_, flags, message) => {
    const repo = makeRepo()
    const snap = repo.snapshot()
    const argv = ['add', '--name', 'ok-name', '--type', 'decision', '--description', 'd', '--tags', 'a,b']
    const r = await repo.cli([...argv, ...flags])
    expect(r.stderr).toMatch(message)
    expect(r.stderr).toMatch(/Run `git learn add -h` for usage/)
    expect(r.code).toBe(2)
    expect(repo.snapshot()).toBe(snap)
  })

  test("a reference-transaction hook that refuses leaves everything as it was (git's own veto on every ref update)", async () => {
    const repo = makeRepo()
    repo.write(
      '.git/hooks/reference-transaction',
      '#!/bin/sh\n[ "$1" = prepared ] || exit 0\necho "policy: no" >&2\nexit 1\n',
    )
    chmodSync(join(repo.root, '.git/hooks/reference-transaction'), 0o755)
    repo.write('d.md', learningText('hooked'))
    const snap = repo.snapshot()
    const r = await repo.cli(['add', '--file', 'd.md'])
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/policy: no/)
    expect(repo.snapshot()).toBe(snap)
    expect(repo.exists(P('hooked'))).toBe(false)
  })
})

describe('approve', () => {
  test('moves pending → active in one commit of only its paths, with trailers; other work stays', async () => {
    const repo = await withPending()
    repo.write('mine.txt', 'staged work\n')
    repo.git('add', 'mine.txt')
    repo.write('README.md', '# unstaged edit\n')
    const r = await repo.cli(['approve', 'vitest-esm-hoist', '--json'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.json()).toMatchObject({
      name: 'vitest-esm-hoist',
      from: 'pending',
      to: 'active',
      path: P('vitest-esm-hoist', 'active'),
    })
    expect(repo.exists(P('vitest-esm-hoist', 'active'))).toBe(true)
    expect(repo.exists(P('vitest-esm-hoist'))).toBe(false)
    expect(repo.git('show', '--name-status', '-M', '--format=', 'HEAD').trim()).toBe(
      `R100\t${P('vitest-esm-hoist')}\t${P('vitest-esm-hoist', 'active')}`,
    )
    expect(lastMessage(repo)).toContain(
      'Learning: vitest-esm-hoist\nLearning-Action: approve\nLearning-From: pending\nLearning-To: active\nApproved-by: Rita Reviewer <rita@example.com>',
    )
    expect(repo.git('status', '--porcelain')).toBe(' M README.md\nA  mine.txt\n')
    expect(repo.read('README.md')).toBe('# unstaged edit\n')
  })

  test('several names: one commit each', async () => {
    const repo = await withPending('one-a')
    repo.setIdentity('Ada Author', 'ada@example.com')
    repo.write('d.md', learningText('two-b'))
    await repo.cli(['add', '--file', 'd.md'])
    repo.setIdentity('Rita Reviewer', 'rita@example.com')
    const r = await repo.cli(['approve', 'one-a', 'two-b', '--json'])
    expect(r.code).toBe(0)
    expect(r.json().results.map((x: { name: string }) => x.name)).toEqual(['one-a', 'two-b'])
    expect(repo.git('log', '-2', '--format=%s')).toBe('learn: approve two-b\nlearn: approve one-a\n')
  })

  test('the proposer cannot approve their own learning, unless distinct_approver is off', async () => {
    const repo = await withPending()
    repo.setIdentity('Ada Author', 'ada@example.com')
    const snap = repo.snapshot()
    const r = await repo.cli(['approve', 'vitest-esm-hoist'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(
      /Ada Author <ada@example.com> proposed "vitest-esm-hoist" \(or restored it[^)]*\) and cannot approve it/,
    )
    expect(r.stderr).toMatch(/distinct_approver: false/)
    expect(repo.snapshot()).toBe(snap)
    // The same e-mail under another name (case aside): the proposer as recorded, and who is approving.
    repo.setIdentity('Someone Else', 'ADA@example.com')
    const other = await repo.cli(['approve', 'vitest-esm-hoist', '--json'])
    expect(other.code).toBe(1)
    expect(other.stderr).toMatch(
      /Ada Author <ada@example.com> proposed "vitest-esm-hoist" \(or restored it[^)]*\) and cannot approve it too \(you are approving as Someone Else <ADA@example.com>, the same e-mail\)/,
    )
    expect(repo.snapshot()).toBe(snap)
    repo.write('.learnings/config.yaml', 'approval:\n  distinct_approver: false\n')
    repo.git('commit', '-qam', 'solo')
    expect((await repo.cli(['approve', 'vitest-esm-hoist'])).code).toBe(0)
  })

  test('an illegal move names the state and the command that would work', async () => {
    const repo = await withPending()
    await repo.cli(['reject', 'vitest-esm-hoist', '--reason', 'dup'])
    const snap = repo.snapshot()
    const r = await repo.cli(['approve', 'vitest-esm-hoist'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/cannot approve "vitest-esm-hoist": it is archived/)
    expect(r.stderr).toMatch(/git learn restore vitest-esm-hoist/)
    expect(repo.snapshot()).toBe(snap)
  })

  test('a learning that does not exist, or a path-like name: exit 2, nothing changed', async () => {
    const repo = await withPending()
    const snap = repo.snapshot()
    const nf = await repo.cli(['approve', 'nope'])
    expect(nf.code).toBe(2)
    expect(nf.stderr).toMatch(/no learning named "nope"/)
    const bad = await repo.cli(['approve', '../config'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/not a learning name/)
    expect(bad.stderr).toMatch(/git learn approve -h/)
    expect(repo.snapshot()).toBe(snap)
  })

  test('all names are checked before any commit', async () => {
    const repo = await withPending()
    const snap = repo.snapshot()
    expect((await repo.cli(['approve', 'vitest-esm-hoist', 'nope'])).code).toBe(2)
    expect(repo.snapshot()).toBe(snap)
  })

  test('refuses when the learning has uncommitted edits', async () => {
    const repo = await withPending()
    repo.write(P('vitest-esm-hoist'), `${repo.read(P('vitest-esm-hoist'))}\nmore\n`)
    const snap = repo.snapshot()
    const r = await repo.cli(['approve', 'vitest-esm-hoist'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/has unstaged changes/)
    expect(repo.snapshot()).toBe(snap)
  })

  test('refuses, before any commit, a move onto a file the user has at the destination', async () => {
    const repo = await withPending()
    repo.write('.learnings/pending/other-one.md', learningText('other-one'))
    repo.git('add', '.learnings/pending/other-one.md')
    repo.git('-c', 'user.name=Ada Author', '-c', 'user.email=ada@example.com', 'commit', '-qm', 'other one')
    // An untracked leftover at the first one's destination; a staged new file at the second one's.
    repo.write(P('vitest-esm-hoist', 'active'), 'my notes\n')
    const snap = repo.snapshot()
    const head = repo.git('rev-parse', 'HEAD')
    const r = await repo.cli(['approve', 'vitest-esm-hoist', '--json'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(
      /\.learnings\/active\/vitest-esm-hoist\.md is already there \(not committed\).*nothing was changed/,
    )
    expect(r.stderr).toMatch(/Move that file out of \.learnings\/active\//)
    expect(r.json()).toMatchObject({ ok: false, error: { kind: 'PathTakenError', where: 'untracked' } })
    expect(repo.git('rev-parse', 'HEAD')).toBe(head)
    expect(repo.snapshot()).toBe(snap)
    expect(repo.read(P('vitest-esm-hoist', 'active'))).toBe('my notes\n')

    // Several names: the second one's destination is taken (staged): the first is committed, the second refused
    // before its commit, so nothing of it is half done.
    rmSync(join(repo.root, P('vitest-esm-hoist', 'active')))
    repo.write(P('other-one', 'active'), 'staged notes\n')
    repo.git('add', P('other-one', 'active'))
    const two = await repo.cli(['approve', 'vitest-esm-hoist', 'other-one'])
    expect(two.code).toBe(1)
    expect(two.stderr).toMatch(
      /vitest-esm-hoist \(commit [0-9a-f]{7}\) was committed; other-one failed and was put back as it was/,
    )
    expect(two.stderr).toMatch(/other-one\.md is already there \(staged, not committed\)/)
    expect(repo.exists(P('other-one'))).toBe(true)
    expect(repo.git('status', '--porcelain', '--', '.learnings').trim()).toBe(`A  ${P('other-one', 'active')}`)
    // Nothing of ours is left half done (doctor lists only the user's own staged file).
    expect((await repo.cli(['doctor'])).stdout + '').not.toMatch(/unfinished|was committed/)
  })

  test('refuses an invalid learning', async () => {
    const repo = await withPending()
    repo.write(
      P('vitest-esm-hoist'),
      repo
        .read(P('vitest-esm-hoist'))
        .replace('type: "error-solution"', 'type: recipe')
        .replace('type: error-solution', 'type: recipe'),
    )
    repo.git('commit', '-qam', 'edit')
    const r = await repo.cli(['approve', 'vitest-esm-hoist'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/is not a valid learning/)
  })

  test('refuses during a merge (exit 3), changes nothing', async () => {
    const repo = await withPending()
    repo.git('checkout', '-q', '-b', 'side')
    repo.write('README.md', 'side\n')
    repo.git('commit', '-qam', 'side')
    repo.git('checkout', '-q', 'main')
    repo.write('README.md', 'main\n')
    repo.git('commit', '-qam', 'main')
    try {
      repo.git('merge', 'side')
    } catch {
      /* conflict expected */
    }
    const snap = repo.snapshot()
    const r = await repo.cli(['approve', 'vitest-esm-hoist'])
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/a merge is in progress/)
    expect(repo.snapshot()).toBe(snap)
  })

  test('refuses during a `git am` stopped on a conflict (exit 3), naming git am, not rebase; changes nothing', async () => {
    const repo = await withPending()
    repo.git('checkout', '-q', '-b', 'side')
    repo.write('README.md', 'side\n')
    repo.git('commit', '-qam', 'side')
    const patch = repo.git('format-patch', '-1', '--stdout')
    repo.git('checkout', '-q', 'main')
    repo.write('README.md', 'main\n')
    repo.git('commit', '-qam', 'main')
    repo.write('.git/side.patch', patch)
    expect(spawnSync('git', ['am', '.git/side.patch'], { cwd: repo.root }).status).not.toBe(0)
    const snap = repo.snapshot()
    const r = await repo.cli(['approve', 'vitest-esm-hoist', '--json'])
    expect(r.code).toBe(3)
    expect(r.json().error).toMatchObject({ operation: 'am' })
    const text = await repo.cli(['approve', 'vitest-esm-hoist'])
    expect(text.stderr).toMatch(/`git am` is in progress[\s\S]*`git am --continue`[\s\S]*`git am --abort`/)
    expect(repo.snapshot()).toBe(snap)
  })

  test('a commit refused by a reference-transaction hook changes nothing', async () => {
    const repo = await withPending()
    repo.write('.git/hooks/reference-transaction', '#!/bin/sh\n[ "$1" = prepared ] || exit 0\nexit 1\n')
    chmodSync(join(repo.root, '.git/hooks/reference-transaction'), 0o755)
    const snap = repo.snapshot()
    const r = await repo.cli(['approve', 'vitest-esm-hoist'])
    expect(r.code).toBe(3)
    expect(repo.snapshot()).toBe(snap)
    expect(repo.exists(P('vitest-esm-hoist'))).toBe(true)
    expect(repo.exists('.learnings/active/vitest-esm-hoist.md')).toBe(false)
  })

  test('--dry-run changes nothing', async () => {
    const repo = await withPending()
    const snap = repo.snapshot()
    const r = await repo.cli(['approve', 'vitest-esm-hoist', '--dry-run'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/would approve vitest-esm-hoist/)
    // Not `git mv` + commit: the commit is built aside from the index (docs/lifecycle.md).
    expect(r.stdout).not.toMatch(/git mv/)
    expect(repo.snapshot()).toBe(snap)
  })

  test('on a detached HEAD the commit is made and the command says it is on no branch, and how to keep it', async () => {
    const repo = await withPending()
    repo.git('checkout', '-q', '--detach')
    const r = await repo.cli(['approve', 'vitest-esm-hoist'])
    expect(r.code, r.stderr).toBe(0)
    const commit = repo.git('rev-parse', 'HEAD').trim()
    expect(repo.git('log', '-1', '--format=%s')).toBe('learn: approve vitest-esm-hoist\n')
    expect(r.stderr).toBe(
      `warning: HEAD is detached: the commit ${commit.slice(0, 7)} is on no branch, and switching away leaves it behind.\n` +
        'Keep it on a new branch: `git switch -c <branch>` ' +
        `(or, once you have switched away, \`git branch <branch> ${commit.slice(0, 7)}\`).\n`,
    )
    // Every command that commits says it, and its --json carries it; on a branch, neither.
    const pruned = await repo.cli(['prune', 'vitest-esm-hoist', '--reason', 'x', '--yes', '--json'])
    expect(pruned.code, pruned.stderr).toBe(0)
    expect(pruned.json()).toMatchObject({ pruned: [{ to: 'archived' }], detached: true })
    expect(pruned.stderr).toContain('HEAD is detached')
    repo.write('draft.md', learningText('detached-draft'))
    const added = await repo.cli(['add', '--file', 'draft.md', '--json'])
    expect(added.json()).toMatchObject({ name: 'detached-draft', detached: true })
    expect(added.stderr).toContain(`the commit ${added.json().commit.slice(0, 7)} is on no branch`)
    repo.git('switch', '-q', '-c', 'kept')
    const restored = await repo.cli(['restore', 'vitest-esm-hoist', '--json'])
    expect(restored.code).toBe(0)
    expect(restored.json().detached).toBeUndefined()
    expect(restored.stderr).toBe('')
  })
})

describe('identity', () => {
  test.each([
    ['a committer from the environment, no author', { GIT_COMMITTER_NAME: 'C', GIT_COMMITTER_EMAIL: 'c@example.com' }],
    ['an author from the environment, no committer', { GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com' }],
  ])('%s: approve says git does not know who you are before anything moves', async (_, env) => {
    const repo = await withPending()
    repo.git('config', '--unset', 'user.name')
    repo.git('config', '--unset', 'user.email')
    repo.git('config', 'user.useConfigOnly', 'true') // git refuses to guess from the host name
    const before = repo.snapshot()
    for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v)
    try {
      const r = await repo.cli(['approve', 'vitest-esm-hoist'])
      expect(r.code).toBe(3)
      expect(r.stderr).toMatch(/^git learn approve: git does not know who you are, and lifecycle commits record it\./)
      expect(r.stderr).toContain('git config user.email you@example.com')
      expect(r.stderr).not.toContain('commit-tree')
      expect(repo.snapshot()).toBe(before)
    } finally {
      vi.unstubAllEnvs()
    }
  })
})

describe('reject and restore', () => {
  test('reject needs a reason, folds its newlines, and archives', async () => {
    const repo = await withPending()
    expect((await repo.cli(['reject', 'vitest-esm-hoist'])).code).toBe(2)
    const r = await repo.cli(['reject', 'vitest-esm-hoist', '--reason', 'one-off\nnot reusable'])
    expect(r.code).toBe(0)
    expect(repo.exists(P('vitest-esm-hoist', 'archived'))).toBe(true)
    expect(lastMessage(repo)).toContain(
      'Rejected-by: Rita Reviewer <rita@example.com>\nLearning-Reason: one-off not reusable',
    )
  })
  test('reject of an active learning is refused and says what works', async () => {
    const repo = await withPending()
    await repo.cli(['approve', 'vitest-esm-hoist'])
    const r = await repo.cli(['reject', 'vitest-esm-hoist', '--reason', 'x'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/it is active/)
  })
  test('restore brings an archived learning back to pending', async () => {
    const repo = await withPending()
    await repo.cli(['reject', 'vitest-esm-hoist', '--reason', 'x'])
    const r = await repo.cli(['restore', 'vitest-esm-hoist', '--json'])
    expect(r.code).toBe(0)
    expect(r.json()).toMatchObject({ from: 'archived', to: 'pending' })
    expect(lastMessage(repo)).toContain(
      'Learning-Action: restore\nLearning-From: archived\nLearning-To: pending\nRestored-by:',
    )
    const again = await repo.cli(['restore', 'vitest-esm-hoist'])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/it is pending/)
  })
})

describe('list, show, log', () => {
  test('list filters by state, type and tag', async () => {
    const repo = await withPending('alpha-one')
    repo.setIdentity('Ada Author', 'ada@example.com')
    repo.write('d.md', learningText('beta-two', { tags: '[docker, compose]' }))
    await repo.cli(['add', '--file', 'd.md'])
    repo.setIdentity('Rita Reviewer', 'rita@example.com')
    await repo.cli(['approve', 'alpha-one'])
    const all = (await repo.cli(['list', '--json'])).json().learnings
    expect(all.map((l: { name: string; state: string }) => `${l.state}:${l.name}`)).toEqual([
      'active:alpha-one',
      'pending:beta-two',
    ])
    expect((await repo.cli(['list', '--state', 'pending', '--json'])).json().learnings).toHaveLength(1)
    expect((await repo.cli(['list', '--tag', 'docker', '--json'])).json().learnings[0].name).toBe('beta-two')
    expect((await repo.cli(['list', '--type', 'decision', '--json'])).json().learnings).toEqual([])
    expect((await repo.cli(['list'])).stdout).toMatch(
      /^active\s+error-solution\s+alpha-one\s+Fix the alpha-one failure/,
    )
    expect((await repo.cli(['list', '--state', 'gone'])).code).toBe(2)
  })
  test('list warns about an unreadable file and goes on', async () => {
    const repo = await withPending()
    repo.write('.learnings/active/broken.md', 'no frontmatter\n')
    const r = await repo.cli(['list'])
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/warning: skipped \.learnings\/active\/broken\.md: no YAML frontmatter/)
    expect(r.stdout).toMatch(/vitest-esm-hoist/)
  })
  test('show prints the learning; --json has its parts', async () => {
    const repo = await withPending()
    expect((await repo.cli(['show', 'vitest-esm-hoist'])).stdout).toMatch(/## Solution\nDo D\./)
    const j = (await repo.cli(['show', 'vitest-esm-hoist', '--json'])).json()
    expect(j).toMatchObject({ name: 'vitest-esm-hoist', state: 'pending', frontmatter: { type: 'error-solution' } })
  })
  test('log reads the trail back, newest first, per learning, and from squash-merge bodies', async () => {
    const repo = await withPending()
    await repo.cli(['approve', 'vitest-esm-hoist'])
    repo.write('.learnings/pending/squashed.md', learningText('squashed'))
    repo.git('add', '.')
    repo.git(
      'commit',
      '-q',
      '-m',
      'Add squashed (#7)\n\n* learn: add squashed\n\nLearning: squashed\nLearning-Action: add\nLearning-To: pending\nProposed-by: Sam <sam@x>\n',
    )
    const all = (await repo.cli(['log', '--json'])).json().events
    expect(all.map((e: { name: string; action: string }) => `${e.action} ${e.name}`)).toEqual([
      'add squashed',
      'approve vitest-esm-hoist',
      'add vitest-esm-hoist',
    ])
    expect(all[0].by).toBe('Sam <sam@x>')
    const one = await repo.cli(['log', 'vitest-esm-hoist'])
    expect(one.stdout).toMatch(/approve\s+vitest-esm-hoist\s+pending → active\s+by Rita Reviewer <rita@example.com>/)
    expect(one.stdout).not.toMatch(/squashed/)
    expect((await repo.cli(['log', '-n', '1', '--json'])).json().events).toHaveLength(1)
    // An edit in place, committed by hand with its trailers, moves nothing.
    repo.write(
      '.learnings/active/vitest-esm-hoist.md',
      `${repo.read('.learnings/active/vitest-esm-hoist.md')}\nOne more note.\n`,
    )
    repo.git(
      'commit',
      '-q',
      '-am',
      'learn: edit vitest-esm-hoist\n\nLearning: vitest-esm-hoist\nLearning-Action: edit\n',
    )
    expect((await repo.cli(['log', 'vitest-esm-hoist'])).stdout).toMatch(
      /^\S+ {2}edit\s+vitest-esm-hoist {2}in place {2}by /,
    )
  })
  test('log keeps the events of both sides of a merge, and a merge commit without trailers is no event', async () => {
    // rej rejects x, appr approves it, and the merge of appr into rej keeps active/: the result is TREESAME to appr,
    // so a history-simplified `git log -- .learnings` would drop the reject and its reason.
    const repo = await withPending('side-x')
    repo.git('checkout', '-q', '-b', 'appr')
    expect((await repo.cli(['approve', 'side-x'])).code).toBe(0)
    repo.git('checkout', '-q', '-b', 'rej', 'main')
    expect((await repo.cli(['reject', 'side-x', '--reason', 'not reproducible here'])).code).toBe(0)
    const merge = spawnSync('git', ['merge', '--no-edit', 'appr'], { cwd: repo.root, encoding: 'utf8' })
    expect(merge.status).not.toBe(0)
    repo.git('rm', '-q', '--cached', '--ignore-unmatch', P('side-x', 'archived'), P('side-x'))
    rmSync(join(repo.root, P('side-x', 'archived')), { force: true })
    repo.git('add', P('side-x', 'active'))
    repo.git('commit', '-q', '--no-edit')
    expect(repo.git('rev-list', '--parents', '-1', 'HEAD').trim().split(' ')).toHaveLength(3)
    const events = (await repo.cli(['log', 'side-x', '--json'])).json().events
    expect(events.map((e: { action: string }) => e.action).sort()).toEqual(['add', 'approve', 'reject'])
    expect(events.find((e: { action: string }) => e.action === 'reject').reason).toBe('not reproducible here')
    const all = (await repo.cli(['log', '--json'])).json().events
    expect(all.map((e: { commit: string }) => e.commit)).not.toContain(repo.git('rev-parse', 'HEAD').trim())
    expect(all).toHaveLength(3)
  })
  test('log shows a git revert of an approval, and the revert of that revert, as revert events', async () => {
    const repo = await withPending('undone-x')
    expect((await repo.cli(['approve', 'undone-x'])).code).toBe(0)
    const approval = repo.git('rev-parse', 'HEAD').trim()
    repo.git('revert', '--no-edit', 'HEAD')
    const revert = repo.git('rev-parse', 'HEAD').trim()
    const events = (await repo.cli(['log', 'undone-x', '--json'])).json().events
    expect(events.map((e: { action: string }) => e.action)).toEqual(['revert', 'approve', 'add'])
    expect(events[0]).toMatchObject({
      commit: revert,
      name: 'undone-x',
      from: 'active',
      to: 'pending',
      by: 'Rita Reviewer <rita@example.com>',
      reverts: { commit: approval, action: 'approve' },
    })
    expect(events[1].reverts).toBeUndefined()
    expect((await repo.cli(['log', 'undone-x'])).stdout).toMatch(
      /^\S+ {2}revert\s+undone-x {2}active → pending {2}by Rita Reviewer <rita@example.com> {2}\w+\n {12}reverted approve of undone-x \(\w+\)\n/,
    )
    // Reverting the revert puts the approval back: a revert of a revert, the move of the approval again.
    repo.git('revert', '--no-edit', 'HEAD')
    const again = (await repo.cli(['log', 'undone-x', '--json'])).json().events[0]
    expect(again).toMatchObject({ action: 'revert', from: 'pending', to: 'active', reverts: { commit: revert } })
    expect(again.reverts.action).toBe('revert')
    // A revert of a commit that is no lifecycle commit is no event.
    repo.write('notes.txt', 'x\n')
    repo.git('add', 'notes.txt')
    repo.git('commit', '-qm', 'notes')
    repo.git('revert', '--no-edit', 'HEAD')
    expect((await repo.cli(['log', '--json'])).json().events).toHaveLength(4)
  })
  test('log on an unborn branch is empty, not an error', async () => {
    const repo = makeRepo({ commit: false })
    const r = await repo.cli(['log'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/no lifecycle commits/)
  })
})

describe('help and usage', () => {
  test('-h and help <cmd> print the options; unknown commands are usage errors', async () => {
    const repo = makeRepo()
    expect((await repo.cli(['approve', '-h'])).stdout).toMatch(/usage: git learn approve <name>…/)
    expect((await repo.cli(['help', 'reject'])).stdout).toMatch(/--reason <text>/)
    const r = await repo.cli(['frobnicate'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/unknown command "frobnicate"/)
    expect((await repo.cli([])).code).toBe(2)
  })
  test('--json errors are one JSON object on stdout', async () => {
    const repo = makeRepo()
    const r = await repo.cli(['show', 'nope', '--json'])
    expect(r.code).toBe(2)
    expect(r.json()).toMatchObject({ ok: false, error: { kind: 'LearningNotFoundError', code: 2, name: 'nope' } })
  })
})

describe('review fixes', () => {
  test('a restore does not launder self-approval: every proposer counts', async () => {
    const repo = await withPending()
    await repo.cli(['reject', 'vitest-esm-hoist', '--reason', 'rework'])
    await repo.cli(['restore', 'vitest-esm-hoist'])
    repo.setIdentity('Ada Author', 'ada@example.com')
    const r = await repo.cli(['approve', 'vitest-esm-hoist'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/Ada Author <ada@example.com> proposed "vitest-esm-hoist"/)
  })

  test('a restore on the side of a merge still counts as proposing (full history, not the simplified one)', async () => {
    const repo = await withPending()
    expect((await repo.cli(['reject', 'vitest-esm-hoist', '--reason', 'rework'])).code).toBe(0)
    // Carl restores it on a branch, Bo on main: the same bytes at the same path, so the merge equals both sides and
    // a history-simplified log of the pending path follows main only and never sees Carl's restore.
    repo.git('checkout', '-q', '-b', 'carl')
    repo.setIdentity('Carl Coder', 'carl@example.com')
    expect((await repo.cli(['restore', 'vitest-esm-hoist'])).code).toBe(0)
    repo.git('checkout', '-q', 'main')
    repo.setIdentity('Bo Builder', 'bo@example.com')
    expect((await repo.cli(['restore', 'vitest-esm-hoist'])).code).toBe(0)
    repo.setIdentity('Dee Merger', 'dee@example.com')
    repo.git('merge', '-q', '--no-ff', '--no-edit', 'carl')
    repo.setIdentity('Carl Coder', 'carl@example.com')
    const r = await repo.cli(['approve', 'vitest-esm-hoist'])
    expect(r.stderr).toMatch(/Carl Coder <carl@example.com> proposed "vitest-esm-hoist"/)
    expect(r.code).toBe(1)
    // Whoever merged proposed nothing.
    repo.setIdentity('Dee Merger', 'dee@example.com')
    expect((await repo.cli(['approve', 'vitest-esm-hoist'])).code).toBe(0)
  })

  test('a reason with a credential is refused before anything moves, and never printed whole', async () => {
    const repo = await withPending()
    const token = 'ghp_R8fK2mXq9LsV4tYw7ZbN3cJ6hD1pGe5aUo0i'
    const snap = repo.snapshot()
    const r = await repo.cli(['reject', 'vitest-esm-hoist', '--reason', `leaked ${token}`])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/--reason contains what looks like a credential/)
    expect(r.stderr).not.toContain(token)
    expect(repo.snapshot()).toBe(snap)
  })

  test('approve of several names that stops part way says what was committed', async () => {
    const repo = await withPending('one-a')
    repo.setIdentity('Ada Author', 'ada@example.com')
    repo.write('d.md', learningText('two-b'))
    await repo.cli(['add', '--file', 'd.md'])
    rmSync(join(repo.root, 'd.md'))
    repo.setIdentity('Rita Reviewer', 'rita@example.com')
    // A hook that refuses only the commit that moves two-b.
    repo.write(
      '.git/hooks/reference-transaction',
      '#!/bin/sh\n[ "$1" = prepared ] || exit 0\nwhile read old new ref; do git show --name-only --format= "$new" | grep -q two-b && { echo "no two-b" >&2; exit 1; }; done\nexit 0\n',
    )
    chmodSync(join(repo.root, '.git/hooks/reference-transaction'), 0o755)
    const r = await repo.cli(['approve', 'one-a', 'two-b', '--json'])
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/approve stopped part way: one-a \(commit [0-9a-f]{7}\) was committed; two-b failed/)
    expect(r.json().error).toMatchObject({ done: [{ name: 'one-a' }], failed: 'two-b' })
    expect(repo.exists(P('one-a', 'active'))).toBe(true)
    expect(repo.exists(P('two-b'))).toBe(true)
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  test('init --agent with an unsupported agent writes nothing', async () => {
    const repo = makeRepo()
    const snap = repo.snapshot()
    const r = await repo.cli(['init', '--hooks', '--agent', 'codex'])
    expect(r.code).toBe(2)
    expect(repo.snapshot()).toBe(snap)
    expect(repo.exists('.learnings')).toBe(false)
  })
})
