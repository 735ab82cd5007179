// The real Codex CLI against a local Responses API stand-in: what git-learn can give it today is AGENTS.md (render
// --target agents), and that reaches the model. Its hooks and rollout files are not wired (docs/agents.md says why).
import { afterEach, expect, test } from 'vitest'
import { findCodex, runCodex } from '../helpers/codex-cli.js'
import { requestText, startResponsesStandIn } from '../helpers/model-stand-in.js'
import type { ModelStandIn } from '../helpers/model-stand-in.js'
import { learningText, makeRepo, sh } from '../helpers/repo.js'

const found = findCodex()
const codex = 'path' in found ? found.path : ''
const skip = 'skip' in found ? found.skip : undefined
if (skip) console.warn(`Codex e2e skipped: ${skip}`)

let stand: ModelStandIn | undefined
afterEach(async () => {
  await stand?.close()
  stand = undefined
})

test.skipIf(skip)(
  'codex exec: the learnings rendered into AGENTS.md reach the model; its shell call runs',
  async () => {
    const repo = makeRepo()
    expect(sh(repo.root, 'git', ['learn', 'init']).code).toBe(0)
    repo.write(
      '.learnings/active/widget-frobnicate.md',
      learningText('widget-frobnicate', {
        trigger: 'Error: widget config is missing the frobnicate key',
        confidence: '0.9',
      }),
    )
    expect(sh(repo.root, 'git', ['learn', 'render', '--target', 'agents']).code).toBe(0)
    repo.git('add', '-A')
    repo.git('commit', '-q', '-m', 'learnings for agents')
    stand = await startResponsesStandIn((step) =>
      step === 0 ? { command: 'node -e "process.exit(4)"' } : { text: 'Done.' },
    )
    const run = await runCodex(codex, repo.root, stand.url, 'check the widget')
    expect(run.code, run.stderr).toBe(0)
    const asked = stand.agentRequests()
    expect(asked.length).toBeGreaterThanOrEqual(2)
    expect(requestText(asked[0] as never)).toContain('widget-frobnicate')
    expect(requestText(asked[1] as never)).toMatch(/exited with code 4/)
  },
  120_000,
)
