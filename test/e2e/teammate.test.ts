import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, readFileSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { CLAUDE_HOOKS } from '../../src/adapters/agents/claude-settings.js'
import { HUSKY_LINES, MERGE_NOT_CHECKED, NOT_INSTALLED, ZONES_NOT_CHECKED } from '../../src/adapters/git/hooks.js'
import { PROJECT_ROOT, learningText, makeRepo, sh, tempDir } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

// A teammate who never installed git-learn (or whose checkout predates it) commits through the hooks the team
// committed, and their agent runs the hooks in .claude/settings.json: nothing may fail or start Node for them.

/** PATH with git and sh but no git-learn; `spy` adds a fake git-learn that only records that it was started. */
function teammateEnv(spy?: string): Record<string, string> {
  const path = (process.env['PATH'] ?? '').split(':').filter((d) => !existsSync(join(d, 'git-learn')))
  if (spy) {
    const dir = tempDir('gl-spy-')
    writeFileSync(join(dir, 'git-learn'), `#!/bin/sh\necho "$@" >> "${spy}"\n`)
    chmodSync(join(dir, 'git-learn'), 0o755)
    path.unshift(dir)
  }
  return { PATH: path.join(':') }
}

function run(repo: TestRepo, cmd: string, args: string[], env: Record<string, string>) {
  const r = spawnSync(cmd, args, { cwd: repo.root, encoding: 'utf8', env: { ...process.env, ...env } })
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }
}

function commitCode(repo: TestRepo, env: Record<string, string>, file = 'src/app.js') {
  repo.write(file, `console.log(${Date.now() % 1000})\n`)
  repo.git('add', file)
  return run(repo, 'git', ['commit', '-q', '-m', `change ${file}`], env)
}

function stageLearning(repo: TestRepo, name = 'teammate-one') {
  repo.write(`.learnings/pending/${name}.md`, learningText(name))
  repo.git('add', `.learnings/pending/${name}.md`)
}

describe('hooks for a teammate without git-learn', () => {
  test('githooks shims: code commits start nothing; a staged learning gets one sentence, not exit 127', () => {
    const repo = makeRepo()
    expect(sh(repo.root, 'git', ['learn', 'init', '--hooks']).code).toBe(0)
    repo.git('add', '.learnings')
    expect(sh(repo.root, 'git', ['commit', '-qm', 'learn: init']).code).toBe(0)

    // With a git-learn on PATH that records its calls: a commit of code never starts it (no Node for a code commit).
    const calls = join(tempDir('gl-calls-'), 'calls')
    const spied = commitCode(repo, teammateEnv(calls))
    expect(spied.code).toBe(0)
    expect(existsSync(calls)).toBe(false)
    // A change under .claude/skills (a guarded zone) does start it.
    repo.write('.claude/skills/x/SKILL.md', '# x\n')
    repo.git('add', '.claude')
    expect(run(repo, 'git', ['commit', '-qm', 'skill'], teammateEnv(calls)).code).toBe(0)
    expect(readFileSync(calls, 'utf8')).toMatch(/^check --staged$/m)

    const none = teammateEnv()
    const code = commitCode(repo, none, 'src/other.js')
    expect(code).toEqual({ code: 0, stdout: '', stderr: '' })

    stageLearning(repo)
    const refused = run(repo, 'git', ['commit', '-q', '-m', 'add a learning'], none)
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim()).toBe(NOT_INSTALLED)
    expect(repo.git('log', '-1', '--format=%s').trim()).toBe('change src/other.js')
  })

  test('husky lines: the same, through real husky 9', () => {
    const repo = makeRepo()
    expect(sh(repo.root, process.execPath, [join(PROJECT_ROOT, 'node_modules', 'husky', 'bin.js')]).code).toBe(0)
    expect(sh(repo.root, 'git', ['learn', 'init', '--hooks']).code).toBe(0)
    expect(repo.read('.husky/pre-commit')).toContain(HUSKY_LINES['pre-commit'])
    repo.git('add', '.learnings', '.husky')
    expect(sh(repo.root, 'git', ['commit', '-qm', 'learn: init']).code).toBe(0)

    const calls = join(tempDir('gl-calls-'), 'calls')
    expect(commitCode(repo, teammateEnv(calls)).code).toBe(0)
    expect(existsSync(calls)).toBe(false)

    const none = teammateEnv()
    expect(commitCode(repo, none, 'src/other.js')).toEqual({ code: 0, stdout: '', stderr: '' })
    stageLearning(repo)
    const refused = run(repo, 'git', ['commit', '-q', '-m', 'add a learning'], none)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(NOT_INSTALLED)
    expect(refused.stderr).not.toMatch(/not found|127/)

    // With git-learn there, the same commit goes through the real check.
    const ok = sh(repo.root, 'git', ['commit', '-q', '-m', 'add a learning'])
    expect(ok.stderr).toBe('')
    expect(ok.code).toBe(0)
  })

  test.each(['shims', 'husky'])(
    '%s: a teammate without git-learn finishes a merge of main that brings learnings, conflicted or not',
    (setup) => {
      const repo = makeRepo()
      if (setup === 'husky')
        expect(sh(repo.root, process.execPath, [join(PROJECT_ROOT, 'node_modules', 'husky', 'bin.js')]).code).toBe(0)
      expect(sh(repo.root, 'git', ['learn', 'init', '--hooks']).code).toBe(0)
      repo.write('src/app.js', 'one\n')
      repo.git('add', '.')
      expect(sh(repo.root, 'git', ['commit', '-qm', 'learn: init']).code).toBe(0)
      repo.git('branch', 'feature')
      repo.git('branch', 'other')
      // main gets a learning (with git-learn) and a change to src/app.js.
      repo.write('draft.md', learningText('from-main'))
      expect(sh(repo.root, 'git', ['learn', 'add', '--file', 'draft.md']).code).toBe(0)
      repo.write('src/app.js', 'main\n')
      repo.git('commit', '-qam', 'main edits app')

      const none = teammateEnv()
      // A merge without conflicts: pre-merge-commit and commit-msg let it through with one line.
      repo.git('checkout', '-q', 'other')
      expect(commitCode(repo, none, 'src/b.js').code).toBe(0)
      const clean = run(repo, 'git', ['merge', '-q', '--no-edit', 'main'], none)
      expect(clean.stderr).toBe(`${MERGE_NOT_CHECKED}\n`)
      expect(clean.code).toBe(0)
      expect(repo.exists('.learnings/pending/from-main.md')).toBe(true)
      expect(repo.git('rev-list', '--parents', '-1', 'HEAD').trim().split(' ')).toHaveLength(3)

      // A conflicted merge, concluded with git commit: pre-commit runs (MERGE_HEAD) and lets it through too.
      repo.git('checkout', '-q', 'feature')
      repo.write('src/app.js', 'feature\n')
      repo.git('commit', '-qam', 'feature edits app')
      const conflicted = run(repo, 'git', ['merge', '-q', '--no-edit', 'main'], none)
      expect(conflicted.code).not.toBe(0)
      repo.write('src/app.js', 'both\n')
      repo.git('add', 'src/app.js')
      const concluded = run(repo, 'git', ['commit', '-q', '--no-edit'], none)
      expect(concluded.stderr).toBe(`${MERGE_NOT_CHECKED}\n`)
      expect(concluded.code).toBe(0)
      expect(repo.git('status', '--porcelain', '--untracked-files=no')).toBe('')

      // A plain commit that stages a learning is still refused.
      stageLearning(repo)
      const refused = run(repo, 'git', ['commit', '-q', '-m', 'add a learning'], none)
      expect(refused.stderr).toContain(NOT_INSTALLED)
      expect(refused.code).toBe(1)
    },
  )

  test.each(['shims', 'husky'])(
    '%s: without git-learn, settings under .claude/ and a config with zones of its own commit as before; learnings do not',
    (setup) => {
      const repo = makeRepo()
      if (setup === 'husky')
        expect(sh(repo.root, process.execPath, [join(PROJECT_ROOT, 'node_modules', 'husky', 'bin.js')]).code).toBe(0)
      expect(sh(repo.root, 'git', ['learn', 'init', '--hooks']).code).toBe(0)
      // A zone of the team's own: the shell cannot read its glob, so the husky line's fast exit does not apply.
      const config = repo.read('.learnings/config.yaml')
      const zoned = config.replace(/^(\s*system:\s*\[)/m, '$1"tools/prompts/**", ')
      expect(zoned).not.toBe(config)
      repo.write('.learnings/config.yaml', zoned)
      repo.git('add', '.')
      expect(sh(repo.root, 'git', ['commit', '-qm', 'learn: init with a zone']).code).toBe(0)

      const none = teammateEnv()
      expect(commitCode(repo, none, 'src/other.js')).toEqual({ code: 0, stdout: '', stderr: '' })
      repo.write('.claude/settings.json', '{"permissions": {}}\n')
      repo.git('add', '.claude')
      const settings = run(repo, 'git', ['commit', '-q', '-m', 'agent settings'], none)
      expect(settings.stderr).toBe(`${ZONES_NOT_CHECKED}\n`)
      expect(settings.code).toBe(0)
      stageLearning(repo)
      const refused = run(repo, 'git', ['commit', '-q', '-m', 'add a learning'], none)
      expect(refused.stderr).toContain(NOT_INSTALLED)
      expect(refused.code).toBe(1)
    },
  )

  test('agent hooks run the project binary when there is one and nothing, quietly, when there is none', () => {
    const repo = makeRepo()
    repo.write('.learnings/active/agent-sees.md', learningText('agent-sees'))
    repo.git('add', '.learnings')
    repo.git('commit', '-qm', 'seed')
    const context = CLAUDE_HOOKS.find((h) => h.event === 'SessionStart')?.command as string
    const recall = CLAUDE_HOOKS.find((h) => h.event === 'PostToolUseFailure')?.command as string
    const payload = JSON.stringify({
      hook_event_name: 'PostToolUseFailure',
      tool_name: 'Bash',
      error: 'Error: agent-sees exploded at line 3',
      cwd: repo.root,
    })
    const env = { ...teammateEnv(), CLAUDE_PROJECT_DIR: repo.root }
    for (const command of [context, recall]) {
      const r = spawnSync('sh', ['-c', command], {
        cwd: repo.root,
        input: payload,
        encoding: 'utf8',
        env: { ...process.env, ...env },
      })
      expect({ code: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: '', stderr: '' })
    }
    // The project's own copy (node_modules/.bin/git-learn) is found without git-learn on PATH.
    mkdirSync(join(repo.root, 'node_modules', '.bin'), { recursive: true })
    symlinkSync(join(PROJECT_ROOT, 'dist', 'bin.js'), join(repo.root, 'node_modules', '.bin', 'git-learn'))
    const r = spawnSync('sh', ['-c', context], {
      cwd: repo.root,
      input: '{}',
      encoding: 'utf8',
      env: { ...process.env, ...env },
    })
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('agent-sees')
  })
})
