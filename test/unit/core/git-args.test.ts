import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { readStale } from '../../../src/adapters/git/fast.js'
import { findUrlCredentials, isCommitId } from '../../../src/core/git-args.js'
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

  // A tier URL is written to config.yaml and committed: a credential in it is refused (flows/tier.ts).
  test.each([
    [
      'https://x-access-token:ghp_R8fK2mXq9LsV4tYw7ZbN3cJ6hD1pGe5aUo0i@github.com/org/learn.git',
      ['url-credentials', 'github-token'],
    ],
    ['https://oauth2:hunter2@gitlab.example.com/org/learn.git', ['url-credentials']],
    ['https://ghp_R8fK2mXq9LsV4tYw7ZbN3cJ6hD1pGe5aUo0i@github.com/org/learn.git', ['github-token']],
    ['https://github.com/org/learn.git', []],
    ['ssh://git@github.com/org/learn.git', []],
    ['git@github.com:org/learn.git', []],
    ['/srv/git/org.git', []],
    ['https://github.com/org/learn.git?a=b:c@d', []],
  ])('findUrlCredentials(%s) finds %j', (url, rules) => {
    const found = findUrlCredentials(url)
    expect(found.map((f) => f.rule)).toEqual(rules)
    for (const f of found) expect(url).not.toContain(f.masked.replace(/…/, '')) // masked, never the value
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
    expect(readStale(root, [{ name: 'x', commit: `--output=${victim}`, paths: ['README.md'] }])).toEqual({ stale: [] })
    expect(existsSync(victim)).toBe(false)
  })
})
