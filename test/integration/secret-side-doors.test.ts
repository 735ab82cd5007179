import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { makeRepo, tempDir } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

// Built here so no credential-shaped literal sits in the repository.
const TOKEN = 'ghp_' + 'Wq7Lm2Xc9Vb4Nz8Kd3Pf6Hj1Rt5Ys0Ga2Ue8Io'
const SESSION = '5d0c9a7e-41b2-4c3d-9e8f-a1b2c3d4e5f6'
const NOW = new Date('2026-11-20T12:00:00Z')

const stateFile = (repo: TestRepo, name: string) => join(repo.root, '.git', 'learn', name)
const readState = (repo: TestRepo, name: string) =>
  existsSync(stateFile(repo, name)) ? readFileSync(stateFile(repo, name), 'utf8') : ''

function learning(name: string, o: { trigger?: string; extra?: string; session?: string } = {}): string {
  return `---
name: ${name}
description: "Fix the ${name.replace(/-/g, ' ')} failure. Use when the build prints the ${name.replace(/-/g, ' ')} error."
type: error-solution
trigger: "${o.trigger ?? `Error: ${name} exploded at line 3`}"
domain: testing
tags: [ci, docker]
confidence: 0.6
gates:
  discovery_depth: 2
  reusability: [ci, docker]
  verification: "npx vitest run — 14 passed"
${o.session ? `source: {kind: retrospective, agent: claude-code, session: ${o.session}}\n` : ''}created: "2026-01-01"
---
## Problem
The ${name} step broke with a stack trace.${o.extra ?? ''}

## Trigger Conditions
Running the ${name} job.

## Root Cause
We tried clearing the cache and pinning versions; the cause was the ${name} config.

## Solution
Set the ${name} option and rerun.

## Verification
npx vitest run: 14 passed.
`
}

describe('observe writes nothing unredacted', () => {
  test('a payload that is not JSON: the parse error quotes none of it, in observations.jsonl or observe.log', async () => {
    const repo = makeRepo()
    // V8's message for this input quotes the text around the fault, token included.
    const r = await repo.cli(['observe'], { stdin: `{"tool_name": "Bash", GITHUB_TOKEN=${TOKEN} oops` })
    expect(r.code).toBe(0)
    const observations = readState(repo, 'observations.jsonl')
    const log = readState(repo, 'observe.log')
    expect(JSON.parse(observations.trim()).parse_error).toMatch(/^payload is not JSON/)
    expect(log).toMatch(/payload is not JSON/)
    for (const text of [observations, log]) {
      expect(text).not.toContain(TOKEN)
      expect(text).not.toContain(TOKEN.slice(4, 20))
    }
  })

  test('observe.log redacts a message that carries a configured value', async () => {
    const repo = makeRepo()
    repo.write('.learnings/config.yaml', `observe:\n  max_field_bytes: "${TOKEN}"\n`)
    const r = await repo.cli(['observe'], { stdin: JSON.stringify({ session_id: 's1', hook_event_name: 'Stop' }) })
    expect(r.code).toBe(0)
    const log = readState(repo, 'observe.log')
    expect(log).toMatch(/max_field_bytes/)
    expect(log).not.toContain(TOKEN)
  })

  test('a feedback note with a token in it is redacted in events.jsonl', async () => {
    const repo = makeRepo()
    repo.write('.learnings/active/docker-cache-miss.md', learning('docker-cache-miss'))
    repo.git('add', '.')
    repo.git('commit', '-q', '-m', 'seed')
    const r = await repo.cli([
      'feedback',
      'docker-cache-miss',
      '--helpful',
      '--note',
      `worked once GITHUB_TOKEN=${TOKEN} was set`,
    ])
    expect(r.code).toBe(0)
    const events = readState(repo, 'events.jsonl')
    expect(events).toContain('[REDACTED:')
    expect(events).not.toContain(TOKEN)
  })
})

describe('export removes session ids wherever they appear', () => {
  test('in source, in other frontmatter and in the body', async () => {
    const repo = makeRepo()
    const extra = `\nSeen in session ${SESSION} and again with session_id=7f3e2d1c-0000-4aaa-8bbb-123456789abc.\nThe transcript of ${SESSION} has the rest.`
    repo.write('.learnings/active/docker-cache-miss.md', learning('docker-cache-miss', { session: SESSION, extra }))
    repo.git('add', '.')
    repo.git('commit', '-q', '-m', 'seed')
    const out = join(tempDir('gl-bundle-'), 'team.json')
    const r = await repo.cli(['export', '--out', out], { now: NOW })
    expect(r.code).toBe(0)
    const text = readFileSync(out, 'utf8')
    expect(text).not.toContain(SESSION)
    expect(text).not.toContain('7f3e2d1c-0000-4aaa-8bbb-123456789abc')
    expect(text).toContain('<session>')
    expect(r.stderr).toMatch(/session id/)
  })
})

/** A one-entry bundle file (the shape `git learn export` writes) holding `text`'s frontmatter and body. */
async function writeBundle(name: string, text: string): Promise<string> {
  const bundle = join(tempDir('gl-bundle-'), 'b.json')
  const [, frontmatter = '', body = ''] = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text) ?? []
  const { parse } = await import('yaml')
  const learnings = [{ name, frontmatter: parse(frontmatter), body }]
  writeFileSync(
    bundle,
    JSON.stringify({ format: 'git-learn-bundle', version: 1, exported: NOW.toISOString(), learnings }),
  )
  return bundle
}

describe('import never skips an entry for a gate', () => {
  test('an entry whose trigger fails the trigger gate is added, and the report says which gate failed', async () => {
    const bundle = await writeBundle(
      'flaky-upload-retry',
      learning('flaky-upload-retry', { trigger: 'it sometimes breaks' }),
    )
    const repo = makeRepo()
    const r = await repo.cli(['import', bundle, '--json'])
    expect(r.code).toBe(0)
    const [entry] = r.json().entries
    expect(entry).toMatchObject({
      name: 'flaky-upload-retry',
      action: 'added',
      path: '.learnings/pending/flaky-upload-retry.md',
    })
    expect(entry.reason).toMatch(/gates failed, recorded for review: trigger/)
    expect(repo.git('log', '-1', '--format=%B')).toMatch(/Learning-Gates-Overridden: trigger/)
    expect(repo.read('.learnings/pending/flaky-upload-retry.md')).toContain('it sometimes breaks')
  })

  test('a secret still keeps an entry out, with the reason', async () => {
    const bundle = await writeBundle(
      'leaky-deploy-token',
      learning('leaky-deploy-token', { extra: `\nexport GITHUB_TOKEN=${TOKEN}` }),
    )
    const repo = makeRepo()
    const r = await repo.cli(['import', bundle, '--json'])
    expect(r.code).toBe(0)
    const [entry] = r.json().entries
    expect(entry).toMatchObject({ name: 'leaky-deploy-token', action: 'skipped' })
    expect(entry.reason).toMatch(/secret/i)
    expect(entry.reason).not.toContain(TOKEN)
  })
})
