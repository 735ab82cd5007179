import { describe, expect, test } from 'vitest'
import { createRetroAnalysis, parseSince, uniqueNames } from '../../../../src/core/retro/analyze.js'
import { isCorrection } from '../../../../src/core/retro/detectors.js'
import type { RetroCandidate } from '../../../../src/core/retro/detectors.js'
import { errorTrigger, programOf, stepLabel, testRunnerOf } from '../../../../src/core/retro/records.js'
import type { RetroRecord } from '../../../../src/core/retro/records.js'

let clock = 0
const ts = () => new Date(Date.UTC(2026, 10, 20, 12, 0, clock++)).toISOString()
const rec = (over: Partial<RetroRecord> & { event: string }): string =>
  JSON.stringify({
    v: 1,
    ts: ts(),
    agent: 'claude-code',
    session: 's1',
    tool: null,
    tool_use_id: null,
    ok: null,
    cwd: '/r',
    ...over,
  })
const bash = (command: string, ok: boolean, text = '', session = 's1') =>
  rec(
    ok
      ? { event: 'PostToolUse', tool: 'Bash', input: { command }, output: { stdout: text, stderr: '' }, ok, session }
      : { event: 'PostToolUseFailure', tool: 'Bash', input: { command }, error: text, ok, session },
  )
const edit = (file: string, session = 's1') =>
  rec({
    event: 'PostToolUse',
    tool: 'Edit',
    input: { file_path: file, old_string: 'a', new_string: 'b' },
    output: {},
    ok: true,
    session,
  })
const read = (file: string) =>
  rec({ event: 'PostToolUse', tool: 'Read', input: { file_path: file }, output: {}, ok: true })
const prompt = (text: string, session = 's1') => rec({ event: 'UserPromptSubmit', input: text, session })

function analyse(
  lines: string[],
  filter = {},
): { candidates: RetroCandidate[]; skipped_lines: number; records: number } {
  const a = createRetroAnalysis(filter)
  for (const l of lines) a.feedLine(l)
  return a.finish()
}
const kinds = (cs: RetroCandidate[]) => cs.map((c) => c.kind)

describe('error → solution', () => {
  const ERR =
    "Exit code 1\n FAIL test/api.test.ts\nReferenceError: Cannot access '__vi_import_0__' before initialization\n at /r/test/api.test.ts:3:1"
  test('a failing command, an edit, the same command passing: one candidate with the normalized error as trigger', () => {
    const { candidates } = analyse([
      bash('npx vitest run test/api.test.ts', false, ERR),
      read('/r/test/api.test.ts'),
      edit('/r/test/api.test.ts'),
      bash('npx vitest run test/api.test.ts', true, '14 passed'),
    ])
    expect(kinds(candidates)).toEqual(['error-solution'])
    const c = candidates[0] as RetroCandidate
    expect(c.type).toBe('error-solution')
    expect(c.trigger).toBe('ReferenceError: Cannot access __vi_import_0__ before initialization')
    expect(c.evidence).toMatchObject({
      command: 'npx vitest run test/api.test.ts',
      verification: 'npx vitest run test/api.test.ts',
      edited_paths: ['/r/test/api.test.ts'],
      sessions: ['s1'],
      count: 1,
    })
  })
  test('the same test runner with other arguments counts as the same test', () => {
    const { candidates } = analyse([
      bash('npx vitest run test/a.test.ts', false, 'AssertionError: expected 1 to be 2'),
      edit('/r/src/a.ts'),
      bash('npx vitest run', true),
    ])
    expect(kinds(candidates)).toEqual(['error-solution'])
  })
  test.each([
    ['passing without an edit (flaky)', [bash('npm test', false, 'Error: timeout'), bash('npm test', true)]],
    [
      'an edit in another session',
      [bash('npm test', false, 'Error: x'), edit('/r/a.ts', 's2'), bash('npm test', true)],
    ],
    ['another command passing', [bash('npm test', false, 'Error: x'), edit('/r/a.ts'), bash('ls', true)]],
  ])('no candidate for %s', (_what, lines) => {
    expect(kinds(analyse(lines).candidates)).not.toContain('error-solution')
  })
})

describe('retry loops', () => {
  const fail = () => bash('npm run build', false, "src/a.ts(4,2): error TS2307: Cannot find module './x.js'")
  test('three failures of the same call in a row: an anti-pattern', () => {
    const { candidates } = analyse([fail(), fail(), read('/r/x'), fail()])
    const c = candidates.find((x) => x.kind === 'retry-loop') as RetroCandidate
    expect(c).toMatchObject({
      type: 'anti-pattern',
      name: 'avoid-retrying-npm-run-build',
      evidence: { call: 'npm run build', max_in_a_row: 3 },
    })
    expect(c.trigger).toContain('error TS')
  })
  test.each([
    ['two failures', [fail(), fail()]],
    ['an edit between them', [fail(), fail(), edit('/r/a.ts'), fail()]],
    ['a success between them', [fail(), fail(), bash('npm run build', true), fail()]],
  ])('not for %s', (_what, lines) => {
    expect(kinds(analyse(lines).candidates)).not.toContain('retry-loop')
  })
})

describe('repeated workflows', () => {
  const round = (f: string) => [edit(f), bash('pnpm lint', true), bash(`git commit -am "x ${f}"`, true)]
  test('the same three steps in three places: a pattern', () => {
    const { candidates } = analyse([
      ...round('/r/a.ts'),
      read('/r/z'),
      ...round('/r/b.ts'),
      read('/r/z'),
      ...round('/r/c.ts'),
    ])
    const c = candidates.find((x) => x.kind === 'repeated-workflow') as RetroCandidate
    expect(c).toMatchObject({
      type: 'pattern',
      evidence: { steps: ['Edit(*.ts)', 'Bash(pnpm lint)', 'Bash(git commit)'], count: 3 },
    })
  })
  test('twice is not enough', () => {
    expect(kinds(analyse([...round('/r/a.ts'), read('/r/z'), ...round('/r/b.ts')]).candidates)).not.toContain(
      'repeated-workflow',
    )
  })
})

describe('user corrections and tool preferences', () => {
  test('a correcting prompt right after an action: an instinct with the correction as action', () => {
    const { candidates } = analyse([bash('npm install zod', true), prompt('no, use pnpm here, not npm')])
    const c = candidates.find((x) => x.kind === 'user-correction') as RetroCandidate
    expect(c).toMatchObject({
      type: 'instinct',
      trigger: 'about to run npm install zod',
      evidence: { correction: 'no, use pnpm here, not npm' },
    })
  })
  test('a prompt that does not follow an action is not a correction', () => {
    expect(kinds(analyse([prompt('no, use pnpm here')]).candidates)).toEqual([])
  })
  test('the corrected-to tool used 3+ times afterwards: a preference', () => {
    const { candidates } = analyse([
      bash('npm install zod', true),
      prompt('no, use pnpm here'),
      bash('pnpm add zod', true),
      bash('pnpm lint', true),
      bash('pnpm test', true),
    ])
    expect(candidates.find((x) => x.kind === 'tool-preference')).toMatchObject({
      name: 'prefer-pnpm-over-npm',
      type: 'instinct',
      evidence: { preferred: 'pnpm', over: 'npm', count: 3 },
    })
  })
  test('a known alternative used consistently: a preference without a correction', () => {
    const lines = Array.from({ length: 6 }, (_, i) => bash(`rg -n foo${i} src`, true))
    expect(analyse(lines).candidates.find((x) => x.kind === 'tool-preference')).toMatchObject({
      name: 'prefer-rg-over-grep',
    })
  })
  test.each([
    ['no, use pnpm', true],
    ["don't touch the lockfile", true],
    ['Stop running the whole suite', true],
    ['wrong file, the other one', true],
    ['use rg instead', true],
    ['please run it with bun instead of node', true],
    ['now add a test for the parser', false],
    ['looks good, commit it', false],
  ])('isCorrection(%j) is %s', (text, expected) => {
    expect(isCorrection(text)).toBe(expected)
  })
})

describe('the analysis', () => {
  test('corrupt, truncated and foreign lines are counted and skipped, never fatal', () => {
    const good = bash('ls', true)
    const out = analyse([
      good,
      '{"ts":"x","event":',
      'not json',
      '[1,2]',
      '{"no":"event"}',
      good.slice(0, 40),
      '',
      good,
    ])
    expect(out.skipped_lines).toBe(5)
    expect(out.records).toBe(2)
  })
  test('--session and --since filter records', () => {
    const lines = [bash('npm test', false, 'Error: a', 's1'), edit('/r/a.ts', 's1'), bash('npm test', true, '', 's1')]
    expect(analyse(lines, { session: 's2' }).records).toBe(0)
    expect(analyse(lines, { session: 's1' }).candidates).toHaveLength(1)
    expect(analyse(lines, { since: '2030-01-01T00:00:00.000Z' }).records).toBe(0)
  })
  test('names are unique within a run', () => {
    const c = {
      kind: 'retry-loop',
      type: 'anti-pattern',
      trigger: 't',
      description: 'd',
      evidence: {},
    } as unknown as RetroCandidate
    expect(
      uniqueNames([
        { ...c, name: 'a' },
        { ...c, name: 'a' },
        { ...c, name: 'a' },
      ]).map((x) => x.name),
    ).toEqual(['a', 'a-2', 'a-3'])
  })
  test.each([
    ['2026-11-20', '2026-11-20T00:00:00.000Z'],
    ['2026-11-20T10:00:00+01:00', '2026-11-20T09:00:00.000Z'],
    ['yesterday', undefined],
  ])('parseSince(%j)', (text, expected) => {
    expect(parseSince(text)).toBe(expected)
  })
})

test.each([
  ['npm install zod', 'npm'],
  ['FOO=1 sudo /usr/bin/rg -n x', 'rg'],
  ['cd web && pnpm test', 'pnpm'],
  ['$(evil)', undefined],
])('programOf(%j)', (cmd, expected) => {
  expect(programOf(cmd)).toBe(expected)
})

test.each([
  ['npx vitest run test/a.test.ts', 'vitest'],
  ['pnpm run test -- --watch=false', 'pnpm test'],
  ['ls -la', undefined],
])('testRunnerOf(%j)', (cmd, expected) => {
  expect(testRunnerOf(cmd)).toBe(expected)
})

test('stepLabel names the program and subcommand', () => {
  const r = {
    ts: '',
    agent: 'a',
    session: 's',
    event: 'PostToolUse',
    input: { command: 'git commit -m x' },
    output: null,
    error: null,
    ok: true,
  }
  expect(stepLabel({ ...r, tool: 'Bash' })).toBe('Bash(git commit)')
  expect(stepLabel({ ...r, tool: 'Edit', input: { file_path: '/r/a.tsx' } })).toBe('Edit(*.tsx)')
})

test('errorTrigger skips "Exit code 1" for the line that names the error', () => {
  expect(errorTrigger('Exit code 1\n> tsc\nsrc/a.ts(4,2): error TS2307: Cannot find module')).toBe(
    'error TS2307: Cannot find module',
  )
})

describe('rapid tool switching', () => {
  const fail = (tool: string, input: Record<string, unknown>, error: string) =>
    rec({ event: 'PostToolUseFailure', tool, input, error, ok: false })
  const thrash = () => [
    bash('npm run build', false, "Exit code 2\nsrc/a.ts(3,1): error TS2304: Cannot find name 'widget'."),
    edit('/r/src/a.ts'),
    fail('Read', { file_path: '/r/src/missing.ts' }, 'File does not exist.'),
    edit('/r/src/b.ts'),
    fail('Grep', { pattern: 'widget' }, 'No matches'),
    edit('/r/src/c.ts'),
  ]

  test('many tools and files touched with failures and no passing run in a short window: an anti-pattern with its evidence', () => {
    const { candidates } = analyse(thrash())
    expect(kinds(candidates)).toEqual(['rapid-switching'])
    const c = candidates[0] as RetroCandidate
    expect(c).toMatchObject({ type: 'anti-pattern', trigger: 'error TS2304: Cannot find name widget.' })
    // Flagged at the fifth call, once for the streak.
    expect(c.evidence).toMatchObject({ failures: 3, calls: 5, count: 1, sessions: ['s1'] })
    expect(c.evidence['targets']).toEqual([
      '$ npm',
      'file /r/src/a.ts',
      'file /r/src/missing.ts',
      'file /r/src/b.ts',
      'tool Grep',
    ])
  })

  test.each([
    [
      'a passing run in between',
      () => {
        const t = thrash()
        t.splice(3, 0, bash('npm run build', true))
        return t
      },
    ],
    ['too few failures', () => thrash().filter((l) => !l.includes('missing.ts'))],
    [
      'too few different targets',
      () => [
        bash('npm test', false, 'Error: a'),
        edit('/r/a.ts'),
        bash('npm test', false, 'Error: b'),
        edit('/r/a.ts'),
        bash('npm test', false, 'Error: c'),
      ],
    ],
  ])('not with %s', (_what, lines) => {
    expect(kinds(analyse(lines()).candidates)).not.toContain('rapid-switching')
  })

  // A clock set back mid-session, or records merged from two machines: times out of order or that do not parse.
  const at = (lines: string[], time: (i: number) => string) =>
    lines.map((l, i) => l.replace(/"ts":"[^"]+"/, `"ts":"${time(i)}"`))
  const second = (s: number) => new Date(Date.UTC(2026, 10, 21, 12, 0, s)).toISOString()

  test('calls whose times run backwards: the span is from the earliest to the latest, never negative', () => {
    const c = analyse(at(thrash(), (i) => second(50 - i * 10))).candidates[0] as RetroCandidate
    expect(c.evidence).toMatchObject({ seconds: 40, calls: 5 })
    expect(c.description).toMatch(/ in 40 s with 3 failures/)
  })

  test('a call whose time does not parse: no NaN, the span of the others', () => {
    const one = analyse(at(thrash(), (i) => (i === 4 ? 'garbage' : second(i)))).candidates[0] as RetroCandidate
    expect(one.evidence).toMatchObject({ seconds: 3 })
    expect(one.description).not.toMatch(/NaN/)
    const none = analyse(at(thrash(), () => 'garbage')).candidates[0] as RetroCandidate
    expect(none.evidence).toMatchObject({ seconds: null, calls: 5 })
    expect(none.description).toMatch(/5 calls touched 5 different tools or files with 3 failures/)
  })

  test('not when the clock went back by more than the window between the calls', () => {
    const lines = at(thrash(), (i) => (i < 3 ? second(3600 + i) : second(i)))
    expect(kinds(analyse(lines).candidates)).not.toContain('rapid-switching')
  })

  test('not when the calls are spread over more than the window', () => {
    const lines = thrash().map((l, i) =>
      l.replace(/"ts":"[^"]+"/, `"ts":"${new Date(Date.UTC(2026, 10, 21, 12, i * 2, 0)).toISOString()}"`),
    )
    expect(kinds(analyse(lines).candidates)).not.toContain('rapid-switching')
  })
})

describe('refused calls', () => {
  const refused = (command: string) =>
    rec({
      event: 'PostToolUseFailure',
      tool: 'Bash',
      input: { command },
      ok: false,
      error:
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nrun it with the dry-run flag first",
    })
  test("the user's words after a refused call are a correction, whatever their wording; the refusal is no failure to fix or retry", () => {
    const { candidates } = analyse([
      refused('make deploy'),
      prompt('run it with the dry-run flag first'),
      refused('make deploy'),
      refused('make deploy'),
      bash('make deploy', true),
    ])
    expect(kinds(candidates)).toEqual(['user-correction'])
    expect(candidates[0]?.evidence).toMatchObject({
      correction: 'run it with the dry-run flag first',
      after_command: 'make deploy',
    })
  })
})
