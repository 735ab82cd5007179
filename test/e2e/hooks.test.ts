// The built bin as `git learn` on PATH, installed as real hooks, fired by real `git commit`s.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { HUSKY_LINES } from '../../src/adapters/git/hooks.js'
import { PROJECT_ROOT, learningText, makeRepo, sh, tempDir } from '../helpers/repo.js'

/** The git binary's path (a PATH of its folder alone has no git-learn on it). */
const gitPath = () => spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim()

const TOKEN = `ghp_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`

function setUp() {
  const repo = makeRepo()
  const run = (cmd: string, ...args: string[]) => sh(repo.root, cmd, args)
  const init = run('git', 'learn', 'init', '--hooks')
  expect(init.code, init.stderr).toBe(0)
  expect(init.stdout).toContain('.git/hooks/pre-commit')
  const first = run('git', 'add', '-A')
  expect(first.code).toBe(0)
  const c = run('git', 'commit', '-q', '-m', 'set up the store')
  expect(c.code, c.stderr).toBe(0)
  return { repo, run }
}

describe('hooks in a fresh repository', () => {
  test('a pasted token stops the commit without showing the token; a clean learning commits', () => {
    const { repo, run } = setUp()
    repo.write(
      '.learnings/pending/leaky.md',
      learningText(
        'leaky',
        {},
        `## Problem\nx\n\n## Trigger Conditions\nx\n\n## Root Cause\nWe tried A.\n\n## Solution\nexport GITHUB_TOKEN=${TOKEN}\n\n## Verification\nok\n`,
      ),
    )
    run('git', 'add', '.learnings/pending/leaky.md')
    const bad = run('git', 'commit', '-q', '-m', 'add leaky')
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain('.learnings/pending/leaky.md')
    expect(bad.stderr).toContain('[secrets]')
    expect(bad.stderr).toContain('pre-commit')
    expect(bad.stderr + bad.stdout).not.toContain(TOKEN)
    expect(repo.git('log', '--format=%s')).not.toContain('add leaky')

    repo.write('.learnings/pending/leaky.md', learningText('leaky'))
    run('git', 'add', '.learnings/pending/leaky.md')
    const good = run('git', 'commit', '-q', '-m', 'add leaky')
    expect(good.code, good.stderr).toBe(0)
    expect(good.stderr).toBe('')
  })

  test('a hand-made move into active/ is refused; git learn approve commits through the hooks', () => {
    const { repo, run } = setUp()
    const added = sh(repo.root, 'git', ['learn', 'add', '--file', '-'], { input: learningText('vitest-thing') })
    expect(added.code, added.stderr).toBe(0)

    expect(run('git', 'mv', '.learnings/pending/vitest-thing.md', '.learnings/active/vitest-thing.md').code).toBe(0)
    const wip = run('git', 'commit', '-q', '-m', 'wip')
    expect(wip.code).toBe(1)
    expect(wip.stderr).toContain('git learn approve vitest-thing')
    expect(run('git', 'mv', '.learnings/active/vitest-thing.md', '.learnings/pending/vitest-thing.md').code).toBe(0)

    repo.setIdentity('Bob Reviewer', 'bob@example.com')
    const approved = run('git', 'learn', 'approve', 'vitest-thing')
    expect(approved.code, approved.stderr).toBe(0)
    expect(repo.exists('.learnings/active/vitest-thing.md')).toBe(true)
    expect(repo.git('log', '-1', '--format=%B')).toContain('Approved-by: Bob Reviewer <bob@example.com>')
  })

  test('--no-verify skips the hooks, but check --base main still fails', () => {
    const { repo, run } = setUp()
    run('git', 'checkout', '-q', '-b', 'feature')
    repo.write('.learnings/active/sneaky.md', learningText('sneaky'))
    run('git', 'add', '-A')
    expect(run('git', 'commit', '-q', '-m', 'wip').code).toBe(1) // the hook sees an add straight into active
    const skipped = run('git', 'commit', '-q', '--no-verify', '-m', 'wip')
    expect(skipped.code).toBe(0)
    const ci = run('git', 'learn', 'check', '--base', 'main', '--format', 'github')
    expect(ci.code).toBe(1)
    expect(ci.stdout).toContain('::error file=.learnings/active/sneaky.md,line=1,title=git-learn transition::')
  })

  test('GIT_LEARN_HOOKS=0 skips the hooks', () => {
    const { repo } = setUp()
    repo.write('.learnings/active/sneaky.md', learningText('sneaky'))
    repo.git('add', '-A')
    const r = sh(repo.root, 'git', ['commit', '-q', '-m', 'wip'], { env: { GIT_LEARN_HOOKS: '0' } })
    expect(r.code, r.stderr).toBe(0)
  })
})

describe('a hooks folder every repository shares (installed there with --force)', () => {
  /** A global config naming one hooks folder for every repository, and the shims installed there from a store's repo. */
  function sharedFolder() {
    const home = tempDir('gl-home-')
    const hooks = join(home, 'githooks')
    mkdirSync(hooks)
    const global = join(home, 'gitconfig')
    writeFileSync(global, `[core]\n\thooksPath = ${hooks}\n`)
    const env = { GIT_CONFIG_GLOBAL: global }
    const store = makeRepo()
    const install = sh(store.root, 'git', ['learn', 'init', '--hooks'], { env })
    expect(install.code).toBe(1) // refused without --force
    expect(sh(store.root, 'git', ['learn', 'init'], { env }).code).toBe(0)
    expect(sh(store.root, 'git', ['learn', 'hook', 'install', '--force'], { env }).code).toBe(0)
    expect(readdirSync(hooks).sort()).toEqual([
      'commit-msg',
      'post-checkout',
      'post-merge',
      'pre-commit',
      'pre-merge-commit',
    ])
    return { env, store }
  }

  test('a repository without .learnings/ commits and merges as if they were not there, git-learn installed or not', () => {
    const { env, store } = sharedFolder()
    const other = makeRepo()
    // A learning-shaped file in a system zone: a finding where a store is, nothing of ours here.
    other.git('checkout', '-qb', 'feat')
    other.write('.claude/skills/x/SKILL.md', learningText('x'))
    other.git('add', '.claude')
    const onPath = sh(other.root, 'git', ['commit', '-qm', 'skill'], { env })
    expect(onPath.code, onPath.stderr).toBe(0)
    expect(onPath.stderr).toBe('')
    other.git('checkout', '-q', 'main')
    other.write('a.txt', 'a\n')
    other.git('add', 'a.txt')
    other.git('commit', '-qm', 'a', '--no-verify')
    const merge = sh(other.root, 'git', ['merge', '--no-ff', '-m', 'merge feat', 'feat'], { env })
    expect(merge.code, merge.stderr).toBe(0)
    expect(merge.stderr).toBe('')
    // Without git-learn anywhere (only git on PATH): no "git-learn is not installed here", no refusal.
    other.write('.claude/settings.json', '{}\n')
    other.git('add', '.claude/settings.json')
    const bare = spawnSync('git', ['commit', '-qm', 'settings'], {
      cwd: other.root,
      encoding: 'utf8',
      env: { ...process.env, ...env, PATH: dirname(gitPath()) },
    })
    expect(bare.status, bare.stderr).toBe(0)
    expect(bare.stderr).toBe('')

    // Where the store is, the same shims still guard it.
    store.write('.learnings/pending/bad-one.md', learningText('bad-one', { name: 'other-name' }))
    store.git('add', '.learnings')
    const refused = sh(store.root, 'git', ['commit', '-qm', 'bad'], { env })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('stopped by git learn (pre-commit)')
  })

  test("husky's lines do nothing in a repository without .learnings/ either", () => {
    const other = makeRepo()
    other.write('.claude/skills/x/SKILL.md', learningText('x'))
    other.git('add', '.claude')
    other.write('msg', 'skill\n')
    for (const [hook, line] of Object.entries(HUSKY_LINES)) {
      const r = spawnSync('sh', ['-c', line, hook, 'msg', 'HEAD', '1'], {
        cwd: other.root,
        encoding: 'utf8',
        env: { ...process.env, PATH: dirname(gitPath()) },
      })
      expect(r.status, `${hook}: ${r.stderr}`).toBe(0)
      expect(r.stderr + r.stdout, hook).toBe('')
    }
  })

  test('a store that is only staged (its folder moved out of the work tree) is still checked', () => {
    const { env } = sharedFolder()
    const other = makeRepo()
    other.write('.learnings/pending/bad-one.md', learningText('bad-one', { name: 'other-name' }))
    other.git('add', '.learnings')
    renameSync(join(other.root, '.learnings'), join(other.root, 'elsewhere'))
    const refused = sh(other.root, 'git', ['commit', '-qm', 'staged store'], { env })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('stopped by git learn (pre-commit)')
  })

  test('a store deleted in the commit is still seen: its learnings are never deleted', () => {
    const { env, store } = sharedFolder()
    store.write('.learnings/pending/one.md', learningText('one'))
    store.git('add', '.learnings')
    expect(sh(store.root, 'git', ['commit', '-qm', 'store'], { env }).code).toBe(0)
    store.git('rm', '-rq', '.learnings')
    const r = sh(store.root, 'git', ['commit', '-qm', 'drop the store'], { env })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('[transition]')
  })
})

test("in a folder named with a colon, the shims run the project's node_modules/.bin/git-learn (no PATH entry to split)", () => {
  const parent = join(tempDir('gl-colon-'), 'co:lon')
  mkdirSync(parent)
  const root = join(parent, 'repo')
  // git and node only: git-learn is the project's copy or nothing.
  const env = { ...process.env, PATH: `${dirname(gitPath())}:${dirname(process.execPath)}` }
  const run = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8', env })
  mkdirSync(root)
  run('init', '-q', '-b', 'main')
  run('config', 'user.name', 'Ada Author')
  run('config', 'user.email', 'ada@example.com')
  mkdirSync(join(root, 'node_modules', '.bin'), { recursive: true })
  symlinkSync(join(PROJECT_ROOT, 'dist', 'bin.js'), join(root, 'node_modules', '.bin', 'git-learn'))
  writeFileSync(join(root, '.gitignore'), 'node_modules\n')
  expect(sh(root, 'git', ['learn', 'init', '--hooks']).code).toBe(0)
  run('add', '.')
  const init = run('commit', '-qm', 'learn: init')
  expect(init.status, init.stderr).toBe(0)
  writeFileSync(join(root, '.learnings', 'pending', 'bad-one.md'), learningText('bad-one', { name: 'other-name' }))
  run('add', '.learnings')
  const refused = run('commit', '-qm', 'bad')
  expect(refused.status).toBe(1)
  expect(refused.stderr).toMatch(/bad-one\.md.*\[schema\]/)
  expect(refused.stderr).not.toContain('not installed here')
  writeFileSync(join(root, '.learnings', 'pending', 'bad-one.md'), learningText('bad-one'))
  run('add', '.learnings')
  const ok = run('commit', '-qm', 'good')
  expect(ok.status, ok.stderr).toBe(0)
})
