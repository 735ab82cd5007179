import { evolve } from '../../flows/evolve.js'
import { ExitCode } from '../context.js'
import { noteDetached } from '../detached.js'
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
  usage: 'git learn evolve [--write [--force]] [--json]',
  details:
    'Related means: the same domain, shared tags, similar triggers and text. Each cluster becomes a skill draft whose\n' +
    'Problem, Trigger Conditions, Solution and Verification are merged from its members, with `supersedes:` listing\n' +
    'them and a "## Related Memory" section. Without --write it only reports; with --write each draft goes through\n' +
    'the gates, secret and duplicate checks of `add` into .learnings/pending/, one commit each. Approving the skill\n' +
    '(`git learn approve <skill>`) archives the learnings it supersedes in the same commit.',
  options: {
    write: {
      type: 'boolean',
      description: 'add each draft to .learnings/pending/ (gates, secrets, duplicates), one commit each',
    },
    force: {
      type: 'boolean',
      description: 'with --write: record failed gates as an override instead of refusing',
      only: { with: 'write' },
    },
    json: {
      type: 'boolean',
      description: 'print {"clusters":[{name,members,sharedTags,domain,path,commit,refused}],"dryRun":bool}',
    },
  },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const json = flag(args, 'json')
  const write = flag(args, 'write')
  const { clusters, active } = await evolve(ctx.cwd, {
    write,
    force: flag(args, 'force'),
    now: ctx.now(),
    unreadable: (path, reason) => ctx.stderr(warnUnreadable(path, reason)),
    warn: (path, w) => ctx.stderr(warningAt(path, w)),
  })
  const rows: EvolveRow[] = clusters.map((c) => ({
    ...c,
    refused: c.refused ? describeError(c.refused).message : null,
  }))
  const detached = await noteDetached(
    ctx,
    rows.map((r) => r.commit),
  )
  if (json) ctx.stdout(`${JSON.stringify({ clusters: rows, dryRun: !write, ...detached })}\n`)
  else ctx.stdout(evolveReport(rows, { write, active }))
  return rows.some((r) => r.refused !== null) ? ExitCode.refused : ExitCode.ok
}
