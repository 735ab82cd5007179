// The real Claude Code CLI, in a scratch repository after `git learn init --agent claude`, against a local stand-in
// for the Messages API: the context and the recalled fix reach the model, transcript capture records every tool call
// in order, retro finds the fix, and the recall's outcome is counted.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { claudeForTests, runClaude } from '../helpers/claude-cli.js'
import { requestText, startModelStandIn } from '../helpers/model-stand-in.js'
import type { ModelStandIn } from '../helpers/model-stand-in.js'
import { learningText, makeRepo, sh } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

const { claude, skip } = claudeForTests()

let stand: ModelStandIn | undefined
afterEach(async () => {
  await stand?.close()
  stand = undefined
})

const TRIGGER = 'Error: widget config is missing the frobnicate key'
const FIX = 'Set "frobnicate": true in widget.json'

function scratchRepo(): TestRepo {
  const repo = makeRepo()
  expect(sh(repo.root, 'git', ['learn', 'init', '--agent', 'claude']).code).toBe(0)
  const body = `## Problem\nThe widget check fails.\n\n## Trigger Conditions\nRunning node check.js.\n\n## Root Cause\nWe tried B; the key was missing.\n\n## Solution\n${FIX}.\n\n## Verification\nnode check.js prints widget ok.\n`
  repo.write(
    '.learnings/active/widget-config-frobnicate.md',
    learningText(
      'widget-config-frobnicate',
      { trigger: TRIGGER, confidence: '0.9', domain: 'tooling', tags: '[widget, config]' },
      body,
    ),
  )
  repo.write(
    'check.js',
    `const c = require('./widget.json')\nif (!c.frobnicate) {\n  console.error(${JSON.stringify(TRIGGER)})\n  process.exit(1)\n}\nconsole.log('widget ok')\n`,
  )
  repo.write('widget.json', '{}\n')
  repo.git('add', '-A')
  repo.git('commit', '-q', '-m', 'scratch project')
  return repo
}

interface Rec {
  ts: string
  event: string
  tool: string | null
  tool_use_id: string | null
  ok: boolean | null
  input: unknown
}

function records(repo: TestRepo): Rec[] {
  const file = join(repo.root, '.git', 'learn', 'observations.jsonl')
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Rec)
    : []
}

test.skipIf(skip)(
  'claude -p: context and the recalled fix reach the model; every call captured in order; retro finds the fix; the fix counts as a success',
  async () => {
    const repo = scratchRepo()
    stand = await startModelStandIn(
      (step) =>
        [
          {
            text: 'Checking.',
            tools: [{ name: 'Bash', input: { command: 'node check.js', description: 'check the widget' } }],
          },
          {
            tools: [
              {
                name: 'Write',
                input: { file_path: join(repo.root, 'widget.json'), content: '{ "frobnicate": true }\n' },
              },
            ],
          },
          { tools: [{ name: 'Bash', input: { command: 'node check.js', description: 'check again' } }] },
          { text: 'Fixed.' },
        ][step],
    )
    const run = await runClaude(claude, repo.root, stand.url, 'make the widget check pass')
    expect(run.code, run.stderr).toBe(0)

    const asked = stand.agentRequests()
    expect(asked).toHaveLength(4)
    expect(requestText(asked[0] as never)).toContain('widget-config-frobnicate') // SessionStart context
    expect(requestText(asked[1] as never)).toContain(`git-learn: widget-config-frobnicate — ${FIX}`) // recall after the failure
    expect(requestText(asked[0] as never)).not.toContain('git-learn: widget-config-frobnicate —')

    const recs = records(repo)
    expect(recs.map((r) => `${r.event}${r.tool ? ` ${r.tool}` : ''}`)).toEqual([
      'UserPromptSubmit',
      'PostToolUseFailure Bash',
      'PostToolUse Write',
      'PostToolUse Bash',
      'Stop',
      'SessionEnd',
    ])
    expect(recs.map((r) => r.ts)).toEqual(recs.map((r) => r.ts).sort())
    expect(recs[0]?.input).toBe('make the widget check pass')

    const retro = JSON.parse(sh(repo.root, 'git', ['learn', 'retro', '--json']).stdout) as {
      candidates: { kind: string; evidence: Record<string, unknown> }[]
    }
    const fix = retro.candidates.find((c) => c.kind === 'error-solution')
    expect(fix?.evidence).toMatchObject({ command: 'node check.js', verification: 'node check.js' })

    const events = readFileSync(join(repo.root, '.git', 'learn', 'events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind: string; name: string })
    expect(events.map((e) => `${e.kind} ${e.name}`)).toEqual([
      'match widget-config-frobnicate',
      'success widget-config-frobnicate',
    ])
    const status = JSON.parse(sh(repo.root, 'git', ['learn', 'status', '--json']).stdout) as {
      domains: { learnings: Record<string, unknown>[] }[]
    }
    expect(status.domains.flatMap((d) => d.learnings)).toEqual([
      expect.objectContaining({
        name: 'widget-config-frobnicate',
        uses: 1,
        successes: 1,
        failures: 0,
        success_rate: 1,
      }),
    ])
    expect(
      existsSync(join(repo.root, '.git', 'learn', 'hooks.log'))
        ? readFileSync(join(repo.root, '.git', 'learn', 'hooks.log'), 'utf8')
        : '',
    ).toBe('')
  },
  120_000,
)

test.skipIf(skip)(
  'a session of 20 tool calls that ends abruptly leaves 20 ordered call records and its prompt',
  async () => {
    const repo = scratchRepo()
    let pid = 0
    stand = await startModelStandIn((step) => {
      if (step < 20)
        return {
          tools: [
            {
              name: 'Bash',
              input: {
                command: step % 5 === 4 ? `node -e "process.exit(${step})"` : `echo call-${step}`,
                description: `call ${step}`,
              },
            },
          ],
        }
      // The 21st request: the session ends here, with no answer and no Stop.
      process.kill(pid, 'SIGTERM')
      return undefined
    })
    const run = await runClaude(claude, repo.root, stand.url, 'run the twenty commands', { onSpawn: (p) => (pid = p) })
    expect(run.code === 0 && run.signal === null).toBe(false)
    const recs = records(repo)
    const calls = recs.filter((r) => r.event.startsWith('PostToolUse'))
    expect(calls.map((r) => (r.input as { command: string }).command)).toEqual(
      Array.from({ length: 20 }, (_, i) => (i % 5 === 4 ? `node -e "process.exit(${i})"` : `echo call-${i}`)),
    )
    expect(calls.map((r) => r.ok)).toEqual(Array.from({ length: 20 }, (_, i) => i % 5 !== 4))
    expect(new Set(calls.map((r) => r.tool_use_id)).size).toBe(20)
    expect(recs.filter((r) => r.event === 'UserPromptSubmit').map((r) => r.input)).toEqual(['run the twenty commands'])
    expect(recs.map((r) => r.ts)).toEqual(recs.map((r) => r.ts).sort())
    // No turn ended: the records come from the SessionEnd capture alone.
    expect(recs.filter((r) => r.event === 'Stop' || r.event === 'SessionEnd').map((r) => r.event)).toEqual([
      'SessionEnd',
    ])
  },
  120_000,
)
