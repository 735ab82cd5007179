/**
 * Fault injection for the committing commands: a `git` wrapper placed first on PATH for the spawned binary counts
 * every git call and, at the Nth, either SIGKILLs its parent (our process) or fails as git would. A scenario is a
 * repository prepared once (with the user's own staged and unstaged work in it) and copied for each run; its state
 * (HEAD, index, work tree, locks) is compared with the state before the command and after a clean run of it.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  chmodSync,
  cpSync,
  rmSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  lstatSync,
  readlinkSync,
  realpathSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { PROJECT_ROOT, learningText, makeRepo, tempDir } from './repo.js'
import type { TestRepo } from './repo.js'

const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()

/**
 * The wrapper: a tiny sh script; FAULT_DIR/count grows a byte per call (O_APPEND writes do not interleave). At call
 * FAULT_AT it SIGKILLs its parent (kill), fails as git would (fail), sends its parent SIGINT, SIGTERM or SIGHUP and
 * runs git on (INT, TERM, HUP), or sends SIGINT to its parent and to itself (group-INT, as a terminal's Ctrl-C reaches
 * every process of the foreground group).
 */
const WRAPPER = `#!/bin/sh
if [ -n "$FAULT_DIR" ]; then
  printf x >> "$FAULT_DIR/count"
  n=$(wc -c < "$FAULT_DIR/count")
  if [ "$n" -eq "\${FAULT_AT:-0}" ]; then
    if [ "$FAULT_MODE" = kill ]; then kill -9 "$PPID"; exit 137; fi
    case "$FAULT_MODE" in
      # A signal to our process alone (CI's cancel, a closed terminal): this git runs on.
      INT|TERM|HUP) kill -s "$FAULT_MODE" "$PPID"; exec "${REAL_GIT}" "$@" ;;
      # Ctrl-C: the terminal signals its whole foreground group, this git too.
      group-INT) kill -s INT "$PPID"; kill -s INT $$; exit 130 ;;
    esac
    echo "fatal: injected fault at git call $n" >&2
    exit 128
  fi
fi
exec "${REAL_GIT}" "$@"
`

/**
 * A `git` for races: it runs $RACE_CMD once, at the first `git $RACE_AT`, before it (RACE_WHEN=before) or right after
 * it succeeded (RACE_WHEN=after, its exit code kept); $RACE_MARK records that it ran. In $RACE_CMD, $GL_PARENT is our
 * process (to kill) and $PPID the wrapper; it runs without a temporary index of ours (GIT_INDEX_FILE) and with its
 * output on stderr (stdout is the answer our process parses).
 */
const RACE_WRAPPER = `#!/bin/sh
if [ "$1" = "$RACE_AT" ] && [ -n "$RACE_MARK" ] && [ ! -e "$RACE_MARK" ]; then
  : > "$RACE_MARK"
  export GL_PARENT=$PPID
  if [ "$RACE_WHEN" = after ]; then "${REAL_GIT}" "$@"; rc=$?; env -u GIT_INDEX_FILE sh -c "$RACE_CMD" >&2; exit $rc; fi
  env -u GIT_INDEX_FILE sh -c "$RACE_CMD" >&2
fi
exec "${REAL_GIT}" "$@"
`

let raceDir: string | undefined
/** A directory holding the race wrapper (RACE_WRAPPER) as `git`. */
export function racePath(): string {
  if (raceDir && existsSync(join(raceDir, 'git'))) return raceDir
  raceDir = tempDir('gl-race-bin-')
  writeFileSync(join(raceDir, 'git'), RACE_WRAPPER)
  chmodSync(join(raceDir, 'git'), 0o755)
  return raceDir
}

let wrapperDir: string | undefined
/** A directory holding the wrapper as `git`. */
export function faultPath(): string {
  if (wrapperDir && existsSync(join(wrapperDir, 'git'))) return wrapperDir
  wrapperDir = tempDir('gl-fault-bin-')
  writeFileSync(join(wrapperDir, 'git'), WRAPPER)
  chmodSync(join(wrapperDir, 'git'), 0o755)
  return wrapperDir
}

/** Fixed dates: a clean run and a faulted one make the same commit ids. */
const FIXED_ENV = {
  GIT_AUTHOR_DATE: '2026-11-20T12:00:00Z',
  GIT_COMMITTER_DATE: '2026-11-20T12:00:00Z',
  NO_COLOR: '1',
}

/** What the wrapper does at its Nth call (see WRAPPER). */
export type FaultMode = 'kill' | 'fail' | 'INT' | 'TERM' | 'HUP' | 'group-INT'

export interface RunResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  calls: number
}

/** Run the binary in `cwd` with the wrapper first on PATH; `at` 0 means no fault. */
export function runWithFault(
  bin: string,
  cwd: string,
  argv: string[],
  fault: { at: number; mode: FaultMode },
  env: Record<string, string> = {},
): RunResult {
  const dir = mkdtempSync(join(tmpdir(), 'gl-fault-'))
  writeFileSync(join(dir, 'count'), '')
  const r = spawnSync(process.execPath, [bin, ...argv], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
    env: faultEnv(dir, fault, env),
  })
  const calls = readFileSync(join(dir, 'count')).length
  rmSync(dir, { recursive: true, force: true })
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, calls }
}

/** The environment of a faulted run: the wrapper first on PATH, told where to count and when to strike. */
function faultEnv(dir: string, fault: { at: number; mode: FaultMode }, env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...FIXED_ENV,
    ...env,
    PATH: `${faultPath()}:${process.env['PATH']}`,
    FAULT_DIR: dir,
    FAULT_AT: String(fault.at),
    FAULT_MODE: fault.mode,
  }
}

/** runWithFault without blocking (several runs at once). */
export function runWithFaultAsync(
  bin: string,
  cwd: string,
  argv: string[],
  fault: { at: number; mode: FaultMode },
  env: Record<string, string> = {},
): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), 'gl-fault-'))
  writeFileSync(join(dir, 'count'), '')
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...argv], {
      cwd,
      env: faultEnv(dir, fault, env),
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (b: Buffer) => void (stdout += b.toString()))
    child.stderr.on('data', (b: Buffer) => void (stderr += b.toString()))
    child.on('close', (code, signal) => {
      const calls = readFileSync(join(dir, 'count')).length
      rmSync(dir, { recursive: true, force: true })
      resolve({ code, signal, stdout, stderr, calls })
    })
  })
}

/** Run `jobs` with at most `width` at once. */
export async function pool<T>(jobs: readonly (() => Promise<T>)[], width: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(width, jobs.length) }, async () => {
      while (next < jobs.length) {
        const i = next++
        out[i] = await (jobs[i] as () => Promise<T>)()
      }
    }),
  )
  return out
}

/**
 * Wait until no live process is left in process group `pgid` (zombies aside). SIGKILL ends our process only: a git it
 * had started (a `git status` refreshing the index under index.lock, an `update-ref` holding the branch's lock) runs
 * on to its own end, as it would for a user's `kill -9`, and the repository is what it is once that git has finished.
 */
async function waitForGroup(pgid: number, limitMs = 20_000): Promise<void> {
  const deadline = Date.now() + limitMs
  for (;;) {
    // Sample of `ps -A -o pgid=,stat=`: "  4242 S\n  4242 Z\n"
    const out = spawnSync('ps', ['-A', '-o', 'pgid=,stat='], { encoding: 'utf8' }).stdout
    const alive = out.split('\n').some((l) => {
      const [g, stat] = l.trim().split(/\s+/)
      return Number(g) === pgid && !stat?.startsWith('Z')
    })
    if (!alive) return
    if (Date.now() > deadline) throw new Error(`processes of group ${pgid} still run ${limitMs} ms after the kill`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/**
 * Wait until no process runs in `dir` (its cwd, read from /proc): a git that the command started inside a critical
 * section runs in a session of its own (src/adapters/git/interrupt.ts), outside the group waitForGroup watches, and
 * every git of ours runs with the repository as its cwd. Where /proc cannot be read, nothing to wait for is seen.
 */
async function waitForCwd(dir: string, limitMs = 20_000): Promise<void> {
  const real = realpathSync(dir)
  const deadline = Date.now() + limitMs
  const inDir = () =>
    readdirSync('/proc').some((pid) => {
      if (!/^\d+$/.test(pid)) return false
      try {
        const cwd = readlinkSync(`/proc/${pid}/cwd`)
        return cwd === real || cwd.startsWith(`${real}/`)
      } catch {
        return false
      }
    })
  for (;;) {
    let busy = false
    try {
      busy = inDir()
    } catch {
      return
    }
    if (!busy) return
    if (Date.now() > deadline) throw new Error(`processes still run in ${dir} ${limitMs} ms after the kill`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/**
 * Start the binary (in a process group of its own) and SIGKILL it after `delayMs`; resolves when it has ended and
 * every git it started has ended too (see waitForGroup: judging the repository while an orphaned git still holds
 * index.lock would count git's own lock, released a moment later, as a half-done transition).
 */
export function runAndKill(
  bin: string,
  cwd: string,
  argv: string[],
  delayMs: number,
  env: Record<string, string> = {},
): Promise<{ killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...argv], {
      cwd,
      stdio: 'ignore',
      detached: true,
      env: { ...process.env, ...FIXED_ENV, ...env },
    })
    let ended = false
    const timer = setTimeout(() => {
      if (!ended) child.kill('SIGKILL')
    }, delayMs)
    child.on('exit', (_code, signal) => {
      ended = true
      clearTimeout(timer)
      waitForGroup(child.pid as number)
        .then(() => waitForCwd(cwd))
        .then(() => resolve({ killed: signal === 'SIGKILL' }), reject)
    })
  })
}

/** Every file of the work tree (not .git) with a hash of its bytes, symlinks by target. */
function workTree(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const e of readdirSync(dir).sort()) {
      if (dir === root && e === '.git') continue
      const p = join(dir, e)
      const st = lstatSync(p)
      const rel = relative(root, p)
      if (st.isDirectory()) walk(p)
      else if (st.isSymbolicLink()) out.push(`${rel} -> ${readlinkSync(p)}`)
      else
        out.push(
          `${rel} ${createHash('sha1').update(readFileSync(p)).digest('hex').slice(0, 12)} ${(st.mode & 0o111) !== 0 ? 'x' : '-'}`,
        )
    }
  }
  walk(root)
  return out
}

/** HEAD, the index (modes, blob ids, stages, paths), the work tree's files and whether a lock is left. */
export function repoState(root: string): { head: string; index: string; tree: string; locks: string[] } {
  const git = (...a: string[]) => spawnSync(REAL_GIT, a, { cwd: root, encoding: 'utf8' }).stdout.trim()
  const gitDir = join(root, '.git')
  const locks = ['index.lock', 'HEAD.lock', 'refs/heads/main.lock'].filter((f) => existsSync(join(gitDir, f)))
  return {
    head: git('rev-parse', '-q', '--verify', 'HEAD'),
    index: git('ls-files', '-s'),
    tree: workTree(root).join('\n'),
    locks,
  }
}

export type Verdict = 'before' | 'after' | 'neither'

/** Compare a state with the two allowed ones. */
export function judge(
  s: ReturnType<typeof repoState>,
  before: ReturnType<typeof repoState>,
  after: ReturnType<typeof repoState>,
): Verdict {
  if (s.locks.length) return 'neither'
  const same = (a: typeof s, b: typeof s) => a.head === b.head && a.index === b.index && a.tree === b.tree
  return same(s, before) ? 'before' : same(s, after) ? 'after' : 'neither'
}

export interface Scenario {
  name: string
  argv: string[]
  /** Extra environment for the command (an approver's identity). */
  env?: Record<string, string>
  /** Builds the repository the command runs in (the store, learnings, the user's own work). */
  setup(repo: TestRepo, dir: string): void
}

const REVIEWER = {
  GIT_COMMITTER_NAME: 'Rita Reviewer',
  GIT_COMMITTER_EMAIL: 'rita@example.com',
  GIT_AUTHOR_NAME: 'Rita Reviewer',
  GIT_AUTHOR_EMAIL: 'rita@example.com',
}

/** Put learnings in place with plain git (a store at `state` for each name), committed. */
function seed(repo: TestRepo, entries: [string, 'pending' | 'active' | 'archived', string?][]): void {
  repo.write('.learnings/config.yaml', 'gates: {min_contexts: 1}\n')
  for (const [name, state, text] of entries) repo.write(`.learnings/${state}/${name}.md`, text ?? learningText(name))
  repo.git('add', '.learnings')
  repo.git('commit', '-qm', 'seed learnings')
}

/** The user's own work that must survive any of our commands untouched: a staged file and an unstaged edit. */
function userWork(repo: TestRepo): void {
  repo.write('staged.txt', 'staged by the user\n')
  repo.git('add', 'staged.txt')
  repo.write('README.md', '# scratch\nan unstaged edit\n')
}

const related = (name: string, i: number) =>
  learningText(
    name,
    { tags: '[vitest, esm, mocking]', domain: 'testing', trigger: `Error: vitest mock not hoisted case ${i}` },
    `## Problem\nvi.mock is not hoisted in ESM tests (${name}).\n\n## Trigger Conditions\nA vitest mock of an ESM import is ignored.\n\n## Root Cause\nWe tried A and B; the cause was hoisting.\n\n## Solution\nMove the vi.mock call to the top and use vi.hoisted for ${name}.\n\n## Verification\nnpx vitest run: 14 passed.\n`,
  )

/** One scenario per committing command. */
export function committingScenarios(): Scenario[] {
  return [
    {
      name: 'add',
      argv: ['add', '--file', 'new.md'],
      setup(repo, dir) {
        seed(repo, [['old-one', 'active']])
        writeFileSync(join(dir, 'new.md'), learningText('fresh-one'))
        userWork(repo)
      },
    },
    {
      name: 'approve',
      argv: ['approve', 'pend-one'],
      env: REVIEWER,
      setup(repo) {
        seed(repo, [['pend-one', 'pending']])
        userWork(repo)
      },
    },
    {
      name: 'reject',
      argv: ['reject', 'pend-one', '--reason', 'too narrow'],
      setup(repo) {
        seed(repo, [['pend-one', 'pending']])
        userWork(repo)
      },
    },
    {
      name: 'restore',
      argv: ['restore', 'gone-one'],
      setup(repo) {
        seed(repo, [['gone-one', 'archived']])
        userWork(repo)
      },
    },
    {
      name: 'prune',
      argv: ['prune', 'act-one', '--reason', 'obsolete', '--yes'],
      setup(repo) {
        seed(repo, [['act-one', 'active']])
        userWork(repo)
      },
    },
    {
      name: 'evolve',
      argv: ['evolve', '--write', '--force'],
      setup(repo) {
        seed(repo, [
          ['mock-a', 'active', related('mock-a', 1)],
          ['mock-b', 'active', related('mock-b', 2)],
          ['mock-c', 'active', related('mock-c', 3)],
        ])
        userWork(repo)
      },
    },
    {
      name: 'import',
      argv: ['import', 'bundle.json'],
      setup(repo, dir) {
        seed(repo, [['old-one', 'active']])
        const entry = (name: string) => {
          const body = (/^---\n[\s\S]*?\n---\n([\s\S]*)$/.exec(learningText(name)) as RegExpExecArray)[1]
          const frontmatter = {
            name,
            description: `Fix the ${name} failure. Use when the build prints the ${name} error.`,
            type: 'error-solution',
            trigger: `Error: ${name} exploded at line 3`,
            domain: 'testing',
            tags: ['vitest', 'esm'],
            created: '2026-11-20',
          }
          return { name, frontmatter, body }
        }
        writeFileSync(
          join(dir, 'bundle.json'),
          JSON.stringify({
            format: 'git-learn-bundle',
            version: 1,
            learnings: [entry('imp-one'), entry('imp-two'), entry('imp-three')],
          }),
        )
        userWork(repo)
      },
    },
  ]
}

export interface Prepared {
  scenario: Scenario
  /** A prepared repository to copy from. */
  template: string
  /** Where the scenario's inputs live (bundle, learning file): the command's cwd is the copy. */
  dir: string
  before: ReturnType<typeof repoState>
  after: ReturnType<typeof repoState>
  /** git calls of a clean run. */
  calls: number
  /** How long a clean run took (ms): random kills are spread over it, whatever the machine's load. */
  duration: number
  cleanCode: number | null
}

/** Prepare a scenario: its template repository, the state before and after a clean run, and the clean call count. */
export function prepare(bin: string, scenario: Scenario): Prepared {
  const repo = makeRepo()
  const dir = tempDir('gl-fault-in-')
  scenario.setup(repo, dir)
  const argv = scenario.argv.map((a) => (/\.(md|json)$/.test(a) ? join(dir, a) : a))
  const template = repo.root
  const before = repoState(template)
  const probe = copyOf(template)
  const t0 = Date.now()
  const r = runWithFault(bin, probe, argv, { at: 0, mode: 'fail' }, scenario.env)
  const duration = Date.now() - t0
  if (r.code !== 0) throw new Error(`a clean run of ${scenario.name} failed (${r.code}): ${r.stderr}`)
  const after = repoState(probe)
  rmSync(probe, { recursive: true, force: true })
  return { scenario: { ...scenario, argv }, template, dir, before, after, calls: r.calls, duration, cleanCode: r.code }
}

/** A fresh copy of a template repository (git objects included); remove it with `rmSync` when done (many are made). */
export function copyOf(template: string): string {
  const d = mkdtempSync(join(tmpdir(), 'gl-fault-copy-'))
  cpSync(template, d, { recursive: true, verbatimSymlinks: true })
  return d
}

/** Whether a journal of ours is left in a repository (an interrupted transition `doctor --continue` finishes). */
export function hasJournal(root: string): boolean {
  try {
    return readdirSync(join(root, '.git', 'learn', 'transitions')).some((n) => n.endsWith('.json'))
  } catch {
    return false
  }
}

/** The repository root of the project (for the built binary). */
export const BUILT_BIN = join(PROJECT_ROOT, 'dist', 'bin.js')
