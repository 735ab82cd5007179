/**
 * The store the lifecycle-at-scale integration tests share (prune, evolve, export/import, tier): learnings that pass
 * the gates of `add`, committed straight into active/ with an approval commit of a chosen date.
 */
import { execFileSync } from 'node:child_process'
import type { TestRepo } from './repo.js'

export const NOW = new Date('2026-11-20T12:00:00Z')

/** A learning that passes the gates of `add`, with its own words so no two are near duplicates. */
export function good(
  name: string,
  o: { tags?: string[]; topic?: string; confidence?: number; domain?: string; extra?: string } = {},
): string {
  const topic = o.topic ?? name.replace(/-/g, ' ')
  const tags = o.tags ?? [name.split('-')[0] as string, 'ci']
  return `---
name: ${name}
description: "Fix the ${topic} failure. Use when the build prints the ${topic} error."
type: error-solution
trigger: "Error: ${topic} exploded at line 3"
domain: ${o.domain ?? 'testing'}
tags: [${tags.join(', ')}]
${o.confidence !== undefined ? `confidence: ${o.confidence}\n` : ''}gates:
  discovery_depth: 2
  reusability: [${tags.join(', ')}]
  verification: "npx vitest run — 14 passed"
created: "2026-01-01"
---
## Problem
The ${topic} step broke with a stack trace.${o.extra ?? ''}

## Trigger Conditions
Running the ${topic} job.

## Root Cause
We tried clearing the cache and pinning versions; the cause was the ${topic} config.

## Solution
Set the ${topic} option and rerun.

## Verification
npx vitest run: 14 passed.
`
}

/** Commit learnings straight into active/ with an approval commit dated `date`. */
export function seedActive(repo: TestRepo, learnings: Record<string, string>, date = '2026-01-01T10:00:00Z'): void {
  for (const [name, text] of Object.entries(learnings)) repo.write(`.learnings/active/${name}.md`, text)
  repo.git('add', '.learnings')
  const trailers = Object.keys(learnings)
    .map(
      (n) =>
        `Learning: ${n}\nLearning-Action: approve\nLearning-From: pending\nLearning-To: active\nApproved-by: Bo <bo@example.com>`,
    )
    .join('\n')
  execFileSync('git', ['commit', '-q', '-m', `learn: approve\n\n${trailers}`], {
    cwd: repo.root,
    env: { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
  })
}

export const soloConfig = (repo: TestRepo) => {
  repo.write('.learnings/config.yaml', '# team settings\napproval:\n  distinct_approver: false # solo\n')
  repo.git('add', '.learnings/config.yaml')
  repo.git('commit', '-q', '-m', 'config')
}

export const lastMessage = (repo: TestRepo, rev = 'HEAD') => repo.git('log', '-1', '--format=%B', rev)
export const changedIn = (repo: TestRepo, rev = 'HEAD') =>
  repo.git('show', '--name-status', '--format=', rev).trim().split('\n').sort()
