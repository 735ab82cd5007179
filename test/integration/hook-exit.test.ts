import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { makeRepo, tempDir } from '../helpers/repo.js'
import { runCli } from '../../src/cli/main.js'

// An agent hook that exits 2 blocks Claude Code's tool call: observe, recall and context exit 0 whatever happens,
// print nothing, and leave the reason in <git common dir>/learn/hooks.log.
test.each(['observe', 'recall', 'context'])(
  '%s exits 0 on a bad flag, prints nothing, logs the reason',
  async (cmd) => {
    const repo = makeRepo()
    const r = await repo.cli([cmd, '--no-such-flag', '--json'], { stdin: '{}' })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe('')
    expect(readFileSync(join(repo.root, '.git', 'learn', 'hooks.log'), 'utf8')).toMatch(
      new RegExp(`${cmd}: .*no-such-flag`),
    )
  },
)

test.each(['observe', 'recall'])('%s outside a repository exits 0 and prints nothing', async (cmd) => {
  let stdout = ''
  const code = await runCli([cmd], {
    cwd: tempDir(),
    env: { ...process.env, GIT_CEILING_DIRECTORIES: '/' },
    now: () => new Date(),
    stdout: (t) => void (stdout += t),
    stderr: () => undefined,
    readStdin: async () => Buffer.from('{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","error":"boom"}'),
    color: false,
  })
  expect(code).toBe(0)
  expect(stdout).toBe('')
})

test('a command that is not a hook still exits 2 on a bad flag', async () => {
  expect((await makeRepo().cli(['list', '--no-such-flag'])).code).toBe(2)
})
