// src/adapters/store/validators.ts in the built package: the precompiled validators are the only ones; a damaged
// one is an error that names it, never a silent compile of the schema at run time.
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { copyPackage, learningText, makeRepo, sh } from '../helpers/repo.js'

test.each([
  ['missing', (file: string) => rmSync(file)],
  ['broken', (file: string) => writeFileSync(file, 'module.exports = 42\n')],
])('a %s generated validator fails loudly, naming the file', (_what, damage) => {
  const pkg = copyPackage()
  const repo = makeRepo()
  const run = (...args: string[]) => sh(repo.root, process.execPath, [join(pkg, 'dist', 'bin.js'), ...args])
  expect(run('init').code).toBe(0)
  repo.write('d.md', learningText('redis-timeout-fix'))
  damage(join(pkg, 'dist', 'generated', 'learning-validator.cjs'))
  const r = run('add', '--file', 'd.md')
  expect(r.code).toBe(70)
  expect(r.stderr).toContain('learning-validator.cjs')
  expect(r.stderr).toContain('npm run build')
  expect(repo.git('status', '--porcelain', '--untracked-files=no')).toBe('')
})
