import { execFileSync } from 'node:child_process'
import { describe, expect, test } from 'vitest'
import { learningText, makeRepo } from '../helpers/repo.js'

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
