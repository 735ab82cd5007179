/**
 * The real Gemini CLI (the pinned devDependency @google/gemini-cli, a bundled Node program) run against the local
 * Gemini API stand-in (model-stand-in.ts): GOOGLE_GEMINI_BASE_URL on 127.0.0.1, a dummy GEMINI_API_KEY, HOME in a
 * temporary directory whose settings select API-key auth, the workspace trusted for the run
 * (GEMINI_CLI_TRUST_WORKSPACE; hooks of an untrusted folder do not run).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PROJECT_ROOT, binPath, tempDir } from './repo.js'

/** The CLI's entry, or the reason there is none here (the e2e test skips with it). */
export function findGemini(): { path: string } | { skip: string } {
  const entry = join(PROJECT_ROOT, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js')
  return existsSync(entry) ? { path: entry } : { skip: '@google/gemini-cli is not installed (npm ci)' }
}

export interface GeminiRun {
  code: number | null
  stdout: string
  stderr: string
}

/** `gemini -p <prompt> --approval-mode yolo` in `cwd` against the stand-in at `baseUrl`; killed after 90 s. */
export function runGemini(entry: string, cwd: string, baseUrl: string, prompt: string): Promise<GeminiRun> {
  const home = tempDir('gl-gemini-home-')
  mkdirSync(join(home, '.gemini'))
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
  )
  const env: Record<string, string> = {
    PATH: `${binPath()}:${process.env['PATH'] ?? ''}`,
    HOME: home,
    GEMINI_API_KEY: 'stand-in-not-a-key',
    GOOGLE_GEMINI_BASE_URL: baseUrl,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    NO_COLOR: '1',
    GIT_CONFIG_NOSYSTEM: '1',
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [entry, '-p', prompt, '--approval-mode', 'yolo'], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}
