import { describe, expect, test } from 'vitest'
import { parseLearning } from '../../../../src/core/learning.js'
import { dedupeDrafts } from '../../../../src/core/retro/dedupe-drafts.js'
import { learningText } from '../../../helpers/repo.js'

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
