// `git learn capture` (src/flows/capture.ts) on real repositories: the transcript read from where the last read
// stopped, in order, redacted; missing, rotated, truncated, torn and foreign transcripts handled without duplicates.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  appendFileSync,
  existsSync,
  readFileSync,
  readdirSync,
  renameSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { PROJECT_ROOT, makeRepo, tempDir } from '../../helpers/repo.js'
import type { TestRepo } from '../../helpers/repo.js'

const SESSION = 'c0ffee00-1111-4a5b-9c7d-000000000001'
let clock = 0
const at = () => new Date(Date.UTC(2026, 10, 20, 12, 0, 0) + clock++ * 1000).toISOString()
let ids = 0
const uuid = () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`
const entry = (type: 'user' | 'assistant', content: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    type,
    uuid: uuid(),
    timestamp: at(),
    sessionId: SESSION,
    cwd: '/work/shop',
    message: { role: type, content },
    ...extra,
  })

const prompt = (text: string) => entry('user', text, { promptId: uuid() })
const call = (id: string, name: string, input: unknown) => entry('assistant', [{ type: 'tool_use', id, name, input }])
const result = (id: string, text: string, opts: { error?: boolean; structured?: unknown } = {}) =>
  entry('user', [{ type: 'tool_result', tool_use_id: id, content: text, ...(opts.error ? { is_error: true } : {}) }], {
    toolUseResult: opts.structured ?? (opts.error ? `Error: ${text}` : text),
  })
const bash = (id: string, command: string, out: { stdout?: string; error?: string }) => [
  call(id, 'Bash', { command, description: 'run it' }),
  out.error !== undefined
    ? result(id, out.error, { error: true })
    : result(id, out.stdout ?? '', {
        structured: { stdout: out.stdout ?? '', stderr: '', interrupted: false, isImage: false },
      }),
]

interface Rec {
  ts: string
  event: string
  tool: string | null
  tool_use_id: string | null
  ok: boolean | null
  input?: unknown
  output?: unknown
  error?: unknown
  session: string | null
}

function setup(): {
  repo: TestRepo
  transcript: string
  capture(event?: string, extra?: Record<string, unknown>): Promise<void>
  recs(): Rec[]
  log(): string
} {
  const repo = makeRepo()
  const transcript = join(tempDir('gl-claude-projects-'), `${SESSION}.jsonl`)
  const learn = join(repo.root, '.git', 'learn')
  return {
    repo,
    transcript,
    async capture(event = 'Stop', extra = {}) {
      const payload = {
        session_id: SESSION,
        transcript_path: transcript,
        cwd: repo.root,
        permission_mode: 'default',
        hook_event_name: event,
        ...extra,
      }
      const r = await repo.cli(['capture'], { stdin: JSON.stringify(payload) })
      expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' })
    },
    recs: () =>
      existsSync(join(learn, 'observations.jsonl'))
        ? readFileSync(join(learn, 'observations.jsonl'), 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as Rec)
        : [],
    log: () => (existsSync(join(learn, 'hooks.log')) ? readFileSync(join(learn, 'hooks.log'), 'utf8') : ''),
  }
}

const calls = (recs: Rec[]) => recs.filter((r) => r.event.startsWith('PostToolUse')).map((r) => r.tool_use_id)
const write = (file: string, lines: string[]) => writeFileSync(file, lines.map((l) => `${l}\n`).join(''))
const append = (file: string, lines: string[]) => appendFileSync(file, lines.map((l) => `${l}\n`).join(''))

describe('git learn capture', () => {
  test('a real Claude Code 2.1.331 transcript: the prompt and every tool call with input and result, in order', async () => {
    const s = setup()
    writeFileSync(
      s.transcript,
      readFileSync(join(PROJECT_ROOT, 'test', 'fixtures', 'transcripts', 'claude-2.1.331.jsonl')),
    )
    await s.capture()
    const recs = s.recs()
    expect(recs.map((r) => `${r.event} ${r.tool ?? ''}`.trim())).toEqual([
      'UserPromptSubmit',
      'PostToolUse Bash',
      'PostToolUseFailure Bash',
      'PostToolUse Write',
      'PostToolUseFailure Read',
      'Stop',
    ])
    expect(recs[0]).toMatchObject({
      agent: 'claude-code',
      session: '164729f8-0065-418d-865b-d78dca378583',
      input: 'please list files',
      ok: null,
    })
    expect(recs[1]).toMatchObject({
      tool_use_id: 'toolu_standin_2',
      ok: true,
      input: { command: 'ls -la', description: 'list' },
      output: { stdout: expect.stringContaining('total'), interrupted: false },
    })
    expect(recs[2]).toMatchObject({ ok: false, input: { command: 'node -e "process.exit(3)"' }, error: 'Exit code 3' })
    expect(recs[4]).toMatchObject({
      ok: false,
      input: { file_path: '/work/scratch/nope.txt' },
      error: expect.stringContaining('File does not exist'),
    })
    expect(recs.slice(0, 5).map((r) => r.ts)).toEqual(
      recs
        .slice(0, 5)
        .map((r) => r.ts)
        .sort(),
    )
    expect(s.log()).toBe('')
  })

  test('reads on from where it stopped: a second capture adds only the new lines; none twice', async () => {
    const s = setup()
    write(s.transcript, [
      prompt('run the tests'),
      ...bash('t1', 'npm test', { error: 'Exit code 1\nFAIL test/a.test.ts' }),
    ])
    await s.capture()
    await s.capture()
    expect(calls(s.recs())).toEqual(['t1'])
    append(s.transcript, [...bash('t2', 'npm test', { stdout: 'ok' }), prompt('thanks')])
    await s.capture('SessionEnd', { reason: 'exit' })
    const recs = s.recs()
    expect(recs.map((r) => r.event)).toEqual([
      'UserPromptSubmit',
      'PostToolUseFailure',
      'Stop',
      'Stop',
      'PostToolUse',
      'UserPromptSubmit',
      'SessionEnd',
    ])
    expect(calls(recs)).toEqual(['t1', 't2'])
  })

  test("a call the user refused, with the reason they gave: the refusal, then their words as a prompt (retro's correction)", async () => {
    const s = setup()
    const refusal =
      "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nuse pnpm, not npm"
    write(s.transcript, [
      prompt('install it'),
      call('t1', 'Bash', { command: 'npm install left-pad' }),
      result('t1', refusal, { error: true }),
    ])
    await s.capture()
    expect(s.recs().map((r) => `${r.event} ${typeof r.input === 'string' ? r.input : ''}`.trim())).toEqual([
      'UserPromptSubmit install it',
      'PostToolUseFailure',
      'UserPromptSubmit use pnpm, not npm',
      'Stop',
    ])
    const retro = await s.repo.cli(['retro', '--json'])
    expect(retro.json().candidates).toEqual([
      expect.objectContaining({
        kind: 'user-correction',
        evidence: expect.objectContaining({ correction: 'use pnpm, not npm', after_command: 'npm install left-pad' }),
      }),
    ])
  })

  test('a call whose result comes in a later read keeps its tool and input', async () => {
    const s = setup()
    write(s.transcript, [prompt('go'), call('t1', 'Task', { description: 'explore', prompt: 'look around' })])
    await s.capture('PreCompact', { trigger: 'auto' })
    expect(calls(s.recs())).toEqual([])
    append(s.transcript, [result('t1', 'found it')])
    await s.capture()
    expect(s.recs().find((r) => r.tool_use_id === 't1')).toMatchObject({
      tool: 'Task',
      input: { description: 'explore' },
      ok: true,
    })
  })

  test('a last line still being written is left for the next read', async () => {
    const s = setup()
    const [c, r] = bash('t1', 'ls', { stdout: 'a' }) as [string, string]
    writeFileSync(s.transcript, `${prompt('list')}\n${c}\n${r.slice(0, 40)}`)
    await s.capture()
    expect(calls(s.recs())).toEqual([])
    appendFileSync(s.transcript, `${r.slice(40)}\n`)
    await s.capture()
    expect(calls(s.recs())).toEqual(['t1'])
    expect(s.log()).toBe('')
  })

  test('a missing transcript: a warning in hooks.log, the event still recorded, exit 0', async () => {
    const s = setup()
    await s.capture()
    expect(s.recs().map((r) => r.event)).toEqual(['Stop'])
    expect(s.log()).toMatch(/capture: transcript .*\.jsonl does not exist/)
  })

  test.each(['a FIFO', 'a symlink to a FIFO'])(
    'a transcript_path naming %s: refused at once (the built binary, a 10 s guard), no lock left, the event recorded',
    (what) => {
      const s = setup()
      const fifo = join(tempDir('gl-fifo-'), 'pipe.jsonl')
      execFileSync('mkfifo', [fifo])
      const path = what === 'a FIFO' ? fifo : join(tempDir('gl-fifo-link-'), 'x.jsonl')
      if (path !== fifo) symlinkSync(fifo, path)
      const payload = { session_id: SESSION, transcript_path: path, cwd: s.repo.root, hook_event_name: 'Stop' }
      const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'dist', 'bin.js'), 'capture'], {
        cwd: s.repo.root,
        input: JSON.stringify(payload),
        encoding: 'utf8',
        timeout: 10_000,
        killSignal: 'SIGKILL',
      })
      expect({ signal: r.signal, status: r.status, stdout: r.stdout }).toEqual({ signal: null, status: 0, stdout: '' })
      expect(s.log()).toContain(`transcript ${path} could not be read: ${path} is not a regular file`)
      expect(readdirSync(join(s.repo.root, '.git', 'learn', 'transcripts')).filter((f) => f.includes('.lock'))).toEqual(
        [],
      )
      expect(s.recs().map((rec) => rec.event)).toEqual(['Stop'])
    },
  )

  test('a rotated transcript (a new file in its place) is read from its start without recording anything twice', async () => {
    const s = setup()
    const first = [prompt('one'), ...bash('t1', 'echo 1', { stdout: '1' })]
    write(s.transcript, first)
    await s.capture()
    // The old file moves away; a new one (another inode) holds the old lines and new ones.
    renameSync(s.transcript, `${s.transcript}.old`)
    write(s.transcript, [...first, ...bash('t2', 'echo 2', { stdout: '2' })])
    await s.capture()
    expect(calls(s.recs())).toEqual(['t1', 't2'])
    expect(s.recs().filter((r) => r.event === 'UserPromptSubmit')).toHaveLength(1)
    expect(s.log()).toMatch(/is not the file read before .* read again from its start/)
  })

  test('a truncated transcript (shorter than the last read) is read again without duplicates', async () => {
    const s = setup()
    const lines = [prompt('one'), ...bash('t1', 'echo 1', { stdout: '1' }), ...bash('t2', 'echo 2', { stdout: '2' })]
    write(s.transcript, lines)
    await s.capture()
    truncateSync(
      s.transcript,
      Buffer.byteLength(
        lines
          .slice(0, 3)
          .map((l) => `${l}\n`)
          .join(''),
      ),
    )
    append(s.transcript, bash('t3', 'echo 3', { stdout: '3' }))
    await s.capture()
    expect(calls(s.recs())).toEqual(['t1', 't2', 't3'])
    expect(s.log()).toMatch(/rotated, truncated or rewritten/)
  })

  test('a transcript of an unknown shape: a warning, no crash, nothing invented', async () => {
    const s = setup()
    write(s.transcript, [
      ...Array.from({ length: 6 }, (_, i) => JSON.stringify({ kind: 'turn', n: i, role: 'user', text: 'hello' })),
      'not json at all',
      '[1,2]',
    ])
    await s.capture()
    expect(s.recs().map((r) => r.event)).toEqual(['Stop'])
    expect(s.log()).toMatch(/none of 8 new lines has a shape git learn reads/)
    expect(s.log()).toMatch(/: 2 line\(s\) are not JSON objects/)
  })

  test('secrets in inputs and results are redacted before they reach the disk; long fields are cut', async () => {
    const s = setup()
    const token = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`
    write(s.transcript, [
      prompt(`use the token ${token}`),
      ...bash('t1', `curl -H "Authorization: token ${token}" https://api.github.com`, {
        stdout: `${token}\n${'x'.repeat(20000)}`,
      }),
    ])
    await s.capture()
    const text = readFileSync(join(s.repo.root, '.git', 'learn', 'observations.jsonl'), 'utf8')
    expect(text).not.toContain(token)
    expect(s.recs().find((r) => r.tool_use_id === 't1')).toMatchObject({ truncated: true })
    expect(Math.max(...text.split('\n').map((l) => Buffer.byteLength(l)))).toBeLessThan(16 * 1024)
  })

  test("a call's input with an env object: values known by their names and keys that are credentials are redacted", async () => {
    const s = setup()
    const secrets = ['AKIAZ3MXP7Q2LN4TB6WD', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8aBv3Lk2', 'Tr0ub4dor&3xQz9']
    write(s.transcript, [
      call('t1', 'mcp__vault__set', {
        [secrets[0] as string]: 'x',
        env: { AWS_SECRET_ACCESS_KEY: secrets[1], DB_PASSWORD: secrets[2] },
      }),
      result('t1', 'stored'),
    ])
    await s.capture()
    const text = readFileSync(join(s.repo.root, '.git', 'learn', 'observations.jsonl'), 'utf8')
    for (const secret of secrets) expect(text).not.toContain(secret)
    expect(s.recs().find((r) => r.tool_use_id === 't1')?.input).toEqual({
      '[REDACTED:aws-access-key-id]': 'x',
      env: { AWS_SECRET_ACCESS_KEY: '[REDACTED:aws-secret-access-key]', DB_PASSWORD: '[REDACTED:generic-assignment]' },
    })
  })

  test('observe.enabled: false records nothing; ignore_tools is honoured', async () => {
    const s = setup()
    write(s.transcript, [
      prompt('go'),
      call('t1', 'mcp__db__query', { sql: 'select 1' }),
      result('t1', '1'),
      ...bash('t2', 'ls', { stdout: 'a' }),
    ])
    s.repo.write('.learnings/config.yaml', 'observe:\n  ignore_tools: ["mcp__*"]\n')
    await s.capture()
    expect(calls(s.recs())).toEqual(['t2'])
    s.repo.write('.learnings/config.yaml', 'observe:\n  enabled: false\n')
    append(s.transcript, bash('t3', 'ls', { stdout: 'a' }))
    await s.capture()
    expect(calls(s.recs())).toEqual(['t2'])
  })

  test('a transcript_path that is not an absolute .jsonl path is not read', async () => {
    const s = setup()
    writeFileSync(join(s.repo.root, 'notes.txt'), `${prompt('secret plans')}\n`)
    const payload = {
      session_id: SESSION,
      transcript_path: join(s.repo.root, 'notes.txt'),
      cwd: s.repo.root,
      hook_event_name: 'Stop',
    }
    expect(await s.repo.cli(['capture'], { stdin: JSON.stringify(payload) })).toMatchObject({ code: 0, stdout: '' })
    expect(s.recs().map((r) => r.event)).toEqual(['Stop'])
    expect(s.log()).toMatch(/not an absolute path to a \.jsonl transcript; not read/)
  })

  test('a token in a transcript_path (a file name: the token, then ".txt") is redacted in hooks.log', async () => {
    const s = setup()
    const token = 'ghp_' + 'R8fK2mXq9LsV4tYw7ZbN3cJ6hD1pGe5aUo0i'
    const payload = {
      session_id: SESSION,
      transcript_path: `/tmp/${token}.txt`,
      cwd: s.repo.root,
      hook_event_name: 'Stop',
    }
    expect(await s.repo.cli(['capture'], { stdin: JSON.stringify(payload) })).toMatchObject({ code: 0, stdout: '' })
    expect(s.log()).toMatch(/names \/tmp\/\[REDACTED:github-token\]\.txt, not an absolute path/)
    expect(s.log()).not.toContain(token.slice(4, 20))
  })

  test('a payload that is not JSON: logged, exit 0, nothing recorded', async () => {
    const s = setup()
    const r = await s.repo.cli(['capture'], { stdin: '{"hook_event_name": "Stop", ' })
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' })
    expect(s.recs()).toEqual([])
    expect(s.log()).toMatch(/capture: the hook payload is not a JSON object; nothing captured/)
  })
})

describe('a capture killed between appending its records and saving its read position', () => {
  const stateFile = (s: ReturnType<typeof setup>) => {
    const dir = join(s.repo.root, '.git', 'learn', 'transcripts')
    const json = readdirSync(dir).filter((f) => f.endsWith('.json'))
    expect(json).toHaveLength(1)
    return join(dir, json[0] as string)
  }
  const liveFile = (s: ReturnType<typeof setup>) => join(s.repo.root, '.git', 'learn', 'observations.jsonl')
  /** The log without its last `n` lines (the records a killed capture had not written yet). */
  const dropLast = (s: ReturnType<typeof setup>, n: number) => {
    const lines = readFileSync(liveFile(s), 'utf8').split('\n').filter(Boolean)
    writeFileSync(
      liveFile(s),
      lines
        .slice(0, lines.length - n)
        .map((l) => `${l}\n`)
        .join(''),
    )
  }

  /**
   * Capture t2 and t3 after t1, then put back what a kill after the append would have left: the position before,
   * marked as appending, and the log without the Stop record (written after the position is saved) nor the last
   * `unwritten` records.
   */
  async function killedAfterAppend(unwritten: number) {
    const s = setup()
    write(s.transcript, [prompt('run the tests'), ...bash('t1', 'npm test', { error: 'Exit code 1' })])
    await s.capture()
    const before = JSON.parse(readFileSync(stateFile(s), 'utf8')) as Record<string, unknown>
    expect(before['appending']).toBeUndefined()
    append(s.transcript, [...bash('t2', 'npm test', { stdout: 'ok' }), ...bash('t3', 'git push', { stdout: 'ok' })])
    await s.capture()
    writeFileSync(stateFile(s), JSON.stringify({ ...before, appending: true }))
    dropLast(s, 1 + unwritten)
    return s
  }

  test('all its records were written: the next capture writes none of them again, and says so', async () => {
    const s = await killedAfterAppend(0)
    await s.capture()
    expect(calls(s.recs())).toEqual(['t1', 't2', 't3'])
    expect(s.log()).toMatch(/2 record\(s\) written by an interrupted capture are in the log already/)
    const after = JSON.parse(readFileSync(stateFile(s), 'utf8')) as Record<string, unknown>
    expect(after['appending']).toBeUndefined()
  })

  test('some of its records were written (a kill between two batches): the rest are written once', async () => {
    const s = await killedAfterAppend(1)
    await s.capture()
    expect(calls(s.recs())).toEqual(['t1', 't2', 't3'])
  })

  test('none were written (killed just after marking): every record is written once, nothing lost', async () => {
    const s = await killedAfterAppend(2)
    await s.capture()
    expect(calls(s.recs())).toEqual(['t1', 't2', 't3'])
    expect(s.log()).not.toMatch(/interrupted capture/)
  })

  test("the transcript's first capture killed after its append: read again from the start, nothing twice", async () => {
    const s = setup()
    write(s.transcript, [prompt('go'), ...bash('t1', 'npm test', { stdout: 'ok' })])
    await s.capture()
    const saved = JSON.parse(readFileSync(stateFile(s), 'utf8')) as Record<string, unknown>
    // What the first capture marked before its append: the file's start.
    const none = createHash('sha1').digest('hex')
    writeFileSync(
      stateFile(s),
      JSON.stringify({
        ...saved,
        offset: 0,
        head: none,
        tail: none,
        appending: true,
        cursor: { open: {}, lastTs: null, lastIds: [] },
      }),
    )
    dropLast(s, 1)
    append(s.transcript, bash('t2', 'ls', { stdout: 'a' }))
    await s.capture()
    expect(calls(s.recs())).toEqual(['t1', 't2'])
    expect(s.recs().filter((r) => r.event === 'UserPromptSubmit')).toHaveLength(1)
  })

  test('kill -9 at random moments of a long capture: its lock does not hold the next one back, and every call is recorded exactly once', async () => {
    const s = setup()
    const n = 1500
    const lines: string[] = []
    for (let i = 0; i < n; i++) lines.push(...bash(`k${i}`, `echo ${i} ${'x'.repeat(200)}`, { stdout: `${i}` }))
    write(s.transcript, lines)
    const payload = JSON.stringify({
      session_id: SESSION,
      transcript_path: s.transcript,
      cwd: s.repo.root,
      hook_event_name: 'Stop',
    })
    const run = (killAfterMs?: number) =>
      new Promise<void>((resolve) => {
        const child = spawn(process.execPath, [join(PROJECT_ROOT, 'dist', 'bin.js'), 'capture'], {
          cwd: s.repo.root,
          stdio: ['pipe', 'ignore', 'ignore'],
        })
        child.stdin.end(payload)
        const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs)
        child.on('exit', () => {
          clearTimeout(timer)
          resolve()
        })
      })
    for (const ms of [40, 90, 140, 200, 260, 330]) {
      append(s.transcript, bash(`late${ms}`, 'true', { stdout: '' }))
      await run(ms)
    }
    await run()
    const ids = calls(s.recs())
    expect(ids).toHaveLength(n + 6)
    expect(new Set(ids).size).toBe(n + 6)
  }, 60_000)
})

describe('observations.jsonl: whole lines or nothing', () => {
  test('a torn tail (a crash or a full disk mid-line) is ended before the next append: the new record parses', async () => {
    const s = setup()
    write(s.transcript, [prompt('one')])
    await s.capture()
    const live = join(s.repo.root, '.git', 'learn', 'observations.jsonl')
    appendFileSync(live, '{"v":1,"ts":"2026-11-20T12:00:09.000Z","agent":"claude-co')
    append(s.transcript, bash('t1', 'echo 1', { stdout: '1' }))
    await s.capture()
    const lines = readFileSync(live, 'utf8').split('\n')
    expect(lines.at(-1)).toBe('')
    const parsed = lines.filter(Boolean).map((l) => {
      try {
        return (JSON.parse(l) as Rec).event
      } catch {
        return 'torn'
      }
    })
    expect(parsed).toEqual(['UserPromptSubmit', 'Stop', 'torn', 'PostToolUse', 'Stop'])
    const retro = await s.repo.cli(['retro', '--json'])
    expect(retro.json()).toMatchObject({ skipped_lines: 1 })
  })
})
