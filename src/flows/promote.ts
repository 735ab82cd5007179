/**
 * `git learn promote`: an active learning proposed to a tier repository as `.learnings/pending/<name>.md` on a new
 * branch there, committed on top of the tier's pinned commit without touching any work tree, then pushed; or,
 * with `print`, the one-learning bundle for `git learn import` there.
 */
import { commitFileOnTop } from '../adapters/git/commit-on-top.js'
import { scratchDir } from '../adapters/state/journal.js'
import { openRepo } from '../adapters/store/repo.js'
import { readLearning } from '../adapters/store/store.js'
import { parseLsTree } from '../core/git-output.js'
import { buildBundle, stripLearning } from '../core/bundle.js'
import type { Bundle } from '../core/bundle.js'
import { RefusedError, UsageError } from '../core/errors.js'
import { STATES, formatLearningFile, learningPath } from '../core/learning.js'
import { buildCommitMessage } from '../core/trailers.js'

export interface PromoteOptions {
  tier: string
  /** The branch to create there; undefined: learn/promote-<name>. */
  branch: string | undefined
  /** Hand back the bundle instead of pushing. */
  print: boolean
  now: Date
  /** The environment git runs with (the temporary index is added to it). */
  env: Record<string, string | undefined>
}

export interface Promoted {
  name: string
  tier: string
  url: string
  branch: string
  commit: string
  path: string
}

export async function promote(
  cwd: string,
  name: string,
  opts: PromoteOptions,
): Promise<{ pushed: Promoted } | { bundle: Bundle }> {
  const repo = await openRepo(cwd)
  const { git } = repo
  const config = await repo.config()
  const tier = config.tiers.find((t) => t.name === opts.tier)
  if (!tier)
    throw new UsageError(
      `no tier named "${opts.tier}" in .learnings/config.yaml; add it with \`git learn tier add ${opts.tier} <git-url>\``,
      'promote',
    )
  const learning = readLearning(git.root, name)
  if (learning.state !== 'active')
    throw new RefusedError(`${name} is ${learning.state}; only an approved (active) learning is promoted to a tier`, [
      `approve it first: \`git learn approve ${name}\``,
    ])
  const { entry } = stripLearning(learning, { keepCode: true, now: opts.now, allow: config.secrets.allow })
  if (opts.print) return { bundle: buildBundle([entry], opts.now) }
  const branch = opts.branch ?? `learn/promote-${name}`
  if ((await git.tryRun(['check-ref-format', '--branch', branch])) === undefined || branch.startsWith('-'))
    throw new UsageError(`"${branch}" is not a valid branch name`, 'promote')
  if (!tier.commit || (await git.tryRun(['cat-file', '-e', `${tier.commit}^{commit}`])) === undefined)
    throw new RefusedError(`tier ${tier.name} has no pinned commit in this repository`, [
      `run \`git learn tier update ${tier.name}\` first`,
    ])
  if (tier.url.startsWith('-')) throw new UsageError('a tier URL cannot start with "-"', 'promote')
  const base = tier.commit
  const there = parseLsTree(
    await git.run(['ls-tree', '-z', '--full-tree', base, '--', ...STATES.map((s) => learningPath(s, name))]),
  )
  if (there.length)
    throw new RefusedError(`tier ${tier.name} already has a learning named "${name}" (${there[0]?.path})`, [
      'edit it there with a pull request instead',
    ])

  const path = learningPath('pending', name)
  const text = formatLearningFile({ ...entry.frontmatter, source: { kind: 'promote' } }, entry.body)
  const message = buildCommitMessage({
    action: 'add',
    names: [name],
    from: null,
    to: 'pending',
    body: 'Promoted from another repository for review in this tier.',
    perName: { [name]: [{ token: 'Learning-Origin', value: 'promote' }] },
  })
  const commit = await commitFileOnTop(git.root, base, { path, text }, message, opts.env, scratchDir(git.commonDir))
  await git.run(['push', '--quiet', '--', tier.url, `${commit}:refs/heads/${branch}`])
  return { pushed: { name, tier: tier.name, url: tier.url, branch, commit, path } }
}
