import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { mkdirSync, symlinkSync } from 'node:fs'
import { PROJECT_ROOT, learningText, makeRepo } from '../helpers/repo.js'

// The workflow `init --ci` writes, checked by a real workflow linter (@action-validator/cli, the GitHub workflow
// schema), and pinned: it installs from the lockfile and runs the local binary, never a registry name at run time.

const VALIDATOR = join(PROJECT_ROOT, 'node_modules', '@action-validator', 'cli', 'cli.mjs')

function lint(file: string) {
  const r = spawnSync(process.execPath, [VALIDATOR, file], { encoding: 'utf8' })
  return { code: r.status, out: r.stdout + r.stderr }
}

test('the workflow passes the linter, installs from the lockfile and runs the pinned binary', async () => {
  const repo = makeRepo()
  const r = await repo.cli(['init', '--ci'])
  expect(r.code).toBe(0)
  expect(r.stdout).toMatch(/package\.json does not list it yet: add it with `npm i -D/)
  const file = join(repo.root, '.github/workflows/git-learn.yml')
  expect(lint(file)).toMatchObject({ code: 0 })
  const wf = repo.read('.github/workflows/git-learn.yml')
  const runs = [...wf.matchAll(/^\s+run: (.*)$/gm)].map((m) => m[1])
  expect(runs[0]).toBe('npm ci')
  const calls = [...wf.matchAll(/^\s+(?:run: )?(\.\/node_modules\/\.bin\/\S+) /gm)].map((m) => m[1])
  expect(calls.length).toBe(3) // the pull request's, the push's with a commit before it, and without one
  expect(calls.every((c) => c === './node_modules/.bin/git-learn')).toBe(true)
  const code = wf.replace(/^\s*#.*$/gm, '')
  expect(code).not.toMatch(/npx|npm (i|install|exec)\b|dlx/)

  // The linter is real: the same file with a misspelt key fails it.
  repo.write('.github/workflows/broken.yml', wf.replace('runs-on:', 'runs_on:'))
  expect(lint(join(repo.root, '.github/workflows/broken.yml')).code).not.toBe(0)
})

test('with git-learn in package.json, init --ci has nothing to add about pinning', async () => {
  const repo = makeRepo()
  repo.write(
    'package.json',
    JSON.stringify({ name: 'app', devDependencies: { 'git-learn': 'file:../git-learn-0.1.0.tgz' } }),
  )
  const r = await repo.cli(['init', '--ci', '--json'])
  expect(r.json().ci.pinned).toBe(true)
})

/** The push step's script as the workflow holds it (the `run: |` block under "git learn check (push)"). */
function pushScript(wf: string): string {
  const lines = wf.split('\n')
  const step = lines.findIndex((l) => l.trim() === '- name: git learn check (push)')
  const run = lines.findIndex((l, i) => i > step && l.trim() === 'run: |')
  expect(step).toBeGreaterThan(0)
  expect(run).toBeGreaterThan(step)
  const indent = (l: string) => l.length - l.trimStart().length
  const body: string[] = []
  for (const l of lines.slice(run + 1)) {
    if (l.trim() && indent(l) <= indent(lines[run] ?? '')) break
    body.push(l.trim() ? l.slice(indent(lines[run] ?? '') + 2) : l)
  }
  return body.join('\n')
}

test('the push step checks the transitions since the commit before the push: a squash that dropped the trailers fails', async () => {
  const repo = makeRepo()
  expect((await repo.cli(['init', '--ci'])).code).toBe(0)
  repo.git('add', '-A')
  repo.git('commit', '-q', '-m', 'ci')
  const script = pushScript(repo.read('.github/workflows/git-learn.yml'))
  mkdirSync(join(repo.root, 'node_modules', '.bin'), { recursive: true })
  symlinkSync(join(PROJECT_ROOT, 'dist', 'bin.js'), join(repo.root, 'node_modules', '.bin', 'git-learn'))
  const before = repo.git('rev-parse', 'HEAD').trim()
  // A reviewed learning squash-merged with the pull request's title alone: in active/, with no approval's trailers.
  repo.write('.learnings/active/squashed-bare.md', learningText('squashed-bare'))
  repo.git('add', '.learnings')
  repo.git('commit', '-q', '--no-verify', '-m', 'Learn squashed-bare (#7)')
  const push = (b: string) =>
    spawnSync('bash', ['-c', script], { cwd: repo.root, encoding: 'utf8', env: { ...process.env, BEFORE: b } })
  const caught = push(before)
  expect(caught.status).toBe(1)
  expect(caught.stdout + caught.stderr).toMatch(/squashed-bare\.md was added straight into active\/.*squash merge/)
  // A new branch (all zeros) or a force push (not an ancestor): the store alone, which is valid.
  expect(push('0'.repeat(40)).status).toBe(0)
  repo.git('checkout', '-q', '--orphan', 'elsewhere')
  repo.git('commit', '-q', '--no-verify', '-m', 'unrelated history')
  const orphan = repo.git('rev-parse', 'HEAD').trim()
  repo.git('checkout', '-q', 'main')
  expect(push(orphan).status).toBe(0)
})
