import { execFileSync } from 'node:child_process'
import { describe, expect, test } from 'vitest'
import { seedStore } from '../helpers/feed-store.js'
import { learningText, makeRepo } from '../helpers/repo.js'

const SKILL = '.claude/skills/vitest-esm-mock-hoisting/SKILL.md'

// A learning file saved on Windows (CRLF) goes in as LF: in a repository that normalises line endings, a CRLF blob
// reads as modified in a clean checkout, and approve would refuse "has unstaged changes" for good.
describe('line endings of what git learn writes', () => {
  test.each([
    [
      '`* text eol=lf` in .gitattributes',
      (repo: ReturnType<typeof makeRepo>) => {
        repo.write('.gitattributes', '* text eol=lf\n')
        repo.git('add', '.gitattributes')
        repo.git('commit', '-qm', 'attributes')
      },
    ],
    ['core.autocrlf=true', (repo: ReturnType<typeof makeRepo>) => repo.git('config', 'core.autocrlf', 'true')],
    ['no attributes', () => {}],
  ])('add --file with CRLF, then approve: %s', async (_, setUp) => {
    const repo = makeRepo()
    setUp(repo)
    repo.write('draft.md', learningText('windows-saved').replace(/\n/g, '\r\n'))
    const add = await repo.cli(['add', '--file', 'draft.md'])
    expect(add.stderr).toBe('')
    expect(add.code).toBe(0)
    expect(repo.git('cat-file', 'blob', 'HEAD:.learnings/pending/windows-saved.md')).toBe(learningText('windows-saved'))
    expect(repo.git('status', '--porcelain', '--', '.learnings')).toBe('')
    repo.setIdentity('Rita Reviewer', 'rita@example.com')
    const approve = await repo.cli(['approve', 'windows-saved'])
    expect(approve.stderr).toBe('')
    expect(approve.code).toBe(0)
    expect(repo.git('status', '--porcelain', '--', '.learnings')).toBe('')
  })

  test('add --no-commit writes and stages LF too (git add alone would keep CRLF here: no attributes)', async () => {
    const repo = makeRepo()
    const r = await repo.cli(['add', '--no-commit', '--file', '-'], {
      stdin: learningText('staged-crlf').replace(/\n/g, '\r\n'),
    })
    expect(r.code).toBe(0)
    expect(repo.git('cat-file', 'blob', ':.learnings/pending/staged-crlf.md')).toBe(learningText('staged-crlf'))
    expect(repo.git('status', '--porcelain', '--', '.learnings')).toBe('A  .learnings/pending/staged-crlf.md\n')
  })

  /** Two ways a repository checks text out with CRLF line endings. */
  const CRLF_CHECKOUTS: [string, (repo: ReturnType<typeof makeRepo>) => void][] = [
    ['core.autocrlf=true', (repo) => repo.git('config', 'core.autocrlf', 'true')],
    [
      '`* text=auto eol=crlf` in .gitattributes',
      (repo) => {
        repo.write('.gitattributes', '* text=auto eol=crlf\n')
        repo.git('add', '.gitattributes')
        repo.git('commit', '-qm', 'attributes')
      },
    ],
  ]

  // core.safecrlf=true makes `git add` refuse a file whose line endings would not survive a checkout: an LF file
  // where git checks out CRLF. --no-commit wrote the learning LF and its `git add` failed; the file is now written as
  // git checks its blob out, so both the staging and the `git commit -- <path>` it prints (which adds again) pass.
  test.each(CRLF_CHECKOUTS)(
    'add --no-commit under core.safecrlf=true, then the printed commit: %s',
    async (_, setUp) => {
      const repo = makeRepo()
      setUp(repo)
      repo.git('config', 'core.safecrlf', 'true')
      const r = await repo.cli(['add', '--no-commit', '--file', '-'], { stdin: learningText('safe-crlf') })
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      expect(repo.git('cat-file', 'blob', ':.learnings/pending/safe-crlf.md')).toBe(learningText('safe-crlf'))
      expect(repo.git('status', '--porcelain', '--', '.learnings')).toBe('A  .learnings/pending/safe-crlf.md\n')
      const line = r.stdout.split('\n').find((l) => l.startsWith('  printf '))
      execFileSync('sh', ['-c', (line as string).trim()], { cwd: repo.root, stdio: 'pipe' })
      expect(repo.git('cat-file', 'blob', 'HEAD:.learnings/pending/safe-crlf.md')).toBe(learningText('safe-crlf'))
      expect(repo.git('status', '--porcelain')).toBe('')
    },
  )

  // init wrote its files LF; where git checks out CRLF, core.safecrlf=true made the user's `git add` of them refuse
  // ("LF would be replaced by CRLF"). They are now written as git checks their blobs out, as add --no-commit's is.
  test.each(CRLF_CHECKOUTS)(
    'init --ci --agent claude under core.safecrlf=true, then the user commits: %s',
    async (_, setUp) => {
      const repo = makeRepo()
      setUp(repo)
      // A project that formats with prettier (init writes .prettierignore) and has a CODEOWNERS file (init appends),
      // checked out as git checks it out here.
      repo.write('package.json', '{"devDependencies": {"prettier": "3"}}\n')
      repo.write('CODEOWNERS', '* @team\n')
      repo.git('add', 'package.json', 'CODEOWNERS')
      repo.git('commit', '-qm', 'project')
      repo.git('rm', '-q', '--cached', 'package.json', 'CODEOWNERS')
      repo.git('checkout', '-q', 'HEAD', '--', 'package.json', 'CODEOWNERS')
      repo.git('config', 'core.safecrlf', 'true')
      const r = await repo.cli(['init', '--ci', '--agent', 'claude'])
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      repo.git('add', '.learnings', '.github', '.claude', '.prettierignore', 'CODEOWNERS')
      repo.git('commit', '-qm', 'git learn init')
      expect(repo.git('status', '--porcelain')).toBe('')
      expect(repo.git('cat-file', 'blob', 'HEAD:.learnings/config.yaml')).not.toContain('\r')
      expect(repo.git('cat-file', 'blob', 'HEAD:CODEOWNERS')).toMatch(/^\* @team\n[^\r]*\.learnings/)
      const check = await repo.cli(['check'])
      expect(check.code, check.stdout + check.stderr).toBe(0)
    },
  )

  // render wrote its skills and sections LF, and spliced an LF section into a CLAUDE.md checked out CRLF: under
  // core.safecrlf=true the user's `git add` of what it wrote refused ("LF would be replaced by CRLF"). Now each file is
  // written as git checks its LF blob out, and a section goes into the text as git reads it.
  test.each(CRLF_CHECKOUTS)(
    'render every target under core.safecrlf=true, then the user commits: %s',
    async (_, setUp) => {
      const repo = makeRepo()
      setUp(repo)
      seedStore(repo)
      repo.write('CLAUDE.md', '# Our project\n\nRead the docs first.\n')
      repo.git('add', 'CLAUDE.md')
      repo.git('commit', '-qm', 'claude')
      repo.git('rm', '-q', '--cached', 'CLAUDE.md')
      repo.git('checkout', '-q', 'HEAD', '--', 'CLAUDE.md')
      expect(repo.read('CLAUDE.md')).toContain('\r\n')
      repo.git('config', 'core.safecrlf', 'true')
      const targets = ['--target', 'claude,agents,cursor,copilot,claude-md']
      const r = await repo.cli(['render', ...targets, '--json'])
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      const written: string[] = r.json().written
      expect(written).toEqual(expect.arrayContaining(['AGENTS.md', 'CLAUDE.md', SKILL]))
      for (const f of written) expect(repo.read(f), f).not.toMatch(/(?<!\r)\n/)
      repo.git('add', '--', ...written)
      repo.git('commit', '-qm', 'rendered')
      expect(repo.git('status', '--porcelain')).toBe('')
      for (const f of written) expect(repo.git('cat-file', 'blob', `HEAD:${f}`), f).not.toContain('\r')
      expect(repo.git('cat-file', 'blob', 'HEAD:CLAUDE.md')).toMatch(
        /^# Our project\n\nRead the docs first\.\n[^\r]*git-learn/,
      )
      const again = await repo.cli(['render', ...targets, '--json'])
      expect(again.json().written).toEqual([])
      expect(again.json().skipped).toEqual([])
      expect(repo.git('status', '--porcelain')).toBe('')
    },
  )

  // A file committed with CRLF (no conversion: `-text`) keeps one style: the section goes in with CRLF too.
  test('render splices its section into an AGENTS.md committed with CRLF in CRLF', async () => {
    const repo = makeRepo()
    seedStore(repo)
    repo.write('.gitattributes', 'AGENTS.md -text\n')
    repo.write('AGENTS.md', '# Agents\r\n\r\nBe brief.\r\n')
    repo.git('add', '.gitattributes', 'AGENTS.md')
    repo.git('commit', '-qm', 'agents')
    const r = await repo.cli(['render', '--target', 'agents', '--json'])
    expect(r.code).toBe(0)
    expect(r.json().written).toContain('AGENTS.md')
    const text = repo.read('AGENTS.md')
    expect(text).toMatch(/^# Agents\r\n\r\nBe brief\.\r\n[^]*git-learn/)
    expect(text).not.toMatch(/(?<!\r)\n/)
    expect((await repo.cli(['render', '--target', 'agents', '--json'])).json().written).toEqual([])
  })

  // The file is written as git checks its blob out, byte for byte: under `working-tree-encoding` that is not UTF-8.
  // Read back as UTF-8 text, the UTF-16 bytes became U+FFFD and NULs, and `git add` staged that, not the learning.
  test('add --no-commit under working-tree-encoding=UTF-16LE-BOM stages the learning, and the printed commit too', async () => {
    const repo = makeRepo()
    repo.write('.gitattributes', '.learnings/**/*.md text working-tree-encoding=UTF-16LE-BOM\n')
    repo.git('add', '.gitattributes')
    repo.git('commit', '-qm', 'attributes')
    const r = await repo.cli(['add', '--no-commit', '--file', '-'], { stdin: learningText('utf-sixteen') })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(repo.git('cat-file', 'blob', ':.learnings/pending/utf-sixteen.md')).toBe(learningText('utf-sixteen'))
    const line = r.stdout.split('\n').find((l) => l.startsWith('  printf '))
    execFileSync('sh', ['-c', (line as string).trim()], { cwd: repo.root, stdio: 'pipe' })
    expect(repo.git('cat-file', 'blob', 'HEAD:.learnings/pending/utf-sixteen.md')).toBe(learningText('utf-sixteen'))
    expect(repo.git('status', '--porcelain')).toBe('')
  })
})
