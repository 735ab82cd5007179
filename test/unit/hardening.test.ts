import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { readStale } from '../../src/adapters/git/fast.js'
import { readFileBounded } from '../../src/adapters/store/read-bounded.js'
import { isCommitId } from '../../src/core/git-args.js'
import { parseLearning } from '../../src/core/learning.js'
import { dedupeDrafts } from '../../src/core/retro/dedupe-drafts.js'
import { buildCatalogEntry } from '../../src/core/search.js'
import { learningText, tempDir } from '../helpers/repo.js'

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

describe('readFileBounded', () => {
  test('/dev/zero ends after limit + 1 bytes', () => {
    const r = readFileBounded('/dev/zero', 1000)
    expect(r).toMatchObject({ over: true, regular: false, size: undefined })
    expect(r.bytes.length).toBe(1000)
  })

  test('a FIFO fed forever ends too', () => {
    const dir = tempDir('gl-fifo-')
    const fifo = join(dir, 'pipe')
    execFileSync('mkfifo', [fifo])
    // `yes` writes until its reader goes away (SIGPIPE once the read is done and the descriptor closed).
    const writer = spawn('sh', ['-c', `exec yes > '${fifo}'`], { stdio: 'ignore' })
    const r = readFileBounded(fifo, 4096)
    expect(r.over).toBe(true)
    expect(r.bytes.length).toBe(4096)
    writer.kill()
  })

  test('a small file is read whole; a large one reports its size and the first limit bytes', () => {
    const dir = tempDir('gl-read-')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'a'), 'hello')
    expect(readFileBounded(join(dir, 'a'), 5)).toMatchObject({ over: false, size: 5, regular: true })
    writeFileSync(join(dir, 'b'), 'x'.repeat(10))
    const r = readFileBounded(join(dir, 'b'), 4)
    expect(r).toMatchObject({ over: true, size: 10 })
    expect(r.bytes.toString()).toBe('xxxx')
    expect(readFileBounded('/dev/zero', 10, { regularOnly: true })).toMatchObject({ regular: false, over: false })
  })
})

describe('dedupeDrafts', () => {
  const draft = (name: string, trigger: string, solution: string) =>
    parseLearning(
      learningText(
        name,
        { trigger, description: `Fix ${trigger}. Use when it shows.` },
        `## Problem\nx\n\n## Trigger Conditions\nx\n\n## Root Cause\nWe tried A.\n\n## Solution\n${solution}\n\n## Verification\nok\n`,
      ),
      `.learnings/pending/${name}.md`,
    )
  const thresholds = { similar: 0.8, related: 0.5 }

  test('the same name twice: the first is kept', () => {
    const a = draft('fix-a', 'Error: one', 'Do one thing with the cache directory.')
    const b = draft('fix-a', 'Error: completely different', 'Restart the postgres container and wait for it.')
    const r = dedupeDrafts([a, b], thresholds)
    expect(r.kept).toEqual([a])
    expect(r.skipped).toEqual([{ name: 'fix-a', kind: 'same-name', of: 'fix-a' }])
  })

  test('near twins under different names: the first is kept, the second names it', () => {
    const a = draft(
      'fix-enospc',
      'Error: ENOSPC: no space left on device',
      'Prune docker images with docker system prune and retry the build.',
    )
    const b = draft(
      'fix-enospc-2',
      'Error: ENOSPC: no space left on device',
      'Prune docker images with docker system prune and retry the build.',
    )
    const c = draft(
      'fix-econnrefused',
      'Error: connect ECONNREFUSED 127.0.0.1:5432',
      'Start postgres with docker compose up -d db.',
    )
    const r = dedupeDrafts([a, b, c], thresholds)
    expect(r.kept.map((l) => l.name)).toEqual(['fix-enospc', 'fix-econnrefused'])
    expect(r.skipped).toEqual([
      { name: 'fix-enospc-2', kind: 'near-twin', of: 'fix-enospc', similarity: expect.any(Number) },
    ])
  })
})
