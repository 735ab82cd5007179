import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openGit } from '../../adapters/git.js'
import { CONFIG_PATH } from '../../adapters/store.js'
import { readTemplate } from '../../adapters/templates.js'
import { STATES, STORE_DIR } from '../../core/learning.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { initReport } from '../messages/index.js'
import { flag } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'init',
  summary: 'Set up the store: .learnings/{pending,active,archived}/ and .learnings/config.yaml. Safe to run again.',
  usage: 'git learn init [--json]',
  details: 'Works on a fresh repository with no commits yet. It writes files only; commit them yourself.',
  options: {
    json: { type: 'boolean', description: 'print one JSON object: {root, created: [paths]}' },
  },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const git = await openGit(ctx.cwd)
  const created: string[] = []
  for (const state of STATES) {
    const dir = `${STORE_DIR}/${state}`
    const keep = `${dir}/.gitkeep`
    if (!existsSync(join(git.root, dir))) {
      mkdirSync(join(git.root, dir), { recursive: true })
      created.push(`${dir}/`)
    }
    if (!existsSync(join(git.root, keep))) {
      writeFileSync(join(git.root, keep), '')
      created.push(keep)
    }
  }
  if (!existsSync(join(git.root, CONFIG_PATH))) {
    writeFileSync(join(git.root, CONFIG_PATH), readTemplate('config.yaml'), { flag: 'wx' })
    created.push(CONFIG_PATH)
  }
  if (flag(args, 'json')) ctx.stdout(`${JSON.stringify({ root: git.root, created })}\n`)
  else ctx.stdout(initReport(created, git.root))
  return ExitCode.ok
}
