// The ways people and agents run `git commit` (an editor with `commit.verbose` and another comment character, paths
// on the command line, `-a`, partial staging), with the hooks installed (githooks shims, the built binary as `git learn`
// on PATH): each hook judges what the commit will hold and the message git will record, not the work tree or the file
// git hands the editor.
import { chmodSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { PROJECT_ROOT, learningText, makeRepo, sh, tempDir } from '../helpers/repo.js'
import type { TestRepo } from '../helpers/repo.js'

const TOKEN = `ghp_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`

function setUp(): { repo: TestRepo; run: (args: string[], env?: Record<string, string>) => ReturnType<typeof sh> } {
  const repo = makeRepo()
  const run = (args: string[], env: Record<string, string> = {}) => sh(repo.root, 'git', args, { env })
  expect(run(['learn', 'init', '--hooks']).code).toBe(0)
  repo.git('add', '-A')
  expect(run(['commit', '-qm', 'set up the store']).code).toBe(0)
  return { repo, run }
}

/** An editor that puts `text` above what git wrote into the message file (its comments, scissors line and diff). */
function editorPrepending(text: string): string {
  const file = join(tempDir('gl-editor-'), 'edit.sh')
  writeFileSync(file, `#!/bin/sh\n{ printf '%s' '${text}'; cat "$1"; } > "$1.new" && mv "$1.new" "$1"\n`)
  chmodSync(file, 0o755)
  return file
}

const APPROVAL = [
  'Learning: hand-moved',
  'Learning-Action: approve',
  'Learning-From: pending',
  'Learning-To: active',
  'Approved-by: Bob Reviewer <bob@example.com>',
].join('\n')

describe('commit-msg reads the message git will record', () => {
  /** Ada proposed hand-moved; Bob moves it by hand and edits a note that quotes an approval's trailers. */
  function handMoveQuotingTrailers() {
    const { repo, run } = setUp()
    expect(sh(repo.root, 'git', ['learn', 'add', '--file', '-'], { input: learningText('hand-moved') }).code).toBe(0)
    repo.write('notes.md', `How to approve by hand:\n${APPROVAL}\nend\n`)
    repo.git('add', 'notes.md')
    expect(run(['commit', '-qm', 'notes']).code).toBe(0)
    repo.setIdentity('Bob Reviewer', 'bob@example.com')
    repo.git('mv', '.learnings/pending/hand-moved.md', '.learnings/active/hand-moved.md')
    // Both ends of the note change, so the diff `git commit -v` shows quotes every trailer line in between.
    repo.write('notes.md', `How you approve by hand:\n${APPROVAL}\nthe end\n`)
    repo.git('add', 'notes.md')
    return { repo, run, head: repo.git('rev-parse', 'HEAD') }
  }

  // git cuts a verbose message at its scissors line, written after core.commentChar; the hook cut only at "# ---- >8",
  // so with another comment character the diff below it was read, and its quoted trailers approved the move.
  test.each([
    ['core.commentChar=;', ['-c', 'core.commentChar=;', '-c', 'commit.verbose=true', 'commit', '-q'], 'wip: move it\n'],
    // auto: git picks ";" when a line of the message starts with "#" (an issue number as the subject, say).
    [
      'core.commentChar=auto',
      ['-c', 'core.commentChar=auto', 'commit', '-v', '-q', '-e', '-m', '#12 wip: move it'],
      '',
    ],
  ])('a hand move with no trailers, %s and the verbose diff quoting some: refused', (_, args, subject) => {
    const { repo, run, head } = handMoveQuotingTrailers()
    const r = run(args, { GIT_EDITOR: editorPrepending(subject) })
    expect(r.stderr).toMatch(/hand-moved moves pending → active but the commit message lacks its trailers/)
    expect(r.code).toBe(1)
    expect(repo.git('rev-parse', 'HEAD')).toBe(head)
  })

  test('the same move with its trailers above the scissors line of core.commentChar=; commits, and CI agrees', () => {
    const { repo, run, head } = handMoveQuotingTrailers()
    const editor = editorPrepending(`learn: approve hand-moved\n\n${APPROVAL}\n`)
    const r = run(['-c', 'core.commentChar=;', '-c', 'commit.verbose=true', 'commit', '-q'], { GIT_EDITOR: editor })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(repo.git('log', '-1', '--format=%B')).toBe(`learn: approve hand-moved\n\n${APPROVAL}\n\n`)
    expect(run(['learn', 'check', '--base', head.trim()]).code).toBe(0)
  })
})

describe('pre-commit checks the content being committed', () => {
  const leaky = (name: string) =>
    learningText(
      name,
      {},
      `## Problem\nx\n\n## Trigger Conditions\nx\n\n## Root Cause\nWe tried A.\n\n## Solution\nexport GITHUB_TOKEN=${TOKEN}\n\n## Verification\nok\n`,
    )

  test('partial staging, -a, --include and paths on the command line (git commit --only)', () => {
    const { repo, run } = setUp()
    const file = '.learnings/pending/partly.md'
    const refused = (r: ReturnType<typeof sh>) => {
      expect(r.stderr).toMatch(/partly\.md:\d+: error \[secrets\]/)
      expect(r.stderr + r.stdout).not.toContain(TOKEN)
      expect(r.code).toBe(1)
    }
    // A valid version staged, a token left in the work tree: the commit holds the valid one, the token stays unstaged.
    repo.write(file, learningText('partly'))
    repo.git('add', file)
    repo.write(file, leaky('partly'))
    expect(run(['commit', '-qm', 'add partly']).code).toBe(0)
    expect(repo.git('show', `HEAD:${file}`)).toBe(learningText('partly'))
    expect(repo.read(file)).toBe(leaky('partly'))
    // The reverse: the token staged, fixed in the work tree alone.
    repo.git('add', file)
    repo.write(file, learningText('partly', { domain: 'git' }))
    const head = repo.git('rev-parse', 'HEAD')
    refused(run(['commit', '-qm', 'edit partly']))
    // -a and --include stage the work tree's fixed version over it.
    expect(run(['commit', '-qam', 'edit partly']).code).toBe(0)
    repo.write(file, leaky('partly'))
    refused(run(['commit', '-qam', 'token by -a']))
    refused(run(['commit', '-qm', 'token by --include', '--include', file]))
    // Paths on the command line: git runs the hooks on a temporary index holding those paths from the work tree.
    refused(run(['commit', '-qm', 'token by path', '--', file]))
    repo.git('add', file) // the token staged; the path's work-tree version, committed alone, is clean
    repo.write(file, learningText('partly', { domain: 'tooling' }))
    expect(run(['commit', '-qm', 'clean by path', '--', file]).code).toBe(0)
    expect(repo.git('show', `HEAD:${file}`)).toBe(learningText('partly', { domain: 'tooling' }))
    // Another learning with a token staged is left out of a commit of one path, and stays staged.
    repo.write('.learnings/pending/other.md', leaky('other'))
    repo.git('add', '.learnings/pending/other.md')
    repo.write(file, learningText('partly', { domain: 'workflow' }))
    expect(run(['commit', '-qm', 'partly alone', '--', file]).code).toBe(0)
    expect(repo.git('status', '--porcelain', '--', '.learnings')).toBe('A  .learnings/pending/other.md\n')
    expect(repo.git('rev-list', '--count', `${head.trim()}..HEAD`).trim()).toBe('3')
  })
})

describe("the hooks' fast exit reads the zones of the config being committed", () => {
  // The shims and the husky line skip Node when nothing under .learnings/ or .claude/ is staged and the config sets no
  // zone elsewhere. They read that config from the work tree: an edit of it that is not staged (a zone dropped while
  // trying something) or a deleted config.yaml let a file staged into the committed config's zone through unchecked.
  test.each(['shims', 'husky'])('%s: a zone dropped from the work tree alone still guards the commit', (setup) => {
    const repo = makeRepo()
    if (setup === 'husky')
      expect(sh(repo.root, process.execPath, [join(PROJECT_ROOT, 'node_modules', 'husky', 'bin.js')]).code).toBe(0)
    expect(sh(repo.root, 'git', ['learn', 'init', '--hooks']).code).toBe(0)
    const config = repo.read('.learnings/config.yaml')
    const zoned = config.replace(/^( *system:) .*$/m, '$1 ["agents/**"]')
    expect(zoned).not.toBe(config)
    repo.write('.learnings/config.yaml', zoned)
    repo.git('add', '-A')
    expect(sh(repo.root, 'git', ['commit', '-qm', 'learn: init, agents/ is a zone']).code).toBe(0)
    const head = repo.git('rev-parse', 'HEAD')
    repo.write('agents/fixer/SKILL.md', '---\nname: fixer\nsource: me\n---\nRun the fixer.\n')
    repo.git('add', 'agents')
    const refused = () => {
      const r = sh(repo.root, 'git', ['commit', '-qm', 'a skill'])
      expect(r.stderr).toMatch(/agents\/fixer\/SKILL\.md:1: error \[zone\]/)
      expect(r.code).toBe(1)
      expect(repo.git('rev-parse', 'HEAD')).toBe(head)
    }
    refused()
    repo.write('.learnings/config.yaml', config) // the zone dropped in the work tree, not staged
    refused()
    rmSync(join(repo.root, '.learnings', 'config.yaml'))
    refused()
  })
})
