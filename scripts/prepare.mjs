// npm's `prepare`: build dist/ (npm runs it on `npm ci` here, for a git-URL install, for `npm pack`, and for
// `npm i -g <a fresh clone>`), then install this repository's own hooks when it is a git checkout. A global install
// of a fresh clone brings no devDependencies, so they are fetched first, as npm itself does for a git dependency.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

/** Run a command with the terminal; stop with its exit code when it fails. */
function run(cmd, args, env = process.env) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', shell: process.platform === 'win32', env })
  if (r.status !== 0) process.exit(r.status ?? 1)
}

if (!existsSync('node_modules/typescript/package.json')) {
  // Here, not into the global prefix `npm i -g` passes down to its scripts.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_config_(global|prefix|location)$/i.test(k)),
  )
  run('npm', ['install', '--include=dev', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund'], env)
}
run('npm', ['run', 'build'])
if (existsSync('.git') && existsSync('node_modules/husky/bin.js')) run(process.execPath, ['node_modules/husky/bin.js'])
