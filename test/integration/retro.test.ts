import { appendFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { makeRepo } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'
import { sessionPayloads } from '../helpers/sessions.js'

async function replay(repo: TestRepo, file: string) {
  for (const p of sessionPayloads(file, repo.root)) expect((await repo.cli(['observe'], { stdin: p })).code).toBe(0)
}

async function setup() {
  const repo = makeRepo()
  expect((await repo.cli(['init'])).code).toBe(0)
  repo.git('add', '.learnings')
  repo.git('commit', '-q', '-m', 'init learnings')
  await replay(repo, 'claude-every-detector.jsonl')
  await replay(repo, 'claude-short-session.jsonl')
  return repo
}

describe('git learn retro', () => {
  test('--json finds the planted error→solution, retry loop, repeated workflow, correction and preference', async () => {
    const repo = await setup()
    const r = await repo.cli(['retro', '--json'])
    expect(r.code).toBe(0)
    const out = r.json()
    expect(out.skipped_lines).toBe(0)
    const byKind = (k: string) => out.candidates.filter((c: { kind: string }) => c.kind === k)
    expect(byKind('error-solution')).toEqual([
      expect.objectContaining({
        type: 'error-solution',
        trigger: 'ReferenceError: Cannot access __vi_import_0__ before initialization',
        evidence: expect.objectContaining({
          command: 'npx vitest run test/api.test.ts',
          edited_paths: [join(repo.root, 'test/api.test.ts')],
        }),
      }),
    ])
    expect(byKind('retry-loop')).toEqual([
      expect.objectContaining({
        type: 'anti-pattern',
        evidence: expect.objectContaining({ call: 'npm run build', max_in_a_row: 3 }),
      }),
    ])
    expect(byKind('repeated-workflow')).toEqual([
      expect.objectContaining({
        type: 'pattern',
        evidence: expect.objectContaining({ steps: ['Edit(*.ts)', 'Bash(pnpm lint)', 'Bash(git commit)'] }),
      }),
    ])
    expect(byKind('user-correction')).toEqual([
      expect.objectContaining({ type: 'instinct', trigger: 'about to run npm install zod' }),
    ])
    expect(byKind('tool-preference')).toEqual([expect.objectContaining({ name: 'prefer-pnpm-over-npm' })])
    for (const c of out.candidates)
      expect(Object.keys(c).sort()).toEqual(['description', 'evidence', 'kind', 'name', 'trigger', 'type'])
  })

  test('text output names each candidate and the next step; corrupt lines are counted', async () => {
    const repo = await setup()
    appendFileSync(join(repo.root, '.git', 'learn', 'observations.jsonl'), '{"broken\nnot json\n')
    const r = await repo.cli(['retro'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/skipped 2 corrupt line/)
    expect(r.stdout).toContain('avoid-retrying-npm-run-build')
    expect(r.stdout).toContain('git learn retro --write')
  })

  test('--session keeps one session; an unknown date is a usage error', async () => {
    const repo = await setup()
    const r = await repo.cli(['retro', '--json', '--session', '5e6f7a8b-2222-4c3d-8e9f-000000000002'])
    expect(r.json().candidates).toEqual([])
    expect(r.json().records).toBe(6)
    expect((await repo.cli(['retro', '--since', 'last week'])).code).toBe(2)
    expect((await repo.cli(['retro', '--json', '--since', '2999-01-01'])).json().records).toBe(0)
  })

  test('--write lands the admitted candidates in pending/ in ONE commit and lists refusals with a reason', async () => {
    const repo = await setup()
    const head = repo.git('rev-parse', 'HEAD').trim()
    const r = await repo.cli(['retro', '--write', '--json'])
    const out = r.json()
    expect(out.written.length).toBeGreaterThan(0)
    expect(out.written.length + out.refused.length).toBe(out.candidates.length)
    for (const x of out.refused) expect(x.reason).toBeTruthy()
    expect(repo.git('rev-list', '--count', `${head}..HEAD`).trim()).toBe('1')
    const files = repo.git('show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()
    expect(files).toEqual(out.written.map((w: { path: string }) => w.path).sort())
    const msg = repo.git('log', '-1', '--format=%B')
    for (const w of out.written) expect(msg).toContain(`Learning: ${w.name}`)
    expect(msg).toContain('Learning-To: pending')
    const one = repo.read(out.written[0].path)
    expect(one).toContain('confidence: 0.3')
    expect(one).toMatch(/source:\n\s+kind: retrospective\n\s+agent: claude-code/)
    expect(repo.git('status', '--porcelain')).toBe('')
    // The observations are kept: nothing is archived or deleted as "processed".
    expect(readdirSync(join(repo.root, '.git', 'learn'))).toContain('observations.jsonl')
    // A second run refuses every candidate (names taken) and commits nothing.
    const again = await repo.cli(['retro', '--write', '--json'])
    expect(again.json().written).toEqual([])
    expect(repo.git('rev-list', '--count', `${head}..HEAD`).trim()).toBe('1')
  })
})

describe('retro --write compares the candidates with each other', () => {
  const SESSION = '9a0b1c2d-3333-4e5f-8a9b-000000000003'
  let n = 0
  const payload = (
    root: string,
    event: string,
    tool: string,
    input: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) =>
    JSON.stringify({
      session_id: SESSION,
      transcript_path: '/tmp/t.jsonl',
      cwd: root,
      permission_mode: 'default',
      hook_event_name: event,
      tool_name: tool,
      tool_input: input,
      tool_use_id: `toolu_${++n}`,
      ...extra,
    })
  /** A failing command, an edit, and the same command passing: one error→solution candidate per command. */
  function fixed(root: string, command: string, error: string, file: string): string[] {
    const bash = { command, description: 'run it' }
    const edit = { file_path: join(root, file), old_string: 'a', new_string: 'b', replace_all: false }
    return [
      payload(root, 'PreToolUse', 'Bash', bash),
      payload(root, 'PostToolUseFailure', 'Bash', bash, { error: `Exit code 1\n${error}`, is_interrupt: false }),
      payload(root, 'PreToolUse', 'Edit', edit),
      payload(root, 'PostToolUse', 'Edit', edit, {
        tool_response: { filePath: edit.file_path, oldString: 'a', newString: 'b', structuredPatch: [] },
      }),
      payload(root, 'PreToolUse', 'Bash', bash),
      payload(root, 'PostToolUse', 'Bash', bash, {
        tool_response: { stdout: 'done', stderr: '', interrupted: false, isImage: false },
      }),
    ]
  }

  test('two near-twin candidates: the first is written, the second skipped with its reason', async () => {
    const repo = makeRepo()
    expect((await repo.cli(['init'])).code).toBe(0)
    repo.git('add', '-A')
    repo.git('commit', '-q', '-m', 'init')
    const error = "Error: ENOSPC: no space left on device, write '/var/cache/build.tar'"
    for (const p of [
      ...fixed(repo.root, 'npm run build', error, 'scripts/build.mjs'),
      ...fixed(repo.root, 'npm run build:ci', error, 'scripts/build.mjs'),
    ])
      expect((await repo.cli(['observe'], { stdin: p })).code).toBe(0)
    const candidates = (await repo.cli(['retro', '--json']))
      .json()
      .candidates.filter((c: { kind: string }) => c.kind === 'error-solution')
    expect(candidates).toHaveLength(2)
    const [first, second] = candidates.map((c: { name: string }) => c.name)
    const r = await repo.cli(['retro', '--write', '--json'])
    expect(r.code).toBe(0)
    const out = r.json()
    expect(out.written.map((w: { name: string }) => w.name)).toContain(first)
    expect(out.written.map((w: { name: string }) => w.name)).not.toContain(second)
    expect(out.skipped).toEqual([
      {
        name: second,
        reason: expect.stringMatching(
          new RegExp(
            `^near duplicate of ${first}, another candidate of this run \\(similarity (0\\.[89]\\d|1\\.00)\\); kept the first$`,
          ),
        ),
      },
    ])
    expect(repo.exists(`.learnings/pending/${second}.md`)).toBe(false)
    expect(repo.git('status', '--porcelain')).toBe('')
  })

  test('the gate trailers of each candidate sit in its own Learning group', async () => {
    const repo = makeRepo()
    expect((await repo.cli(['init'])).code).toBe(0)
    repo.git('add', '-A')
    repo.git('commit', '-q', '-m', 'init')
    for (const p of [
      ...fixed(
        repo.root,
        'npm run build',
        "Error: ENOSPC: no space left on device, write '/var/cache/build.tar'",
        'scripts/build.mjs',
      ),
      ...fixed(
        repo.root,
        'npx tsc -p .',
        "src/a.ts(3,1): error TS2307: Cannot find module './b' or its corresponding type declarations.",
        'src/a.ts',
      ),
    ])
      expect((await repo.cli(['observe'], { stdin: p })).code).toBe(0)
    const out = (await repo.cli(['retro', '--write', '--json'])).json()
    expect(out.written).toHaveLength(2)
    const msg = repo.git('log', '-1', '--format=%B')
    for (const w of out.written)
      expect(msg).toMatch(
        new RegExp(`Learning: ${w.name}\nLearning-Action: add\nLearning-To: pending\nLearning-Gates: [^\n]+\n`),
      )
  })

  test("a draft's root cause is left for the reviewer: approve refuses it until it is written", async () => {
    const repo = makeRepo()
    expect((await repo.cli(['init'])).code).toBe(0)
    repo.git('add', '-A')
    repo.git('commit', '-q', '-m', 'init')
    for (const p of fixed(
      repo.root,
      'npm run build',
      "Error: ENOSPC: no space left on device, write '/var/cache/build.tar'",
      'scripts/build.mjs',
    ))
      expect((await repo.cli(['observe'], { stdin: p })).code).toBe(0)
    const out = (await repo.cli(['retro', '--write', '--json'])).json()
    expect(out.written).toHaveLength(1)
    const { name, path } = out.written[0]
    const text = repo.read(path)
    // What was observed, nothing claimed: no declared depth, and the root cause is the reviewer's to write.
    expect(text).not.toMatch(/discovery_depth/)
    expect(text).toMatch(/## Root Cause\nTo be filled in by the reviewer/)
    expect(text).toMatch(/## Evidence\n`npm run build` failed/)
    repo.setIdentity('Bob Reviewer', 'bob@example.com')
    const before = repo.snapshot()
    const refused = await repo.cli(['approve', name])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(
      `"## Root Cause" still says "To be filled in by the reviewer…": write it in ${path}`,
    )
    expect(refused.stderr).toContain(`git learn approve ${name}`)
    expect(repo.snapshot()).toBe(before)
    repo.write(
      path,
      text.replace(
        /To be filled in by the reviewer[^\n]*/,
        'The build cache lived on a 1 GB tmpfs that the tarball outgrew; it now goes under the workspace.',
      ),
    )
    repo.git('commit', '-q', '-am', 'root cause written')
    const approved = await repo.cli(['approve', name])
    expect(approved.stderr).toBe('')
    expect(approved.code).toBe(0)
  })
})
