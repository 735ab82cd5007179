import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test, vi } from 'vitest'
import { HUSKY_LINES } from '../../src/adapters/git/hooks.js'
import { PROJECT_ROOT, cliAt, makeRepo, tempDir } from '../helpers/repo.js'

describe('git learn hook install|uninstall', () => {
  test('writes the shims where no hook exists, leaves a foreign hook alone, and uninstall removes only ours', async () => {
    const repo = makeRepo()
    repo.write('.git/hooks/pre-commit', '#!/bin/sh\necho mine\n')
    const r = await repo.cli(['hook', 'install', '--json'])
    expect(r.code).toBe(0)
    // The folder is named as its files are, from the root (it was absolute beside relative files).
    expect(r.json()).toMatchObject({ kind: 'hooks-dir', dir: '.git/hooks' })
    expect(r.json().changes).toEqual([
      { file: '.git/hooks/pre-commit', action: 'skipped', note: 'a hook of your own is there' },
      { file: '.git/hooks/pre-merge-commit', action: 'created' },
      { file: '.git/hooks/commit-msg', action: 'created' },
      { file: '.git/hooks/post-merge', action: 'created' },
      { file: '.git/hooks/post-checkout', action: 'created' },
    ])
    expect(repo.read('.git/hooks/pre-merge-commit')).toContain('exec "$gl" check --staged')
    expect(repo.read('.git/hooks/pre-commit')).toBe('#!/bin/sh\necho mine\n')
    expect(repo.read('.git/hooks/commit-msg')).toContain('exec "$gl" hook commit-msg "$1"')
    expect(statSync(join(repo.root, '.git/hooks/commit-msg')).mode & 0o111).not.toBe(0)
    expect((await repo.cli(['hook', 'install', '--json'])).json().changes[2]).toMatchObject({
      file: '.git/hooks/commit-msg',
      action: 'unchanged',
    })

    const forced = await repo.cli(['hook', 'install', '--force', '--json'])
    expect(forced.json().changes[0]).toMatchObject({ file: '.git/hooks/pre-commit', action: 'replaced' })
    expect(repo.read('.git/hooks/pre-commit')).toContain('exec "$gl" check --staged')

    const un = await repo.cli(['hook', 'uninstall', '--json'])
    expect(un.json().changes.map((c: { action: string }) => c.action)).toEqual([
      'restored',
      'removed',
      'removed',
      'removed',
      'removed',
    ])
    expect(repo.read('.git/hooks/pre-commit')).toBe('#!/bin/sh\necho mine\n')
    expect(repo.exists('.git/hooks/commit-msg')).toBe(false)
  })

  // Options that act only in `hook install` (--force), and a post-merge that prints nothing (--json) or takes no
  // argument, were taken and ignored: `hook uninstall --force` uninstalled, as if --force meant something there.
  test('an option or argument given where it does nothing is refused (exit 2), the hooks left as they were', async () => {
    const repo = makeRepo()
    expect((await repo.cli(['hook', 'install'])).code).toBe(0)
    const hooks = () => readdirSync(join(repo.root, '.git/hooks')).filter((f) => !f.endsWith('.sample'))
    const before = hooks()
    expect(before).toContain('commit-msg')
    for (const argv of [
      ['hook', 'uninstall', '--force'],
      ['hook', 'commit-msg', '.git/COMMIT_EDITMSG', '--force'],
      ['hook', 'post-merge', '--json'],
      ['hook', 'post-merge', 'extra'],
    ]) {
      const r = await repo.cli(argv)
      expect(r.code, argv.join(' ')).toBe(2)
      expect(r.stderr, argv.join(' ')).toMatch(
        /--force acts only in `git learn hook install`|--json acts only|unexpected argument "extra"/,
      )
      expect(r.stderr).toMatch(/Run `git learn hook -h` for usage/)
      expect(hooks()).toEqual(before)
    }
    expect((await repo.cli(['hook', 'uninstall'])).code).toBe(0)
    expect(hooks()).not.toContain('commit-msg')
  })

  test('with husky, one marked line goes into .husky/pre-commit and .husky/commit-msg; .husky/_ is untouched', async () => {
    const repo = makeRepo()
    repo.write('.husky/_/h', '# husky internals\n')
    repo.write('.husky/pre-commit', 'npx lint-staged\n')
    repo.git('config', 'core.hooksPath', '.husky/_')
    const r = await repo.cli(['hook', 'install'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('husky')
    expect(repo.read('.husky/pre-commit')).toBe(`npx lint-staged\n${HUSKY_LINES['pre-commit']}\n`)
    expect(repo.read('.husky/commit-msg')).toBe(`${HUSKY_LINES['commit-msg']}\n`)
    expect(repo.read('.husky/_/h')).toBe('# husky internals\n')
    expect(repo.exists('.husky/_/pre-commit')).toBe(false)
    await repo.cli(['hook', 'install'])
    expect(repo.read('.husky/pre-commit').match(/# git-learn/g)).toHaveLength(1)

    expect((await repo.cli(['hook', 'uninstall'])).code).toBe(0)
    expect(repo.read('.husky/pre-commit')).toBe('npx lint-staged\n')
    expect(repo.exists('.husky/commit-msg')).toBe(false)
  })

  test('a hook that carries the marker but has lines of yours is yours: install and uninstall leave it byte for byte', async () => {
    const repo = makeRepo()
    const shim = readFileSync(join(PROJECT_ROOT, 'githooks', 'pre-commit'), 'utf8')
    const mine = shim.replace('exec "$gl" check --staged', 'npm run lint\n"$gl" check --staged')
    repo.write('.git/hooks/pre-commit', mine)
    const r = await repo.cli(['hook', 'install', '--json'])
    expect(r.code).toBe(0)
    expect(r.json().changes[0]).toMatchObject({ file: '.git/hooks/pre-commit', action: 'skipped' })
    expect(r.json().changes[0].note).toMatch(/differs from the shipped shim/)
    expect(repo.read('.git/hooks/pre-commit')).toBe(mine)
    const un = await repo.cli(['hook', 'uninstall', '--json'])
    expect(un.json().changes[0]).toMatchObject({
      file: '.git/hooks/pre-commit',
      action: 'absent',
      note: 'not ours; left alone',
    })
    expect(repo.read('.git/hooks/pre-commit')).toBe(mine)
    expect(repo.exists('.git/hooks/commit-msg')).toBe(false)
  })

  test('a shim an earlier version installed is recognised and updated, not left as yours', async () => {
    const repo = makeRepo()
    const earlier =
      '#!/bin/sh\n# git-learn: checks the staged learnings; GIT_LEARN_HOOKS=0 or HUSKY=0 skips it.\nif [ "${GIT_LEARN_HOOKS-}" = 0 ] || [ "${HUSKY-}" = 0 ]; then exit 0; fi\ncommand -v git-learn >/dev/null 2>&1 || PATH="$(pwd)/node_modules/.bin:$PATH"\ncommand -v git-learn >/dev/null 2>&1 || { echo "git-learn: not found on PATH, so the learning checks cannot run. Install it (npm i -D git-learn, or npm i -g git-learn), or skip once with GIT_LEARN_HOOKS=0." >&2; exit 1; }\nexec git-learn check --staged\n'
    repo.write('.git/hooks/pre-commit', earlier)
    const r = await repo.cli(['hook', 'install', '--json'])
    expect(r.json().changes[0]).toMatchObject({ file: '.git/hooks/pre-commit', action: 'updated' })
    expect(repo.read('.git/hooks/pre-commit')).toBe(readFileSync(join(PROJECT_ROOT, 'githooks', 'pre-commit'), 'utf8'))
  })

  test('install --force never replaces an existing backup: it says so and changes nothing', async () => {
    const repo = makeRepo()
    repo.write('.git/hooks/pre-commit', '#!/bin/sh\necho second\n')
    repo.write('.git/hooks/pre-commit.git-learn-backup', '#!/bin/sh\necho first\n')
    const r = await repo.cli(['hook', 'install', '--force', '--json'])
    expect(r.code).toBe(0)
    expect(r.json().changes[0]).toMatchObject({ file: '.git/hooks/pre-commit', action: 'skipped' })
    expect(r.json().changes[0].note).toMatch(/pre-commit\.git-learn-backup already exists/)
    expect(repo.read('.git/hooks/pre-commit')).toBe('#!/bin/sh\necho second\n')
    expect(repo.read('.git/hooks/pre-commit.git-learn-backup')).toBe('#!/bin/sh\necho first\n')
  })

  test('with husky, a line of yours that mentions "# git-learn" is neither replaced nor removed', async () => {
    const repo = makeRepo()
    const mine = 'npx lint-staged\necho "docs: see # git-learn"\n'
    repo.write('.husky/pre-commit', mine)
    repo.git('config', 'core.hooksPath', '.husky/_')
    expect((await repo.cli(['hook', 'install'])).code).toBe(0)
    expect(repo.read('.husky/pre-commit')).toBe(`${mine}${HUSKY_LINES['pre-commit']}\n`)
    expect((await repo.cli(['hook', 'uninstall'])).code).toBe(0)
    expect(repo.read('.husky/pre-commit')).toBe(mine)
  })

  test('init --ci writes the workflow and CODEOWNERS and explains the review setup', async () => {
    const repo = makeRepo()
    const r = await repo.cli(['init', '--ci'])
    expect(r.code).toBe(0)
    const wf = repo.read('.github/workflows/git-learn.yml')
    expect(wf).toContain('fetch-depth: 0')
    expect(wf).toContain('check --base "origin/${{ github.base_ref }}" --format github')
    expect(wf).toContain('branches: [main]')
    expect(wf).not.toMatch(/paths:/)
    expect(repo.read('.github/CODEOWNERS')).toContain('/.learnings/active/')
    expect(r.stdout).toContain('Require review from Code Owners')
    repo.write('.github/CODEOWNERS', '* @someone\n')
    const again = await repo.cli(['init', '--ci', '--json'])
    expect(again.json().ci).toEqual({
      created: ['.github/CODEOWNERS (git-learn block appended)'],
      existing: ['.github/workflows/git-learn.yml'],
      pinned: false,
    })
    expect(repo.read('.github/CODEOWNERS')).toMatch(/^\* @someone\n\n# git-learn/)
  })
  test("a new git worktree where husky's .husky/_ does not exist: install and doctor warn with the fix, exit 0", async () => {
    const repo = makeRepo()
    const husky = join(PROJECT_ROOT, 'node_modules', 'husky', 'bin.js')
    expect(spawnSync(process.execPath, [husky], { cwd: repo.root }).status).toBe(0)
    expect((await repo.cli(['init', '--hooks'])).code).toBe(0)
    repo.git('add', '.')
    repo.git('commit', '-qm', 'hooks', '--no-verify')
    const wt = join(tempDir('gl-wt-'), 'second')
    repo.git('worktree', 'add', '-q', '-b', 'second', wt)
    expect(existsSync(join(wt, '.husky', '_'))).toBe(false)

    const warning = `warning: core.hooksPath is ".husky/_", which does not exist in this worktree (${join(wt, '.husky', '_')}): git runs no hook here, so no git learn guard runs; husky makes that folder and gitignores it, so a new \`git worktree\` lacks it: run \`npx husky\` in this worktree (\`npm install\` does when package.json has "prepare": "husky").\n`
    const install = await cliAt(wt, ['hook', 'install'])
    expect(install.stderr).toBe(warning)
    expect(install.code).toBe(0)
    const json = await cliAt(wt, ['hook', 'install', '--json'])
    expect(json.json().missingHooksPath).toMatchObject({ hooksPath: '.husky/_', husky: true })
    const doctor = await cliAt(wt, ['doctor'])
    expect(doctor.stderr).toBe(warning)
    expect(doctor.stdout).toMatch(/^Nothing half done/)
    expect(doctor.code).toBe(0)
    // The checkout where husky ran has it: no warning there; and none in the worktree once husky ran in it.
    expect((await repo.cli(['doctor'])).stderr).toBe('')
    expect((await repo.cli(['hook', 'install'])).stderr).toBe('')
    expect(spawnSync(process.execPath, [husky], { cwd: wt }).status).toBe(0)
    expect((await cliAt(wt, ['doctor'])).stderr).toBe('')
  })

  test('another configured hooks path missing here: doctor warns, and hook install writes the guards there', async () => {
    const repo = makeRepo()
    repo.git('config', 'core.hooksPath', '.githooks')
    const doctor = await repo.cli(['doctor'])
    expect(doctor.stderr).toMatch(
      /^warning: core.hooksPath is ".githooks", which does not exist in this worktree .*run `git learn hook install` in this worktree/,
    )
    expect(doctor.code).toBe(0)
    const install = await repo.cli(['hook', 'install'])
    expect(install.stderr).toBe('')
    expect(repo.exists('.githooks/pre-commit')).toBe(true)
    expect((await repo.cli(['doctor'])).stderr).toBe('')
  })

  test('a hooks path under ~/ is read as git reads it: no false warning, the guards go there, a missing one is named', async () => {
    const home = tempDir('gl-home-')
    mkdirSync(join(home, '.githooks'))
    // git expands `~/` from HOME, which the git processes of the in-process commands inherit.
    vi.stubEnv('HOME', home)
    try {
      const repo = makeRepo()
      repo.git('config', 'core.hooksPath', '~/.githooks')
      const doctor = await repo.cli(['doctor'])
      expect(doctor.stderr).toBe('')
      expect(doctor.code).toBe(0)
      const install = await repo.cli(['hook', 'install', '--json'])
      expect(install.stderr).toBe('')
      expect(install.json().missingHooksPath).toBeUndefined()
      expect(existsSync(join(home, '.githooks', 'pre-commit'))).toBe(true)
      expect(repo.exists('~')).toBe(false)
      expect((await repo.cli(['init', '--hooks'])).stderr).not.toMatch(/core\.hooksPath/)
      repo.git('config', 'core.hooksPath', '~/.elsewhere')
      expect((await repo.cli(['doctor'])).stderr).toContain(
        `core.hooksPath is "~/.elsewhere", which does not exist in this worktree (${join(home, '.elsewhere')})`,
      )
    } finally {
      vi.unstubAllEnvs()
    }
  })
})

describe('a core.hooksPath every repository shares', () => {
  /** A home whose global config sets core.hooksPath to `value` (a folder that exists), for the test's git processes. */
  function sharedHome(value = '~/.githooks'): { home: string; hooks: string } {
    const home = tempDir('gl-home-')
    mkdirSync(join(home, '.githooks'))
    writeFileSync(join(home, '.gitconfig'), `[core]\n\thooksPath = ${value}\n`)
    vi.stubEnv('HOME', home)
    return { home, hooks: join(home, '.githooks') }
  }

  test('hook install refuses a global one, says where it is set and the two ways on; --force installs there', async () => {
    try {
      const { home, hooks } = sharedHome()
      const repo = makeRepo()
      const r = await repo.cli(['hook', 'install'])
      expect(r.code).toBe(1)
      expect(r.stderr).toContain(`core.hooksPath is "~/.githooks" (${hooks}), set in your global git config`)
      expect(r.stderr).toContain(join(home, '.gitconfig'))
      expect(r.stderr).toContain('every repository')
      expect(r.stderr).toContain('`git config core.hooksPath .git/hooks`, then `git learn hook install` again')
      expect(r.stderr).toContain('`git learn hook install --force`')
      expect(readdirSync(hooks)).toEqual([])
      const json = await repo.cli(['hook', 'install', '--json'])
      expect(json.json().error).toMatchObject({ kind: 'SharedHooksPathError', code: 1, scope: 'global' })

      const forced = await repo.cli(['hook', 'install', '--force'])
      expect(forced.code).toBe(0)
      expect(existsSync(join(hooks, 'pre-commit'))).toBe(true)

      // The way to install for this repository only.
      const other = makeRepo()
      other.git('config', 'core.hooksPath', '.git/hooks')
      expect((await other.cli(['hook', 'install'])).code).toBe(0)
      expect(other.exists('.git/hooks/pre-commit')).toBe(true)
    } finally {
      vi.unstubAllEnvs()
    }
  })

  test('init --hooks refuses it before writing anything', async () => {
    try {
      const { hooks } = sharedHome()
      const repo = makeRepo()
      const before = repo.snapshot()
      const r = await repo.cli(['init', '--hooks'])
      expect(r.code).toBe(1)
      expect(r.stderr).toContain('then `git learn init --hooks` again')
      expect(r.stderr).toContain('`git learn init` without --hooks, then `git learn hook install --force`')
      expect(repo.snapshot()).toBe(before)
      expect(repo.exists('.learnings')).toBe(false)
      expect(readdirSync(hooks)).toEqual([])
    } finally {
      vi.unstubAllEnvs()
    }
  })

  test('one set in a file included from outside the repository is shared too; a relative or local one is not', async () => {
    const outside = tempDir('gl-inc-')
    mkdirSync(join(outside, 'hooks'))
    writeFileSync(join(outside, 'hooks.inc'), `[core]\n\thooksPath = ${join(outside, 'hooks')}\n`)
    const repo = makeRepo()
    repo.git('config', 'include.path', join(outside, 'hooks.inc'))
    const r = await repo.cli(['hook', 'install'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`set in a file this repository's config includes (${join(outside, 'hooks.inc')})`)
    expect(readdirSync(join(outside, 'hooks'))).toEqual([])
    // This repository's own config naming the same folder is its own choice.
    repo.git('config', '--unset', 'include.path')
    repo.git('config', 'core.hooksPath', join(outside, 'hooks'))
    expect((await repo.cli(['hook', 'install'])).code).toBe(0)
    expect(existsSync(join(outside, 'hooks', 'pre-commit'))).toBe(true)
    try {
      // A relative one in the global config is each repository's own folder (husky's `.husky/_` is read the same way).
      sharedHome('.githooks')
      const rel = makeRepo()
      expect((await rel.cli(['hook', 'install'])).code).toBe(0)
      expect(rel.exists('.githooks/pre-commit')).toBe(true)
    } finally {
      vi.unstubAllEnvs()
    }
  })
})
