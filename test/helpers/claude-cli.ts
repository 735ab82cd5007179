/**
 * The real Claude Code CLI (the pinned devDependency @anthropic-ai/claude-code) run against the local model stand-in
 * (model-stand-in.ts): no network, a dummy key, HOME in a temporary directory. The native binary ships in the
 * platform package (@anthropic-ai/claude-code-<platform>-<arch>), which npm installs as an optional dependency; the
 * wrapper's postinstall only copies it over bin/claude.exe, so the platform package is used directly (npm 11 may
 * leave install scripts unrun).
 */
import { spawn } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { PROJECT_ROOT, binPath, tempDir } from './repo.js'

/**
 * The binary an e2e file runs (empty when there is none) and the reason to skip, said once on stderr: what each
 * Claude Code e2e file sets up first.
 */
export function claudeForTests(): { claude: string; skip: string | undefined } {
  const found = findClaudeBinary()
  const skip = 'skip' in found ? found.skip : undefined
  if (skip) console.warn(`Claude Code e2e skipped: ${skip}`)
  return { claude: 'path' in found ? found.path : '', skip }
}

/** The native binary, or the reason there is none here (the e2e tests skip with it). */
export function findClaudeBinary(): { path: string } | { skip: string } {
  const musl =
    process.platform === 'linux' &&
    !(process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header
      ?.glibcVersionRuntime
  const pkg = `@anthropic-ai/claude-code-${process.platform}-${process.arch}${musl ? '-musl' : ''}`
  const candidates = [
    join(PROJECT_ROOT, 'node_modules', pkg, process.platform === 'win32' ? 'claude.exe' : 'claude'),
    join(PROJECT_ROOT, 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe'),
  ]
  // The wrapper's bin/claude.exe is a small placeholder until its postinstall copies the native binary over it.
  const found = candidates.find((p) => existsSync(p) && statSync(p).size > 1024 * 1024)
  return found
    ? { path: found }
    : {
        skip: `no Claude Code native binary for ${process.platform}-${process.arch} under node_modules (${pkg} not installed: npm ci with optional dependencies)`,
      }
}

export interface ClaudeRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/**
 * `claude -p <prompt>` in `cwd` against the stand-in at `baseUrl`, with `git learn` on PATH. Killed after
 * `timeoutMs`. `onSpawn` gets the child (to end it abruptly from a scripted turn).
 */
export function runClaude(
  claude: string,
  cwd: string,
  baseUrl: string,
  prompt: string,
  opts: { allowedTools?: string[]; timeoutMs?: number; onSpawn?: (pid: number) => void } = {},
): Promise<ClaudeRun> {
  const home = tempDir('gl-claude-home-')
  const env: Record<string, string> = {
    PATH: `${binPath()}:${process.env['PATH'] ?? ''}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-stand-in-not-a-key',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    NO_COLOR: '1',
    GIT_CONFIG_NOSYSTEM: '1',
  }
  const args = [
    '-p',
    prompt,
    '--output-format',
    'json',
    '--allowedTools',
    ...(opts.allowedTools ?? ['Bash', 'Write', 'Edit', 'Read']),
  ]
  return new Promise((resolve) => {
    const child = spawn(claude, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    if (child.pid !== undefined) opts.onSpawn?.(child.pid)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
  })
}
