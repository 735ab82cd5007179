import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { PROJECT_ROOT, makeRepo } from '../helpers/repo.js'

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
  expect(runs.slice(1).every((line) => line?.startsWith('./node_modules/.bin/git-learn check '))).toBe(true)
  expect(runs.join('\n')).not.toMatch(/npx|npm (i|install|exec)\b|dlx/)

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
