/** import (flows/import.ts): one atomic commit for the whole bundle, progress on stderr, warnings summed by kind. */
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { makeRepo, tempDir } from '../../helpers/repo.js'

const TOPICS = [
  'kafka',
  'docker',
  'vitest',
  'postgres',
  'redis',
  'webpack',
  'eslint',
  'jest',
  'nginx',
  'terraform',
  'helm',
  'gradle',
]

/** A bundle of `n` distinct learnings (each names two made-up tools, so no two are near twins). */
function bundle(n: number): string {
  const learnings = Array.from({ length: n }, (_, i) => {
    const a = `${TOPICS[i % TOPICS.length]}${i}`
    const b = `zq${(i * 7919).toString(36)}x`
    return {
      name: `imp-${i}`,
      frontmatter: {
        name: `imp-${i}`,
        description: `Fix the ${a} ${b} failure. Use when ${a} prints the ${b} error.`,
        type: 'error-solution',
        trigger: `Error: ${a} ${b} exploded`,
        domain: 'testing',
        tags: [a, b],
        created: '2026-11-20',
        gates: { discovery_depth: 2, reusability: [a, b], verification: `${a} test: 3 passed` },
      },
      body: `## Problem\n${a} breaks with ${b}.\n\n## Trigger Conditions\nRunning ${a}.\n\n## Root Cause\nWe tried ${a} flags and ${b} pins; the cause was the ${b} cache.\n\n## Solution\nClear the ${b} cache of ${a}.\n\n## Verification\n${a} test: 3 passed.\n`,
    }
  })
  const file = join(tempDir('gl-bundle-'), 'bundle.json')
  writeFileSync(
    file,
    JSON.stringify({ format: 'git-learn-bundle', version: 1, exported: '2026-11-20T00:00:00Z', learnings }),
  )
  return file
}

describe('import of many entries', () => {
  test('150 entries: one commit of exactly their files, counts on stderr when piped, warnings summed by kind', async () => {
    const repo = makeRepo()
    repo.write('staged.txt', 'mine\n')
    repo.git('add', 'staged.txt')
    const file = bundle(150)
    const r = await repo.cli(['import', file, '--force'])
    expect(r.code, r.stderr).toBe(0)
    expect(repo.git('rev-list', '--count', 'HEAD').trim()).toBe('2')
    const files = repo.git('show', '--name-only', '--format=', 'HEAD').trim().split('\n')
    expect(files).toHaveLength(150)
    expect(files.every((f) => f.startsWith('.learnings/pending/imp-'))).toBe(true)
    expect(repo.git('status', '--porcelain').trim()).toBe('A  staged.txt')
    expect(r.stderr).toMatch(/^importing 150 entries from .*\nimporting: 15\/150\n/)
    expect(r.stderr).toMatch(/importing: 150\/150\n/)
    // One line per kind of warning, never one per entry.
    expect(r.stderr.split('\n').filter((l) => l.startsWith('warning:')).length).toBeLessThan(5)
    expect(r.stdout).toMatch(/added\s+150/)
    const json = await makeRepo().cli(['import', file, '--force', '--json'])
    expect(json.stderr).toBe('')
    expect(json.json().warnings).toBeInstanceOf(Array)
  })

  test('an import refused at the last step (a reference-transaction hook) leaves the repository exactly as it was', async () => {
    const repo = makeRepo()
    repo.write('.git/hooks/reference-transaction', '#!/bin/sh\n[ "$1" = prepared ] || exit 0\nexit 1\n')
    chmodSync(join(repo.root, '.git/hooks/reference-transaction'), 0o755)
    const snap = repo.snapshot()
    const r = await repo.cli(['import', bundle(120), '--force'])
    expect(r.code).toBe(3)
    expect(repo.snapshot()).toBe(snap)
    expect(repo.exists('.learnings/pending')).toBe(false)
  })
})
