/**
 * `git learn import`: every entry of a bundle through the admission of `add`, against the store read once (one scan,
 * one duplicate index that grows with each admitted entry, one `git status` of the store), and everything admitted
 * in ONE atomic commit (flows/transition.ts): built in a temporary index, so a failure or a kill at any moment leaves
 * the repository as it was, and the user's index is never used. No printing: progress and warnings go to callbacks.
 */
import { buildDedupeIndex, admitLearning } from './admit.js'
import type { Repo } from '../adapters/store/repo.js'
import { readStore } from '../adapters/store/store.js'
import { loadLearningValidator } from '../adapters/store/validators.js'
import { planImport } from '../core/bundle.js'
import type { BundleEntry, ExistingLearning } from '../core/bundle.js'
import { learningEntry } from '../core/dedupe.js'
import { LearningInvalidError, LearningParseError, RefusedError, UncommittedLearningError } from '../core/errors.js'
import { STORE_DIR, formatLearningFile, learningPath, parseLearning, validateLearning } from '../core/learning.js'
import type { Frontmatter } from '../core/learning.js'
import { foldValue } from '../core/trailers.js'
import type { Trailer } from '../core/trailers.js'
import type { Change } from './transition.js'

export interface ImportedRow {
  name: string
  action: 'added' | 'updated' | 'skipped' | 'proposed-update'
  path: string | null
  reason: string | null
}

export interface ImportPlan {
  rows: ImportedRow[]
  changes: Change[]
  /** The commit message, or null when nothing is written. */
  message: string | null
}

export interface ImportOptions {
  origin: string
  identity: string
  force: boolean
  allowDirectives: boolean
  /** Called after each entry (done of total). */
  onProgress?: (done: number, total: number) => void
  /** Called with each warning of an entry (name, text). */
  onWarning?: (name: string, text: string) => void
  /** A refusal turned into a one-line reason (the CLI's sentences). */
  describe: (err: unknown) => string
}

/** The learning file an entry becomes: its frontmatter with source.kind "import" (no session, agent kept). */
export function entryText(entry: BundleEntry): string {
  const src = entry.frontmatter['source']
  const agent =
    src && typeof src === 'object' && typeof (src as Record<string, unknown>)['agent'] === 'string'
      ? (src as Record<string, unknown>)['agent']
      : undefined
  const data: Frontmatter = {
    ...entry.frontmatter,
    name: entry.name,
    source: { kind: 'import', ...(agent ? { agent } : {}) },
  }
  return formatLearningFile(data, entry.body)
}

/** Decide every entry and build the changes and the message of the one commit. Writes nothing. */
export async function planBundleImport(
  repo: Repo,
  entries: readonly BundleEntry[],
  opts: ImportOptions,
): Promise<ImportPlan> {
  const { git } = repo
  const scan = readStore(git.root)
  const existing = new Map<string, ExistingLearning>(
    scan.learnings.map((l) => [l.name, { state: l.state, data: l.data, body: l.body }]),
  )
  // A file that is in the store but unreadable still holds its name: never overwrite it (an infinite confidence
  // here means no bundle entry can count as an update of it).
  for (const p of scan.problems) {
    const name = p.path.split('/').pop()?.replace(/\.md$/, '')
    if (name && !existing.has(name))
      existing.set(name, {
        state: (p.path.split('/')[1] as ExistingLearning['state']) ?? 'pending',
        data: { confidence: Infinity },
        body: '',
      })
  }
  const decisions = planImport(entries, existing)
  const validator = await loadLearningValidator()
  const warnings: string[] = []
  const index = await buildDedupeIndex(repo, warnings, scan.learnings)
  for (const w of warnings) opts.onWarning?.(opts.origin, w)
  const dirty = decisions.some((d) => d.kind === 'update-pending') ? await readDirtyStore(repo) : new Set<string>()
  const rows: ImportedRow[] = []
  const groups: Trailer[][] = []
  const changes: Change[] = []
  // Gates advise on import: an entry is never skipped for a gate (a verbatim error message can fail one); the
  // report and the Learning-Gates-Overridden trailer say which failed, for the reviewer of pending/.
  const admitOpts = {
    force: opts.force,
    gatesAdvisory: true,
    allowDirectives: opts.allowDirectives,
    index,
    noDiff: true,
  }
  const gateNote = (warnings: readonly string[]) => warnings.find((w) => w.startsWith('gates ')) ?? null
  let done = 0
  for (const d of decisions) {
    opts.onProgress?.(done++, decisions.length)
    const path = learningPath('pending', d.entry.name)
    if (d.kind === 'skip') {
      rows.push({
        name: d.entry.name,
        action: d.proposedUpdate ? 'proposed-update' : 'skipped',
        path: null,
        reason: d.reason,
      })
      continue
    }
    try {
      const text = entryText(d.entry)
      const learning = parseLearning(text, path)
      const { errors } = validateLearning(learning, validator)
      if (errors.length) throw new LearningInvalidError(`${opts.origin} → ${d.entry.name}`, errors)
      if (d.kind === 'update-pending' && dirty.has(path))
        throw new UncommittedLearningError(d.entry.name, path, 'uncommitted changes')
      // The same admission as a new entry (paths, gates, secrets, directives, duplicates), its old copy aside.
      const admitted = await admitLearning(
        repo,
        learning,
        d.kind === 'update-pending' ? { ...admitOpts, text, replacing: d.entry.name } : { ...admitOpts, text },
      )
      for (const w of admitted.warnings) if (!w.startsWith('gates ')) opts.onWarning?.(d.entry.name, w)
      // Indexed at once, so the duplicate check of the next entry sees it (two near-twins in one bundle).
      index.add({ ...learningEntry({ ...learning, data: learning.data }, admitted.text), text: admitted.text })
      changes.push({ kind: d.kind === 'update-pending' ? 'replace' : 'create', path, text: admitted.text })
      rows.push({
        name: d.entry.name,
        action: d.kind === 'update-pending' ? 'updated' : 'added',
        path,
        reason:
          d.kind === 'update-pending'
            ? [d.reason, gateNote(admitted.warnings)].filter(Boolean).join('; ') || null
            : gateNote(admitted.warnings),
      })
      groups.push([
        { token: 'Learning', value: d.entry.name },
        { token: 'Learning-Action', value: 'import' },
        ...(d.kind === 'update-pending' ? [{ token: 'Learning-From', value: 'pending' }] : []),
        { token: 'Learning-To', value: 'pending' },
        ...admitted.trailers,
        { token: 'Learning-Origin', value: opts.origin },
      ])
    } catch (err) {
      if (!(err instanceof RefusedError || err instanceof LearningInvalidError || err instanceof LearningParseError))
        throw err
      rows.push({ name: d.entry.name, action: 'skipped', path: null, reason: opts.describe(err) })
    }
  }
  opts.onProgress?.(decisions.length, decisions.length)
  const n = groups.length
  const message = n
    ? `learn: import ${n} learning${n === 1 ? '' : 's'} from ${foldValue(opts.origin)}\n\n` +
      `${[...groups.flat(), { token: 'Proposed-by', value: opts.identity }].map((t) => `${t.token}: ${foldValue(t.value)}`).join('\n')}\n`
    : null
  return { rows, changes, message }
}

/** The store's paths with uncommitted changes (one `git status`). */
async function readDirtyStore(repo: Repo): Promise<Set<string>> {
  // Sample: " M .learnings/pending/x.md\0?? .learnings/pending/y.md\0"
  const out = await repo.git.run([
    'status',
    '--porcelain=v1',
    '-z',
    '--untracked-files=all',
    '--no-renames',
    '--',
    `:(top)${STORE_DIR}`,
  ])
  return new Set(
    out
      .split('\0')
      .filter((r) => r.length > 3)
      .map((r) => r.slice(3)),
  )
}
