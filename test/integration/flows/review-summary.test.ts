import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { learningText, makeRepo, tempDir } from '../../helpers/repo.js'

// `check --base … --format github` on a pull request also writes the reviewer's view to $GITHUB_STEP_SUMMARY.

const TOKEN = `ghp_${'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa'.slice(0, 36)}`

test('each learning the pull request adds, moves or edits, with type, trigger, gates, near-duplicates, secrets and staleness', async () => {
  const repo = makeRepo()
  repo.write('.learnings/active/widget-cache-stale.md', learningText('widget-cache-stale'))
  repo.write(
    '.learnings/pending/gizmo-timeout.md',
    learningText('gizmo-timeout', { description: 'Fix the gizmo timing out. Use when the gizmo times out.' }),
  )
  repo.git('add', '.')
  repo.git('commit', '-qm', 'seed')
  repo.git('checkout', '-qb', 'pr')
  // A near twin of widget-cache-stale (same body, the name and trigger changed) and a leaked token in another.
  repo.write(
    '.learnings/pending/widget-cache-stale-again.md',
    learningText('widget-cache-stale-again', { trigger: 'Error: widget-cache-stale exploded at line 3' }),
  )
  repo.write(
    '.learnings/pending/leaky-one.md',
    learningText(
      'leaky-one',
      {},
      `## Problem\nx\n\n## Trigger Conditions\ny\n\n## Root Cause\nWe tried A.\n\n## Solution\nexport GITHUB_TOKEN=${TOKEN}\n\n## Verification\nok\n`,
    ),
  )
  repo.git('mv', '.learnings/pending/gizmo-timeout.md', '.learnings/active/gizmo-timeout.md')
  repo.git('add', '.')
  repo.git(
    'commit',
    '-qm',
    'learn: approve gizmo-timeout\n\nLearning: gizmo-timeout\nLearning-Action: approve\nLearning-From: pending\nLearning-To: active\nApproved-by: Bob <bob@example.com>',
  )
  const summary = join(tempDir('gl-summary-'), 'summary.md')
  writeFileSync(summary, '# earlier step\n')
  const r = await repo.cli(['check', '--base', 'main', '--format', 'github'], { env: { GITHUB_STEP_SUMMARY: summary } })
  expect(r.code).toBe(1) // the token is an error
  const md = readFileSync(summary, 'utf8')
  expect(md.startsWith('# earlier step\n')).toBe(true)
  expect(md).toContain('## git-learn: 3 learnings in this pull request (since main)')
  expect(md).toMatch(
    /\| gizmo-timeout \| pending → active \| error-solution \| Error: gizmo-timeout exploded at line 3 \| depth ✅ reuse ✅ trigger ✅ verify ✅ \|/,
  )
  expect(md).toMatch(
    /\| widget-cache-stale-again \| added to pending \| error-solution \| .* \| widget-cache-stale \(\d+%\)[,|]/,
  )
  expect(md).toMatch(/Near widget-cache-stale \(\d+% similar\):\n\n```+diff\n/)
  expect(md).toMatch(/\| leaky-one \| added to pending \|.*\| ❌ 1 \|/)
  expect(md).toMatch(/- secret: .*GitHub/)
  expect(md).not.toContain(TOKEN)
  // Without the summary file (not on GitHub) nothing is written anywhere, and text output is unchanged.
  const plain = await repo.cli(['check', '--base', 'main', '--format', 'github'])
  expect(plain.stdout).toBe(r.stdout)
})
