/**
 * `git learn evolve`: cluster 3+ related active learnings into `type: skill` drafts that supersede them and, with
 * `write`, propose each through the admission of `add` (src/flows/admit.ts), one commit each.
 */
import { commitTransition } from './transition.js'
import { assertNothingHalfDone } from './recovery.js'
import { assertNoOperationInProgress, assertStoreCheckedOut, readIdentity } from '../adapters/git/simple.js'
import { openRepo } from '../adapters/store/repo.js'
import { readStore } from '../adapters/store/store.js'
import { loadLearningValidator } from '../adapters/store/validators.js'
import { LearningInvalidError, RefusedError } from '../core/errors.js'
import { buildSkillDraft, buildSkillName, planClusters } from '../core/evolve.js'
import { formatLearningFile, learningPath, parseLearning, validateLearning } from '../core/learning.js'
import { buildCommitMessage } from '../core/trailers.js'
import { admitLearning } from './admit.js'

export interface EvolveOptions {
  write: boolean
  /** With `write`: record failed gates as an override instead of refusing. */
  force: boolean
  now: Date
  unreadable: (path: string, reason: string) => void
  warn: (path: string, message: string) => void
}

export interface EvolvedCluster {
  name: string
  members: string[]
  sharedTags: string[]
  domain: string | null
  path: string
  commit: string | null
  /** Why the draft was not admitted (with `write`). */
  refused: RefusedError | LearningInvalidError | null
}

export async function evolve(
  cwd: string,
  opts: EvolveOptions,
): Promise<{ clusters: EvolvedCluster[]; active: number }> {
  const repo = await openRepo(cwd)
  const { git } = repo
  if (opts.write) {
    assertNoOperationInProgress(git)
    await assertNothingHalfDone(git)
    await assertStoreCheckedOut(git)
  }
  const scan = readStore(git.root)
  for (const p of scan.problems) opts.unreadable(p.path, p.reason)
  const active = scan.learnings.filter((l) => l.state === 'active')
  // A learning that a pending or active skill already supersedes is spoken for: evolve does not propose it twice.
  const exclude = new Set(
    scan.learnings
      .filter((l) => l.state !== 'archived' && Array.isArray(l.data['supersedes']))
      .flatMap((l) => (l.data['supersedes'] as unknown[]).filter((s): s is string => typeof s === 'string')),
  )
  const taken = new Set(scan.learnings.map((l) => l.name))
  const byName = new Map(active.map((l) => [l.name, l]))
  const rows: EvolvedCluster[] = []
  const validator = opts.write ? await loadLearningValidator() : undefined
  const identity = opts.write ? await readIdentity(git) : ''
  for (const cluster of planClusters(active, exclude)) {
    const name = buildSkillName(cluster, taken)
    taken.add(name)
    const path = learningPath('pending', name)
    const draft = buildSkillDraft(
      cluster,
      cluster.members.map((m) => byName.get(m)).filter((m) => m !== undefined),
      name,
      opts.now,
    )
    const row: EvolvedCluster = {
      name,
      members: cluster.members,
      sharedTags: cluster.sharedTags,
      domain: cluster.domain,
      path,
      commit: null,
      refused: null,
    }
    rows.push(row)
    if (!opts.write || !validator) continue
    try {
      const learning = parseLearning(formatLearningFile(draft.data, draft.body), path)
      const { errors } = validateLearning(learning, validator)
      if (errors.length) throw new LearningInvalidError(path, errors)
      const admitted = await admitLearning(repo, learning, { force: opts.force })
      for (const w of admitted.warnings) opts.warn(path, w)
      const message = buildCommitMessage({
        action: 'evolve',
        names: [name],
        from: null,
        to: 'pending',
        by: { token: 'Proposed-by', value: identity },
        extra: admitted.trailers,
      })
      row.commit = await commitTransition(git, [{ kind: 'create', path, text: admitted.text }], message)
    } catch (err) {
      if (!(err instanceof RefusedError) && !(err instanceof LearningInvalidError)) throw err
      row.refused = err
    }
  }
  return { clusters: rows, active: active.length }
}
