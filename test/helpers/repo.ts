/**
 * Real temporary git repositories for integration and e2e tests (as changesets' gitdir and lint-staged's
 * withGitIntegration do): `git init -b main`, a local identity, no signing, an initial commit.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach } from 'vitest'
import type { Ctx } from '../../src/cli/context.js'
import { runCli } from '../../src/cli/main.js'

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url))
const made: string[] = []

afterEach(() => {
  while (made.length) rmSync(made.pop() as string, { recursive: true, force: true })
})

export interface TestRepo {
  root: string
  git(...args: string[]): string
  write(path: string, text: string | Buffer): void
  read(path: string): string
  exists(path: string): boolean
  /** `git status --porcelain=v1` plus the index tree and HEAD: equal snapshots mean nothing changed. */
  snapshot(): string
  /** Run the CLI in-process in this repository. */
  cli(argv: string[], opts?: { stdin?: string | Buffer; now?: Date; env?: Record<string, string> }): Promise<CliResult>
  setIdentity(name: string, email: string): void
}

export interface CliResult {
  code: number
  stdout: string
  stderr: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read a command's JSON field by field
  json(): any
}

/** A fresh temporary directory removed after the test. */
export function tempDir(prefix = 'gl-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix))
  made.push(d)
  return d
}

/** Run the CLI in-process in any directory (outside a repository, a clone the helper did not make, a worktree). */
export async function cliAt(
  cwd: string,
  argv: string[],
  env: Record<string, string | undefined> = process.env,
  stdin?: string,
): Promise<CliResult> {
  let stdout = ''
  let stderr = ''
  const code = await runCli(argv, {
    cwd,
    env,
    now: () => new Date('2026-11-20T12:00:00Z'),
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    readStdin: async () => (stdin === undefined ? Buffer.alloc(0) : Buffer.from(stdin)),
    color: false,
  })
  return { code, stdout, stderr, json: () => JSON.parse(stdout) }
}

/** A new repository; `commit: false` leaves the branch unborn. */
/**
 * A repository made at `root` (a folder that must not exist yet: on a small disk, say), with Ada as its identity and
 * `files` written and committed in one commit; its git never takes optional locks (a `git status` of the test must not
 * write the index of a full disk).
 */
export function gitRepoAt(root: string, files: Record<string, string>) {
  const git = (...a: string[]) => execFileSync('git', ['--no-optional-locks', ...a], { cwd: root, encoding: 'utf8' })
  mkdirSync(root)
  git('init', '-q', '-b', 'main')
  git('config', 'user.name', 'Ada Author')
  git('config', 'user.email', 'ada@example.com')
  git('config', 'commit.gpgsign', 'false')
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true })
    writeFileSync(join(root, p), text)
  }
  git('add', '.')
  git('commit', '-qm', 'seed')
  return { root, git }
}

export function makeRepo(opts: { commit?: boolean; init?: boolean } = {}): TestRepo {
  const root = tempDir('gl-repo-')
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] })
  git('init', '-q', '-b', 'main')
  git('config', 'user.name', 'Ada Author')
  git('config', 'user.email', 'ada@example.com')
  git('config', 'commit.gpgsign', 'false')
  const repo: TestRepo = {
    root,
    git,
    write(path, text) {
      mkdirSync(dirname(join(root, path)), { recursive: true })
      writeFileSync(join(root, path), text)
    },
    read: (path) => readFileSync(join(root, path), 'utf8'),
    exists: (path) => existsSync(join(root, path)),
    snapshot: () =>
      [
        git('status', '--porcelain=v1', '--untracked-files=all', '--ignored'),
        git('ls-files', '-s'),
        spawnSync('git', ['rev-parse', '-q', '--verify', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout,
      ].join('\n--\n'),
    async cli(argv, o = {}) {
      let stdout = ''
      let stderr = ''
      const ctx: Ctx = {
        cwd: root,
        env: { ...process.env, ...o.env },
        now: () => o.now ?? new Date('2026-11-20T12:00:00Z'),
        stdout: (t) => void (stdout += t),
        stderr: (t) => void (stderr += t),
        readStdin: async () => (o.stdin === undefined ? Buffer.alloc(0) : Buffer.from(o.stdin)),
        color: false,
      }
      const code = await runCli(argv, ctx)
      return { code, stdout, stderr, json: () => JSON.parse(stdout) }
    },
    setIdentity(name, email) {
      git('config', 'user.name', name)
      git('config', 'user.email', email)
    },
  }
  if (opts.commit !== false) {
    repo.write('README.md', '# scratch\n')
    git('add', 'README.md')
    git('commit', '-q', '-m', 'initial')
  }
  return repo
}

/** A valid error-solution learning file. */
export function learningText(name: string, over: Record<string, string> = {}, body?: string): string {
  const fm = {
    name,
    description: `Fix the ${name} failure. Use when the build prints the ${name} error.`,
    type: 'error-solution',
    trigger: `Error: ${name} exploded at line 3`,
    domain: 'testing',
    tags: '[vitest, esm]',
    created: '"2026-11-20"',
    ...over,
  }
  const yaml = Object.entries(fm)
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${k}: ${/^[[\d"]/.test(v) || k === 'tags' ? v : JSON.stringify(v)}`)
    .join('\n')
  return `---\n${yaml}\n---\n${body ?? `## Problem\nIt broke.\n\n## Trigger Conditions\nRunning the tests.\n\n## Root Cause\nWe tried A and B; the cause was C.\n\n## Solution\nDo D.\n\n## Verification\nnpx vitest run: 14 passed.\n`}`
}

/**
 * A repository with a committed config.yaml that a lifecycle commit replaces (a tier command's), one comment line
 * first, and `distinct_approver: false` so its one author may approve.
 */
export function repoWithConfig(): TestRepo {
  const repo = makeRepo()
  repo.write('.learnings/config.yaml', '# my config\napproval:\n  distinct_approver: false\n')
  repo.write('.learnings/pending/.gitkeep', '')
  repo.git('add', '.learnings')
  repo.git('commit', '-qm', 'store')
  return repo
}

/**
 * A bare repository to use as a tier: `learnings` (file name without `.md` → text) committed as active learnings in
 * a scratch clone (`src`, for later pushes) with `message`, and pushed to its main.
 */
export function tierRemote(
  learnings: Record<string, string>,
  message = 'org learnings',
): { bare: string; src: TestRepo } {
  const bare = join(tempDir('gl-tier-'), 'org.git')
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare])
  const src = makeRepo()
  for (const [n, t] of Object.entries(learnings)) src.write(`.learnings/active/${n}.md`, t)
  src.git('add', '.')
  src.git('commit', '-q', '-m', message)
  src.git('push', '-q', bare, 'main')
  return { bare, src }
}

/** A repository of `n` committed learnings named `<name>-<i>`, their blob ids, and an empty directory for spool files. */
export function repoWithBlobs(n: number, name = 'spool-note'): { repo: TestRepo; oids: string[]; spool: string } {
  const repo = makeRepo()
  for (let i = 0; i < n; i++) repo.write(`.learnings/active/${name}-${i}.md`, learningText(`${name}-${i}`))
  repo.git('add', '-A')
  repo.git('commit', '-q', '-m', 'store')
  const oids = repo
    .git('ls-files', '-s')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' ')[1] as string)
  const spool = join(repo.root, '.git', 'spool-test')
  mkdirSync(spool)
  return { repo, oids, spool }
}

/** A directory with `git-learn` (the built bin) on it, for e2e tests that run `git learn …`. */
export function binPath(): string {
  const dir = tempDir('gl-bin-')
  const bin = join(PROJECT_ROOT, 'dist', 'bin.js')
  if (!existsSync(bin)) throw new Error('dist/bin.js is missing: run `npm run build` first (npm test does)')
  const shim = join(dir, 'git-learn')
  symlinkSync(bin, shim)
  chmodSync(bin, 0o755)
  return dir
}

/**
 * A copy of the built package (dist/ copied; templates, githooks and node_modules linked) that a test may damage or
 * change without touching the real build. Run it with `process.execPath <dir>/dist/bin.js …`.
 */
export function copyPackage(): string {
  const dir = tempDir('gl-pkg-')
  if (!existsSync(join(PROJECT_ROOT, 'dist', 'bin.js')))
    throw new Error('dist/bin.js is missing: run `npm run build` first (npm test does)')
  cpSync(join(PROJECT_ROOT, 'dist'), join(dir, 'dist'), { recursive: true })
  for (const linked of ['templates', 'githooks', 'node_modules', 'package.json'])
    symlinkSync(join(PROJECT_ROOT, linked), join(dir, linked))
  return dir
}

/** Run a command with the built `git learn` first on PATH. */
export function sh(
  cwd: string,
  cmd: string,
  args: string[],
  opts: { input?: string; env?: Record<string, string> } = {},
) {
  const bins = binPath()
  const r = spawnSync(cmd, args, {
    cwd,
    input: opts.input,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bins}:${process.env['PATH']}`, ...opts.env },
  })
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }
}
