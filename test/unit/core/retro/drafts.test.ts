import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { createRetroAnalysis } from '../../../../src/core/retro/analyze.js'
import type { RetroCandidate } from '../../../../src/core/retro/detectors.js'
import { formatCandidateLearning } from '../../../../src/core/retro/drafts.js'
import { DEFAULT_CONFIG } from '../../../../src/core/config-schema.js'
import { evaluateGates } from '../../../../src/core/gates.js'
import { parseLearning } from '../../../../src/core/learning.js'
import { PROJECT_ROOT } from '../../../helpers/repo.js'

const ROOT = '/home/ada/work/shop'
let clock = 0
const ts = () => new Date(Date.UTC(2026, 10, 20, 12, 0, clock++)).toISOString()
const rec = (over: Record<string, unknown>): string =>
  JSON.stringify({
    v: 1,
    ts: ts(),
    agent: 'claude-code',
    session: 's1',
    tool: null,
    tool_use_id: null,
    ok: null,
    cwd: ROOT,
    ...over,
  })
const bash = (command: string, ok: boolean, text = '') =>
  rec(
    ok
      ? { event: 'PostToolUse', tool: 'Bash', input: { command }, output: { stdout: text, stderr: '' }, ok }
      : { event: 'PostToolUseFailure', tool: 'Bash', input: { command }, error: text, ok },
  )
const edit = (file: string) =>
  rec({
    event: 'PostToolUse',
    tool: 'Edit',
    input: { file_path: file, old_string: 'a', new_string: 'b' },
    output: {},
    ok: true,
  })

function candidates(lines: string[]): RetroCandidate[] {
  const a = createRetroAnalysis({})
  for (const l of lines) a.feedLine(l)
  return a.finish().candidates
}

const draft = (c: RetroCandidate) => {
  const text = formatCandidateLearning(c, { now: new Date('2026-11-20T12:00:00Z'), root: ROOT })
  return { text, learning: parseLearning(text, `.learnings/pending/${c.name}.md`) }
}

describe('retro drafts', () => {
  const ENOENT = `node:internal/fs/utils:347\nError: ENOENT: no such file or directory, open '${ROOT}/config/app.json'\n    at Object.openSync (node:fs:596:3)`
  const lines = [
    bash(`node ${ROOT}/scripts/seed.js`, false, ENOENT),
    edit(`${ROOT}/scripts/seed.js`),
    bash(`node ${ROOT}/scripts/seed.js`, true, 'seeded'),
  ]

  test('an error→solution trigger keeps the error and the missing file, and the draft holds no path of this machine', () => {
    const c = candidates(lines).find((x) => x.kind === 'error-solution') as RetroCandidate
    expect(c.trigger).toBe('Error: ENOENT: no such file or directory, open app.json')
    const { text, learning } = draft(c)
    expect(text).not.toContain(ROOT)
    expect(learning.data.description).toContain('node scripts/seed.js')
    expect(learning.data['evidence']).toMatchObject({ paths: ['scripts/seed.js'] })
  })

  // A tool's output is hostile: a terminal escape, an OSC 8 hyperlink or a bidi override in it must not be written into
  // a learning file, where a reviewer's terminal or diff view would act on it; it is written inert, as printed output is.
  test('control characters, OSC 8 links and bidi controls from a tool reach the draft escaped', () => {
    const hostile = `Error: ENOENT: no such file \u001b]8;;https://evil.example\u0007here\u001b]8;;\u0007 \u001b[31mred\u001b[0m \u202eesrever\u0085`
    const c = candidates([
      bash(`node scripts/seed.js \u202e--x\u0007`, false, hostile),
      edit(`${ROOT}/scripts/seed.js`),
      bash(`node scripts/seed.js \u202e--x\u0007`, true, 'seeded'),
    ]).find((x) => x.kind === 'error-solution') as RetroCandidate
    const { text, learning } = draft(c)
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/)
    expect(text).not.toContain('evil.example')
    expect(text).toContain('\\u202e')
    expect(learning.data.trigger).toMatch(/^Error: ENOENT: no such file here red \\u202eesrever/)
  })

  test.each([
    ['error → solution', lines],
    [
      'a retry loop',
      [
        bash('npm run build', false, "src/a.ts(4,2): error TS2307: Cannot find module './x.js'"),
        bash('npm run build', false, "src/a.ts(4,2): error TS2307: Cannot find module './x.js'"),
        bash('npm run build', false, "src/a.ts(4,2): error TS2307: Cannot find module './x.js'"),
      ],
    ],
  ])('a draft from %s passes the gates as written', (_what, input) => {
    const cs = candidates(input)
    expect(cs.length).toBeGreaterThan(0)
    for (const c of cs) {
      const template = readFileSync(`${PROJECT_ROOT}templates/${c.type}.md`, 'utf8')
      const failed = evaluateGates(draft(c).learning, DEFAULT_CONFIG.gates, { template }).filter(
        (g) => g.outcome === 'fail',
      )
      expect(failed, c.name).toEqual([])
    }
  })
})

describe('a rapid-switching draft', () => {
  const fail = (tool: string, input: Record<string, unknown>, error: string) =>
    rec({ event: 'PostToolUseFailure', tool, input, error, ok: false })
  const thrash = () => [
    bash('npm run build', false, "Exit code 2\nsrc/a.ts(3,1): error TS2304: Cannot find name 'widget'."),
    edit(`${ROOT}/src/a.ts`),
    fail('Read', { file_path: `${ROOT}/src/missing.ts` }, 'File does not exist.'),
    edit(`${ROOT}/src/b.ts`),
    fail('Grep', { pattern: 'widget' }, 'No matches'),
    edit(`${ROOT}/src/c.ts`),
  ]

  test('says how long the calls took, and nothing of it when their times do not parse (never "null s")', () => {
    const timed = candidates(thrash()).find((x) => x.kind === 'rapid-switching') as RetroCandidate
    expect(draft(timed).learning.body).toMatch(/3 failures in \d+ s\) with no passing run/)
    const untimed = candidates(thrash().map((l) => l.replace(/"ts":"[^"]+"/, '"ts":"garbage"'))).find(
      (x) => x.kind === 'rapid-switching',
    ) as RetroCandidate
    expect(untimed.evidence['seconds']).toBeNull()
    const { text, learning } = draft(untimed)
    expect(text).not.toMatch(/null|NaN/)
    expect(learning.body).toMatch(/, 3 failures\) with no passing run/)
  })
})
