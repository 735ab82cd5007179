import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'
import { describeError } from '../../../../src/cli/messages/errors.js'
import {
  GitCommandError,
  IllegalTransitionError,
  LearningNotFoundError,
  NotARepositoryError,
  OperationInProgressError,
  UsageError,
} from '../../../../src/core/errors.js'
import { COMMANDS, COMMAND_GROUPS } from '../../../../src/cli/registry.js'
import { formatUsage } from '../../../../src/cli/main.js'
import { formatHelp } from '../../../../src/cli/spec.js'
import { hookReport } from '../../../../src/cli/messages/guards.js'
import { SHIM_HOOKS } from '../../../../src/adapters/git/hooks.js'
import {
  ConfigError,
  FileAccessError,
  NameTakenError,
  NoCommitsError,
  NoIdentityError,
  NoWorkTreeError,
  PartialMoveError,
  SparseStoreError,
  PathTakenError,
  TransitionIncompleteError,
  RefusedError,
  SecretInMessageError,
  TierUrlCredentialError,
  WithheldError,
  SelfApprovalError,
  SharedHooksPathError,
  UncommittedLearningError,
} from '../../../../src/core/errors.js'
test.each([
  [new UsageError('missing <name>', 'approve'), 2, /missing <name>\nRun `git learn approve -h`/],
  [new LearningNotFoundError('x'), 2, /no learning named "x"/],
  [new IllegalTransitionError('x', 'archived', 'approve'), 1, /git learn restore x/],
  [new NotARepositoryError('/tmp/q'), 3, /not inside a git repository: \/tmp\/q/],
  [new OperationInProgressError('rebase'), 3, /git rebase --abort/],
  [new GitCommandError(['commit', '-m', 'x'], 'fatal: nope'), 3, /git said:\nfatal: nope/],
  [
    new TypeError('undefined is not a function'),
    70,
    /internal error: undefined is not a function[\s\S]*This is a bug in git-learn/,
  ],
])('%s → exit %i', (err, code, message) => {
  const d = describeError(err)
  expect(d.code).toBe(code)
  expect(d.message).toMatch(message)
})

const DUBIOUS =
  "fatal: detected dubious ownership in repository at '/r'\n\tgit config --global --add safe.directory /r it's\n"
const UNSAFE =
  /^git refuses to work in \/r it's: the repository belongs to another user[\s\S]*`git config --global --add safe\.directory '\/r it'\\''s'`/

test.each([
  [
    new ConfigError('.learnings/config.yaml', ['unknown key "x"']),
    1,
    /config\.yaml is not a valid configuration:\n {2}- unknown key "x"/,
  ],
  [new NameTakenError('x', '.learnings/active/x.md'), 1, /"x" already exists: \.learnings\/active\/x\.md/],
  [
    new SelfApprovalError('x', 'A <a@x>'),
    1,
    /A <a@x> proposed "x" \(or restored it to pending\/, which counts as proposing it\) and cannot approve it/,
  ],
  [new UncommittedLearningError('x', '.learnings/pending/x.md', 'staged changes'), 1, /has staged changes/],
  // Untracked: "has not committed yet" was the sentence, and `git restore` cannot discard a path git does not know.
  [
    new UncommittedLearningError('x', '.learnings/active/x.md', 'not committed yet'),
    1,
    /^\.learnings\/active\/x\.md is not committed yet: a lifecycle commit would take it along unseen\.\nCommit it first \(`git add \.learnings\/active\/x\.md && git commit`\), or remove it \(`rm \.learnings\/active\/x\.md`\)\.$/,
  ],
  [new RefusedError('no', ['why']), 1, /no\n {2}- why/],
  [
    new WithheldError('x', '.learnings/active/x.md', 'active', [
      'line 3, column 1: GitHub token (github-token): ghp_…9z',
    ]),
    1,
    /x \(active, \.learnings\/active\/x\.md\) is withheld from agents[\s\S]*ghp_…9z[\s\S]*open \.learnings\/active\/x\.md/,
  ],
  [
    new SecretInMessageError('--reason', [{ description: 'GitHub token', rule: 'github-token', masked: 'ghp_…9z' }]),
    1,
    /--reason contains what looks like a credential[\s\S]*ghp_…9z/,
  ],
  [
    new TierUrlCredentialError(
      'org',
      'https://***@github.com/org/learn.git',
      [{ description: 'Password in a URL', rule: 'url-credentials', masked: 'ghp_…0i' }],
      false,
    ),
    1,
    /^the URL of tier org \(https:\/\/\*\*\*@github\.com\/org\/learn\.git\) carries a credential[\s\S]*nothing was fetched or changed:\n {2}- Password in a URL \(url-credentials\): ghp_…0i\nGive git the URL without it[\s\S]*credential helper[\s\S]*SSH key/,
  ],
  [
    new SharedHooksPathError('~/.githooks', '/h/.githooks', 'global', '/h/.gitconfig', '.git/hooks'),
    1,
    /^core\.hooksPath is "~\/\.githooks" \(\/h\/\.githooks\), set in your global git config \(\/h\/\.gitconfig\)[\s\S]*`git config core\.hooksPath \.git\/hooks`[\s\S]*`git learn hook install --force`[\s\S]*replaced and kept as <hook>\.git-learn-backup, so it stops running in every repository/,
  ],
  [new NoIdentityError('Please tell me who you are'), 3, /git config user\.name/],
  // git refused the repository for its owner, whichever way the command met it: one message, git's fix quoted.
  [new NotARepositoryError('/r', DUBIOUS), 3, UNSAFE],
  [new GitCommandError(['ls-files'], DUBIOUS), 3, UNSAFE],
  [new NoCommitsError('/r'), 3, /no commits yet/],
  [
    new NoWorkTreeError('/srv/x.git', '/srv/x.git', true),
    3,
    /^needs a work tree, and \/srv\/x\.git is a bare repository[\s\S]*`git clone \/srv\/x\.git <dir>`[\s\S]*`git learn check --base <old> --head <new>` work/,
  ],
  [
    new NoWorkTreeError('/r/.git/refs', '/r/.git', false),
    3,
    /inside the git directory \/r\/\.git\.\ncd into the work tree/,
  ],
  [
    new SparseStoreError([
      '.learnings/config.yaml',
      '.learnings/pending/a.md',
      '.learnings/pending/b.md',
      '.learnings/x',
    ]),
    3,
    /^this work tree is a sparse checkout that leaves out 4 files of \.learnings\/ \(\.learnings\/config\.yaml, \.learnings\/pending\/a\.md, \.learnings\/pending\/b\.md, …\)[\s\S]*Nothing was changed\.\nAdd the store to the checkout: `git sparse-checkout add \.learnings`/,
  ],
  [
    new PartialMoveError('approve', [{ name: 'a', commit: 'abcdef123' }], 'b', ['c'], new RefusedError('hook said no')),
    1,
    /approve stopped part way: a \(commit abcdef1\) was committed; b failed[\s\S]*not attempted: c[\s\S]*git learn approve b c/,
  ],
  [
    // b's commit landed unfinished: not "put back", and not to be approved again (doctor finishes it).
    new PartialMoveError(
      'approve',
      [{ name: 'a', commit: 'abcdef123' }],
      'b',
      ['c'],
      new TransitionIncompleteError('learn: approve b', '1234567abc', ['.learnings/active/b.md'], 'a file appeared'),
    ),
    3,
    /^approve stopped part way: a \(commit abcdef1\) was committed; b was committed but not finished; not attempted: c\.\n"learn: approve b" was committed \(1234567abc\)[\s\S]*git learn doctor --continue[\s\S]*Then run `git learn approve c`\.$/,
  ],
  [
    new PathTakenError('learn: approve x', '.learnings/active/x.md', 'untracked'),
    1,
    /\.learnings\/active\/x\.md is already there \(not committed\), and "learn: approve x" would put a file at that path; nothing was changed\.\nMove that file out of \.learnings\/active\//,
  ],
])('%s → exit %i', (err, code, message) => {
  const d = describeError(err)
  expect(d.code).toBe(code)
  expect(d.message).toMatch(message)
})

test('-h lists every command exactly once', () => {
  const grouped = COMMAND_GROUPS.flatMap(([, names]) => names)
  expect([...grouped].sort()).toEqual(Object.keys(COMMANDS).sort())
  for (const name of Object.keys(COMMANDS)) expect(formatUsage()).toContain(name)
})

const systemError = (code: string, syscall: string, path: string) =>
  Object.assign(new Error(`${code}: ${syscall} '${path}'`), { code, syscall, path })

test.each([
  [
    new FileAccessError('x.md', 'ENOENT', 'the learning file'),
    /cannot use the learning file "x\.md": it does not exist/,
  ],
  [systemError('ENOTDIR', 'mkdir', '/tmp/r/.learnings/pending'), /cannot use \/tmp\/r\/\.learnings\/pending: a part/],
  [systemError('ENOSPC', 'write', '/tmp/r/out.json'), /no space is left/],
])('a file the system refuses is the environment (exit 3): %s', (err, message) => {
  const d = describeError(err)
  expect(d.code).toBe(3)
  expect(d.kind).toBe('FileAccessError')
  expect(d.message).toMatch(message)
  expect(d.message).not.toMatch(/internal error|\n\s+at /)
})

// write(2) to an open file names no path (init's config.yaml, a hook written by writeFileSync on a full disk): it was
// an internal error, exit 70 with a stack and "This is a bug in git-learn".
test.each([
  [
    Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' }),
    /^write failed: no space is left on the device\.\nFree some space on the disk, then run the command again\.$/,
  ],
  [
    Object.assign(new Error('EFBIG: file too large, write'), { code: 'EFBIG', syscall: 'write' }),
    /^write failed: the file is larger than this shell allows \(`ulimit -f`\)\./,
  ],
  [
    Object.assign(new Error('spawn git EMFILE'), { code: 'EMFILE', syscall: 'spawn git' }),
    /^spawn git failed: too many files are open\.\nRaise the limit of open files \(`ulimit -n`\)/,
  ],
])('a resource that ran out under a call naming no path is the environment (exit 3): %s', (err, message) => {
  const d = describeError(err)
  expect(d.code).toBe(3)
  expect(d.message).toMatch(message)
  expect(d.message).not.toMatch(/internal error|\n\s+at /)
})

test.each([
  ['fatal: unable to write loose object file: No space left on device', /Free some space on the disk that holds/],
  ["fatal: sha1 file '/r/.git/learn/tmp/1.index.lock' write error. Out of diskspace", /Free some space on the disk/],
  ['error: unable to create temporary file: Read-only file system', /read-only file system: run the command in a/],
  [
    'error: insufficient permission for adding an object to repository database .git/objects',
    /objects belong to another user/,
  ],
])('git that could not write the repository gets the next step: %s', (stderr, hint) => {
  const d = describeError(new GitCommandError(['hash-object', '-w', '--stdin'], `${stderr}\n`))
  expect(d.code).toBe(3)
  expect(d.message).toMatch(/git said:\n/)
  expect(d.message).toMatch(hint)
})

test("a file missing from git-learn's own package is a broken install: internal (70)", () => {
  const own = join(fileURLToPath(new URL('../../../../', import.meta.url)), 'dist', 'generated', 'x.cjs')
  expect(describeError(systemError('ENOENT', 'open', own)).code).toBe(70)
})

// The installed package ships no docs/: an invalid config.yaml points at the template it ships, which holds every key
// at its default; a malformed .claude/settings.json is not "a configuration whose keys are optional".
test('an invalid config names a file the install has; a malformed settings.json gets its own sentence', () => {
  const yaml = describeError(new ConfigError('.learnings/config.yaml', ['unknown key "x"'])).message
  const template = /every key is optional, and (\S+) lists each with its default/.exec(yaml)?.[1] ?? ''
  expect(template).toMatch(/templates[\\/]config\.yaml$/)
  expect(existsSync(template)).toBe(true)
  expect(yaml).not.toContain('docs/')
  const json = describeError(new ConfigError('.claude/settings.json', ['malformed JSON at line 3: ValueExpected']))
  expect(json.code).toBe(1)
  expect(json.message).toMatch(
    /^\.claude\/settings\.json is not a settings file git learn can merge its hooks into:\n {2}- malformed JSON at line 3/,
  )
  expect(json.message).not.toMatch(/every key is optional|config/)
})

// Every hook install writes, named in the help of the commands that install them; every option in a usage line.
test('hook -h and init -h name the five hooks; evolve -h shows --force', async () => {
  const help = async (name: string) => formatHelp((await COMMANDS[name]!()).spec)
  for (const hook of SHIM_HOOKS) {
    expect(await help('hook')).toContain(hook)
    expect(await help('init')).toContain(hook)
  }
  expect(await help('evolve')).toMatch(/^usage: git learn evolve \[--write \[--force\]\] \[--json\]$/m)
})

test('hook uninstall with husky says it took out its line, not the file', () => {
  const text = hookReport('husky', [{ file: '.husky/pre-commit', action: 'removed' }], true)
  expect(text).toContain('removed   the git-learn line from .husky/pre-commit')
  expect(hookReport('hooks-dir', [{ file: '.git/hooks/pre-commit', action: 'removed' }], true)).toContain(
    'removed   .git/hooks/pre-commit',
  )
})
