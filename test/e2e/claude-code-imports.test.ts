// The real Claude Code CLI's memory loader as the judge of what render leaves unescaped: CLAUDE.md imports INDEX.md
// (render's own section), AGENTS.md and a rendered SKILL.md; files named like every `@` the learning holds, beside
// each of them, carry a canary. What Claude Code imports reaches the model's first request: no canary of the learning's may, while the
// rendered files themselves do, and two control lines show the loader's rules we rely on (a list item's code span is
// read, a paragraph's is not). The second test holds renderSafeMarkdown's code (fenced, spans, indented blocks) to it.
import { afterEach, expect, test } from 'vitest'
import { claudeForTests, runClaude } from '../helpers/claude-cli.js'
import { requestText, startModelStandIn } from '../helpers/model-stand-in.js'
import type { ModelStandIn } from '../helpers/model-stand-in.js'
import { learningText, makeRepo } from '../helpers/repo.js'

const { claude, skip } = claudeForTests()

let stand: ModelStandIn | undefined
afterEach(async () => {
  await stand?.close()
  stand = undefined
})

const BODY =
  '## Problem\nThe keys are listed in @.env and **x**@.npmrc; mail ada@example.com.\n\n' +
  '## Trigger Conditions\n- run `npm i @types/node -D` first\n- see @.env\n\n' +
  '## Root Cause\nWe tried A and B; a@example.com@.env was it.\n\n' +
  '## Solution\nRun `npm i @types/node -D` and `cat @.env-code now`.\n\n```python\n@pytest.fixture\ndef db(): ...\n```\n\n' +
  'Or indented:\n\n    source @.env-indented\n\n' +
  '~~~\n@Override\n~~~\n\n## Verification\nThe SKILL-BODY-REACHED check passed.\n'

test.skipIf(skip)(
  'no file a learning names with @ is imported through the rendered files; code keeps its @ and is not read',
  async () => {
    const repo = makeRepo()
    repo.write(
      '.learnings/active/env-files.md',
      learningText(
        'env-files',
        {
          description: 'Fix env loading: keys in @.env, run `npm i @types/node` (INDEX-REACHED).',
          trigger: 'Error: cannot read @.npmrc',
        },
        BODY,
      ),
    )
    const canaries: Record<string, string> = {
      '.env': 'CANARY-DOTENV',
      '.env-code': 'CANARY-ENV-CODE',
      '.env-indented': 'CANARY-ENV-INDENTED',
      '.npmrc': 'CANARY-NPMRC',
      'types/node': 'CANARY-TYPES-NODE',
      'pytest.fixture': 'CANARY-PYTEST',
      Override: 'CANARY-OVERRIDE',
      'example.com': 'CANARY-EXAMPLE',
      'example.com@.env': 'CANARY-EXAMPLE-ENV',
    }
    // A relative import is read from the importing file's folder: a canary beside each file that could import it.
    for (const dir of ['', '.learnings/', '.claude/skills/env-files/'])
      for (const [path, text] of Object.entries(canaries)) repo.write(`${dir}${path}`, `${text} in /${dir}\n`)
    repo.write('control-list.md', 'CONTROL-LIST-READ\n')
    repo.write('control-para.md', 'CONTROL-PARA-READ\n')
    repo.git('add', '-A')
    repo.git('commit', '-qm', 'store and canaries', '--no-verify')
    const r = await repo.cli(['render', '--target', 'claude,agents,claude-md'])
    expect(r.code, r.stderr).toBe(0)
    expect(repo.read('.claude/skills/env-files/SKILL.md')).toContain('```python\n@pytest.fixture\n')
    expect(repo.read('.claude/skills/env-files/SKILL.md')).toContain('\n\n    source @.env-indented\n')
    repo.write(
      'CLAUDE.md',
      `${repo.read('CLAUDE.md')}\n@AGENTS.md\n@.claude/skills/env-files/SKILL.md\n\n- \`x @control-list.md y\`\n\n\`x @control-para.md y\`\n`,
    )

    stand = await startModelStandIn((step) => [{ text: 'ok' }][step])
    const run = await runClaude(claude, repo.root, stand.url, 'say ok')
    expect(run.code, run.stderr).toBe(0)
    const first = requestText(stand.agentRequests()[0] as never)
    expect(first).toContain('INDEX-REACHED')
    expect(first).toContain('SKILL-BODY-REACHED')
    expect(first).toContain('Team learnings')
    expect(first).toContain('CONTROL-LIST-READ')
    expect(first).not.toContain('CONTROL-PARA-READ')
    for (const text of Object.values(canaries)) expect(first).not.toContain(text)
  },
  120_000,
)

/** Indented code blocks renderSafeMarkdown keeps as written, `@` and all. */
const INDENTED = [
  '    @p32\n    x @p33',
  '\t@p34\n  \t@p35',
  '# h\n    @p36',
  '```\nx\n```\n    @p37',
  '    @p38\n\n    y',
  '<div>\n\n    z @p44\n\n</div>',
  '    <div> @p45',
]

/** Markdown where render keeps an `@` in what it reads as code, or where a near miss would not be code. */
const EDGES = [
  '- a\n  ```\n  @p1\n  ```',
  '* a\n\n  ```\n  @p2\n  ```',
  'Text `a\nb @p3 c` d',
  '1. x\n\n   ```\n   @p4\n   ```',
  '<details>\n\n```\n@p5\n```\n\n</details>',
  '- a\n\n```\n@p6\n```',
  'Text ``a ` @p7 b`` c',
  '*a `b* @p8 c`*',
  '~~~ `x`\n@p9\n~~~',
  '````\n```\n@p10\n````',
  '```\n@p11\n   ```',
  '\\\\`a @p12`',
  'a\n```\n@p13\n```',
  '**a `b** @p14 c`**',
  '> - a\n>\n> `b @p15 c`',
  'a `b\n\n@p16 c`',
  '- a\n- b\n\n  para `x @p17 y`\n\nafter `x @p18 y`',
  '> a `x\n>\n> @p19 ` y',
  '`x\n> @p20 `',
  '> `a\n> # @p21 `',
  '> ```\n@p22\n> ```',
  '> `a\nb` @p23 `c`',
  '- a\n  ```\n  @p24\n- @p25\n  ```',
  '<div>\n```\n@p26\n```\n</div>',
  '[x](`a) @p27 `)',
  'see https://x.com/`a @p28 `',
  '~~`a~~ @p29 `',
  '**x**@p30 and a@b.co@p31',
  // Indented code: left as written where a block certainly starts (INDENTED), escaped where it is a guess.
  ...INDENTED,
  '    @p39\n@p40',
  'para\n    @p41',
  '- a\n\n      @p42',
  '>     @p43',
]

test.skipIf(skip)(
  'what renderSafeMarkdown leaves unescaped in tricky markdown, Claude Code does not import',
  async () => {
    const { renderSafeMarkdown } = await import('../../src/core/render-safe.js')
    for (const c of INDENTED) expect(renderSafeMarkdown(c)).toBe(c)
    const repo = makeRepo()
    const names = EDGES.flatMap((c) => [...c.matchAll(/@(p\d+)/g)].map((m) => m[1] as string))
    for (const f of names) repo.write(f, `CANARY-${f}\n`)
    // Controls: a line import, and one indented four spaces that continues a paragraph (so indentation alone is no code).
    repo.write(
      'CLAUDE.md',
      `# x\n\n${EDGES.map(renderSafeMarkdown).join('\n\n')}\n\n@control.md\n\npara\n    @control-lazy.md\n`,
    )
    repo.write('control.md', 'CONTROL-READ\n')
    repo.write('control-lazy.md', 'CONTROL-LAZY-READ\n')
    stand = await startModelStandIn((step) => [{ text: 'ok' }][step])
    const run = await runClaude(claude, repo.root, stand.url, 'say ok')
    expect(run.code, run.stderr).toBe(0)
    const first = requestText(stand.agentRequests()[0] as never)
    expect(first).toContain('CONTROL-READ')
    expect(first).toContain('CONTROL-LAZY-READ')
    expect(first.match(/CANARY-p\d+/g) ?? []).toEqual([])
  },
  120_000,
)
