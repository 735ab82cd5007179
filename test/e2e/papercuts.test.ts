import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { PROJECT_ROOT, learningText, makeRepo, sh } from '../helpers/repo.js'

// What a team hits on day one, through the built binary.

const BIN = join(PROJECT_ROOT, 'dist', 'bin.js')
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0

describe('papercuts', () => {
  test('a mistyped command or flag gets "did you mean"', () => {
    const repo = makeRepo()
    const cmd = sh(repo.root, 'git', ['learn', 'aprove', 'x'])
    expect(cmd.code).toBe(2)
    expect(cmd.stderr).toMatch(/unknown command "aprove"; did you mean `git learn approve`\?/)
    const flag = sh(repo.root, 'git', ['learn', 'list', '--jsn'])
    expect(flag.code).toBe(2)
    expect(flag.stderr).toMatch(/Unknown option '--jsn'; did you mean --json\?/)
    expect(sh(repo.root, 'git', ['learn', 'zzzzzz']).stderr).not.toMatch(/did you mean/)
  })

  test.skipIf(!hasScript)('colour on a terminal only: never with NO_COLOR, never into a pipe', () => {
    const run = (env: Record<string, string | undefined>) =>
      spawnSync('script', ['-qec', `${process.execPath} ${BIN} zzzzzz`, '/dev/null'], {
        encoding: 'utf8',
        env: { ...process.env, TERM: 'xterm', ...env },
      }).stdout
    const env = { ...process.env }
    delete env['NO_COLOR']
    expect(run({ ...env, NO_COLOR: undefined })).toContain('\x1b[1;31mgit learn zzzzzz:')
    expect(run({ NO_COLOR: '1' })).not.toContain('\x1b[')
    const piped = spawnSync(process.execPath, [BIN, 'zzzzzz'], { encoding: 'utf8', env: { ...env, TERM: 'xterm' } })
    expect(piped.stderr).not.toContain('\x1b[')
  })

  test('recall --json prints one JSON object, whatever the payload', () => {
    const repo = makeRepo()
    repo.write('.learnings/active/widget-exploded.md', learningText('widget-exploded'))
    repo.git('add', '.')
    repo.git('commit', '-qm', 'seed')
    const recall = (input: string) => {
      const r = sh(repo.root, 'git', ['learn', 'recall', '--json'], { input })
      expect(r.code).toBe(0)
      expect(r.stdout.trim().split('\n')).toHaveLength(1)
      return JSON.parse(r.stdout)
    }
    expect(recall('')).toEqual({ failed: false, recalled: [] })
    expect(
      recall(
        JSON.stringify({
          hook_event_name: 'PostToolUse',
          tool_name: 'Bash',
          tool_response: { exit_code: 0, stdout: 'ok' },
        }),
      ),
    ).toEqual({ failed: false, recalled: [] })
    const hit = recall(
      JSON.stringify({
        hook_event_name: 'PostToolUseFailure',
        tool_name: 'Bash',
        error: 'Error: widget-exploded exploded at line 3',
        cwd: repo.root,
      }),
    )
    expect(hit.failed).toBe(true)
    expect(hit.recalled.map((r: { name: string }) => r.name)).toEqual(['widget-exploded'])
  })

  test('--body-file - reads the body from stdin', () => {
    const repo = makeRepo()
    expect(sh(repo.root, 'git', ['learn', 'init']).code).toBe(0)
    const body =
      '## Problem\nThe widget broke.\n\n## Trigger Conditions\nRunning make.\n\n## Root Cause\nTried A and B; C was stale.\n\n## Solution\nRun make clean.\n\n## Verification\nmake passed.\n'
    const r = sh(
      repo.root,
      'git',
      [
        'learn',
        'add',
        '--name',
        'widget-stale',
        '--type',
        'error-solution',
        '--description',
        'Fix the widget build failing on stale objects. Use when make reports the widget error.',
        '--trigger',
        'make: *** [widget.o] Error 1',
        '--tags',
        'make,build',
        '--body-file',
        '-',
      ],
      { input: body },
    )
    expect(r.code, r.stderr).toBe(0)
    expect(repo.read('.learnings/pending/widget-stale.md')).toContain('Tried A and B; C was stale.')
  })

  test("init's Next: example passes the gates as printed", () => {
    const repo = makeRepo()
    const init = sh(repo.root, 'git', ['learn', 'init'])
    const example = init.stdout.trim().split('\n').pop()?.trim() as string
    expect(example).toMatch(/git learn add .* --dry-run$/)
    const r = sh(repo.root, 'sh', ['-c', example])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/would add npm-ci-lockfile-out-of-sync/)
  })
})
