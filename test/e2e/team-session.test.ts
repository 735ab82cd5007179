import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { PROJECT_ROOT, learningText, tempDir } from '../helpers/repo.js'

// "Done when" of the team issue, as one scripted session: install from a tarball into a husky + lint-staged app,
// propose on a branch, review, squash merge locally and forge-style, approve as the reviewer, prune, clone fresh, run
// CI — a clean work tree at every step, the audit trail in `git learn log`, agents seeing exactly the active learnings.

const ADA = {
  GIT_AUTHOR_NAME: 'Ada Author',
  GIT_AUTHOR_EMAIL: 'ada@example.com',
  GIT_COMMITTER_NAME: 'Ada Author',
  GIT_COMMITTER_EMAIL: 'ada@example.com',
}
const BOB = {
  GIT_AUTHOR_NAME: 'Bob Reviewer',
  GIT_AUTHOR_EMAIL: 'bob@example.com',
  GIT_COMMITTER_NAME: 'Bob Reviewer',
  GIT_COMMITTER_EMAIL: 'bob@example.com',
}
const UNFORMATTED = (what: string) =>
  `## Problem\nThe ${what} *broke*.\n\n## Trigger Conditions\n* Running the tests.\n\n## Root Cause\nWe tried A and B; the cause was C.\n\n## Solution\nDo D.\n\n## Verification\nnpx vitest run: 14 passed.\n`

test(
  'a team adopts git-learn: install, propose, review, squash both ways, approve, prune, clone, CI',
  { timeout: 300_000 },
  () => {
    const top = tempDir('gl-team-')
    const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--pack-destination', top, '--json'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    })
    expect(pack.status, pack.stderr).toBe(0)
    const tarball = JSON.parse(pack.stdout)[0].filename as string
    const app = join(top, 'app')
    mkdirSync(app)
    const path = `${join(app, 'node_modules', '.bin')}:${process.env['PATH']}`
    const run = (cwd: string, cmd: string, args: string[], env: Record<string, string> = {}, input?: string) => {
      const r = spawnSync(cmd, args, {
        cwd,
        encoding: 'utf8',
        input,
        env: { ...process.env, PATH: path, npm_config_audit: 'false', npm_config_fund: 'false', ...env },
      })
      return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' }
    }
    const ok = (cwd: string, cmd: string, args: string[], env: Record<string, string> = {}, input?: string) => {
      const r = run(cwd, cmd, args, env, input)
      expect(r.code, `${cmd} ${args.join(' ')}\n${r.stdout}${r.stderr}`).toBe(0)
      return r
    }
    const clean = (cwd: string, step: string) =>
      expect(run(cwd, 'git', ['status', '--porcelain', '--untracked-files=all']).stdout, step).toBe('')
    const gl = (args: string[], env: Record<string, string> = {}, input?: string) =>
      ok(app, 'git-learn', args, env, input)

    // An existing app with husky 9, lint-staged and prettier on *.md; git-learn installed from the tarball.
    ok(app, 'git', ['init', '-q', '-b', 'main'])
    ok(app, 'git', ['config', 'commit.gpgsign', 'false'])
    writeFileSync(
      join(app, 'package.json'),
      `${JSON.stringify({ name: 'app', private: true, 'lint-staged': { '*.md': 'prettier --write' } }, null, 2)}\n`,
    )
    writeFileSync(join(app, '.gitignore'), 'node_modules\n.claude/skills/\n')
    const husky = spawnSync('npm', ['ls', 'husky', 'lint-staged', 'prettier', '--json'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    })
    const versions = JSON.parse(husky.stdout).dependencies as Record<string, { version: string }>
    const devTools = ['husky', 'lint-staged', 'prettier'].map((n) => `${n}@${versions[n]?.version}`)
    ok(app, 'npm', ['install', '-D', '--prefer-offline', `../${tarball}`, ...devTools])
    ok(app, 'npx', ['husky', 'init'])
    writeFileSync(join(app, '.husky', 'pre-commit'), 'npx lint-staged\n')
    expect(gl(['--version']).stdout.trim()).toBe(
      `git-learn ${JSON.parse(spawnSync('cat', [join(PROJECT_ROOT, 'package.json')], { encoding: 'utf8' }).stdout).version}`,
    )
    gl(['init', '--hooks', '--ci', '--agent', 'claude'])
    ok(app, 'git', ['add', '-A'])
    ok(app, 'git', ['commit', '-qm', 'app with git-learn'], ADA)
    clean(app, 'init')
    const start = ok(app, 'git', ['rev-parse', 'HEAD']).stdout.trim()

    // Ada proposes two learnings, each on its branch; prettier formats them on the way in.
    for (const name of ['local-squash-thing', 'forge-squash-thing']) {
      ok(app, 'git', ['checkout', '-qb', `learn/${name}`])
      gl(['add', '--file', '-'], ADA, learningText(name, {}, UNFORMATTED(name)))
      clean(app, `add ${name}`)
      ok(app, 'git', ['checkout', '-q', 'main'])
    }
    // Bob reviews each branch as CI shows it on the pull request: the learning it adds, in the job summary.
    for (const name of ['local-squash-thing', 'forge-squash-thing']) {
      ok(app, 'git', ['checkout', '-q', `learn/${name}`])
      const summary = join(top, `summary-${name}.md`)
      const review = gl(['check', '--base', 'main', '--format', 'github'], { GITHUB_STEP_SUMMARY: summary })
      expect(review.stdout).not.toMatch(/::error/)
      expect(readFileSync(summary, 'utf8')).toMatch(new RegExp(`\\| ${name} \\| added to pending \\|`))
      clean(app, `review ${name}`)
      ok(app, 'git', ['checkout', '-q', 'main'])
    }
    const reviewed = ok(app, 'git', [
      'show',
      'learn/forge-squash-thing:.learnings/pending/forge-squash-thing.md',
    ]).stdout

    // Bob squash-merges: one locally (git's SQUASH_MSG), one as a forge does (bodies folded, indented).
    ok(app, 'git', ['merge', '--squash', '-q', 'learn/local-squash-thing'], BOB)
    ok(app, 'git', ['commit', '-q', '--no-edit'], BOB)
    clean(app, 'local squash')
    ok(app, 'git', ['merge', '--squash', '-q', 'learn/forge-squash-thing'], BOB)
    const body = ok(app, 'git', ['log', '-1', '--format=%B', 'learn/forge-squash-thing']).stdout
    const message = `Propose forge-squash-thing (#2)\n\n* ${body
      .split('\n')
      .map((l) => (l ? `  ${l}` : l))
      .join('\n')
      .trim()}\n`
    ok(app, 'git', ['commit', '-q', '-F', '-'], BOB, message)
    clean(app, 'forge squash')

    // The proposer cannot approve; the reviewer can, although he made the commits that added them.
    const self = run(app, 'git-learn', ['approve', 'local-squash-thing'], ADA)
    expect(self.code).toBe(1)
    expect(self.stderr).toMatch(/Ada Author <ada@example\.com> proposed "local-squash-thing"/)
    gl(['approve', 'local-squash-thing', 'forge-squash-thing'], BOB)
    clean(app, 'approve')

    // Agents see exactly the active learnings.
    gl(['render'])
    expect(readdirSync(join(app, '.claude', 'skills')).sort()).toEqual(['forge-squash-thing', 'local-squash-thing'])
    gl(['prune', 'local-squash-thing', '--reason', 'the framework fixed it', '--yes'], BOB)
    clean(app, 'prune')
    expect(readdirSync(join(app, '.claude', 'skills'))).toEqual(['forge-squash-thing'])
    const context = gl(['context', '--format', 'text']).stdout
    expect(context).toContain('forge-squash-thing')
    expect(context).not.toContain('local-squash-thing')

    // What reached active/ is byte for byte what was reviewed on the branch.
    expect(readFileSync(join(app, '.learnings', 'active', 'forge-squash-thing.md'), 'utf8')).toBe(reviewed)

    const trail = (cwd: string) =>
      (
        JSON.parse(ok(cwd, 'git-learn', ['log', '--json']).stdout).events as {
          name: string
          action: string
          by: string
        }[]
      ).map((e) => `${e.name} ${e.action} ${e.by}`)
    const log = trail(app)
    expect(log).toEqual([
      'local-squash-thing prune Bob Reviewer <bob@example.com>',
      'forge-squash-thing approve Bob Reviewer <bob@example.com>',
      'local-squash-thing approve Bob Reviewer <bob@example.com>',
      'forge-squash-thing add Ada Author <ada@example.com>',
      'local-squash-thing add Ada Author <ada@example.com>',
    ])

    // A fresh clone runs CI as the workflow does: npm ci from the lockfile, then the pinned binary.
    const clone = join(top, 'clone')
    ok(top, 'git', ['clone', '-q', app, clone])
    ok(clone, 'npm', ['ci', '--prefer-offline'])
    const ci = (args: string[]) => ok(clone, join(clone, 'node_modules', '.bin', 'git-learn'), args)
    expect(ci(['check', '--format', 'github']).stdout).not.toMatch(/::error/)
    const summary = join(top, 'summary-ci.md')
    const checked = ok(
      clone,
      join(clone, 'node_modules', '.bin', 'git-learn'),
      ['check', '--base', start, '--format', 'github'],
      {
        GITHUB_STEP_SUMMARY: summary,
      },
    )
    expect(checked.stdout).not.toMatch(/::error/)
    expect(readFileSync(summary, 'utf8')).toMatch(/\| forge-squash-thing \| added to active \|/)
    // The clone has the same audit trail, and its agents see exactly the active learnings too.
    expect(trail(clone)).toEqual(log)
    const cloneContext = ci(['context', '--format', 'text']).stdout
    expect(cloneContext).toContain('forge-squash-thing')
    expect(cloneContext).not.toContain('local-squash-thing')
    ci(['render'])
    expect(readdirSync(join(clone, '.claude', 'skills'))).toEqual(['forge-squash-thing'])
    const lint = spawnSync(
      process.execPath,
      [
        join(PROJECT_ROOT, 'node_modules', '@action-validator', 'cli', 'cli.mjs'),
        join(clone, '.github', 'workflows', 'git-learn.yml'),
      ],
      { encoding: 'utf8' },
    )
    expect(lint.status, lint.stdout + lint.stderr).toBe(0)
    clean(clone, 'clone')
    clean(app, 'end')
  },
)
