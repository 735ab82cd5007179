// runGitAsync's timeoutMs (src/adapters/git/run.ts) against a remote that accepts a connection and never answers: the
// feed's fetch of a pinned tier must end at its bound whatever the transport. `git fetch` over http(s) or ssh runs a
// helper (git-remote-http, ssh) that inherits git's pipes; killing git alone left it blocked on the silent socket and
// the run waiting for the pipes to close (over 100 s).
import { execFileSync, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import type { AddressInfo, Socket } from 'node:net'
import { describe, expect, test } from 'vitest'
import { TIMED_OUT, runGitAsync } from '../../../../src/adapters/git/run.js'
import { makeRepo } from '../../../helpers/repo.js'

/** A TCP server that accepts and never answers; `closed` counts the connections the other side has closed. */
async function silentServer() {
  const sockets: Socket[] = []
  let closed = 0
  const server = createServer((s) => {
    sockets.push(s)
    s.on('error', () => undefined)
    s.on('close', () => closed++)
    s.resume() // read, so that the client's end is seen
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    port: (server.address() as AddressInfo).port,
    accepted: () => sockets.length,
    closed: () => closed,
    stop: () => {
      for (const s of sockets) s.destroy()
      server.close()
    },
  }
}

const waitFor = async (ok: () => boolean, ms: number) => {
  for (const end = Date.now() + ms; !ok() && Date.now() < end;) await new Promise((r) => setTimeout(r, 25))
  return ok()
}

/** Processes whose command line names the port (git-remote-http's URL, ssh's `-p <port>`). */
const holders = (port: number) =>
  execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => new RegExp(`\\b${port}\\b`).test(l) && !/\bps -eo\b/.test(l))

describe('runGitAsync timeoutMs', () => {
  test.each([
    ['http', (port: number) => `http://x-access-token:secret@127.0.0.1:${port}/org.git`],
    ['ssh', (port: number) => `ssh://git@127.0.0.1:${port}/org.git`],
  ])(
    'a %s remote that never answers: the run ends at its bound, and no helper is left holding the socket',
    async (_kind, url) => {
      const server = await silentServer()
      const repo = makeRepo()
      const unhandled: unknown[] = []
      const onUnhandled = (e: unknown) => unhandled.push(e)
      process.on('unhandledRejection', onUnhandled)
      try {
        const started = Date.now()
        const r = await Promise.race([
          runGitAsync(['fetch', '--quiet', '--no-tags', '--', url(server.port), 'main'], {
            cwd: repo.root,
            env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_SSH_COMMAND: 'ssh -o BatchMode=yes' },
            timeoutMs: 500,
          }),
          new Promise<'pending'>((r) => setTimeout(() => r('pending'), 5000)),
        ])
        expect(r === 'pending' ? r : r.code).toBe(TIMED_OUT)
        expect(Date.now() - started).toBeLessThan(3000)
        expect(server.accepted()).toBeGreaterThan(0) // it did connect: the helper was waiting on the socket
        // Every connection is closed from the client's side: the helper died with git.
        expect(await waitFor(() => server.closed() === server.accepted(), 2000)).toBe(true)
        expect(holders(server.port)).toEqual([])
        await new Promise((r) => setTimeout(r, 50))
        expect(unhandled).toEqual([])
      } finally {
        process.off('unhandledRejection', onUnhandled)
        server.stop()
      }
    },
  )

  // A process git starts and leaves running with its pipes (an ssh ControlMaster that daemonizes) is not waited for:
  // the run answers with git's exit code and output soon after git exits, not at the bound.
  test("a git that exits while a process it started holds its pipes: git's answer at its exit, not at the bound", async () => {
    const repo = makeRepo()
    const started = Date.now()
    const r = await runGitAsync(['-c', 'alias.linger=!sleep 3 & echo hi', 'linger'], {
      cwd: repo.root,
      timeoutMs: 10_000,
    })
    expect(r.code).toBe(0)
    expect(r.stdout.toString('utf8')).toBe('hi\n')
    expect(Date.now() - started).toBeLessThan(2000)
  })

  test('a git that ends in time is unaffected: its output and exit code', async () => {
    const repo = makeRepo()
    const r = await runGitAsync(['rev-parse', 'HEAD'], { cwd: repo.root, timeoutMs: 10_000 })
    expect(r.code).toBe(0)
    expect(r.stdout.toString('utf8').trim()).toBe(repo.git('rev-parse', 'HEAD').trim())
    const bad = await runGitAsync(['rev-parse', '--verify', 'nope'], { cwd: repo.root, timeoutMs: 10_000 })
    expect(bad.code).not.toBe(0)
    expect(bad.code).not.toBe(TIMED_OUT)
  })
})

// The run's own process group keeps a terminal's Ctrl-C from git; while a bounded run is live, this process passes
// SIGINT, SIGTERM and SIGHUP on to the group before it ends, so an interrupted hook leaves no fetch behind.
test.each(['SIGTERM', 'SIGINT'] as const)(
  '%s to the process running a bounded fetch ends git and its ssh too',
  async (signal) => {
    const server = await silentServer()
    const repo = makeRepo()
    try {
      const script = [
        `import { runGitAsync } from ${JSON.stringify(new URL('../../../../dist/adapters/git/run.js', import.meta.url).href)}`,
        `await runGitAsync(['fetch', '--quiet', '--no-tags', '--', 'ssh://git@127.0.0.1:${server.port}/org.git', 'main'], { cwd: ${JSON.stringify(repo.root)}, timeoutMs: 60000 })`,
      ].join('\n')
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' })
      expect(await waitFor(() => server.accepted() > 0, 10_000)).toBe(true)
      child.kill(signal)
      await new Promise((r) => child.once('exit', r))
      expect(await waitFor(() => holders(server.port).length === 0, 5_000), holders(server.port).join('\n')).toBe(true)
    } finally {
      server.stop()
    }
  },
)
