import { readBundleSource } from '../../adapters/store/bundle-io.js'
import { assertNoOperationInProgress, assertStoreCheckedOut, readIdentity } from '../../adapters/git/simple.js'
import { openRepo } from '../../adapters/store/repo.js'
import { parseBundle } from '../../core/bundle.js'
import { BundleRefusedError, UsageError } from '../../core/errors.js'
import { planBundleImport } from '../../flows/import.js'
import { assertNothingHalfDone } from '../../flows/recovery.js'
import { commitTransition } from '../../flows/transition.js'
import { ExitCode } from '../context.js'
import { noteDetached } from '../detached.js'
import type { Ctx } from '../context.js'
import { describeError } from '../messages/errors.js'
import { importProgress, importReport, importWarnings } from '../messages/scale.js'
import { flag } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'import',
  summary: 'Import a bundle of learnings (file or https URL) into .learnings/pending/ for review, in one commit.',
  usage: 'git learn import <file|https-url> [--force] [--allow-directives] [--dry-run] [--json]',
  details:
    'Every entry lands in pending/ (source.kind: import) and is reviewed again; the commit carries a Learning-Origin\n' +
    'trailer. Per entry: a new name goes through the checks of `add` (secrets, directives, duplicates; a failed gate\n' +
    'is reported and recorded in Learning-Gates-Overridden, never a reason to skip); the same name with\n' +
    'the same content is skipped; a higher confidence in the bundle updates a pending copy (the old text stays in git\n' +
    'history) and is only reported as a proposed update for an active or archived one; anything else is skipped with\n' +
    'its reason. An import never loses an entry that was already there. URLs: https only, 10 s. A bundle of the wrong\n' +
    'shape, with path-like names, over 64 MB or over 10,000 entries (what `export` writes stays within both) is refused\n' +
    'as a whole and nothing is written. Everything admitted is ONE commit built aside from your index: stopped or\n' +
    'failing at any moment, the import leaves the repository as it was. Progress on stderr (a bar on a terminal);\n' +
    'warnings are summed up by kind.',
  options: {
    force: {
      type: 'boolean',
      description: 'add a near duplicate anyway, recorded as an override (failed gates never skip an entry)',
    },
    'allow-directives': { type: 'boolean', description: 'allow instructions aimed at agents in the imported text' },
    'dry-run': { type: 'boolean', description: 'say what would happen per entry; write nothing' },
    json: {
      type: 'boolean',
      description:
        'print {"origin","commit","entries":[{name,action,path,reason}],"warnings":[{kind,count,example}],"dryRun"}',
    },
  },
  positionals: { min: 1, max: 1, names: '<file|url>' },
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const origin = args.positionals[0] as string
  if (!origin.trim()) throw new UsageError('give the bundle to import: a file path or an https URL', 'import')
  const json = flag(args, 'json')
  const dryRun = flag(args, 'dry-run')
  const repo = await openRepo(ctx.cwd, { readOnly: dryRun })
  const { git } = repo
  if (!dryRun) {
    assertNoOperationInProgress(git)
    await assertNothingHalfDone(git)
  }
  // The store and config.yaml are read from the work tree (a --dry-run's plan too): none of it may be hidden.
  await assertStoreCheckedOut(git)
  await repo.config()
  const raw = await readBundleSource(origin, ctx.cwd)
  const { entries, problems } = parseBundle(raw)
  if (problems.length) throw new BundleRefusedError(origin, problems)
  const identity = dryRun ? '' : await readIdentity(git)
  const warnings = new Map<string, { count: number; example: string }>()
  const progress = json ? undefined : importProgress(origin, ctx.stderrIsTTY === true)
  const plan = await planBundleImport(repo, entries, {
    origin,
    identity,
    force: flag(args, 'force'),
    allowDirectives: flag(args, 'allow-directives'),
    describe: (err) => describeError(err).message.replace(/\s*\n\s*/g, ' '),
    ...(progress ? { onProgress: (done: number, total: number) => ctx.stderr(progress(done, total)) } : {}),
    onWarning: (name, text) => {
      const kind = text
        .replace(/:.*$/s, '')
        .replace(/\d+(\.\d+)?/g, 'N')
        .slice(0, 80)
      const w = warnings.get(kind)
      if (w) w.count++
      else warnings.set(kind, { count: 1, example: `${name}: ${text}` })
    },
  })
  const commit = !dryRun && plan.message ? await commitTransition(git, plan.changes, plan.message) : null
  const summary = [...warnings].map(([kind, w]) => ({ kind, count: w.count, example: w.example }))
  const detached = await noteDetached(ctx, [commit])
  if (json)
    ctx.stdout(`${JSON.stringify({ origin, commit, entries: plan.rows, warnings: summary, dryRun, ...detached })}\n`)
  else {
    ctx.stderr(importWarnings(summary))
    ctx.stdout(importReport(origin, plan.rows, commit, dryRun))
  }
  return ExitCode.ok
}
