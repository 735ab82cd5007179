/**
 * The compare-and-swap that moves the branch (src/adapters/git/commit.ts swapRef): a lost race is a false, to be
 * retried on the new HEAD; a lock file left on the branch is an error that names it, never taken for a lost race.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { swapRef } from '../../../../src/adapters/git/commit.js'
import { RefLockedError } from '../../../../src/core/errors.js'
import { makeRepo } from '../../../helpers/repo.js'

function twoCommits() {
  const repo = makeRepo()
  const first = repo.git('rev-parse', 'HEAD').trim()
  repo.git('commit', '-q', '--allow-empty', '-m', 'second')
  const second = repo.git('rev-parse', 'HEAD').trim()
  return { repo, first, second, zero: '0'.repeat(first.length) }
}

test('another process moved the branch first: false, and the branch is where it moved', async () => {
  const { repo, first, second, zero } = twoCommits()
  expect(await swapRef(repo.root, 'refs/heads/main', first, first, zero, 'test')).toBe(false)
  expect(repo.git('rev-parse', 'HEAD').trim()).toBe(second)
})

test("a lock file left on the branch throws RefLockedError with the lock's path, the branch untouched", async () => {
  const { repo, first, second, zero } = twoCommits()
  const lock = join(repo.root, '.git/refs/heads/main.lock')
  writeFileSync(lock, '')
  const err = await swapRef(repo.root, 'refs/heads/main', first, second, zero, 'test').catch((e: unknown) => e)
  expect(err).toBeInstanceOf(RefLockedError)
  expect(err).toMatchObject({ ref: 'refs/heads/main', lock })
  expect(repo.git('rev-parse', 'HEAD').trim()).toBe(second)
})
