import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test, vi } from 'vitest'
import { VITEST_FAILURE, seedStore } from '../helpers/feed-store.js'
import { cliAt, learningText, makeRepo, sh, tempDir } from '../helpers/repo.js'

test('a clone with core.autocrlf=true (CRLF files) reads every learning', async () => {
  const origin = makeRepo()
  await origin.cli(['init'])
  origin.write('d.md', learningText('crlf-one'))
  expect((await origin.cli(['add', '--file', 'd.md'])).code).toBe(0)
  const dir = join(tempDir(), 'clone')
  execFileSync('git', ['-c', 'core.autocrlf=true', 'clone', '-q', origin.root, dir])
  execFileSync('git', ['config', 'core.autocrlf', 'true'], { cwd: dir })
  const cli = (argv: string[]) => cliAt(dir, argv)
  expect((await import('node:fs')).readFileSync(join(dir, '.learnings/pending/crlf-one.md'), 'utf8')).toContain('\r\n')
  const check = await cli(['check'])
  expect(check.stdout + check.stderr).not.toMatch(/malformed YAML/)
  expect(check.code).toBe(0)
  expect((await cli(['show', 'crlf-one', '--json'])).json().frontmatter).toMatchObject({
    name: 'crlf-one',
    created: '2026-11-20',
  })
})

test('a directory where a learning file should be is a refusal that says what to do, not an internal error', async () => {
  const repo = makeRepo()
  await repo.cli(['init'])
  repo.write('.learnings/pending/dir-thing.md/x.txt', 'hi\n')
  for (const argv of [
    ['show', 'dir-thing'],
    ['approve', 'dir-thing'],
  ]) {
    const r = await repo.cli(argv)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/\.learnings\/pending\/dir-thing\.md: is not a regular file/)
  }
  const list = await repo.cli(['list'])
  expect(list.code).toBe(0)
  expect(list.stderr).toMatch(/skipped \.learnings\/pending\/dir-thing\.md/)
})

test('without .learnings/, list, status and show say to run git learn init', async () => {
  const repo = makeRepo()
  expect((await repo.cli(['list'])).stderr).toMatch(/no \.learnings\/ yet; run `git learn init`/)
  expect((await repo.cli(['status'])).stderr).toMatch(/no \.learnings\/ yet; run `git learn init`/)
  const show = await repo.cli(['show', 'foo'])
  expect(show.code).toBe(2)
  expect(show.stderr).toMatch(/this repository has no \.learnings\/ yet\.\nRun `git learn init`/)
})

test('in a sparse checkout that hides part of the store, add refuses and says how to check it out', async () => {
  const repo = makeRepo()
  await repo.cli(['init'])
  repo.write('d.md', learningText('sparse-one'))
  expect((await repo.cli(['add', '--file', 'd.md'])).code).toBe(0)
  repo.git('sparse-checkout', 'set', '--no-cone', '/*', '!/.learnings/pending/')
  expect(repo.exists('.learnings/pending/sparse-one.md')).toBe(false)
  const snap = repo.snapshot()
  const r = await repo.cli(['add', '--file', 'd.md'])
  // The store it would compare with (names, duplicates, config.yaml) is partly out of the work tree.
  expect(r.code).toBe(3)
  expect(r.stderr).toMatch(/sparse checkout that leaves out \.learnings\/ \(\.learnings\/pending\/sparse-one\.md\)/)
  expect(r.stderr).toContain('git sparse-checkout add .learnings')
  expect(repo.snapshot()).toBe(snap)
})

// Cone mode without .learnings/ (a monorepo checking out one package): the store is in the index, not the work tree.
// list and status told the user to run `git learn init`, and init wrote a default config.yaml over the team's one.
test('in a sparse checkout that leaves the store out, init refuses and list and status point at sparse-checkout', async () => {
  const repo = makeRepo()
  await repo.cli(['init'])
  repo.write('.learnings/config.yaml', 'approval:\n  distinct_approver: false\n')
  repo.write('src/a.txt', 'a\n')
  repo.git('add', '.learnings', 'src')
  repo.git('commit', '-qm', 'store')
  repo.git('sparse-checkout', 'set', '--cone', 'src')
  expect(repo.exists('.learnings')).toBe(false)
  for (const argv of [['list'], ['status']]) {
    const r = await repo.cli(argv)
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('`git sparse-checkout add .learnings`')
    expect(r.stderr).not.toMatch(/no \.learnings\/ yet/)
  }
  const snap = repo.snapshot()
  const init = await repo.cli(['init'])
  expect(init.code).toBe(3)
  expect(init.stderr).toMatch(/sparse checkout that leaves out 4 files of \.learnings\/ \(\.learnings\/config\.yaml/)
  expect(init.stderr).toContain('git sparse-checkout add .learnings')
  expect(repo.exists('.learnings')).toBe(false)
  expect(repo.snapshot()).toBe(snap)
  repo.git('sparse-checkout', 'add', '.learnings')
  expect(repo.read('.learnings/config.yaml')).toBe('approval:\n  distinct_approver: false\n')
})

// `git sparse-checkout disable` leaves info/sparse-checkout behind: list and status took that for a sparse checkout
// and named `git sparse-checkout add .learnings`, which git then refuses ("no sparse-checkout to add to").
test('with no store, list and status say to run init, also after a sparse checkout was disabled', async () => {
  const repo = makeRepo()
  repo.write('src/a.txt', 'a\n')
  repo.git('add', 'src')
  repo.git('commit', '-qm', 'src')
  repo.git('sparse-checkout', 'set', '--cone', 'src')
  repo.git('sparse-checkout', 'disable')
  expect(existsSync(join(repo.root, '.git', 'info', 'sparse-checkout'))).toBe(true)
  for (const argv of [['list'], ['status']]) {
    const r = await repo.cli(argv)
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('no .learnings/ yet; run `git learn init`')
    expect(r.stderr).not.toMatch(/sparse-checkout add/)
  }
})

test('a reader that closes the pipe early (`| head`) ends the run quietly, as git does, not with a stack trace', () => {
  const dir = tempDir()
  const err = join(dir, 'stderr.txt')
  // `true` exits without reading, so every write of git learn meets a closed pipe (EPIPE).
  const r = sh(dir, 'bash', ['-c', 'set -o pipefail; git learn help 2>"$1" | true', '_', err])
  const stderr = readFileSync(err, 'utf8')
  expect(stderr).not.toMatch(/EPIPE|Unhandled|at /)
  expect(r.code).toBe(0)
})

test('the process ends as soon as the command is done, with all its output and its exit code, even through a slow reader', async () => {
  const repo = makeRepo()
  await repo.cli(['init'])
  // ~600 KB of JSON, far over a pipe's 64 KB buffer: the writes wait for a reader that starts late.
  for (let i = 0; i < 400; i++)
    repo.write(
      `.learnings/active/slow-reader-${i}.md`,
      learningText(`slow-reader-${i}`, {
        description: `Fix the slow-reader-${i} failure. ${'Long words. '.repeat(100)}`,
      }),
    )
  repo.git('add', '.learnings')
  repo.git('commit', '-q', '-m', 'many')
  const dir = tempDir()
  const out = join(dir, 'out.json')
  const r = sh(repo.root, 'bash', ['-c', 'git learn list --json | { sleep 0.5; cat; } > "$1"', '_', out])
  expect(r.code).toBe(0)
  const listed = JSON.parse(readFileSync(out, 'utf8')) as { learnings: { name: string }[] }
  expect(listed.learnings).toHaveLength(400)
  // An exit code other than 0 survives the early exit.
  const missing = sh(repo.root, 'bash', [
    '-c',
    'git learn show no-such-learning | { sleep 0.2; cat; }; exit ${PIPESTATUS[0]}',
  ])
  expect(missing.code).toBe(2)
  expect(missing.stderr).toMatch(/no-such-learning/)
})

test('a repository path holding a newline: the lifecycle, doctor and the feed work there, found by git or by the walk', async () => {
  const dir = join(tempDir(), 'new\nline ')
  mkdirSync(dir)
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' })
  git('init', '-q', '-b', 'main')
  git('config', 'user.name', 'Ada Author')
  git('config', 'user.email', 'ada@example.com')
  git('commit', '-q', '--allow-empty', '-m', 'initial')
  const ok = async (argv: string[]) => {
    const r = await cliAt(dir, argv)
    expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0)
    return r
  }
  await ok(['init'])
  git('add', '.learnings')
  git('commit', '-qm', 'learn: init')
  writeFileSync(join(dir, 'a.md'), learningText('newline-one'))
  writeFileSync(join(dir, 'b.md'), learningText('newline-two'))
  await ok(['add', '--file', 'a.md'])
  await ok(['add', '--file', 'b.md'])
  git('config', 'user.email', 'rita@example.com')
  await ok(['approve', 'newline-one'])
  await ok(['reject', 'newline-two', '--reason', 'not now'])
  await ok(['restore', 'newline-two'])
  expect((await ok(['doctor'])).stdout).toMatch(/Nothing half done/)
  expect((await ok(['search', 'newline-one exploded'])).stdout).toContain('newline-one')
  // GIT_DIR set (the built bin: the feed's key reads the process's environment): the repository is git's answer, one
  // path a question.
  const viaGit = { GIT_DIR: join(dir, '.git'), GIT_WORK_TREE: dir }
  for (const argv of [['list'], ['search', 'newline-one exploded'], ['show', 'newline-one']]) {
    const r = sh(dir, 'git', ['learn', ...argv], { env: viaGit })
    expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0)
    expect(r.stdout).toContain('newline-one')
  }
})

// git's own switch for a repository another user owns (GIT_TEST_ASSUME_DIFFERENT_OWNER): git refuses it, and so does
// every command of git learn, with git's fix; the feed runs nothing there and serves nothing from it.
test('a repository git refuses for its owner: one message naming safe.directory everywhere, the agent hooks silent', async () => {
  const repo = makeRepo()
  seedStore(repo)
  rmSync(join(repo.root, '.git', 'learn'), { recursive: true, force: true })
  vi.stubEnv('GIT_TEST_ASSUME_DIFFERENT_OWNER', '1')
  try {
    for (const argv of [
      ['show', 'vitest-esm-mock-hoisting'],
      ['approve', 'pending-example'],
      ['doctor'],
      ['check'],
      ['list'],
      ['search', 'vitest'],
      ['status'],
      ['render'],
    ]) {
      const r = await repo.cli(argv)
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(3)
      expect(r.stderr).toContain(`git refuses to work in ${repo.root}: the repository belongs to another user`)
      expect(r.stderr).toContain(`git config --global --add safe.directory '${repo.root}'`)
      expect(r.stderr).not.toMatch(/not inside a git repository|ls-files|internal error/)
      expect(r.stdout).toBe('')
    }
    const json = await repo.cli(['list', '--json'])
    expect(json.json().error).toMatchObject({ kind: 'UnsafeRepositoryError', code: 3, path: repo.root })
    const context = await repo.cli(['context', '--format', 'text'])
    expect(context.code).toBe(0)
    expect(context.stdout).not.toContain('vitest-esm-mock-hoisting')
    const recall = await repo.cli(['recall', '--json'], {
      stdin: JSON.stringify({ hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', error: VITEST_FAILURE }),
    })
    expect(recall.json()).toEqual({ failed: true, recalled: [] })
    // Nothing was cached from it.
    expect(existsSync(join(repo.root, '.git', 'learn', 'cache'))).toBe(false)
  } finally {
    vi.unstubAllEnvs()
  }
  expect((await repo.cli(['list'])).stdout).toContain('vitest-esm-mock-hoisting')
})
