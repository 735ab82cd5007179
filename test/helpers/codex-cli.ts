/**
 * The real Codex CLI (the pinned devDependency @openai/codex) run against the local Responses API stand-in
 * (model-stand-in.ts): `codex exec` with a custom model provider on 127.0.0.1, a dummy key, HOME in a temporary
 * directory. Its launcher (bin/codex.js) finds the native binary of the platform package npm installed as an
 * optional dependency (@openai/codex-<platform>-<arch>).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { PROJECT_ROOT, binPath, tempDir } from './repo.js'

/** The launcher, or the reason there is none here (the e2e test skips with it). */
export function findCodex(): { path: string } | { skip: string } {
  const launcher = join(PROJECT_ROOT, 'node_modules', '@openai', 'codex', 'bin', 'codex.js')
  const native = join(PROJECT_ROOT, 'node_modules', '@openai', `codex-${process.platform}-${process.arch}`)
  if (!existsSync(launcher)) return { skip: '@openai/codex is not installed (npm ci)' }
  if (!existsSync(native))
    return {
      skip: `no Codex native binary for ${process.platform}-${process.arch} (@openai/codex-${process.platform}-${process.arch} not installed)`,
    }
  return { path: launcher }
}

export interface CodexRun {
  code: number | null
  stdout: string
  stderr: string
}

/** `codex exec <prompt>` in `cwd` against the stand-in at `baseUrl`, with `git learn` on PATH; killed after 60 s. */
export function runCodex(launcher: string, cwd: string, baseUrl: string, prompt: string): Promise<CodexRun> {
  const home = tempDir('gl-codex-home-')
  mkdirSync(join(home, '.codex'))
  const env: Record<string, string> = {
    PATH: `${binPath()}:${process.env['PATH'] ?? ''}`,
    HOME: home,
    CODEX_HOME: join(home, '.codex'),
    STANDIN_API_KEY: 'stand-in-not-a-key',
    NO_COLOR: '1',
    GIT_CONFIG_NOSYSTEM: '1',
  }
  const provider = [
    'model_provider=standin',
    'model_providers.standin.name="standin"',
    `model_providers.standin.base_url="${baseUrl}/v1"`,
    'model_providers.standin.wire_api="responses"',
    'model_providers.standin.env_key="STANDIN_API_KEY"',
  ].flatMap((c) => ['-c', c])
  const args = [
    launcher,
    'exec',
    '--skip-git-repo-check',
    '--sandbox',
    'danger-full-access',
    ...provider,
    '-m',
    'stand-in',
    prompt,
  ]
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}
