// The real Gemini CLI against a local Gemini API stand-in, its hooks wired by hand in .gemini/settings.json (there is
// no `init --agent gemini`): the SessionStart context and recall's fix after a failed shell command reach the model,
// and observe records the calls in order, the failed one as a failure.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { findGemini, runGemini } from '../helpers/gemini-cli.js'
import { requestText, startGeminiStandIn } from '../helpers/model-stand-in.js'
import type { ModelStandIn } from '../helpers/model-stand-in.js'
import { learningText, makeRepo, sh } from '../helpers/repo.js'

const found = findGemini()
const gemini = 'path' in found ? found.path : ''
const skip = 'skip' in found ? found.skip : undefined
if (skip) console.warn(`Gemini CLI e2e skipped: ${skip}`)

let stand: ModelStandIn | undefined
afterEach(async () => {
  await stand?.close()
  stand = undefined
})

const TRIGGER = 'Error: widget config is missing the frobnicate key'
const hook = (command: string, matcher?: string) => [
  { ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command, timeout: 10_000 }] },
]

test.skipIf(skip)(
  'gemini -p with hooks by hand: context and the recalled fix reach the model; observe records each call',
  async () => {
    const repo = makeRepo()
    expect(sh(repo.root, 'git', ['learn', 'init']).code).toBe(0)
    repo.write(
      '.learnings/active/widget-frobnicate.md',
      learningText('widget-frobnicate', { trigger: TRIGGER, confidence: '0.9' }),
    )
    repo.write('check.js', `console.error(${JSON.stringify(TRIGGER)})\nprocess.exit(1)\n`)
    const settings = {
      hooks: {
        SessionStart: hook('git learn context'),
        BeforeAgent: hook('git learn observe'),
        AfterTool: [...hook('git learn recall', '.*'), ...hook('git learn observe', '.*')],
        SessionEnd: hook('git learn observe'),
      },
    }
    repo.write('.gemini/settings.json', JSON.stringify(settings, null, 2))
    repo.git('add', '-A')
    repo.git('commit', '-q', '-m', 'gemini wiring')
    stand = await startGeminiStandIn(
      (step) => [{ command: 'echo hello' }, { command: 'node check.js' }, { text: 'Done.' }][step],
    )
    const run = await runGemini(gemini, repo.root, stand.url, 'check the widget')
    expect(run.code, run.stderr).toBe(0)
    const asked = stand.agentRequests()
    expect(asked).toHaveLength(3)
    expect(requestText(asked[0] as never)).toContain('widget-frobnicate')
    expect(requestText(asked[2] as never)).toContain('git-learn: widget-frobnicate —')
    expect(requestText(asked[1] as never)).not.toContain('git-learn: widget-frobnicate —')

    const file = join(repo.root, '.git', 'learn', 'observations.jsonl')
    const recs = (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []).map(
      (l) => JSON.parse(l) as { agent: string; event: string; tool: string | null; ok: boolean | null; input: unknown },
    )
    expect(recs.map((r) => [r.agent, r.event, r.tool, r.ok].filter((x) => x !== null).join(' '))).toEqual([
      'gemini UserPromptSubmit',
      'gemini PostToolUse run_shell_command true',
      'gemini PostToolUse run_shell_command false',
      'gemini SessionEnd',
    ])
    // Gemini CLI hands BeforeAgent the prompt with the SessionStart context in front of it.
    expect(String(recs[0]?.input)).toMatch(/<hook_context>git-learn: [\s\S]*check the widget$/)
  },
  120_000,
)
