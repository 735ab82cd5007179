import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { asCheckedOut } from '../../adapters/git/checkout.js'
import { assertStoreCheckedOut, openGit } from '../../adapters/git/simple.js'
import { CONFIG_PATH } from '../../adapters/store/config.js'
import { PRETTIER_IGNORE, ignoreStoreInPrettier } from '../../adapters/store/formatter-ignore.js'
import { readTemplate } from '../../adapters/store/templates.js'
import { makeDirs, writeFileNoClobber } from '../../adapters/store/write-file.js'
import { scratchDir } from '../../adapters/state/journal.js'
import { UsageError } from '../../core/errors.js'
import { STATES, STORE_DIR } from '../../core/learning.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { initReport } from '../messages/lifecycle.js'
import { flag } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'init',
  summary: 'Set up the store: .learnings/{pending,active,archived}/ and .learnings/config.yaml. Safe to run again.',
  usage: 'git learn init [--hooks] [--ci] [--agent claude] [--json]',
  details: 'Works on a fresh repository with no commits yet. It writes files only; commit them yourself.',
  options: {
    json: { type: 'boolean', description: 'print one JSON object: {root, created: [paths], updated: [paths]}' },
    hooks: {
      type: 'boolean',
      description:
        'also install the guards: pre-commit, pre-merge-commit, commit-msg, post-merge and post-checkout (git learn hook install)',
    },
    ci: {
      type: 'boolean',
      description:
        'also write .github/workflows/git-learn.yml and the CODEOWNERS block that make the pull request the approval',
    },
    agent: {
      type: 'string',
      value: 'claude',
      description: 'also wire an agent: claude merges hooks into .claude/settings.json and writes .claude/commands/',
    },
  },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const agentName = args.values['agent']
  if (agentName !== undefined && agentName !== 'claude')
    throw new UsageError(`--agent supports claude; for Codex, Cursor and Gemini CLI see docs/agents.md`, 'init')
  const git = await openGit(ctx.cwd)
  // A core.hooksPath every repository shares is refused before anything is written (hooks.ts installHooks).
  if (flag(args, 'hooks')) {
    const shared = await (await import('../../adapters/git/hooks.js')).readSharedHooksPath(git)
    if (shared) throw shared
  }
  if (agentName !== undefined)
    (await import('../../adapters/agents/claude-settings.js')).assertSettingsReadable(git.root)
  // A store the sparse checkout leaves out is there, in the index: a new config.yaml written over its path would replace
  // the team's settings the moment git sees the file.
  await assertStoreCheckedOut(git)
  const created: string[] = []
  for (const state of STATES) {
    const dir = `${STORE_DIR}/${state}`
    const keep = `${dir}/.gitkeep`
    if (!existsSync(join(git.root, dir))) {
      makeDirs(join(git.root, dir))
      created.push(`${dir}/`)
    }
    if (!existsSync(join(git.root, keep))) {
      writeFileSync(join(git.root, keep), '')
      created.push(keep)
    }
  }
  if (!existsSync(join(git.root, CONFIG_PATH))) {
    // Whole or not at all: an empty or cut config.yaml (a full disk) would be read as the team's settings, and kept by
    // the next init, which writes only what is missing.
    const text = asCheckedOut(git.root, CONFIG_PATH, readTemplate('config.yaml'))
    writeFileNoClobber(join(git.root, CONFIG_PATH), text, false, scratchDir(git.commonDir))
    created.push(CONFIG_PATH)
  }
  // The project's prettier would rewrite learnings in your own commits: .learnings/ goes into .prettierignore.
  const prettier = ignoreStoreInPrettier(git.root)
  if (prettier === 'created') created.push(PRETTIER_IGNORE)
  const updated = prettier === 'updated' ? [PRETTIER_IGNORE] : []
  const guards = await setUpGuards(args, git, ctx.stderr)
  const agent = await setUpAgent(args, git.root)
  if (flag(args, 'json'))
    ctx.stdout(`${JSON.stringify({ root: git.root, created, updated, ...guards.json, ...agent.json })}\n`)
  else ctx.stdout(initReport(created, git.root, updated) + guards.text + agent.text)
  return ExitCode.ok
}

/** `--hooks` and `--ci` (src/adapters/git/hooks.ts): what was written, as text and as JSON fields. */
async function setUpGuards(
  args: ParsedArgs,
  git: Awaited<ReturnType<typeof openGit>>,
  warn: (text: string) => void,
): Promise<{ text: string; json: Record<string, unknown> }> {
  let text = ''
  const json: Record<string, unknown> = {}
  if (!flag(args, 'hooks') && !flag(args, 'ci')) return { text, json }
  const hooks = await import('../../adapters/git/hooks.js')
  const { ciReport, hookReport, hookWarnings, hooksPathMissing } = await import('../messages/guards.js')
  if (flag(args, 'hooks')) {
    const { layout, changes, managed } = await hooks.installHooks(git)
    json['hooks'] = changes
    if (managed.length) json['hookManagers'] = managed
    text += hookReport(layout.kind, changes, false, managed)
    const missing = await hooks.readMissingHooksPath(git)
    const warnings = hookWarnings(changes) + (missing ? hooksPathMissing(missing) : '')
    if (warnings) warn(warnings)
  }
  if (flag(args, 'ci')) {
    const ci = await hooks.writeCiFiles(git, readTemplate)
    json['ci'] = ci
    text += ciReport(ci.created, ci.existing, ci.pinned)
  }
  return { text, json }
}

/** `--agent claude` (src/adapters/agents/claude-settings.ts): hooks and agent commands; refuses a malformed settings file first. */
async function setUpAgent(args: ParsedArgs, root: string): Promise<{ text: string; json: Record<string, unknown> }> {
  const agent = args.values['agent']
  if (agent === undefined) return { text: '', json: {} }
  const { installClaudeAgent } = await import('../../adapters/agents/claude-settings.js')
  const { agentReport } = await import('../messages/feed.js')
  const setup = installClaudeAgent(root)
  return { text: agentReport(setup), json: { agent: setup } }
}
