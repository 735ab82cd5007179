import { existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { admitLearning } from '../../flows/admit.js'
import { readBundleSource } from '../../adapters/store/bundle-io.js'
import { assertPathClean, commitOnly } from '../../adapters/git/commit.js'
import { assertNoOperationInProgress, readIdentity } from '../../adapters/git/simple.js'
import { openRepo } from '../../adapters/store/repo.js'
import { readStore } from '../../adapters/store/store.js'
import { loadLearningValidator } from '../../adapters/store/validators.js'
import { parseBundle, planImport } from '../../core/bundle.js'
import type { BundleEntry, ExistingLearning } from '../../core/bundle.js'
import { BundleRefusedError, LearningInvalidError, LearningParseError, RefusedError } from '../../core/errors.js'
import { STORE_DIR, formatLearningFile, learningPath, parseLearning, validateLearning } from '../../core/learning.js'
import type { Frontmatter } from '../../core/learning.js'
import { foldValue } from '../../core/trailers.js'
import type { Trailer } from '../../core/trailers.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { describeError } from '../messages/errors.js'
import { warningAt } from '../messages/lifecycle.js'
import { importReport, importing } from '../messages/scale.js'
import type { ImportRow } from '../messages/scale.js'
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
    'its reason. An import never loses an entry that was already there. URLs: https only, 10 s, 10 MB. A bundle of the\n' +
    'wrong shape, with path-like names, or too big, is refused as a whole and nothing is written.',
  options: {
    force: { type: 'boolean', description: 'add a near duplicate anyway, recorded as an override (failed gates never skip an entry)' },
    'allow-directives': { type: 'boolean', description: 'allow instructions aimed at agents in the imported text' },
    'dry-run': { type: 'boolean', description: 'say what would happen per entry; write nothing' },
    json: { type: 'boolean', description: 'print {"origin","commit","entries":[{name,action,path,reason}],"dryRun"}' },
  },
  positionals: { min: 1, max: 1, names: '<file|url>' },
}

/** The learning file an entry becomes: its frontmatter with source.kind "import" (no session, agent kept). */
function entryText(entry: BundleEntry): string {
  const src = entry.frontmatter['source']
  const agent = src && typeof src === 'object' && typeof (src as Record<string, unknown>)['agent'] === 'string' ? (src as Record<string, unknown>)['agent'] : undefined
  const data: Frontmatter = { ...entry.frontmatter, name: entry.name, source: { kind: 'import', ...(agent ? { agent } : {}) } }
  return formatLearningFile(data, entry.body)
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const origin = args.positionals[0] as string
  const json = flag(args, 'json')
  const dryRun = flag(args, 'dry-run')
  const repo = await openRepo(ctx.cwd)
  const { git } = repo
  if (!dryRun) assertNoOperationInProgress(git)
  await repo.config()
  const raw = await readBundleSource(origin, ctx.cwd)
  const { entries, problems } = parseBundle(raw)
  if (problems.length) throw new BundleRefusedError(origin, problems)
  if (entries.length > 100 && !json) ctx.stderr(importing(entries.length, origin))

  const scan = readStore(git.root)
  const existing = new Map<string, ExistingLearning>(scan.learnings.map((l) => [l.name, { state: l.state, data: l.data, body: l.body }]))
  // A file that is in the store but unreadable still holds its name: never overwrite it (an infinite confidence
  // here means no bundle entry can count as an update of it).
  for (const p of scan.problems) {
    const name = p.path.split('/').pop()?.replace(/\.md$/, '')
    if (name && !existing.has(name)) existing.set(name, { state: (p.path.split('/')[1] as ExistingLearning['state']) ?? 'pending', data: { confidence: Infinity }, body: '' })
  }
  const decisions = planImport(entries, existing)
  const validator = await loadLearningValidator()
  const identity = dryRun ? '' : await readIdentity(git)
  const rows: ImportRow[] = []
  const groups: Trailer[][] = []
  const created: string[] = []
  const updated: { path: string; old: string }[] = []
  const undo = async () => {
    for (const p of created) {
      await git.tryRun(['rm', '--cached', '--quiet', '--force', '--', p])
      if (existsSync(join(git.root, p))) unlinkSync(join(git.root, p))
    }
    for (const u of updated) {
      writeFileSync(join(git.root, u.path), u.old)
      await git.tryRun(['add', '--', u.path])
    }
  }
  try {
    for (const d of decisions) {
      const path = learningPath('pending', d.entry.name)
      if (d.kind === 'skip') {
        rows.push({ name: d.entry.name, action: d.proposedUpdate ? 'proposed-update' : 'skipped', path: null, reason: d.reason })
        continue
      }
      try {
        const learning = parseLearning(entryText(d.entry), path)
        const { errors } = validateLearning(learning, validator)
        if (errors.length) throw new LearningInvalidError(`${origin} → ${d.entry.name}`, errors)
        // Gates advise on import: an entry is never skipped for a gate (a verbatim error message can fail one); the
        // report and the Learning-Gates-Overridden trailer say which failed, for the reviewer of pending/.
        const admitOpts = { force: flag(args, 'force'), gatesAdvisory: true, allowDirectives: flag(args, 'allow-directives') }
        const gateNote = (warnings: readonly string[]) => warnings.find((w) => w.startsWith('gates ')) ?? null
        if (d.kind === 'update-pending') {
          await assertPathClean(git, d.entry.name, path)
          // The same admission as a new entry (paths, gates, secrets, directives, duplicates), its old copy aside.
          const admitted = await admitLearning(repo, learning, { ...admitOpts, replacing: d.entry.name })
          for (const w of admitted.warnings) if (!json && !w.startsWith('gates ')) ctx.stderr(warningAt(d.entry.name, w))
          if (!dryRun) {
            updated.push({ path, old: readFileSync(join(git.root, path), 'utf8') })
            writeFileSync(join(git.root, path), admitted.text)
            await git.run(['add', '--', path])
          }
          rows.push({ name: d.entry.name, action: 'updated', path, reason: [d.reason, gateNote(admitted.warnings)].filter(Boolean).join('; ') || null })
          groups.push([
            { token: 'Learning', value: d.entry.name },
            { token: 'Learning-Action', value: 'import' },
            { token: 'Learning-From', value: 'pending' },
            { token: 'Learning-To', value: 'pending' },
            ...admitted.trailers,
            { token: 'Learning-Origin', value: origin },
          ])
          continue
        }
        const admitted = await admitLearning(repo, learning, admitOpts)
        for (const w of admitted.warnings) if (!json && !w.startsWith('gates ')) ctx.stderr(warningAt(d.entry.name, w))
        if (!dryRun) {
          // Written at once, so the duplicate check of the next entry sees it (two near-twins in one bundle).
          mkdirSync(join(git.root, STORE_DIR, 'pending'), { recursive: true })
          writeFileSync(join(git.root, path), admitted.text, { flag: 'wx' })
          created.push(path)
          await git.run(['add', '--', path])
        }
        rows.push({ name: d.entry.name, action: 'added', path, reason: gateNote(admitted.warnings) })
        groups.push([
          { token: 'Learning', value: d.entry.name },
          { token: 'Learning-Action', value: 'import' },
          { token: 'Learning-To', value: 'pending' },
          ...admitted.trailers,
          { token: 'Learning-Origin', value: origin },
        ])
      } catch (err) {
        if (!(err instanceof RefusedError || err instanceof LearningInvalidError || err instanceof LearningParseError)) throw err
        rows.push({ name: d.entry.name, action: 'skipped', path: null, reason: describeError(err).message.replace(/\s*\n\s*/g, ' ') })
      }
    }
    let commit: string | null = null
    if (!dryRun && groups.length) {
      const n = groups.length
      const message =
        `learn: import ${n} learning${n === 1 ? '' : 's'} from ${foldValue(origin)}\n\n` +
        `${[...groups.flat(), { token: 'Proposed-by', value: identity }].map((t) => `${t.token}: ${foldValue(t.value)}`).join('\n')}\n`
      commit = await commitOnly(git, [...created, ...updated.map((u) => u.path)], message)
    }
    if (json) ctx.stdout(`${JSON.stringify({ origin, commit, entries: rows, dryRun })}\n`)
    else ctx.stdout(importReport(origin, rows, commit, dryRun))
    return ExitCode.ok
  } catch (err) {
    await undo()
    throw err
  }
}
