/**
 * What `git learn render` writes for the active learnings: the files of each target and the marked AGENTS.md
 * section. Deterministic: sorted by name, no timestamps, YAML written by one stringifier with fixed options.
 */
import * as YAML from '../vendor/yaml.js'
import { withheldReason } from './agent-safety.js'
import type { AgentHazard } from './agent-safety.js'
import { RENDER_MARKER } from './check-zones.js'
import { tierMark } from './context.js'
import { validateLearning } from './learning.js'
import type { Learning } from './learning.js'
import { explainBadName } from './names.js'
import { renderSafe, renderSafeMarkdown } from './render-safe.js'
import { renderSkillReferences, skillLine, skillOf, skillReferencesPath } from './skills.js'
import { endingInOneNewline, withoutFinalNewlines } from './text-lines.js'
import type { SchemaValidator } from './validate.js'

export const RENDER_TARGETS = ['claude', 'agents', 'cursor', 'copilot', 'claude-md'] as const
export type RenderTarget = (typeof RENDER_TARGETS)[number]

export const AGENTS_FILE = 'AGENTS.md'
export const AGENTS_BEGIN = '<!-- git-learn:begin -->'
export const AGENTS_END = '<!-- git-learn:end -->'
/** The `claude-md` target: an index of the active learnings, imported into CLAUDE.md's marked section with `@`. */
export const CLAUDE_MD_FILE = 'CLAUDE.md'
export const INDEX_FILE = '.learnings/INDEX.md'
const PROJECT = 'project'
/** The tier each learning came from ('project' for this store's). */
export type TierOf = (l: Learning) => string

export interface RenderedFile {
  path: string
  content: string
}

export interface RenderPlan {
  /** Whole files owned by git learn (skills, cursor rules, copilot instructions), sorted by path. */
  files: RenderedFile[]
  /** The AGENTS.md section (markers included) when the agents target is on. */
  agentsSection: string | null
  /** The CLAUDE.md section (markers included, importing INDEX_FILE) when the claude-md target is on. */
  claudeMdSection: string | null
  /** Hand-written skills that get our one marked line in their SKILL.md (skill → line). */
  skillLines: Record<string, string>
  /** Summed description characters of the rendered skills (the agents' listing budget). */
  descriptionChars: number
}

const yaml = (data: Record<string, unknown>) => YAML.stringify(data, { lineWidth: 0 })
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim()
/** The mark of a tier's learning (as the context marks it), before its description and after its name. */
const mark = (tier: string) => renderSafe(tierMark(tier))
const desc = (l: Learning, tier = PROJECT) => {
  const d = renderSafe(oneLine(typeof l.data.description === 'string' ? l.data.description : ''))
  return (mark(tier) ? `${mark(tier)} ${d}` : d).slice(0, 1024)
}
const paths = (l: Learning): string[] => {
  const e = l.data['evidence']
  const p = e && typeof e === 'object' ? (e as Record<string, unknown>)['paths'] : undefined
  return Array.isArray(p)
    ? p
        .filter((x): x is string => typeof x === 'string')
        .map(renderSafe)
        .sort()
    : []
}
const body = (l: Learning) => `${renderSafeMarkdown(l.body).trimEnd()}\n`
const source = (l: Learning, tier: string) =>
  tier === PROJECT
    ? `<!-- source: ${renderSafe(l.path)} — edit that file and run \`git learn render\`; changes here are overwritten -->`
    : `<!-- source: ${renderSafe(l.path)} of the tier ${renderSafe(tier)}, reviewed in that repository; changes here are overwritten -->`
const title = (l: Learning, tier: string) => (mark(tier) ? `${l.name} ${mark(tier)}` : l.name)

/** A path render may own: one of the files a target writes, by its shape (no `..`, no other directory). */
export function isRenderPath(path: string): boolean {
  return /^(\.claude\/skills\/[a-z0-9][a-z0-9-]*\/(SKILL\.md|references\/learnings\.md)|\.cursor\/rules\/[a-z0-9][a-z0-9-]*\.mdc|\.github\/instructions\/[a-z0-9][a-z0-9-]*\.instructions\.md|\.learnings\/INDEX\.md)$/.test(
    path,
  )
}

/** The SKILL.md of a learning (Agent Skills: name = directory name, description ≤ 1024, metadata a string map). */
export function renderSkill(l: Learning, tier = PROJECT): RenderedFile {
  const fm = yaml({ name: l.name, description: desc(l, tier), metadata: { 'generated-by': 'git-learn' } })
  return {
    path: `.claude/skills/${l.name}/SKILL.md`,
    content: `---\n${fm}---\n${RENDER_MARKER}\n${source(l, tier)}\n\n${body(l)}`,
  }
}

/** The Cursor rule of a learning (`alwaysApply: false`; globs from evidence.paths when present). */
export function renderCursorRule(l: Learning, tier = PROJECT): RenderedFile {
  const p = paths(l)
  const fm = yaml({ description: desc(l, tier), ...(p.length ? { globs: p.join(',') } : {}), alwaysApply: false })
  return {
    path: `.cursor/rules/${l.name}.mdc`,
    content: `---\n${fm}---\n${RENDER_MARKER}\n${source(l, tier)}\n\n# ${title(l, tier)}\n\n${body(l)}`,
  }
}

/** Globs of the files a tag is about, for Copilot's `applyTo` when a learning names no evidence paths. */
const TAG_GLOBS: Readonly<Record<string, readonly string[]>> = {
  typescript: ['**/*.ts', '**/*.tsx'],
  ts: ['**/*.ts', '**/*.tsx'],
  javascript: ['**/*.js', '**/*.mjs', '**/*.cjs', '**/*.jsx'],
  node: ['**/*.js', '**/*.mjs', '**/*.cjs', '**/*.ts', '**/package.json'],
  esm: ['**/*.js', '**/*.mjs', '**/*.ts', '**/package.json'],
  commonjs: ['**/*.js', '**/*.cjs', '**/package.json'],
  react: ['**/*.jsx', '**/*.tsx'],
  vitest: ['**/*.test.*', '**/*.spec.*', '**/vitest.config.*'],
  jest: ['**/*.test.*', '**/*.spec.*', '**/jest.config.*'],
  testing: ['**/*.test.*', '**/*.spec.*', '**/test/**', '**/tests/**'],
  python: ['**/*.py'],
  go: ['**/*.go'],
  rust: ['**/*.rs', '**/Cargo.toml'],
  java: ['**/*.java'],
  css: ['**/*.css', '**/*.scss'],
  sql: ['**/*.sql'],
  postgres: ['**/*.sql'],
  docker: ['**/Dockerfile*', '**/docker-compose*.yml', '**/compose*.yml'],
  npm: ['**/package.json', '**/package-lock.json'],
  ci: ['.github/workflows/**'],
  'github-actions': ['.github/workflows/**'],
  git: ['.gitignore', '.gitattributes'],
  markdown: ['**/*.md'],
}

/** Where a learning applies: its evidence paths, else the globs of its tags; every file only when neither says. */
export function applyToOf(l: Learning): string {
  const p = paths(l)
  if (p.length) return p.join(',')
  const tags = Array.isArray(l.data.tags)
    ? l.data.tags.filter((t): t is string => typeof t === 'string').map(renderSafe)
    : []
  const globs = [...new Set(tags.flatMap((t) => TAG_GLOBS[t.toLowerCase()] ?? []))].sort()
  return globs.length ? globs.join(',') : '**'
}

/** The Copilot instructions file of a learning (`applyTo` from evidence.paths or the tags, else every file). */
export function renderCopilot(l: Learning, tier = PROJECT): RenderedFile {
  const fm = yaml({ applyTo: applyToOf(l) })
  return {
    path: `.github/instructions/${l.name}.instructions.md`,
    content: `---\n${fm}---\n${RENDER_MARKER}\n${source(l, tier)}\n\n# ${title(l, tier)}\n\n${desc(l, tier)}\n\n${body(l)}`,
  }
}

/** The marked AGENTS.md section: one line per learning (a tier's marked as its tier). */
export function renderAgentsSection(learnings: readonly Learning[], tierOf: TierOf = () => PROJECT): string {
  const rows = learnings.map((l) => `- **${l.name}** — ${desc(l, tierOf(l))} (\`git learn show ${l.name}\`)`)
  return [
    AGENTS_BEGIN,
    '## Team learnings',
    '',
    'Generated by `git learn render` from `.learnings/active/`; edit those files, not this section.',
    '',
    ...(rows.length ? rows : ['_No active learnings yet._']),
    AGENTS_END,
  ].join('\n')
}

/**
 * `.learnings/INDEX.md`: one line per active learning (name, one-line description, trigger), best-known first,
 * within `maxTokens` (characters / 4) — what a session without hooks reads through CLAUDE.md's `@` import.
 */
export function renderIndex(learnings: readonly Learning[], maxTokens: number, tierOf: TierOf = () => PROJECT): string {
  const head = [
    RENDER_MARKER,
    '# Team learnings',
    '',
    'Generated by `git learn render --target claude-md` from `.learnings/active/`; `git learn show <name>` gives one in full.',
    '',
  ]
  const budget = maxTokens * 4 - head.join('\n').length
  const lines: string[] = []
  let used = 0
  for (const l of learnings) {
    const trigger = Array.isArray(l.data.trigger)
      ? l.data.trigger.join(' · ')
      : typeof l.data.trigger === 'string'
        ? l.data.trigger
        : ''
    const line = `- **${l.name}** — ${desc(l, tierOf(l)).slice(0, 240)}${trigger ? ` Trigger: \`${renderSafe(oneLine(trigger)).slice(0, 160).replace(/`/g, "'")}\`` : ''}`
    if (used + line.length + 1 > budget) {
      lines.push(`- … ${learnings.length - lines.length} more: \`git learn search <words>\``)
      break
    }
    lines.push(line)
    used += line.length + 1
  }
  return `${[...head, ...(lines.length ? lines : ['_No active learnings yet._'])].join('\n')}\n`
}

/** The marked CLAUDE.md section: the `@` import of the index. */
export function renderClaudeMdSection(): string {
  return [AGENTS_BEGIN, '## Team learnings', '', `@${INDEX_FILE}`, AGENTS_END].join('\n')
}

/** Where the marked section is in a file: none yet, the span from its begin marker to its end marker, or neither. */
export type SectionSpan = { kind: 'none' } | { kind: 'one'; begin: number; end: number } | { kind: 'unbalanced' }

const count = (text: string, marker: string) => text.split(marker).length - 1

/**
 * The marked section of AGENTS.md or CLAUDE.md. From the begin marker to the last end marker after it: text an older
 * version copied out of a learning could hold a marker of its own (render now escapes them), and everything up to
 * the last end marker is ours. A second begin marker, an end marker before the begin, or a begin with no end is
 * not a section render can replace without guessing whose text is whose: 'unbalanced', and the file is left alone.
 */
export function locateSection(text: string): SectionSpan {
  const b = text.indexOf(AGENTS_BEGIN)
  const e = text.lastIndexOf(AGENTS_END)
  if (b < 0 && e < 0) return { kind: 'none' }
  if (b < 0 || e < b || count(text, AGENTS_BEGIN) > 1 || text.slice(0, b).includes(AGENTS_END))
    return { kind: 'unbalanced' }
  return { kind: 'one', begin: b, end: e + AGENTS_END.length }
}

/**
 * Replace (or append) the marked section in AGENTS.md's text; everything outside the markers is kept byte for byte.
 * Undefined when the markers are out of balance (locateSection): nothing is spliced.
 */
export function spliceAgentsSection(existing: string | null, section: string): string | undefined {
  if (existing === null || existing === '') return `${section}\n`
  const at = locateSection(existing)
  if (at.kind === 'unbalanced') return undefined
  if (at.kind === 'one') return existing.slice(0, at.begin) + section + existing.slice(at.end)
  return `${withoutFinalNewlines(existing)}\n\n${section}\n`
}

/** Remove the marked section (when the agents target is dropped); undefined when the file has none, or unbalanced. */
export function removeAgentsSection(existing: string): string | undefined {
  const at = locateSection(existing)
  if (at.kind !== 'one') return undefined
  return (endingInOneNewline(existing.slice(0, at.begin)) + existing.slice(at.end).replace(/^\n+/, '')).replace(
    /^\n+$/,
    '',
  )
}

/** A learning render leaves out, and why. */
export interface RenderRejected {
  name: string
  path: string
  reason: string
  /** What keeps it from agents (masked), when that is why: the feed withholds it too. */
  hazards?: readonly AgentHazard[]
}

/**
 * The learnings render may turn into files: a valid name (it becomes a path), a schema-valid learning, and nothing
 * the feed withholds from agents (`hazards`: core/agent-safety.ts, with secrets.allow and accepted directives applied
 * by the caller, as the feed's rebuild does). The others come back with their reason, to be reported, never rendered.
 */
export function selectRenderable(
  active: readonly Learning[],
  validator: SchemaValidator,
  hazards: (l: Learning) => readonly AgentHazard[] = () => [],
): { learnings: Learning[]; rejected: RenderRejected[] } {
  const learnings: Learning[] = []
  const rejected: RenderRejected[] = []
  for (const l of active) {
    const bad = explainBadName(l.name)
    const reason = bad ? `its name is not valid: ${bad}` : validateLearning(l, validator).errors[0]
    const found = reason ? [] : hazards(l)
    if (reason) rejected.push({ name: l.name, path: l.path, reason })
    else if (found.length) rejected.push({ name: l.name, path: l.path, reason: withheldReason(found), hazards: found })
    else learnings.push(l)
  }
  return { learnings, rejected }
}

/**
 * The plan for the active learnings (first occurrence of a name wins; a name that is not kebab-case is never a path)
 * and the targets; `tierOf` names the tier of each learning (a tier's are marked as the context marks them).
 */
export function planRender(
  active: readonly Learning[],
  targets: readonly RenderTarget[],
  opts: { indexTokens?: number; handSkills?: ReadonlySet<string>; tierOf?: TierOf } = {},
): RenderPlan {
  const tierOf = opts.tierOf ?? (() => PROJECT)
  const seen = new Set<string>()
  const learnings = active
    .filter((l) => explainBadName(l.name) === undefined)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .filter((l) => (seen.has(l.name) ? false : (seen.add(l.name), true)))
  const files: RenderedFile[] = []
  const on = new Set(targets)
  // A learning that names a hand-written skill is folded into it (its references/learnings.md), not a skill of its own.
  const folded = new Map<string, Learning[]>()
  for (const l of learnings) {
    const skill = skillOf(l)
    if (on.has('claude') && skill !== undefined && opts.handSkills?.has(skill)) {
      folded.set(skill, [...(folded.get(skill) ?? []), l])
      continue
    }
    if (on.has('claude')) files.push(renderSkill(l, tierOf(l)))
    if (on.has('cursor')) files.push(renderCursorRule(l, tierOf(l)))
    if (on.has('copilot')) files.push(renderCopilot(l, tierOf(l)))
  }
  const skillLines: Record<string, string> = {}
  for (const [skill, ls] of [...folded].sort(([a], [b]) => (a < b ? -1 : 1))) {
    files.push({
      path: skillReferencesPath(skill),
      content: renderSkillReferences(skill, ls, (l) => mark(tierOf(l))),
    })
    skillLines[skill] = skillLine(ls.length)
  }
  if (on.has('claude-md'))
    files.push({ path: INDEX_FILE, content: renderIndex(learnings, opts.indexTokens ?? 1500, tierOf) })
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return {
    files,
    agentsSection: on.has('agents') ? renderAgentsSection(learnings, tierOf) : null,
    claudeMdSection: on.has('claude-md') ? renderClaudeMdSection() : null,
    skillLines,
    descriptionChars: on.has('claude') ? learnings.reduce((n, l) => n + desc(l, tierOf(l)).length, 0) : 0,
  }
}
