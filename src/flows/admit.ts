/**
 * The one admission pipeline every way into pending/ goes through (add, retro --write, import, evolve): absolute
 * paths rewritten, quality gates, secrets, agent directives, exact and near duplicates against every learning in
 * every state and the NOTES.md decision and debt tables, partial matches linked in `related`. It writes nothing:
 * it returns the final file text and the trailers the commit must carry, or throws RefusedError. Its refusals are
 * written here, beside the checks that make them.
 */
import { readHandSkills } from '../adapters/agents/skills.js'
import { MAX_NOTES_BYTES, readNotesFile, readWorkTreeText } from '../adapters/store/notes-file.js'
import type { Repo } from '../adapters/store/repo.js'
import { readStore } from '../adapters/store/store.js'
import { readTemplate } from '../adapters/store/templates.js'
import { loadLearningValidator } from '../adapters/store/validators.js'
import { DedupeIndex, learningEntry, parseNotesRows } from '../core/dedupe.js'
import type { DedupeEntry } from '../core/dedupe.js'
import { hazardsOf, learningDirectives, scanForAgents } from '../core/agent-safety.js'
import {
  DIRECTIVES_ALLOWED_TRAILER,
  directivesAllowedLine,
  directivesAllowedValue,
  fingerprintsOf,
} from '../core/directive-trailer.js'
import { LearningInvalidError, RefusedError } from '../core/errors.js'
import { evaluateGates, failedGates, formatGatesTrailer } from '../core/gates.js'
import type { GateResult } from '../core/gates.js'
import { formatLearningFile, toLfLineEndings, validateLearning } from '../core/learning.js'
import type { Frontmatter, Learning } from '../core/learning.js'
import { rewriteAbsolutePaths, rewritePathsInData } from '../core/paths.js'
import type { Trailer } from '../core/trailers.js'

export interface AdmitOptions {
  /** Record failed gates and a near duplicate as overridden instead of refusing. */
  force?: boolean
  /**
   * Record failed gates as overridden instead of refusing, and nothing else (an import: the text was gated where it
   * was written, and a gate must not turn away a verbatim error message; the reviewer sees what failed).
   */
  gatesAdvisory?: boolean
  /** Accept the agent directives found, recorded by their fingerprints in a `Learning-Directives-Allowed` trailer. */
  allowDirectives?: boolean
  /** The learning's file text as the user wrote it: kept byte for byte when the frontmatter needs no change. */
  text?: string
  /** The name of a learning this one replaces (an import updating its pending copy): left out of the duplicate comparison. */
  replacing?: string
  /** The store (and NOTES.md rows) to compare with, built once by the caller (import: read once, not per entry). */
  index?: DedupeIndex
  /** Leave the diff out of a near-duplicate refusal (import reports one line per entry; the diff costs the most). */
  noDiff?: boolean
}

export interface Admission {
  /** The file text to write to `.learnings/pending/<name>.md`. */
  text: string
  warnings: string[]
  gates: GateResult[]
  /** Names linked in `related` because they are partial matches. */
  related: string[]
  /** Trailers for the commit: Learning-Gates, and the overrides when there are any. */
  trailers: Trailer[]
}

/** A refusal of add: the headline (with the fix) and one line per problem. */
interface Refusal {
  reason: string
  details: string[]
}

const gatesRefused = (name: string, failed: readonly GateResult[]): Refusal => ({
  reason: `${name} does not pass the quality gates; fix the learning, or run again with --force to record the override in the commit (Learning-Gates-Overridden):`,
  details: failed.map((g) => `${g.gate}: ${g.reason}`),
})

const secretsRefused = (name: string, lines: readonly string[]): Refusal => ({
  reason: `${name} contains what looks like a credential, so nothing was written. Remove it (write a placeholder such as \${API_TOKEN}) and rotate it if it was real; a reviewed false positive goes into secrets.allow in .learnings/config.yaml by its fingerprint:`,
  details: [...lines],
})

const directivesRefused = (name: string, lines: readonly string[], fingerprints: readonly string[]): Refusal => ({
  reason: `${name} contains instructions aimed at agents that look like prompt injection (agents read learnings as instructions). Rewrite them as descriptions, or, if they are meant, run again with --allow-directives, which accepts exactly these by their fingerprints (the commit then carries "${directivesAllowedLine(name, fingerprints)}"):`,
  details: [...lines],
})

/** A frontmatter too large to screen, which --allow-directives does not accept (it has no fingerprint). */
const unscreenedRefused = (name: string, lines: readonly string[]): Refusal => ({
  reason: `${name} cannot be screened for instructions aimed at agents, and --allow-directives accepts only what was read; make its frontmatter smaller:`,
  details: [...lines],
})

const exactDuplicate = (name: string, twin: string, path: string): Refusal => ({
  reason: `${name} is an exact duplicate of ${twin} (${path}): the same description and solution. Edit ${twin} instead of adding a copy.`,
  details: [],
})

const nearDuplicate = (name: string, twin: string, path: string, similarity: number, diff: string): Refusal => ({
  reason: `${name} is a near duplicate of ${twin} (${path}, similarity ${similarity.toFixed(2)}); improve ${twin} instead, or make the difference clear (--force adds it anyway and records the override).${diff ? ` The difference:\n${diff.trimEnd()}` : ''}`,
  details: [],
})

const mb = (n: number) => `${Math.round((n / 1048576) * 10) / 10} MB`
const notesFileOutside = (path: string) =>
  `dedupe.notes_file "${path}" is outside the repository; it was not read (name a file inside the repository)`
const notesFileTruncated = (path: string, limit: number) =>
  `${path} is larger than ${mb(limit)}; only its first ${mb(limit)} were compared`

const refuse = (r: Refusal): never => {
  throw new RefusedError(r.reason, r.details)
}

/** The decision and debt rows of dedupe.notes_file; a file outside the repository or unreadable is a warning. */
function readNotesEntries(root: string, notesPath: string, warnings: string[]): DedupeEntry[] {
  const notes = readNotesFile(root, notesPath)
  if (notes.kind === 'absent') return []
  if (notes.kind === 'outside') warnings.push(notesFileOutside(notesPath))
  const unreadable = () => warnings.push(`could not read ${notesPath}; its decision and debt tables were not compared`)
  if (notes.kind === 'unreadable') unreadable()
  if (notes.kind !== 'read') return []
  try {
    const rows = parseNotesRows(notes.text, notesPath)
    if (notes.truncated) warnings.push(notesFileTruncated(notesPath, MAX_NOTES_BYTES))
    return rows
  } catch {
    unreadable()
    return []
  }
}

/** Every learning of the store and the NOTES.md rows, indexed for the duplicate check (one read of the store). */
export async function buildDedupeIndex(
  repo: Repo,
  warnings: string[],
  store?: readonly Learning[],
): Promise<DedupeIndex> {
  const config = await repo.config()
  const learnings = store ?? readStore(repo.root).learnings
  const entries: DedupeEntry[] = learnings.map((l) => learningEntry(l, ''))
  const notesPath = config.dedupe.notes_file
  if (notesPath) entries.push(...readNotesEntries(repo.root, notesPath, warnings))
  return new DedupeIndex(entries)
}

/** Run the admission pipeline over a parsed learning; RefusedError (or LearningInvalidError) when it may not enter. */
export async function admitLearning(repo: Repo, learning: Learning, opts: AdmitOptions = {}): Promise<Admission> {
  const config = await repo.config()
  const warnings: string[] = []
  const trailers: Trailer[] = []
  const name = learning.name

  const data = rewritePathsInData(learning.data, repo.root) as Frontmatter
  const body = rewriteAbsolutePaths(learning.body, repo.root)
  if (data !== learning.data || body !== learning.body)
    warnings.push(
      `absolute paths were rewritten to \${PROJECT_ROOT}/… (or \${HOME}/…) so the learning holds on every machine`,
    )
  const candidate: Learning = { ...learning, data, body }
  const { errors } = validateLearning(candidate, await loadLearningValidator())
  if (errors.length) throw new LearningInvalidError(learning.path, errors)
  // `skill:` names a skill the team wrote by hand: render folds the learning into it, so a name with no such skill
  // would fold it nowhere.
  const skill = data['skill']
  if (typeof skill === 'string') {
    const skills = readHandSkills(repo.root, repo.git.commonDir).map((s) => s.name)
    if (!skills.includes(skill))
      throw new LearningInvalidError(learning.path, [
        `skill: "${skill}" names no hand-written skill (.claude/skills/${skill}/SKILL.md does not exist); ` +
          (skills.length
            ? `name one of ${skills.join(', ')}, or add it without skill and ask \`git learn suggest-skill ${name}\``
            : 'this repository has no hand-written skills under .claude/skills/; leave skill out'),
      ])
  }

  // LF whatever the input had (a file saved on Windows): what is checked below is what gets committed.
  let text =
    data === learning.data && opts.text !== undefined
      ? toLfLineEndings(rewriteAbsolutePaths(opts.text, repo.root))
      : formatLearningFile(data, body)

  // The same screen as every other road to an agent (core/agent-safety.ts): secrets first, then directives. With
  // --allow-directives, what is found now is accepted by its fingerprints, as the trailer recorded below accepts it.
  const scan = scanForAgents(text, config.secrets.allow, data)
  const accepting = opts.allowDirectives ? fingerprintsOf(scan.directives) : []
  // Everything found now that has a fingerprint is what the trailer accepts (one without is refused below).
  const hazards = hazardsOf(scan, accepting.length ? (d) => d.fingerprint !== undefined : undefined)
  const secrets = hazards.filter((h) => h.kind === 'secret')
  if (secrets.length)
    refuse(
      secretsRefused(
        name,
        secrets.map((h) => h.detail),
      ),
    )
  const directives = hazards.filter((h) => h.kind === 'directive')
  if (directives.some((h) => h.fingerprint === undefined))
    refuse(
      unscreenedRefused(
        name,
        directives.map((h) => h.detail),
      ),
    )
  if (directives.length)
    refuse(
      directivesRefused(
        name,
        directives.map((h) => h.detail),
        fingerprintsOf(directives),
      ),
    )
  // Only fingerprints: a trailer with the name alone (an earlier version's) would accept whatever is added later.
  const allowed: Trailer | undefined = accepting.length
    ? { token: DIRECTIVES_ALLOWED_TRAILER, value: directivesAllowedValue(name, accepting) }
    : undefined
  if (allowed) trailers.push(allowed)

  let template: string | undefined
  try {
    template = readTemplate(`${String(data.type)}.md`)
  } catch {
    template = undefined
  }
  const gates = evaluateGates(candidate, config.gates, template === undefined ? {} : { template })
  const failed = failedGates(gates)
  const overridden: string[] = []
  if (failed.length) {
    if (!opts.force && !opts.gatesAdvisory) refuse(gatesRefused(name, failed))
    overridden.push(...failed.map((g) => g.gate))
    const how = opts.force ? 'overridden with --force' : 'failed, recorded for review'
    warnings.push(`gates ${how}: ${failed.map((g) => `${g.gate} (${g.reason})`).join('; ')}`)
  }
  trailers.unshift({ token: 'Learning-Gates', value: formatGatesTrailer(gates) })

  // A skill that consolidates learnings (evolve) repeats their text on purpose: those it supersedes are not its twins.
  const supersedes = new Set(Array.isArray(data['supersedes']) ? (data['supersedes'] as unknown[]).map(String) : [])
  const skip = new Set([name, ...(opts.replacing ? [opts.replacing] : []), ...supersedes])
  const index = opts.index ?? (await buildDedupeIndex(repo, warnings))
  const verdict = index.find(candidate, config.dedupe, skip)
  if (verdict.exact) refuse(exactDuplicate(name, verdict.exact.id, verdict.exact.path))
  if (verdict.near) {
    const { entry, similarity } = verdict.near
    if (!opts.force) {
      if (opts.noDiff) refuse(nearDuplicate(name, entry.id, entry.path, similarity, ''))
      const twinText = entry.isLearning && !entry.text ? readWorkTreeText(repo.root, entry.path) : entry.text
      const { createTwoFilesPatch } = await import('../vendor/diff.js')
      const patch = createTwoFilesPatch(entry.path, learning.path, twinText, text, entry.id, 'new', { context: 2 })
      refuse(nearDuplicate(name, entry.id, entry.path, similarity, patch.split('\n').slice(0, 80).join('\n')))
    }
    overridden.push(`near-duplicate=${entry.id}`)
    warnings.push(`near duplicate of ${entry.id} (similarity ${similarity.toFixed(2)}) added anyway with --force`)
  }
  if (overridden.length) trailers.push({ token: 'Learning-Gates-Overridden', value: overridden.join(' ') })

  const existing = Array.isArray(data['related'])
    ? (data['related'] as unknown[]).filter((r): r is string => typeof r === 'string')
    : []
  const related = verdict.related
    .map((r) => r.entry.id)
    .filter((id) => !existing.includes(id))
    .slice(0, Math.max(0, 10 - existing.length))
  if (related.length) {
    const linked = { ...data, related: [...existing, ...related] }
    text = formatLearningFile(linked, body)
    warnings.push(`linked related learnings: ${related.join(', ')}`)
    // Written again: the fingerprints recorded are those of the text committed.
    if (allowed) allowed.value = directivesAllowedValue(name, fingerprintsOf(learningDirectives(text, linked)))
  }
  return { text, warnings, gates, related, trailers }
}
