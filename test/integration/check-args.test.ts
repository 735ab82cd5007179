import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { readEvidenceChanges } from '../../src/adapters/git/fast.js'
import { learningText, makeRepo, tempDir } from '../helpers/repo.js'

// evidence.commit comes from a learning file: git must never read it as an option (`git diff --output=<file>`
// writes that file).
test('readEvidenceChanges ignores an option-like commit: no file is written', () => {
  const repo = makeRepo()
  const target = join(tempDir(), 'pwned')
  expect(readEvidenceChanges(repo.root, [{ commit: `--output=${target}`, paths: ['README.md'] }])).toEqual({
    changed: [undefined],
  })
  expect(existsSync(target)).toBe(false)
})

test('check over a learning with an option-like evidence.commit: a schema error, nothing written', async () => {
  const repo = makeRepo()
  const target = join(tempDir(), 'pwned')
  repo.write(
    '.learnings/active/evil.md',
    learningText('evil', { evidence: `{commit: "--output=${target}", paths: [README.md]}` }),
  )
  repo.git('add', '.')
  repo.git('commit', '-qm', 'evil')
  const r = await repo.cli(['check', '--json'])
  expect(existsSync(target)).toBe(false)
  expect(r.json().findings).toContainEqual(
    expect.objectContaining({ rule: 'schema', path: '.learnings/active/evil.md' }),
  )
})
