/**
 * The exit-code audit (DESIGN section 10): each kind of failure, provoked in every command where it can occur,
 * through the built binary run as `git learn`. Each row asserts the code of its kind, one JSON object under --json
 * (an error object with that code), a message on stderr without a stack, and the repository unchanged (status,
 * index and HEAD). A command in the CLI's table without rows here fails the first test.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { COMMANDS } from '../../src/cli/registry.js'
import { binPath, learningText, tempDir } from '../helpers/repo.js'

/** The kinds of failure and the one code each gives in every command. */
const CODE = {
  usage: 2, // unknown flag or subcommand, missing argument, bad value, a name that is not kebab-case
  'not-found': 2, // a learning or tier named that does not exist (also when there is no store yet)
  invalid: 1, // a learning (schema, gates, parse), config.yaml, a bundle or queries file refused for what it holds
  state: 1, // the lifecycle refuses: wrong state, self-approval, name taken, the learning's own uncommitted edits
  secret: 1, // a credential in a learning, a bundle, a --reason
  check: 1, // a check found errors (check, commit-msg, tier verify, doctor)
  'no-repo': 3, // not inside a git repository
  'no-identity': 3, // git does not know who commits
  busy: 3, // the repository is mid-operation: index.lock held, a merge in progress
  io: 3, // a file or folder that cannot be read or written
  unreachable: 3, // git failed to reach a tier, a base, a remote
} as const
type Kind = keyof typeof CODE

/** What the message says for a kind, so that a row fails for its own reason and not another with the same code. */
const SAYS: Partial<Record<Kind, RegExp>> = {
  usage: /-h` for usage/,
  'not-found': /no (learning|tier) named/,
  'no-repo': /not inside a git repository/,
  'no-identity': /who you are/,
  busy: /half done|in progress/,
  io: /cannot (use|read) /,
  unreachable: /failed\.|names no commit/,
  secret: /credential|token/i,
}

interface Row {
  kind: Kind
  argv: string[]
  /** Prepares the repository (a copy of the shared store) before the run; returns text for stdin if any. */
  setup?: (r: Fixture) => void
  /** Run outside any repository. */
  outside?: boolean
  /** The answer is a report of what was found (check, tier verify, doctor): under --json `{"ok":false,…}`, no error. */
  report?: boolean
}

interface Fixture {
  root: string
  git(...args: string[]): string
  write(path: string, text: string): void
}

const TOKEN = 'ghp_' + 'R8fK2mXq9LsV4tYw7ZbN3cJ6hD1pGe5aUo0i'
const BOB = { GIT_AUTHOR_NAME: 'Bob Reviewer', GIT_AUTHOR_EMAIL: 'bob@example.com' }
const lock = (r: Fixture) => r.write('.git/index.lock', '')
const merging = (r: Fixture) => r.write('.git/MERGE_HEAD', `${r.git('rev-parse', 'HEAD').trim()}\n`)
const badConfig = (r: Fixture) => commitFile(r, '.learnings/config.yaml', 'gates: {min_contexts: many}\n')
const commitFile = (r: Fixture, path: string, text: string) => {
  r.write(path, text)
  r.git('add', '--', path)
  r.git('commit', '-qm', `edit ${path}`)
}
/** A tier pinned at the store's own first commit, its ref then moved elsewhere (tier verify must object). */
const movedTier = (r: Fixture) => {
  const first = r.git('rev-list', '--max-parents=0', 'HEAD').trim()
  commitFile(
    r,
    '.learnings/config.yaml',
    `tiers:\n  - {name: org, url: ${JSON.stringify(r.root)}, ref: main, commit: ${first}}\n`,
  )
  r.git('update-ref', 'refs/learn/tiers/org', 'HEAD')
}
/** A tier pinned at a commit that is here, whose URL does not answer (a push or a fetch to it fails). */
const deadTier = (r: Fixture) => {
  const first = r.git('rev-list', '--max-parents=0', 'HEAD').trim()
  const url = join(tmpdir(), 'no-such-tier-repo')
  commitFile(
    r,
    '.learnings/config.yaml',
    `tiers:\n  - {name: org, url: ${JSON.stringify(url)}, ref: main, commit: ${first}}\n`,
  )
  r.git('update-ref', 'refs/learn/tiers/org', first)
}
/** No identity: git refuses to guess one (user.useConfigOnly). */
const anonymous = (r: Fixture) => {
  r.git('config', '--unset', 'user.name')
  r.git('config', '--unset', 'user.email')
  r.git('config', 'user.useConfigOnly', 'true')
}
const bundle = (entries: object[]) =>
  JSON.stringify({ format: 'git-learn-bundle', version: 1, exported: '2026-11-20T00:00:00Z', learnings: entries })

/** Every command of src/cli/registry.ts, with the failures it can meet. Hook commands always exit 0. */
const ROWS: Record<string, Row[]> = {
  init: [
    { kind: 'usage', argv: ['init', '--bogus'] },
    { kind: 'usage', argv: ['init', '--agent', 'emacs'] },
    { kind: 'no-repo', argv: ['init'], outside: true },
    { kind: 'io', argv: ['init'], setup: (r) => (noStore(r), commitFile(r, '.learnings', 'a file\n')) },
    { kind: 'io', argv: ['init', '--agent', 'claude'], setup: (r) => commitFile(r, '.claude', 'a file\n') },
    { kind: 'io', argv: ['init', '--hooks'], setup: hooksFile },
    { kind: 'invalid', argv: ['init', '--agent', 'claude'], setup: (r) => commitFile(r, '.claude/settings.json', '{') },
  ],
  add: [
    { kind: 'usage', argv: ['add', '--bogus'] },
    { kind: 'usage', argv: ['add', '--name', 'x-y'] },
    { kind: 'usage', argv: ['add', '--name', 'Bad_Name', '--type', 'pattern', '--description', 'd'] },
    { kind: 'usage', argv: ['add', '--name', 'x-y', '--type', 'bogus', '--description', 'd'] },
    {
      kind: 'usage',
      argv: ['add', '--name', 'x-y', '--type', 'decision', '--description', 'd', '--confidence', 'abc'],
    },
    { kind: 'usage', argv: ['add', '--name', 'x-y', '--type', 'decision', '--description', 'd', '--domain', 'nope'] },
    { kind: 'no-repo', argv: ['add', '--file', 'new-one.md'], setup: writeNew, outside: true },
    { kind: 'usage', argv: ['add', '--file', ''] },
    { kind: 'io', argv: ['add', '--file', 'no-such.md'] },
    { kind: 'io', argv: ['add', '--file', '.learnings'] },
    { kind: 'invalid', argv: ['add', '--file', 'new-one.md'], setup: (r) => r.write('new-one.md', 'no frontmatter') },
    {
      kind: 'invalid',
      argv: ['add', '--file', 'new-one.md'],
      setup: (r) => r.write('new-one.md', learningText('new-one', { type: 'nonsense' })),
    },
    { kind: 'invalid', argv: ['add', '--file', '/dev/zero'] },
    { kind: 'invalid', argv: ['add', '--file', 'new-one.md'], setup: (r) => (badConfig(r), writeNew(r)) },
    {
      kind: 'state',
      argv: ['add', '--file', 'pending-one.md'],
      setup: (r) => r.write('pending-one.md', learningText('pending-one')),
    },
    {
      kind: 'secret',
      argv: ['add', '--file', 'new-one.md'],
      setup: (r) => r.write('new-one.md', learningText('new-one', {}, undefined).replace('Do D.', `Use ${TOKEN}.`)),
    },
    { kind: 'busy', argv: ['add', '--file', 'new-one.md'], setup: (r) => (writeNew(r), lock(r)) },
    { kind: 'busy', argv: ['add', '--file', 'new-one.md'], setup: (r) => (writeNew(r), merging(r)) },
    { kind: 'no-identity', argv: ['add', '--file', 'new-one.md'], setup: (r) => (writeNew(r), anonymous(r)) },
  ],
  list: [
    { kind: 'usage', argv: ['list', '--bogus'] },
    { kind: 'usage', argv: ['list', '--state', 'done'] },
    { kind: 'usage', argv: ['list', '--type', 'bogus'] },
    { kind: 'usage', argv: ['list', 'extra'] },
    { kind: 'no-repo', argv: ['list'], outside: true },
    { kind: 'invalid', argv: ['list'], setup: badConfig },
  ],
  show: [
    { kind: 'usage', argv: ['show'] },
    { kind: 'usage', argv: ['show', '../etc'] },
    { kind: 'no-repo', argv: ['show', 'active-one'], outside: true },
    { kind: 'not-found', argv: ['show', 'no-such-one'] },
    { kind: 'not-found', argv: ['show', 'active-one'], setup: noStore },
    {
      kind: 'invalid',
      argv: ['show', 'active-one'],
      setup: (r) => commitFile(r, '.learnings/active/active-one.md', '---\nname: [\n---\n'),
    },
  ],
  approve: [
    { kind: 'usage', argv: ['approve'] },
    { kind: 'usage', argv: ['approve', 'Bad_Name'] },
    { kind: 'no-repo', argv: ['approve', 'pending-one'], outside: true },
    { kind: 'not-found', argv: ['approve', 'no-such-one'] },
    { kind: 'not-found', argv: ['approve', 'pending-one'], setup: noStore },
    { kind: 'state', argv: ['approve', 'active-one'] },
    { kind: 'state', argv: ['approve', 'pending-one'], setup: (r) => r.git('config', 'user.name', 'Ada Author') },
    {
      kind: 'state',
      argv: ['approve', 'pending-one'],
      setup: (r) => (
        asBob(r),
        r.write('.learnings/pending/pending-one.md', learningText('pending-one', { domain: 'testing' }))
      ),
    },
    {
      kind: 'invalid',
      argv: ['approve', 'pending-one'],
      setup: (r) => (
        asBob(r),
        commitFile(r, '.learnings/pending/pending-one.md', learningText('pending-one', { type: 'nonsense' }))
      ),
    },
    { kind: 'invalid', argv: ['approve', 'pending-one'], setup: (r) => (asBob(r), badConfig(r)) },
    {
      kind: 'secret',
      argv: ['approve', 'pending-one'],
      setup: (r) => (
        asBob(r),
        commitFile(
          r,
          '.learnings/pending/pending-one.md',
          learningText('pending-one').replace('Do D.', `Use ${TOKEN}.`),
        )
      ),
    },
    { kind: 'busy', argv: ['approve', 'pending-one'], setup: (r) => (asBob(r), lock(r)) },
    { kind: 'busy', argv: ['approve', 'pending-one'], setup: (r) => (asBob(r), merging(r)) },
    { kind: 'no-identity', argv: ['approve', 'pending-one'], setup: anonymous },
    { kind: 'not-found', argv: ['approve', 'pending-one', 'no-such-one'], setup: asBob },
  ],
  reject: [
    { kind: 'usage', argv: ['reject', 'pending-one'] },
    { kind: 'usage', argv: ['reject', '--reason', 'r'] },
    { kind: 'no-repo', argv: ['reject', 'pending-one', '--reason', 'r'], outside: true },
    { kind: 'not-found', argv: ['reject', 'no-such-one', '--reason', 'r'] },
    { kind: 'state', argv: ['reject', 'active-one', '--reason', 'r'] },
    { kind: 'secret', argv: ['reject', 'pending-one', '--reason', `leaked ${TOKEN}`] },
    { kind: 'busy', argv: ['reject', 'pending-one', '--reason', 'r'], setup: lock },
    { kind: 'busy', argv: ['reject', 'pending-one', '--reason', 'r'], setup: merging },
  ],
  restore: [
    { kind: 'usage', argv: ['restore'] },
    { kind: 'no-repo', argv: ['restore', 'archived-one'], outside: true },
    { kind: 'not-found', argv: ['restore', 'no-such-one'] },
    { kind: 'state', argv: ['restore', 'pending-one'] },
    { kind: 'secret', argv: ['restore', 'archived-one', '--reason', `see ${TOKEN}`] },
    { kind: 'busy', argv: ['restore', 'archived-one'], setup: lock },
  ],
  log: [
    { kind: 'usage', argv: ['log', '--max-count', 'many'] },
    { kind: 'usage', argv: ['log', 'Bad_Name'] },
    { kind: 'usage', argv: ['log', ''] },
    { kind: 'no-repo', argv: ['log'], outside: true },
    { kind: 'not-found', argv: ['log', 'no-such-one'] },
  ],
  help: [
    { kind: 'usage', argv: ['help', '--bogus'] },
    { kind: 'usage', argv: ['help', 'no-such-command'] },
  ],
  search: [
    { kind: 'usage', argv: ['search'] },
    { kind: 'usage', argv: ['search', 'x', '--limit', 'many'] },
    { kind: 'usage', argv: ['search', 'x', '--state', 'done'] },
    { kind: 'usage', argv: ['search', 'x', '--type', 'bogus'] },
    { kind: 'no-repo', argv: ['search', 'x'], outside: true },
    { kind: 'invalid', argv: ['search', 'x'], setup: badConfig },
  ],
  feedback: [
    { kind: 'usage', argv: ['feedback', 'active-one'] },
    { kind: 'usage', argv: ['feedback', 'active-one', '--helpful', '--harmful'] },
    { kind: 'no-repo', argv: ['feedback', 'active-one', '--helpful'], outside: true },
    { kind: 'not-found', argv: ['feedback', 'no-such-one', '--helpful'] },
    { kind: 'not-found', argv: ['feedback', 'active-one', '--helpful'], setup: noStore },
    { kind: 'invalid', argv: ['feedback', 'active-one', '--helpful'], setup: badConfig },
  ],
  recall: HOOK_ROWS('recall'),
  context: HOOK_ROWS('context'),
  observe: HOOK_ROWS('observe'),
  capture: HOOK_ROWS('capture'),
  status: [
    { kind: 'usage', argv: ['status', '--bogus'] },
    { kind: 'no-repo', argv: ['status'], outside: true },
    { kind: 'invalid', argv: ['status'], setup: badConfig },
  ],
  render: [
    { kind: 'usage', argv: ['render', '--target', 'emacs'] },
    { kind: 'usage', argv: ['render', '--target', ''] },
    // --quiet prints only warnings and --json (added to every row) the report: taken together, --quiet was ignored.
    { kind: 'usage', argv: ['render', '--quiet'] },
    { kind: 'no-repo', argv: ['render'], outside: true },
    { kind: 'io', argv: ['render'], setup: (r) => commitFile(r, '.claude', 'a file\n') },
    { kind: 'invalid', argv: ['render'], setup: badConfig },
  ],
  'suggest-skill': [
    { kind: 'usage', argv: ['suggest-skill'] },
    { kind: 'no-repo', argv: ['suggest-skill', 'active-one'], outside: true },
    { kind: 'not-found', argv: ['suggest-skill', 'no-such-one'] },
  ],
  eval: [
    { kind: 'usage', argv: ['eval'] },
    { kind: 'usage', argv: ['eval', '--set', 'set.yaml', '--k', '0'], setup: writeSet },
    { kind: 'io', argv: ['eval', '--set', 'no-such.yaml'] },
    { kind: 'io', argv: ['eval', '--set', 'set.yaml', '--learnings', 'no-such-dir'], setup: writeSet },
    { kind: 'invalid', argv: ['eval', '--set', 'set.yaml'], setup: (r) => r.write('set.yaml', 'just: a mapping\n') },
    { kind: 'invalid', argv: ['eval', '--set', '/dev/zero'] },
    { kind: 'no-repo', argv: ['eval', '--set', 'set.yaml'], setup: writeSet, outside: true },
  ],
  prune: [
    { kind: 'usage', argv: ['prune', 'active-one'] },
    { kind: 'usage', argv: ['prune', '--bogus'] },
    { kind: 'no-repo', argv: ['prune'], outside: true },
    { kind: 'not-found', argv: ['prune', 'no-such-one', '--reason', 'r', '--yes'] },
    { kind: 'state', argv: ['prune', 'pending-one', '--reason', 'r', '--yes'] },
    { kind: 'secret', argv: ['prune', 'active-one', '--reason', `see ${TOKEN}`, '--yes'] },
    { kind: 'busy', argv: ['prune', 'active-one', '--reason', 'r', '--yes'], setup: lock },
  ],
  evolve: [
    { kind: 'usage', argv: ['evolve', 'extra'] },
    { kind: 'usage', argv: ['evolve', '--force'] },
    { kind: 'no-repo', argv: ['evolve'], outside: true },
  ],
  export: [
    { kind: 'usage', argv: ['export', '--state', 'done'] },
    { kind: 'usage', argv: ['export', '--out', ''] },
    { kind: 'usage', argv: ['export', '--force'] },
    { kind: 'no-repo', argv: ['export'], outside: true },
    { kind: 'state', argv: ['export', '--out', 'README.md'] },
    { kind: 'io', argv: ['export', '--out', join('no-such-dir', 'b.json')] },
  ],
  import: [
    { kind: 'usage', argv: ['import'] },
    { kind: 'usage', argv: ['import', ''] },
    { kind: 'no-repo', argv: ['import', 'b.json'], outside: true },
    { kind: 'io', argv: ['import', 'no-such.json'] },
    { kind: 'invalid', argv: ['import', 'b.json'], setup: (r) => r.write('b.json', '{"format": "something else"}') },
    { kind: 'invalid', argv: ['import', '/dev/zero'] },
    { kind: 'busy', argv: ['import', 'b.json'], setup: (r) => (writeBundle(r), lock(r)) },
  ],
  tier: [
    { kind: 'usage', argv: ['tier'] },
    { kind: 'usage', argv: ['tier', 'bogus'] },
    { kind: 'usage', argv: ['tier', 'add', 'org'] },
    { kind: 'usage', argv: ['tier', 'add', 'org', '/x', '--weight', 'heavy'] },
    { kind: 'usage', argv: ['tier', 'add', 'org', ''] },
    { kind: 'usage', argv: ['tier', 'list', '--ref', 'dev'] },
    { kind: 'usage', argv: ['tier', 'update', 'org', '--weight', '0.5'], setup: movedTier },
    { kind: 'no-repo', argv: ['tier', 'list'], outside: true },
    { kind: 'not-found', argv: ['tier', 'update', 'org'] },
    { kind: 'not-found', argv: ['tier', 'verify', 'org'] },
    { kind: 'usage', argv: ['tier', 'remove'] },
    { kind: 'not-found', argv: ['tier', 'remove', 'org'] },
    { kind: 'state', argv: ['tier', 'add', 'org', '/x'], setup: movedTier },
    { kind: 'unreachable', argv: ['tier', 'add', 'org', join(tmpdir(), 'no-such-tier-repo')] },
    { kind: 'unreachable', argv: ['tier', 'update', 'org'], setup: deadTier },
    { kind: 'check', argv: ['tier', 'verify', 'org'], setup: movedTier, report: true },
    { kind: 'invalid', argv: ['tier', 'list'], setup: badConfig },
  ],
  promote: [
    { kind: 'usage', argv: ['promote', 'active-one'] },
    { kind: 'usage', argv: ['promote', 'active-one', '--to', 'org', '--print', '--branch', 'b'], setup: movedTier },
    { kind: 'no-repo', argv: ['promote', 'active-one', '--to', 'org'], outside: true },
    { kind: 'not-found', argv: ['promote', 'active-one', '--to', 'org'] },
    { kind: 'not-found', argv: ['promote', 'no-such-one', '--to', 'org'], setup: movedTier },
    { kind: 'state', argv: ['promote', 'pending-one', '--to', 'org'], setup: movedTier },
    { kind: 'unreachable', argv: ['promote', 'active-one', '--to', 'org'], setup: deadTier },
  ],
  retro: [
    { kind: 'usage', argv: ['retro', '--since', 'last week'] },
    { kind: 'no-repo', argv: ['retro'], outside: true },
  ],
  check: [
    { kind: 'usage', argv: ['check', '--format', 'xml'] },
    { kind: 'usage', argv: ['check', 'extra'] },
    { kind: 'usage', argv: ['check', '--format', 'github'] },
    { kind: 'usage', argv: ['check', '--base', ''] },
    { kind: 'no-repo', argv: ['check'], outside: true },
    {
      kind: 'check',
      report: true,
      argv: ['check'],
      setup: (r) => commitFile(r, '.learnings/active/broken-one.md', 'no frontmatter\n'),
    },
    {
      kind: 'check',
      report: true,
      argv: ['check', '--staged'],
      setup: (r) => (r.write('.learnings/pending/broken-one.md', 'no frontmatter\n'), r.git('add', '-A')),
    },
    {
      kind: 'secret',
      report: true,
      argv: ['check'],
      setup: (r) =>
        commitFile(r, '.learnings/active/active-one.md', learningText('active-one').replace('Do D.', `Use ${TOKEN}.`)),
    },
    { kind: 'invalid', argv: ['check'], setup: badConfig, report: true },
    { kind: 'unreachable', argv: ['check', '--base', 'no-such-ref'] },
  ],
  hook: [
    { kind: 'usage', argv: ['hook'] },
    { kind: 'usage', argv: ['hook', 'bogus'] },
    { kind: 'usage', argv: ['hook', 'commit-msg'] },
    { kind: 'usage', argv: ['hook', 'uninstall', '--force'] },
    { kind: 'usage', argv: ['hook', 'post-merge'] },
    { kind: 'no-repo', argv: ['hook', 'install'], outside: true },
    { kind: 'no-repo', argv: ['hook', 'commit-msg', 'msg.txt'], outside: true },
    { kind: 'io', argv: ['hook', 'install'], setup: hooksFile },
    { kind: 'io', argv: ['hook', 'commit-msg', 'no-such-msg.txt'], setup: stageMove },
    {
      kind: 'check',
      report: true,
      argv: ['hook', 'commit-msg', '.git/MSG'],
      setup: (r) => (stageMove(r), r.write('.git/MSG', 'move it by hand\n')),
    },
  ],
  doctor: [
    { kind: 'usage', argv: ['doctor', '--continue', '--abort'] },
    { kind: 'no-repo', argv: ['doctor'], outside: true },
    { kind: 'check', argv: ['doctor'], setup: lock, report: true },
  ],
}

/** An agent hook (DESIGN section 8) never blocks its agent: every failure exits 0. */
function HOOK_ROWS(cmd: string): Row[] {
  return [
    { kind: 'usage', argv: [cmd, '--bogus'] },
    { kind: 'no-repo', argv: [cmd], outside: true },
    { kind: 'invalid', argv: [cmd], setup: badConfig },
  ]
}
const HOOKS = new Set(['recall', 'context', 'observe', 'capture'])

/** A file where git's hooks folder belongs. */
function hooksFile(r: Fixture): void {
  rmSync(join(r.root, '.git', 'hooks'), { recursive: true, force: true })
  r.write('.git/hooks', 'a file\n')
}
function noStore(r: Fixture): void {
  r.git('rm', '-rq', '.learnings')
  r.git('commit', '-qm', 'no store')
}
function asBob(r: Fixture): void {
  r.git('config', 'user.name', BOB.GIT_AUTHOR_NAME)
  r.git('config', 'user.email', BOB.GIT_AUTHOR_EMAIL)
}
function writeNew(r: Fixture): void {
  r.write('new-one.md', learningText('new-one'))
}
function writeSet(r: Fixture): void {
  r.write('set.yaml', '- query: "Error: active-one exploded"\n  expect: active-one\n')
}
function writeBundle(r: Fixture): void {
  r.write('b.json', bundle([]))
}
/** A learning moved into active/ by hand and staged: the commit-msg guard wants approval trailers for it. */
function stageMove(r: Fixture): void {
  r.git('mv', '.learnings/pending/pending-one.md', '.learnings/active/pending-one.md')
}

let template: string
const made: string[] = []

function fixture(root: string): Fixture {
  const git = (...args: string[]) => {
    const r = spawnSync('git', args, { cwd: root, encoding: 'utf8', env: gitEnv() })
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
    return r.stdout
  }
  return {
    root,
    git,
    write(path, text) {
      mkdirSync(dirname(join(root, path)), { recursive: true })
      writeFileSync(join(root, path), text)
    },
  }
}

const gitEnv = (bins?: string): NodeJS.ProcessEnv => ({
  ...process.env,
  ...(bins ? { PATH: `${bins}:${process.env['PATH']}` } : {}),
  GIT_CEILING_DIRECTORIES: tmpdir(),
  GIT_LEARN_HOOKS: '0',
  NO_COLOR: '1',
})

// The shared store: one learning per state, proposed by Ada, approved and pruned by Bob.
beforeAll(() => {
  const bins = binPath()
  template = join(tmpdir(), `gl-exit-codes-${process.pid}`)
  rmSync(template, { recursive: true, force: true })
  mkdirSync(template)
  made.push(template)
  const r = fixture(template)
  const gl = (args: string[], env: Record<string, string> = {}) => {
    const out = spawnSync('git', ['learn', ...args], {
      cwd: template,
      encoding: 'utf8',
      env: { ...gitEnv(bins), ...env },
    })
    if (out.status !== 0) throw new Error(`git learn ${args.join(' ')}: ${out.stderr}`)
  }
  r.git('init', '-q', '-b', 'main')
  r.git('config', 'user.name', 'Ada Author')
  r.git('config', 'user.email', 'ada@example.com')
  r.git('config', 'commit.gpgsign', 'false')
  r.write('README.md', '# scratch\n')
  r.git('add', 'README.md')
  r.git('commit', '-qm', 'initial')
  gl(['init'])
  r.git('add', '-A')
  r.git('commit', '-qm', 'store')
  const bob = { ...BOB, GIT_COMMITTER_NAME: BOB.GIT_AUTHOR_NAME, GIT_COMMITTER_EMAIL: BOB.GIT_AUTHOR_EMAIL }
  for (const name of ['pending-one', 'active-one', 'archived-one']) {
    r.write(`${name}.md`, learningText(name, { domain: name === 'active-one' ? 'testing' : 'git' }))
    gl(['add', '--file', `${name}.md`])
    rmSync(join(template, `${name}.md`))
  }
  gl(['approve', 'active-one', 'archived-one'], bob)
  gl(['prune', 'archived-one', '--reason', 'superseded', '--yes'], bob)
}, 120_000)

afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true })
})

test('every command of the CLI has its rows, and every kind has a code', () => {
  expect(Object.keys(ROWS).sort()).toEqual(Object.keys(COMMANDS).sort())
  for (const [cmd, rows] of Object.entries(ROWS)) {
    expect(
      rows.some((r) => r.kind === 'usage'),
      `${cmd} has a usage row`,
    ).toBe(true)
    if (cmd !== 'help')
      expect(
        rows.some((r) => r.kind === 'no-repo'),
        `${cmd} has a no-repo row`,
      ).toBe(true)
  }
})

test.each(Object.keys(ROWS))(
  '%s: each kind of failure gives its code, one JSON error, the repository unchanged',
  async (cmd) => {
    const bins = binPath()
    const spec = (await (COMMANDS[cmd] as () => Promise<{ spec: { options: Record<string, unknown> } }>)()).spec
    const hasJson = 'json' in spec.options
    for (const row of ROWS[cmd] as Row[]) {
      const root = row.outside ? tempDir('gl-outside-') : copyTemplate()
      const r = fixture(root)
      row.setup?.(r)
      const snapshot = () =>
        row.outside
          ? ''
          : [
              r.git('status', '--porcelain=v1', '--untracked-files=all'),
              r.git('rev-parse', 'HEAD'),
              r.git('ls-files', '-s'),
            ].join('\n')
      const before = snapshot()
      const argv = hasJson && !HOOKS.has(cmd) ? [...row.argv, '--json'] : row.argv
      const out = spawnSync('git', ['learn', ...argv], { cwd: root, encoding: 'utf8', env: gitEnv(bins), input: '' })
      const label = `git learn ${argv.join(' ')} (${row.kind})\n${out.stdout}${out.stderr}`
      const want = HOOKS.has(cmd) ? 0 : CODE[row.kind]
      expect(out.status, label).toBe(want)
      expect(out.stderr, label).not.toMatch(/internal error|\n\s+at .+:\d+:\d+/)
      if (!HOOKS.has(cmd)) {
        // A failure says so on stderr, except a report under --json, which is the answer itself.
        if (!hasJson || !row.report) expect(out.stderr.trim(), label).not.toBe('')
        if (hasJson) {
          const lines = out.stdout.trim().split('\n')
          expect(lines, label).toHaveLength(1)
          const json = JSON.parse(lines[0] as string)
          expect(json.ok, label).toBe(false)
          if (row.report) expect(json.error, label).toBeUndefined()
          else expect(json.error?.code, label).toBe(want)
        }
      }
      const says = SAYS[row.kind]
      if (says && !HOOKS.has(cmd)) expect(out.stderr + out.stdout, label).toMatch(says)
      expect(snapshot(), label).toBe(before)
    }
  },
  120_000,
)

function copyTemplate(): string {
  const dir = tempDir('gl-exit-')
  rmSync(dir, { recursive: true })
  cpSync(template, dir, { recursive: true })
  return dir
}

// A pinned tier that cannot be fetched does not fail a read (DESIGN section 9): each says so, exits 0, changes nothing.
test('a tier that cannot be reached is a warning where learnings are read, never silent', () => {
  const bins = binPath()
  const root = copyTemplate()
  const r = fixture(root)
  const url = join(tmpdir(), 'no-such-tier-repo')
  commitFile(
    r,
    '.learnings/config.yaml',
    `tiers:\n  - {name: org, url: ${JSON.stringify(url)}, ref: main, commit: ${'ab'.repeat(20)}}\n`,
  )
  const before = r.git('status', '--porcelain=v1', '--untracked-files=all') + r.git('rev-parse', 'HEAD')
  for (const argv of [['check'], ['search', 'exploded'], ['status'], ['context', '--format', 'text']]) {
    const out = spawnSync('git', ['learn', ...argv], { cwd: root, encoding: 'utf8', env: gitEnv(bins), input: '' })
    expect(out.status, argv.join(' ')).toBe(0)
    expect(out.stdout + out.stderr, argv.join(' ')).toMatch(/tier(s\/| )org/)
  }
  expect(r.git('status', '--porcelain=v1', '--untracked-files=all') + r.git('rev-parse', 'HEAD')).toBe(before)
})

// `check --format json` is `--json` (its help says so): a failure answers in JSON too, or CI parsing stdout gets
// nothing. `--json=…` asks for JSON as plainly (the parser refuses the value); a `--json` after `--` is a word.
test('every way of asking for JSON gets a failure as one JSON error, and only those ways', () => {
  const bins = binPath()
  const root = copyTemplate()
  const run = (argv: string[]) =>
    spawnSync('git', ['learn', ...argv], { cwd: root, encoding: 'utf8', env: gitEnv(bins) })
  for (const [argv, code] of [
    [['check', '--format', 'json', '--base', 'no-such-ref'], 3],
    [['check', '--format=json', '--base', 'no-such-ref'], 3],
    [['check', '--format', 'json', 'extra'], 2],
    [['list', '--json=1'], 2],
    [['--json'], 2],
  ] as const) {
    const out = run([...argv])
    const label = `git learn ${argv.join(' ')}\n${out.stdout}${out.stderr}`
    expect(out.status, label).toBe(code)
    expect(out.stdout.trim().split('\n'), label).toHaveLength(1)
    expect(JSON.parse(out.stdout), label).toMatchObject({ ok: false, error: { code } })
  }
  const word = run(['show', '--', '--json'])
  expect(word.status).toBe(2)
  expect(word.stdout).toBe('')
})
