// Per-fix success rates on a recorded session: recall hands a learning out for a failed call; the next run of the
// same call passes (a success) or fails the same way (a failure); status shows the rate, confidence moves with it.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { learningText, makeRepo, tempDir } from '../../helpers/repo.js'

const TRIGGER = 'Error: widget config is missing the frobnicate key'
let clock = 0
const at = () => new Date(Date.UTC(2026, 10, 20, 12, 0, 0) + clock++ * 1000).toISOString()
let ids = 0
const line = (session: string, type: 'user' | 'assistant', content: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type,
    uuid: `u-${++ids}`,
    timestamp: at(),
    sessionId: session,
    cwd: '/r',
    message: { role: type, content },
    ...extra,
  })
const bash = (session: string, id: string, command: string, failure?: string) => [
  line(session, 'assistant', [{ type: 'tool_use', id, name: 'Bash', input: { command } }]),
  failure
    ? line(session, 'user', [{ type: 'tool_result', tool_use_id: id, content: failure, is_error: true }], {
        toolUseResult: `Error: ${failure}`,
      })
    : line(session, 'user', [{ type: 'tool_result', tool_use_id: id, content: 'widget ok' }], {
        toolUseResult: { stdout: 'widget ok', stderr: '', interrupted: false },
      }),
]
const edit = (session: string, id: string) => [
  line(session, 'assistant', [
    {
      type: 'tool_use',
      id,
      name: 'Edit',
      input: { file_path: '/r/widget.json', old_string: '{}', new_string: '{"frobnicate": true}' },
    },
  ]),
  line(
    session,
    'user',
    [{ type: 'tool_result', tool_use_id: id, content: 'The file /r/widget.json has been updated.' }],
    { toolUseResult: { filePath: '/r/widget.json' } },
  ),
]

test('a recall followed by a pass is a success, one followed by the same failure a failure: status shows the rate, confidence both', async () => {
  const repo = makeRepo()
  repo.write(
    '.learnings/active/widget-frobnicate.md',
    learningText('widget-frobnicate', { trigger: TRIGGER, confidence: '0.9' }),
  )
  repo.git('add', '-A')
  repo.git('commit', '-q', '-m', 'learning')
  const dir = tempDir('gl-transcripts-')
  const session = async (id: string, lines: (fail: string) => { before: string[]; after: string[] }) => {
    const transcript = join(dir, `${id}.jsonl`)
    const failure = `Exit code 1\n${TRIGGER}`
    const { before, after } = lines(failure)
    writeFileSync(transcript, before.map((l) => `${l}\n`).join(''))
    // Claude Code runs recall as the PostToolUseFailure hook of the failed call.
    const recall = await repo.cli(['recall'], {
      stdin: JSON.stringify({
        session_id: id,
        transcript_path: transcript,
        cwd: repo.root,
        hook_event_name: 'PostToolUseFailure',
        tool_name: 'Bash',
        tool_use_id: `${id}-1`,
        tool_input: { command: 'node check.js' },
        error: failure,
      }),
    })
    expect(recall.stdout).toContain('git-learn: widget-frobnicate')
    writeFileSync(transcript, [...before, ...after].map((l) => `${l}\n`).join(''))
    const r = await repo.cli(['capture'], {
      stdin: JSON.stringify({ session_id: id, transcript_path: transcript, cwd: repo.root, hook_event_name: 'Stop' }),
    })
    expect(r.code).toBe(0)
  }
  await session('s-pass', (f) => ({
    before: bash('s-pass', 's-pass-1', 'node check.js', f),
    after: [...edit('s-pass', 's-pass-2'), ...bash('s-pass', 's-pass-3', 'node check.js')],
  }))
  await session('s-fail', (f) => ({
    before: bash('s-fail', 's-fail-1', 'node check.js', f),
    after: [...bash('s-fail', 's-fail-2', 'ls'), ...bash('s-fail', 's-fail-3', 'node check.js', f)],
  }))

  const events = readFileSync(join(repo.root, '.git', 'learn', 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
  expect(events.map((e) => [e['kind'], e['session']])).toEqual([
    ['match', 's-pass'],
    ['success', 's-pass'],
    ['match', 's-fail'],
    ['failure', 's-fail'],
  ])
  expect(events[1]).toMatchObject({ name: 'widget-frobnicate', note: 'node check.js' })

  const status = await repo.cli(['status', '--json'])
  const row = status.json().domains[0].learnings[0]
  // 0.9 + 0.05 for the success − 0.10 for the failure.
  expect(row).toMatchObject({
    name: 'widget-frobnicate',
    uses: 2,
    successes: 1,
    failures: 1,
    success_rate: 0.5,
    confidence: 0.85,
  })
  const text = await repo.cli(['status'])
  expect(text.stdout).toMatch(/widget-frobnicate .* 2 matches {2}50% worked \(1 of 2\)/)
})
