/**
 * Torn local state: after a power loss or a crash, or from another version of git learn, any file under .git/learn/
 * may be zero-filled, cut short or hold another format. Each file of a warm state in turn, each way torn: every
 * reading command (search, status, list, check, doctor, log and the agent hooks) must answer exactly as it does with
 * that file put right (a cache gone, a log cut at its last whole line), with no stack and no internal error, and
 * never trust what it cannot read (a zeroed index read as an empty store would say "no learnings").
 */
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { expect, test } from 'vitest'
import { BUILT_BIN, pool } from '../helpers/fault.js'
import { learningText, makeRepo, tempDir, tierRemote } from '../helpers/repo.js'

const ENV = {
  ...process.env,
  NO_COLOR: '1',
  GIT_AUTHOR_DATE: '2026-11-20T12:00:00Z',
  GIT_COMMITTER_DATE: '2026-11-20T12:00:00Z',
}

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function runBin(cwd: string, argv: readonly string[], input = ''): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BUILT_BIN, ...argv], { cwd, env: ENV })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (b: Buffer) => void (stdout += b.toString()))
    child.stderr.on('data', (b: Buffer) => void (stderr += b.toString()))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(input)
  })
}

const payload = (root: string, o: Record<string, unknown>) =>
  JSON.stringify({ session_id: 'torn-1', cwd: root, transcript_path: join(root, 'no-transcript.jsonl'), ...o })

/** What each reading command is asked; stdin for the hooks. */
function probes(root: string): { name: string; argv: string[]; input?: string }[] {
  return [
    { name: 'search', argv: ['search', 'kestrela socket refused'] },
    { name: 'search tier', argv: ['search', 'org-note exploded', '--state', 'all'] },
    { name: 'status', argv: ['status', '--json'] },
    { name: 'list', argv: ['list', '--state', 'all'] },
    { name: 'check', argv: ['check'] },
    { name: 'check --staged', argv: ['check', '--staged'] },
    { name: 'doctor', argv: ['doctor'] },
    { name: 'log', argv: ['log'] },
    {
      name: 'context',
      argv: ['context'],
      input: payload(root, { hook_event_name: 'SessionStart', source: 'startup' }),
    },
    {
      name: 'recall',
      argv: ['recall'],
      input: payload(root, {
        hook_event_name: 'PostToolUseFailure',
        tool_name: 'Bash',
        tool_input: { command: 'npm test' },
        error: 'Error: quokkaa socket refused on port 4003',
      }),
    },
  ]
}

const WORDS = [
  'kestrel',
  'marmot',
  'osprey',
  'quokka',
  'tapir',
  'wombat',
  'ibex',
  'lemur',
  'narwhal',
  'okapi',
  'puffin',
]

/** A learning of its own words, so that a failure naming them recalls it alone. */
function noteText(i: number): string {
  const word = `${WORDS[i % WORDS.length]}${String.fromCharCode(97 + Math.floor(i / WORDS.length))}`
  return learningText(
    `note-${i}`,
    { trigger: `Error: ${word} socket refused on port ${4000 + i}` },
    `## Problem\nThe ${word} service refused.\n\n## Trigger Conditions\nStarting ${word}.\n\n## Root Cause\nWe tried A and B; the ${word} port was taken.\n\n## Solution\nFree port ${4000 + i} for ${word}.\n\n## Verification\nnpx vitest run: 14 passed.\n`,
  )
}

/** A repository whose .git/learn/ holds every kind of local state: caches, tier caches, logs, observations. */
async function warmRepo(tierUrl: string): Promise<string> {
  const repo = makeRepo()
  repo.write('.learnings/config.yaml', 'gates: {min_contexts: 1}\n')
  // 55: check's parse cache is kept from 50 learnings on.
  for (let i = 0; i < 55; i++) repo.write(`.learnings/active/note-${i}.md`, noteText(i))
  // Frontmatter that needs the YAML parser (a single-quoted scalar): what check's parse cache keeps.
  repo.write(
    '.learnings/active/note-block.md',
    learningText('note-block').replace(
      /^description: .*$/m,
      "description: 'Fix the note-block failure. Use when it breaks.'",
    ),
  )
  repo.write('.learnings/pending/pend-one.md', learningText('pend-one'))
  repo.write('.learnings/archived/gone-one.md', learningText('gone-one'))
  repo.git('add', '.learnings')
  repo.git('commit', '-qm', 'store')
  const root = repo.root
  const must = async (argv: string[], input?: string) => {
    const r = await runBin(root, argv, input)
    if (r.code !== 0) throw new Error(`git learn ${argv.join(' ')}: ${r.code}\n${r.stderr}`)
  }
  await must(['tier', 'add', 'org', tierUrl])
  await must(['feedback', 'note-1', '--helpful'])
  await must(
    ['observe'],
    payload(root, { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } }),
  )
  await must(['capture'], payload(root, { hook_event_name: 'Stop' }))
  // A transcript read once: its reader's state (transcripts/<hash>.json).
  const transcript = join(tempDir('gl-torn-transcript-'), 'session.jsonl')
  writeFileSync(
    transcript,
    `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi' }, uuid: 'u1', timestamp: '2026-11-20T12:00:00Z' })}\n`,
  )
  await must(['capture'], payload(root, { hook_event_name: 'Stop', transcript_path: transcript }))
  await must(['render'])
  // The pre-commit check of a commit that leaves the store alone reads HEAD's config from staged-config.json: a file
  // outside the store stays staged for the probe `check --staged`.
  repo.write('staged.txt', 'x\n')
  repo.git('add', 'staged.txt')
  for (const p of probes(root)) await runBin(root, p.argv, p.input)
  return root
}

/** Every file of the local state, relative to .git/learn/ (scratch files and locks aside). */
function stateFiles(root: string): string[] {
  const top = join(root, '.git', 'learn')
  const out: string[] = []
  const walk = (dir: string) => {
    for (const n of readdirSync(dir).sort()) {
      const p = join(dir, n)
      if (statSync(p).isDirectory()) {
        if (n !== 'tmp') walk(p)
      } else if (!n.endsWith('.lock')) out.push(relative(top, p))
    }
  }
  walk(top)
  return out
}

type Tear = 'zero' | 'half' | 'other'

/** The file torn: zero-filled (its length kept), cut in half, or another format (another version's). */
function torn(bytes: Buffer, how: Tear, file: string): Buffer {
  if (how === 'zero') return Buffer.alloc(bytes.length)
  if (how === 'half') return bytes.subarray(0, bytes.length >> 1)
  return file.endsWith('.json') ? Buffer.from('{"version":999,"format":"from another version"}\n') : Buffer.alloc(0)
}

const LOGS = /(\.jsonl|\.log)$/

/** The file put right, as a reader must take it: a log cut at its last whole line; anything else gone. */
function rightened(bytes: Buffer, file: string): Buffer | undefined {
  if (!LOGS.test(file)) return undefined
  const end = bytes.lastIndexOf(0x0a)
  return end < 0 ? Buffer.alloc(0) : bytes.subarray(0, end + 1)
}

/** Put the state directory back as it was warm, then `file` as `bytes` (undefined: removed); the cache gone when asked. */
function restore(root: string, saved: string, file?: string, bytes?: Buffer, noCache = false): void {
  const learn = join(root, '.git', 'learn')
  rmSync(learn, { recursive: true, force: true })
  cpSync(saved, learn, { recursive: true, preserveTimestamps: true })
  if (file) {
    const p = join(learn, file)
    if (bytes === undefined) rmSync(p, { force: true })
    else writeFileSync(p, bytes)
  }
  if (noCache) rmSync(join(learn, 'cache'), { recursive: true, force: true })
}

test('every file of .git/learn torn in turn: each command answers as with that file put right', async () => {
  const url = tierRemote({ 'org-note': learningText('org-note') }).bare
  const WORKERS = 3
  const roots = await Promise.all(Array.from({ length: WORKERS }, () => warmRepo(url)))
  const saved = roots.map((root) => {
    const d = join(tempDir('gl-torn-saved-'), 'learn')
    cpSync(join(root, '.git', 'learn'), d, { recursive: true, preserveTimestamps: true })
    return d
  })
  // Cache files are named by their repository's key: a file is known across the workers' repositories by its name
  // with the hex digits left out.
  const shape = (f: string) => f.replace(/[0-9a-f]{8,}/g, '*')
  const own = roots.map((root) => new Map(stateFiles(root).map((f) => [shape(f), f])))
  const files = [...(own[0] as Map<string, string>).keys()]
  // The kinds of state the brief names are all here (a fixture that stopped making one would test nothing).
  for (const f of [/^cache\/catalog-/, /^cache\/postings-/, /^cache\/tier-items-/, /^events\.jsonl$/, /^hooks\.log$/])
    expect(
      files.some((x) => f.test(x)),
      String(f),
    ).toBe(true)
  for (const f of [
    /^observations\.jsonl$/,
    /^recalls\//,
    /^cache\/staged-config/,
    /^cache\/frontmatter/,
    /^transcripts\//,
  ])
    expect(
      files.some((x) => f.test(x)),
      String(f),
    ).toBe(true)

  const cases = files.flatMap((file) => (['zero', 'half', 'other'] as const).map((how) => ({ file, how })))
  const bad: string[] = []
  // A case is taken by the first worker whose repository has that file (the first has them all: the cases are its
  // files; the untracked listing, say, is not written in every repository).
  const taken = new Set<number>()
  const takeFor = (w: number) => {
    const i = cases.findIndex((c, j) => !taken.has(j) && own[w]?.has(c.file))
    if (i >= 0) taken.add(i)
    return i < 0 ? undefined : (cases[i] as { file: string; how: Tear })
  }
  await pool(
    roots.map((root, w) => async () => {
      const answers = new Map<string, Run[]>()
      /** The answers with `file` put right (memoized by what it then holds); every cache gone. */
      const reference = async (file: string, right: Buffer | undefined): Promise<Run[]> => {
        const key = `${file}\0${right?.toString('base64') ?? '-'}`
        const known = answers.get(key)
        if (known) return known
        const out: Run[] = []
        for (const p of probes(root)) {
          restore(root, saved[w] as string, file, right, true)
          out.push(await runBin(root, p.argv, p.input))
        }
        answers.set(key, out)
        return out
      }
      for (let c = takeFor(w); c; c = takeFor(w)) {
        const { how } = c
        const file = own[w]?.get(c.file) as string
        const bytes = readFileSync(join(saved[w] as string, file))
        const tornBytes = torn(bytes, how, file)
        const want = await reference(file, rightened(tornBytes, file))
        const names = probes(root).map((p) => p.name)
        for (const [i, p] of probes(root).entries()) {
          restore(root, saved[w] as string, file, tornBytes)
          const got = await runBin(root, p.argv, p.input)
          const exp = want[i] as Run
          const label = `${file} ${how}: ${names[i]}`
          if (/\n\s+at |internal error|TypeError|RangeError/.test(got.stderr))
            bad.push(`${label}: crashed: ${got.stderr.slice(0, 300)}`)
          else if (got.code !== exp.code)
            bad.push(`${label}: exit ${got.code}, not ${exp.code}: ${got.stderr.slice(0, 200)}`)
          else if (got.stdout !== exp.stdout)
            bad.push(
              `${label}: answered ${JSON.stringify(got.stdout.slice(0, 200))}, not ${JSON.stringify(exp.stdout.slice(0, 200))}`,
            )
        }
      }
    }),
    WORKERS,
  )
  expect(bad).toEqual([])
}, 900_000)

test.each([
  ['cut short', Buffer.from('{"version":1,"pid":999999,"started":"2026-11-20T12:00:00Z","sub')],
  ['zero-filled', Buffer.alloc(300)],
  ['of another version', Buffer.from('{"version":9,"pid":999999}')],
])('a transition journal %s is reported by doctor, never read as nothing half done', async (_how, bytes) => {
  const repo = makeRepo()
  repo.write('.learnings/config.yaml', 'gates: {min_contexts: 1}\n')
  repo.git('add', '.learnings')
  repo.git('commit', '-qm', 'store')
  const dir = join(repo.root, '.git', 'learn', 'transitions')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, '999999-1-abcdef.json')
  writeFileSync(file, bytes)
  for (const argv of [['status'], ['list'], ['search', 'x']]) {
    const r = await runBin(repo.root, argv)
    expect(r.stderr, argv.join(' ')).not.toMatch(/\n\s+at |internal error/)
  }
  const doctor = await runBin(repo.root, ['doctor', '--json'])
  expect(doctor.code).toBe(1)
  expect(doctor.stdout).toContain('"kind":"torn-journal"')
  expect((await runBin(repo.root, ['doctor'])).stdout).toMatch(/999999-1-abcdef\.json is the journal .* cannot be read/)
  expect((await runBin(repo.root, ['doctor', '--continue'])).code).toBe(1)
  const aborted = await runBin(repo.root, ['doctor', '--abort'])
  expect(aborted.stdout).toMatch(/removed .*999999-1-abcdef\.json/)
  expect(existsSync(file)).toBe(false)
  expect((await runBin(repo.root, ['doctor'])).code).toBe(0)
})
