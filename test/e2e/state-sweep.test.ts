/**
 * What agent sessions leave in `.git/learn/` over months of use, with the built hooks on real files (ages set with
 * utimes): a transcript's read offset (`transcripts/`) goes once its transcript is gone and never while it is there
 * (a resumed session is not recorded twice); a killed session's pending recalls (`recalls/`) go after 30 idle days;
 * a killed process's leftovers after a day; all at most once a day, and never from under a live holder's lock.
 * `hooks.log` is kept under 1 MB with one older part.
 */
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { BUILT_BIN } from '../helpers/fault.js'
import { learningText, makeRepo, tempDir } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

const DAY = 24 * 3_600_000
const key = (s: string) => createHash('sha1').update(s).digest('hex').slice(0, 24)
/** Set a file's mtime (and atime) to `days` days ago. */
const age = (file: string, days: number) => {
  const t = new Date(Date.now() - days * DAY)
  utimesSync(file, t, t)
}

function hook(
  repo: TestRepo,
  name: string,
  payload: unknown,
  args: string[] = [],
): { status: number | null; stdout: string } {
  const r = spawnSync(process.execPath, [BUILT_BIN, name, ...args], {
    cwd: repo.root,
    input: typeof payload === 'string' ? payload : JSON.stringify(payload),
    encoding: 'utf8',
  })
  expect(r.stderr).toBe('')
  return { status: r.status, stdout: r.stdout }
}

const line = (type: 'user' | 'assistant', session: string, i: number, content: unknown) =>
  `${JSON.stringify({
    type,
    uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    timestamp: new Date(Date.UTC(2026, 10, 20, 12, 0, i)).toISOString(),
    sessionId: session,
    message: { role: type, content },
  })}\n`

/** A transcript of one prompt, in a folder of its own (an agent's project folder), and its capture at Stop. */
function session(repo: TestRepo, id: string, folder = tempDir('gl-claude-projects-')) {
  const transcript = join(folder, `${id}.jsonl`)
  writeFileSync(transcript, line('user', id, 1, `prompt of ${id}`))
  const capture = (event = 'Stop') =>
    hook(repo, 'capture', { session_id: id, transcript_path: transcript, cwd: repo.root, hook_event_name: event })
  return { transcript, state: join(repo.root, '.git', 'learn', 'transcripts', `${key(transcript)}.json`), capture }
}

const learn = (repo: TestRepo, ...p: string[]) => join(repo.root, '.git', 'learn', ...p)
/** The last sweep began `days` ago. */
const sweptAgo = (repo: TestRepo, days: number) => {
  const stamp = learn(repo, 'sweep.stamp')
  if (!existsSync(stamp)) writeFileSync(stamp, '')
  age(stamp, days)
}
const prompts = (repo: TestRepo) =>
  readFileSync(learn(repo, 'observations.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { event: string; input: unknown })
    .filter((r) => r.event === 'UserPromptSubmit')
    .map((r) => r.input)

describe('transcript offsets', () => {
  test('an offset goes once its transcript is gone a day; one whose transcript is there stays however old', () => {
    const repo = makeRepo()
    const gone = session(repo, 'gone-session')
    const kept = session(repo, 'kept-session')
    const fresh = session(repo, 'fresh-session')
    for (const s of [gone, kept, fresh]) s.capture()
    expect([gone, kept, fresh].every((s) => existsSync(s.state))).toBe(true)
    // Claude Code removed the first transcript after its cleanupPeriodDays; the second's was raised (a year idle).
    rmSync(gone.transcript)
    rmSync(fresh.transcript)
    age(gone.state, 31)
    age(kept.state, 400)
    age(kept.transcript, 400)
    sweptAgo(repo, 2)
    kept.capture()
    expect(existsSync(gone.state)).toBe(false)
    expect(existsSync(kept.state)).toBe(true)
    // Written within the day (a capture may be making it): left for a later sweep.
    expect(existsSync(fresh.state)).toBe(true)
    // The old session resumed: only what is new is recorded, nothing twice.
    appendFileSync(kept.transcript, line('user', 'kept-session', 2, 'resumed a year later'))
    kept.capture()
    expect(prompts(repo)).toEqual([
      'prompt of gone-session',
      'prompt of kept-session',
      'prompt of fresh-session',
      'resumed a year later',
    ])
  }, 60_000)

  test('at most once a day: a sweep that began within the day leaves even a stale offset to the next one', () => {
    const repo = makeRepo()
    const a = session(repo, 'a-session')
    const b = session(repo, 'b-session')
    a.capture()
    b.capture() // the first capture swept (no stamp yet); this one did not
    rmSync(a.transcript)
    age(a.state, 5)
    sweptAgo(repo, 0.5)
    b.capture()
    expect(existsSync(a.state)).toBe(true)
    sweptAgo(repo, 1.5)
    b.capture()
    expect(existsSync(a.state)).toBe(false)
    expect(statSync(learn(repo, 'sweep.stamp')).mtimeMs).toBeGreaterThan(Date.now() - DAY / 2)
  }, 60_000)

  test("another side's offset (a dev container's transcript, seen from its host) waits 90 days, not one", () => {
    const repo = makeRepo()
    const here = session(repo, 'here-session')
    here.capture()
    const other = (name: string, days: number) => {
      const path = join(tempDir('gl-claude-projects-'), `${name}.jsonl`) // the folder is here, the file is not
      const file = learn(repo, 'transcripts', `${key(path)}.json`)
      const state = JSON.parse(readFileSync(here.state, 'utf8')) as Record<string, unknown>
      writeFileSync(file, JSON.stringify({ ...state, path, tag: 'deadbeef' }))
      age(file, days)
      return file
    }
    const recent = other('container-recent', 60)
    const old = other('container-old', 91)
    // An earlier version's offset (no side named) of a folder not on this machine: the same 90 days.
    const state = JSON.parse(readFileSync(here.state, 'utf8')) as Record<string, unknown>
    const elsewhere = (name: string, days: number) => {
      const path = `/nonexistent-${key(name)}/.claude/projects/-work/${name}.jsonl`
      const file = learn(repo, 'transcripts', `${key(path)}.json`)
      writeFileSync(file, JSON.stringify({ ...state, path, tag: undefined }))
      age(file, days)
      return file
    }
    const untaggedRecent = elsewhere('untagged-recent', 60)
    const untaggedOld = elsewhere('untagged-old', 91)
    sweptAgo(repo, 2)
    here.capture()
    expect([recent, old, untaggedRecent, untaggedOld].map(existsSync)).toEqual([true, false, true, false])
  }, 60_000)

  test("a capture holding the transcript's lock keeps its offset; a killed process's leftovers go after a day", () => {
    const repo = makeRepo()
    const held = session(repo, 'held-session')
    const other = session(repo, 'other-session')
    held.capture()
    other.capture()
    rmSync(held.transcript)
    age(held.state, 3)
    // A live capture's lock (this test's process is alive; the lock was just made).
    writeFileSync(held.state.replace(/\.json$/, '.lock'), String(process.pid))
    const dir = dirname(held.state)
    const tmpOld = join(dir, `${key('x')}.json.4242@0badcafe.tmp`)
    const tmpNew = join(dir, `${key('y')}.json.4243@0badcafe.tmp`)
    const deadLock = join(dir, `${key('z')}.lock`)
    writeFileSync(tmpOld, '{')
    writeFileSync(tmpNew, '{')
    writeFileSync(deadLock, '999999999')
    age(tmpOld, 2)
    age(deadLock, 2)
    sweptAgo(repo, 2)
    other.capture()
    expect(existsSync(held.state)).toBe(true)
    expect(readdirSync(dir).sort()).toEqual(
      [
        `${key(held.transcript)}.json`,
        `${key(held.transcript)}.lock`,
        `${key(other.transcript)}.json`,
        `${key('y')}.json.4243@0badcafe.tmp`,
      ].sort(),
    )
  }, 60_000)
})

describe('pending recalls', () => {
  const failure = (repo: TestRepo, sessionId: string, i: number) => ({
    hook_event_name: 'PostToolUseFailure',
    session_id: sessionId,
    tool_name: 'Bash',
    tool_use_id: `toolu_${i}`,
    tool_input: { command: 'npm test' },
    error: 'Error: boom-ax exploded at line 3',
    cwd: repo.root,
  })
  const recallsOf = (repo: TestRepo, sessionId: string) => learn(repo, 'recalls', `${key(sessionId)}.json`)

  function store(): TestRepo {
    const repo = makeRepo()
    repo.write('.learnings/active/boom-ax.md', learningText('boom-ax'))
    repo.git('add', '.learnings')
    repo.git('commit', '-qm', 'store')
    return repo
  }

  test("a killed session's pending recalls go after 30 idle days, swept by recall itself or by capture", () => {
    const repo = store()
    for (const [i, s] of ['killed-long-ago', 'killed-last-week', 'live-session'].entries())
      expect(hook(repo, 'recall', failure(repo, s, i)).stdout).toContain('boom-ax')
    const [longAgo, lastWeek, live] = ['killed-long-ago', 'killed-last-week', 'live-session'].map((s) =>
      recallsOf(repo, s),
    ) as [string, string, string]
    expect([longAgo, lastWeek, live].every(existsSync)).toBe(true)
    age(longAgo, 31)
    age(lastWeek, 7)
    sweptAgo(repo, 2)
    // Only recall registered (no capture): its next hand-out sweeps.
    hook(repo, 'recall', failure(repo, 'live-session', 9))
    expect([longAgo, lastWeek, live].map(existsSync)).toEqual([false, true, true])

    // Held by a recall of that session right now: kept; capture's sweep takes it once the lock is gone.
    age(lastWeek, 40)
    writeFileSync(`${lastWeek}.lock`, String(process.pid))
    sweptAgo(repo, 2)
    const s = session(repo, 'live-session')
    s.capture()
    expect(existsSync(lastWeek)).toBe(true)
    rmSync(`${lastWeek}.lock`)
    sweptAgo(repo, 2)
    s.capture()
    expect([lastWeek, live].map(existsSync)).toEqual([false, true])
  }, 60_000)
})

describe('hooks.log', () => {
  const failing = (repo: TestRepo) => hook(repo, 'capture', 'not json')

  test('past 1 MB it moves to hooks.log.1, replacing the part before: two parts at most, the newest lines kept', () => {
    const repo = makeRepo()
    failing(repo)
    const log = learn(repo, 'hooks.log')
    const first = readFileSync(log, 'utf8')
    expect(first).toMatch(/capture: the hook payload is not a JSON object/)
    const filler = (tag: string) => `${tag} ${'x'.repeat(200)}\n`.repeat(Math.ceil((1 << 20) / 200))
    appendFileSync(log, filler('old'))
    failing(repo)
    expect(readFileSync(`${log}.1`, 'utf8')).toBe(first + filler('old'))
    expect(readFileSync(log, 'utf8')).toMatch(
      /^\S+ capture: the hook payload is not a JSON object; nothing captured\n$/,
    )
    appendFileSync(log, filler('newer'))
    failing(repo)
    expect(readFileSync(`${log}.1`, 'utf8')).toMatch(/newer/)
    expect(readFileSync(`${log}.1`, 'utf8')).not.toMatch(/^old/m)
    expect(statSync(log).size).toBeLessThan(1000)
  }, 60_000)

  test('hooks failing at once as it passes 1 MB: it moves once, no line lost', async () => {
    const repo = makeRepo()
    failing(repo)
    const log = learn(repo, 'hooks.log')
    const full = readFileSync(log, 'utf8') + `old ${'x'.repeat(200)}\n`.repeat(Math.ceil((1 << 20) / 200))
    writeFileSync(log, full)
    const n = 8
    await Promise.all(
      Array.from(
        { length: n },
        () =>
          new Promise((resolve) => {
            const child = spawn(process.execPath, [BUILT_BIN, 'capture'], {
              cwd: repo.root,
              stdio: ['pipe', 'ignore', 'ignore'],
            })
            child.on('close', resolve)
            child.stdin.end('not json')
          }),
      ),
    )
    const parts = readFileSync(`${log}.1`, 'utf8') + readFileSync(log, 'utf8')
    expect(parts.startsWith(full)).toBe(true)
    expect(parts.slice(full.length).match(/not a JSON object/g)).toHaveLength(n)
  }, 60_000)
})

describe('the cache', () => {
  test("a tier's failed-fetch marker past its 10 minutes goes at the next rebuild", () => {
    const repo = makeRepo()
    repo.write('.learnings/active/boom-ax.md', learningText('boom-ax'))
    repo.git('add', '.learnings')
    repo.git('commit', '-qm', 'store')
    const cache = learn(repo, 'cache')
    mkdirSync(cache, { recursive: true })
    const old = join(cache, `unfetched-${'a'.repeat(40)}-${'b'.repeat(12)}`)
    const recent = join(cache, `unfetched-${'c'.repeat(40)}-${'d'.repeat(12)}`)
    writeFileSync(old, '')
    writeFileSync(recent, '')
    age(old, 1 / 24)
    expect(hook(repo, 'search', '', ['boom']).status).toBe(0)
    expect([old, recent].map(existsSync)).toEqual([false, true])
  }, 60_000)
})
