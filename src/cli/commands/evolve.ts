import { admitLearning } from '../admit.js'
import { commitTransition } from '../../flows/transition.js'
import { assertNothingHalfDone } from '../../flows/recovery.js'
import { assertNoOperationInProgress, readIdentity } from '../../adapters/git/simple.js'
import { openRepo } from '../../adapters/store/repo.js'
import { readStore } from '../../adapters/store/store.js'
import { loadLearningValidator } from '../../adapters/store/validators.js'
import { LearningInvalidError, RefusedError } from '../../core/errors.js'
import { buildSkillDraft, buildSkillName, planClusters } from '../../core/evolve.js'
import { formatLearningFile, learningPath, parseLearning, validateLearning } from '../../core/learning.js'
import { buildCommitMessage } from '../../core/trailers.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { describeError } from '../messages/errors.js'
import { warnUnreadable, warningAt } from '../messages/lifecycle.js'
import { evolveReport } from '../messages/scale.js'
import type { EvolveRow } from '../messages/scale.js'
import { flag } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'evolve',
  summary: 'Cluster 3+ related active learnings into one `type: skill` draft that supersedes them.',
  usage: 'git learn evolve [--write] [--json]',
  details:
    'Related means: the same domain, shared tags, similar triggers and text. Each cluster becomes a skill draft whose\n' +
    'Problem, Trigger Conditions, Solution and Verification are merged from its members, with `supersedes:` listing\n' +
    'them and a "## Related Memory" section. Without --write it only reports; with --write each draft goes through\n' +
    'the gates, secret and duplicate checks of `add` into .learnings/pending/, one commit each. Approving the skill\n' +
    '(`git learn approve <skill>`) archives the learnings it supersedes in the same commit.',
  options: {
    write: { type: 'boolean', description: 'add each draft to .learnings/pending/ (gates, secrets, duplicates), one commit each' },
    force: { type: 'boolean', description: 'with --write: record failed gates as an override instead of refusing' },
    json: { type: 'boolean', description: 'print {"clusters":[{name,members,sharedTags,domain,path,commit,refused}],"dryRun":bool}' },
  },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const json = flag(args, 'json')
  const write = flag(args, 'write')
  const repo = await openRepo(ctx.cwd)
  const { git } = repo
  if (write) {
    assertNoOperationInProgress(git)
    await assertNothingHalfDone(git)
  }
  const scan = readStore(git.root)
  for (const p of scan.problems) ctx.stderr(warnUnreadable(p.path, p.reason))
  const active = scan.learnings.filter((l) => l.state === 'active')
  // A learning that a pending or active skill already supersedes is spoken for: evolve does not propose it twice.
  const exclude = new Set(
    scan.learnings
      .filter((l) => l.state !== 'archived' && Array.isArray(l.data['supersedes']))
      .flatMap((l) => (l.data['supersedes'] as unknown[]).filter((s): s is string => typeof s === 'string')),
  )
  const taken = new Set(scan.learnings.map((l) => l.name))
  const byName = new Map(active.map((l) => [l.name, l]))
  const clusters = planClusters(active, exclude)
  const rows: EvolveRow[] = []
  let refused = 0
  const validator = write ? await loadLearningValidator() : undefined
  const identity = write ? await readIdentity(git) : ''
  for (const cluster of clusters) {
    const name = buildSkillName(cluster, taken)
    taken.add(name)
    const path = learningPath('pending', name)
    const draft = buildSkillDraft(cluster, cluster.members.map((m) => byName.get(m)).filter((m) => m !== undefined), name, ctx.now())
    const row: EvolveRow = { name, members: cluster.members, sharedTags: cluster.sharedTags, domain: cluster.domain, path, commit: null, refused: null }
    rows.push(row)
    if (!write || !validator) continue
    try {
      const learning = parseLearning(formatLearningFile(draft.data, draft.body), path)
      const { errors } = validateLearning(learning, validator)
      if (errors.length) throw new LearningInvalidError(path, errors)
      const admitted = await admitLearning(repo, learning, { force: flag(args, 'force') })
      for (const w of admitted.warnings) ctx.stderr(warningAt(path, w))
      const message = buildCommitMessage({ action: 'evolve', names: [name], from: null, to: 'pending', by: { token: 'Proposed-by', value: identity }, extra: admitted.trailers })
      row.commit = await commitTransition(git, [{ kind: 'create', path, text: admitted.text }], message)
    } catch (err) {
      if (!(err instanceof RefusedError) && !(err instanceof LearningInvalidError)) throw err
      refused++
      row.refused = describeError(err).message
    }
  }
  if (json) ctx.stdout(`${JSON.stringify({ clusters: rows, dryRun: !write })}\n`)
  else ctx.stdout(evolveReport(rows, { write, active: active.length }))
  return refused ? ExitCode.refused : ExitCode.ok
}
