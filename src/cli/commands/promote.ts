import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openRepo } from '../../adapters/store/repo.js'
import { readLearning } from '../../adapters/store/store.js'
import { parseLsTree } from '../../adapters/feed/tiers.js'
import { gitAsync } from '../../adapters/git/run.js'
import { buildBundle, stripLearning } from '../../core/bundle.js'
import { RefusedError, UsageError } from '../../core/errors.js'
import { STATES, formatLearningFile, learningPath } from '../../core/learning.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { promoted } from '../messages/scale.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'promote',
  summary: "Propose an active learning to a tier repository: a pending entry on a new branch there, for its own review.",
  usage: 'git learn promote <name> --to <tier> [--branch learn/promote-<name>] [--print] [--json]',
  details:
    "The commit is built with plumbing on top of the tier's pinned commit (hash-object, a temporary index, commit-tree)\n" +
    "in this repository's object store — no work tree is touched — and pushed to the tier's URL as a new branch.\n" +
    'Open a pull request from that branch in the tier repository. With --print, nothing is pushed: the learning is\n' +
    'printed as a bundle (stripped as by `git learn export`) for `git learn import` there.',
  options: {
    to: { type: 'string', value: 'tier', description: 'the configured tier to propose it to (required)' },
    branch: { type: 'string', value: 'branch', description: 'the branch to create in the tier repository (default learn/promote-<name>)' },
    print: { type: 'boolean', description: 'print the bundle instead of pushing' },
    json: { type: 'boolean', description: 'print {"name","tier","url","branch","commit","path"}' },
  },
  positionals: { min: 1, max: 1, names: '<name>' },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const name = args.positionals[0] as string
  const to = stringOpt(args, 'to')
  if (!to) throw new UsageError('--to <tier> is required: the tier repository to propose the learning to', 'promote')
  const repo = await openRepo(ctx.cwd)
  const { git } = repo
  const config = await repo.config()
  const tier = config.tiers.find((t) => t.name === to)
  if (!tier) throw new UsageError(`no tier named "${to}" in .learnings/config.yaml; add it with \`git learn tier add ${to} <git-url>\``, 'promote')
  const learning = readLearning(git.root, name)
  if (learning.state !== 'active') throw new RefusedError(`${name} is ${learning.state}; only an approved (active) learning is promoted to a tier`, [`approve it first: \`git learn approve ${name}\``])
  const { entry } = stripLearning(learning, { keepCode: true, now: ctx.now(), allow: config.secrets.allow })
  if (flag(args, 'print')) {
    ctx.stdout(`${JSON.stringify(buildBundle([entry], ctx.now()), null, 2)}\n`)
    return ExitCode.ok
  }
  const branch = stringOpt(args, 'branch') ?? `learn/promote-${name}`
  if ((await git.tryRun(['check-ref-format', '--branch', branch])) === undefined || branch.startsWith('-'))
    throw new UsageError(`"${branch}" is not a valid branch name`, 'promote')
  if (!tier.commit || (await git.tryRun(['cat-file', '-e', `${tier.commit}^{commit}`])) === undefined)
    throw new RefusedError(`tier ${tier.name} has no pinned commit in this repository`, [`run \`git learn tier update ${tier.name}\` first`])
  if (tier.url.startsWith('-')) throw new UsageError('a tier URL cannot start with "-"', 'promote')
  const base = tier.commit
  const there = parseLsTree(await git.run(['ls-tree', '-z', '--full-tree', base, '--', ...STATES.map((s) => learningPath(s, name))]))
  if (there.length) throw new RefusedError(`tier ${tier.name} already has a learning named "${name}" (${there[0]?.path})`, ['edit it there with a pull request instead'])

  const path = learningPath('pending', name)
  const data = { ...entry.frontmatter, source: { kind: 'promote' } }
  const text = formatLearningFile(data, entry.body)
  const tmp = mkdtempSync(join(tmpdir(), 'git-learn-promote-'))
  // A temporary index (GIT_INDEX_FILE) keeps the user's index and work tree untouched.
  const env: Record<string, string | undefined> = { ...ctx.env, GIT_INDEX_FILE: join(tmp, 'index') }
  let commit: string
  try {
    const blob = (await gitAsync(['hash-object', '-w', '--stdin'], { cwd: git.root, input: text })).toString().trim()
    await gitAsync(['read-tree', base], { cwd: git.root, input: '', env })
    await gitAsync(['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], { cwd: git.root, input: '', env })
    const tree = (await gitAsync(['write-tree'], { cwd: git.root, input: '', env })).toString().trim()
    const message = `learn: add ${name}\n\nPromoted from another repository for review in this tier.\n\nLearning: ${name}\nLearning-Action: add\nLearning-To: pending\nLearning-Origin: promote\n`
    commit = (await gitAsync(['commit-tree', tree, '-p', base, '-F', '-'], { cwd: git.root, input: message, env })).toString().trim()
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  await git.run(['push', '--quiet', '--', tier.url, `${commit}:refs/heads/${branch}`])
  const result = { name, tier: tier.name, url: tier.url, branch, commit, path }
  if (flag(args, 'json')) ctx.stdout(`${JSON.stringify(result)}\n`)
  else ctx.stdout(promoted(result))
  return ExitCode.ok
}
