import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { PROJECT_ROOT, learningText, makeRepo } from '../helpers/repo.js'

// init keeps the project's prettier off .learnings/: a teammate's own commit (a local squash merge, an edit) would
// otherwise rewrite a learning after its review, and `prettier --check .` in CI would fail on what git learn committed.

const UNFORMATTED = `## Problem\nIt *broke*.\n\n## Trigger Conditions\n* Running the tests.\n\n## Root Cause\nWe tried A and B; the cause was C.\n\n## Solution\nDo D.\n\n## Verification\nnpx vitest run: 14 passed.\n`
const prettier = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, [join(PROJECT_ROOT, 'node_modules', 'prettier', 'bin', 'prettier.cjs'), ...args], {
    cwd,
    encoding: 'utf8',
  })

test('a project that uses prettier gets .learnings/ in .prettierignore, once; prettier then leaves learnings alone', async () => {
  const repo = makeRepo()
  repo.write('package.json', JSON.stringify({ name: 'app', devDependencies: { prettier: '3.0.0' } }))
  const first = await repo.cli(['init', '--json'])
  expect(first.code).toBe(0)
  expect(first.json().created).toContain('.prettierignore')
  expect(repo.read('.prettierignore')).toMatch(/^\.learnings\/$/m)
  const again = await repo.cli(['init', '--json'])
  expect(again.json()).toMatchObject({ created: [], updated: [] })
  expect(repo.read('.prettierignore').match(/\.learnings/g)).toHaveLength(1)

  repo.write('draft.md', learningText('raw-thing', {}, UNFORMATTED))
  repo.git('add', '-A')
  repo.git('commit', '-qm', 'store')
  expect((await repo.cli(['add', '--file', 'draft.md'])).code).toBe(0)
  const file = '.learnings/pending/raw-thing.md'
  const before = repo.read(file)
  expect(prettier(repo.root, '--write', file).status).toBe(0)
  expect(repo.read(file)).toBe(before)
  const check = prettier(repo.root, '--check', '.learnings')
  expect(check.status, check.stdout + check.stderr).toBe(0)
})

test('an existing .prettierignore is appended to, nothing else changed; a project without prettier gets none', async () => {
  const repo = makeRepo()
  repo.write('.prettierignore', 'dist')
  const r = await repo.cli(['init', '--json'])
  expect(r.json().updated).toEqual(['.prettierignore'])
  expect(repo.read('.prettierignore')).toMatch(/^dist\n# git learn: .*\n\.learnings\/\n$/)
  const text = await repo.cli(['init'])
  expect(text.stdout).toMatch(/already set up/)

  const plain = makeRepo()
  expect((await plain.cli(['init'])).code).toBe(0)
  expect(plain.exists('.prettierignore')).toBe(false)
})
