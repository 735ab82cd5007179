import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { readStale } from '../../../src/adapters/git/fast.js'
import { isCommitId } from '../../../src/core/git-args.js'
import { parseLearning } from '../../../src/core/learning.js'
import { buildCatalogEntry } from '../../../src/core/search.js'
import { learningText, tempDir } from '../../helpers/repo.js'

describe('git arguments from hostile files', () => {
  test.each([
    ['3f2c1e9', true],
    ['0123456789abcdef0123456789abcdef01234567', true],
    ['--output=/tmp/x', false],
    ['-p', false],
    ['HEAD', false],
    ['abc', false],
    ['3F2C1E9', false],
    ['3f2c1e9\n--output=/tmp/x', false],
    [42, false],
  ])('isCommitId(%j) is %s', (value, ok) => {
    expect(isCommitId(value)).toBe(ok)
  })

  test('the catalog keeps only a hex evidence.commit', () => {
    const text = learningText('pinned', {}).replace(
      'created:',
      'evidence:\n  commit: "--output=/tmp/pwned"\n  paths: [README.md]\ncreated:',
    )
    const entry = buildCatalogEntry(parseLearning(text, '.learnings/active/pinned.md'), 'project', 1)
    expect(entry.evidenceCommit).toBeNull()
    expect(entry.evidencePaths).toEqual(['README.md'])
  })

  test('readStale never passes an option-like commit to git', () => {
    const root = tempDir('gl-stale-')
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root })
    const victim = join(tempDir('gl-victim-'), 'out')
    expect(readStale(root, [{ name: 'x', commit: `--output=${victim}`, paths: ['README.md'] }])).toEqual([])
    expect(existsSync(victim)).toBe(false)
  })
})
