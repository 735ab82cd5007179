/**
 * Applying a render plan to the work tree. Ownership is the manifest, never marker text alone: render owns a file only
 * when `<common dir>/learn/render-manifest.json` lists it with the hash of its content and the file still has that
 * content (or when the file already holds exactly what render would write, or is a rendered file HEAD holds unchanged:
 * lookAll), each read as git reads it. Anything else at a target path — a hand-written
 * skill, a rendered file someone edited — is left alone and reported. The targets given are the whole set: files of a
 * target no longer rendered are removed like those of a learning no longer active, and so is the AGENTS.md section.
 * Nothing is read, written or removed through a symbolic link: render never leaves the repository.
 */
import { createHash } from 'node:crypto'
import { lstatSync, mkdirSync, readFileSync, readdirSync, rmdirSync, unlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { isRendered } from '../../core/check-zones.js'
import { STATE_FILES } from '../../core/layout.js'
import {
  AGENTS_FILE,
  CLAUDE_MD_FILE,
  RENDER_TARGETS,
  isRenderPath,
  locateSection,
  removeAgentsSection,
  spliceAgentsSection,
} from '../../core/render.js'
import type { RenderPlan, RenderTarget } from '../../core/render.js'
import { skillFilePath, spliceSkillLine } from '../../core/skills.js'
import { asCheckedOut, convertingPaths, inLineEndingsOf } from '../git/checkout.js'
import { readAsGitSees, readTreeEntries } from '../git/commit.js'
import { scratchDir } from '../state/journal.js'
import { makeDirs, writeFileNoClobber } from '../store/write-file.js'

export interface RenderResult {
  written: string[]
  unchanged: string[]
  removed: string[]
  /** Target paths holding a file git learn did not write (or that was edited since): left alone. */
  skipped: string[]
  /** AGENTS.md or CLAUDE.md whose git-learn markers are out of balance (core/render.ts locateSection): left alone. */
  unbalanced: string[]
}

export const MANIFEST_FILE = STATE_FILES.renderManifest

export interface RenderManifest {
  /** The targets of the last render: what the post-merge refresh renders again. */
  targets: RenderTarget[]
  /** Repository-relative path → sha256 of the content written; null for a manifest of the first format (no hashes). */
  files: Map<string, string | null>
  /**
   * Path → sha256 of what a render that did not finish (a full disk) was about to write there: the file holds that or
   * what `files` says, and is ours either way.
   */
  next: Map<string, string>
  /** Whether the AGENTS.md section was written. */
  agents: boolean
  /** Whether the CLAUDE.md section was written. */
  claudeMd: boolean
  /** Hand-written skills whose SKILL.md carries our marked line. */
  skillLines: string[]
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** The manifest of the last render here, or undefined when render never ran (or the file is not one of ours). */
export function readRenderManifest(commonDir: string): RenderManifest | undefined {
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(join(commonDir, 'learn', MANIFEST_FILE), 'utf8'))
  } catch {
    return undefined
  }
  if (!raw || typeof raw !== 'object') return undefined
  const m = raw as Record<string, unknown>
  const files = new Map<string, string | null>()
  // The first format: {files: [paths]}; the AGENTS.md line stood for the section.
  if (Array.isArray(m['files']))
    for (const p of m['files']) if (typeof p === 'string' && (isRenderPath(p) || p === AGENTS_FILE)) files.set(p, null)
  if (m['files'] && typeof m['files'] === 'object' && !Array.isArray(m['files']))
    for (const [p, h] of Object.entries(m['files'] as Record<string, unknown>))
      if (isRenderPath(p) && typeof h === 'string' && /^[0-9a-f]{64}$/.test(h)) files.set(p, h)
  const agents = m['agents'] === true || files.has(AGENTS_FILE)
  files.delete(AGENTS_FILE)
  const listed = Array.isArray(m['targets'])
    ? m['targets'].filter((t): t is RenderTarget => (RENDER_TARGETS as readonly unknown[]).includes(t))
    : []
  const targets = listed.length ? listed : targetsOf([...files.keys()], agents)
  const skillLines = Array.isArray(m['skillLines'])
    ? m['skillLines'].filter((x): x is string => typeof x === 'string' && /^[a-z0-9]+(-[a-z0-9]+)*$/.test(x))
    : []
  const next = new Map<string, string>()
  if (m['next'] && typeof m['next'] === 'object' && !Array.isArray(m['next']))
    for (const [p, h] of Object.entries(m['next'] as Record<string, unknown>))
      if (isRenderPath(p) && typeof h === 'string' && /^[0-9a-f]{64}$/.test(h)) next.set(p, h)
  return { targets, files, next, agents, claudeMd: m['claudeMd'] === true, skillLines }
}

/** The targets a first-format manifest's paths belong to. */
function targetsOf(paths: readonly string[], agents: boolean): RenderTarget[] {
  const out = new Set<RenderTarget>()
  for (const p of paths) {
    if (p.startsWith('.claude/')) out.add('claude')
    else if (p.startsWith('.cursor/')) out.add('cursor')
    else if (p.startsWith('.github/')) out.add('copilot')
  }
  if (agents) out.add('agents')
  return RENDER_TARGETS.filter((t) => out.has(t))
}

/** True when no component of `rel` under `root` is a symbolic link (a missing tail is fine). */
function noSymlinkOnPath(root: string, rel: string): boolean {
  let cur = root
  for (const part of rel.split('/')) {
    cur = join(cur, part)
    const st = lstatSync(cur, { throwIfNoEntry: false })
    if (!st) return true
    if (st.isSymbolicLink()) return false
  }
  return true
}

/** What is at `rel`: nothing, a regular file's text, or something render must not touch (a link, a directory). */
function look(root: string, rel: string): { kind: 'missing' } | { kind: 'file'; text: string } | { kind: 'foreign' } {
  if (!noSymlinkOnPath(root, rel)) return { kind: 'foreign' }
  const st = lstatSync(join(root, rel), { throwIfNoEntry: false })
  if (!st) return { kind: 'missing' }
  if (!st.isFile()) return { kind: 'foreign' }
  try {
    return { kind: 'file', text: readFileSync(join(root, rel), 'utf8') }
  } catch {
    return { kind: 'foreign' }
  }
}

/** What is at `rel`, a file's text read as git reads it (below). */
async function lookAsGitSees(root: string, rel: string): Promise<ReturnType<typeof look>> {
  const at = look(root, rel)
  if (at.kind !== 'file' || !at.text.includes('\r')) return at
  const seen = (await readAsGitSees(root, [{ path: rel, text: at.text }])).get(rel)
  return seen ? { kind: 'file', text: seen.text } : at
}

/**
 * What is at each of `paths`, a file's text read as git reads it (commit.ts readAsGitSees: in a CRLF checkout the file
 * render wrote with LF reads as what it wrote), and the files render owns without its manifest here: a rendered file
 * (render's marker) that is HEAD's, unchanged, at a path render writes now. A clone that commits its rendered files
 * has no manifest of them (it is local state), and rewriting such a file loses nothing: its text is HEAD's.
 */
async function lookAll(
  root: string,
  paths: readonly string[],
  committed: (rel: string, text: string) => boolean,
): Promise<{ at: Map<string, ReturnType<typeof look>>; committed: Set<string> }> {
  const at = new Map(paths.map((rel) => [rel, look(root, rel)] as const))
  const files = [...at].flatMap(([path, a]) => (a.kind === 'file' ? [{ path, text: a.text }] : []))
  const crlf = files.filter((f) => f.text.includes('\r'))
  const seen = crlf.length ? await readAsGitSees(root, crlf) : new Map<string, { blob: string; text: string }>()
  for (const [path, v] of seen) at.set(path, { kind: 'file', text: v.text })
  const candidates = files.filter((f) => {
    const a = at.get(f.path)
    return a?.kind === 'file' && committed(f.path, a.text)
  })
  const owned = new Set<string>()
  if (!candidates.length) return { at, committed: owned }
  let head: Map<string, { oid: string }>
  try {
    head = await readTreeEntries(
      root,
      'HEAD',
      candidates.map((c) => c.path),
    )
  } catch {
    return { at, committed: owned } // no commit yet
  }
  const blobs = await readAsGitSees(
    root,
    candidates.filter((c) => head.has(c.path)),
  )
  for (const [path, v] of blobs) if (head.get(path)?.oid === v.blob) owned.add(path)
  return { at, committed: owned }
}

/** Write the plan for `targets`; with `dryRun`, report what would change and write nothing. */
export async function applyRender(
  root: string,
  commonDir: string,
  plan: RenderPlan,
  targets: readonly RenderTarget[],
  dryRun = false,
): Promise<RenderResult> {
  const manifest = readRenderManifest(commonDir)
  // Files are written whole through a scratch directory: a kill leaves each old or new, never a truncated CLAUDE.md.
  const scratch = dryRun ? undefined : scratchDir(commonDir)
  const result: RenderResult = { written: [], unchanged: [], removed: [], skipped: [], unbalanced: [] }
  const skills = new Set([...Object.keys(plan.skillLines), ...(manifest?.skillLines ?? [])])
  // Everything render writes is an LF blob, written as git checks that blob out there (core.autocrlf, eol and text
  // attributes): `git add` then stores it as it is, and core.safecrlf has nothing to refuse ("LF would be replaced by
  // CRLF") nor to warn about. Asked of git once, and only when something is written.
  let converting: Promise<Set<string>> | undefined
  const write = async (rel: string, text: string) => {
    converting ??= convertingPaths(root, [
      ...plan.files.map((f) => f.path),
      AGENTS_FILE,
      CLAUDE_MD_FILE,
      ...[...skills].map(skillFilePath),
    ])
    const bytes = (await converting).has(rel) ? asCheckedOut(root, rel, text) : text
    writeFileNoClobber(join(root, rel), bytes, true, scratch)
  }
  const listed = (rel: string, text: string) => {
    const h = manifest?.files.get(rel)
    const next = manifest?.next.get(rel)
    if (next !== undefined && next === sha256(text)) return true
    // A first-format manifest has no hashes: the path listed there and the marker in the file, once, until rewritten.
    return h === undefined ? false : h === null ? isRendered(text) : h === sha256(text)
  }
  const content = new Map(plan.files.map((f) => [f.path, f.content]))
  const { at: looked, committed } = await lookAll(
    root,
    [...new Set([...content.keys(), ...(manifest?.files.keys() ?? [])])],
    (rel, text) => content.has(rel) && text !== content.get(rel) && !listed(rel, text) && isRendered(text),
  )
  const owns = (rel: string, text: string) => listed(rel, text) || committed.has(rel)
  const kept = new Map<string, string>()
  const planned = new Set(plan.files.map((f) => f.path))
  if (!dryRun) {
    // Before a file is written, what is about to be: a render that stops part way (a full disk, a folder in the way)
    // leaves files no finished manifest lists, and the next render would neither own nor remove them (a pruned
    // learning's skill left where agents read it). Files already listed keep their old hash beside the new one.
    const files = new Map<string, string>()
    for (const [rel, h] of manifest?.files ?? []) if (h !== null) files.set(rel, h)
    const next = new Map<string, string>()
    for (const f of plan.files) {
      const h = sha256(f.content)
      if (files.has(f.path)) next.set(f.path, h)
      else files.set(f.path, h)
    }
    writeRenderManifest(commonDir, scratch, {
      targets,
      files,
      next,
      agents: (manifest?.agents ?? false) || plan.agentsSection !== null,
      claudeMd: (manifest?.claudeMd ?? false) || plan.claudeMdSection !== null,
      skillLines: [...new Set([...(manifest?.skillLines ?? []), ...Object.keys(plan.skillLines)])],
    })
  }
  for (const f of plan.files) {
    const at = looked.get(f.path) as ReturnType<typeof look>
    if (at.kind === 'file' && at.text === f.content) {
      result.unchanged.push(f.path)
      kept.set(f.path, sha256(f.content))
      continue
    }
    if (
      at.kind === 'foreign' ||
      (at.kind === 'file' && !owns(f.path, at.text)) ||
      !noSymlinkOnPath(root, dirname(f.path))
    ) {
      result.skipped.push(f.path)
      continue
    }
    if (!dryRun) {
      makeDirs(dirname(join(root, f.path)))
      await write(f.path, f.content)
    }
    result.written.push(f.path)
    kept.set(f.path, sha256(f.content))
  }
  for (const rel of [...(manifest?.files.keys() ?? [])].sort()) {
    if (planned.has(rel)) continue
    const at = looked.get(rel) as ReturnType<typeof look>
    if (at.kind !== 'file' || !owns(rel, at.text)) continue // gone already, or not ours any more: left alone
    if (!dryRun) {
      unlinkSync(join(root, rel))
      removeEmptyDirs(root, dirname(rel))
    }
    result.removed.push(rel)
  }
  // The marked sections of files that are the user's: AGENTS.md (agents) and CLAUDE.md (claude-md).
  const sections: [string, string | null, boolean][] = [
    [AGENTS_FILE, plan.agentsSection, manifest?.agents ?? false],
    [CLAUDE_MD_FILE, plan.claudeMdSection, manifest?.claudeMd ?? false],
  ]
  const keptSections = new Set<string>()
  for (const [file, section, before] of sections) {
    const at = await lookAsGitSees(root, file)
    if (section !== null) {
      const current = at.kind === 'file' ? at.text : null
      const spliced = spliceAgentsSection(current, section)
      const next = spliced === undefined ? undefined : inLineEndingsOf(current, spliced)
      if (at.kind === 'foreign') result.skipped.push(file)
      else if (next === undefined) {
        // Markers out of balance: which text is ours is a guess, and a wrong guess loses the user's. Nothing written.
        result.skipped.push(file)
        result.unbalanced.push(file)
        if (before) keptSections.add(file)
      } else {
        keptSections.add(file)
        if (next === current) result.unchanged.push(file)
        else {
          if (!dryRun) await write(file, next)
          result.written.push(file)
        }
      }
    } else if (before && at.kind === 'file') {
      // The target was dropped: its section goes, the rest of the file stays byte for byte.
      const next = removeAgentsSection(at.text)
      if (next !== undefined) {
        if (!dryRun) await write(file, next)
        result.removed.push(file)
      } else if (locateSection(at.text).kind === 'unbalanced') {
        result.skipped.push(file)
        result.unbalanced.push(file)
        keptSections.add(file)
      }
    }
  }
  // The one marked line in each hand-written SKILL.md that has folded learnings; taken out where none are left.
  const lined: string[] = []
  for (const skill of skills) {
    const file = skillFilePath(skill)
    const at = await lookAsGitSees(root, file)
    if (at.kind !== 'file') {
      if (plan.skillLines[skill] !== undefined) result.skipped.push(file)
      continue
    }
    const next = inLineEndingsOf(at.text, spliceSkillLine(at.text, plan.skillLines[skill] ?? null))
    if (plan.skillLines[skill] !== undefined) lined.push(skill)
    if (next === at.text) continue
    if (!dryRun) await write(file, next)
    ;(plan.skillLines[skill] !== undefined ? result.written : result.removed).push(file)
  }
  if (!dryRun)
    writeRenderManifest(commonDir, scratch, {
      targets,
      files: kept,
      next: new Map(),
      agents: keptSections.has(AGENTS_FILE),
      claudeMd: keptSections.has(CLAUDE_MD_FILE),
      skillLines: lined,
    })
  return result
}

/**
 * Record what render wrote (render-manifest.json, paths sorted), or with `next` what it is about to write; unwritten
 * (a read-only git dir) the next render owns only the files that already hold what it would write.
 */
function writeRenderManifest(
  commonDir: string,
  scratch: string | undefined,
  m: {
    targets: readonly RenderTarget[]
    files: ReadonlyMap<string, string>
    next: ReadonlyMap<string, string>
    agents: boolean
    claudeMd: boolean
    skillLines: readonly string[]
  },
): void {
  const sorted = (map: ReadonlyMap<string, string>) => Object.fromEntries([...map].sort(([a], [b]) => (a < b ? -1 : 1)))
  try {
    mkdirSync(join(commonDir, 'learn'), { recursive: true })
    const record = {
      version: 2,
      targets: [...m.targets],
      files: sorted(m.files),
      ...(m.next.size ? { next: sorted(m.next) } : {}),
      agents: m.agents,
      claudeMd: m.claudeMd,
      skillLines: [...m.skillLines].sort(),
    }
    writeFileNoClobber(join(commonDir, 'learn', MANIFEST_FILE), `${JSON.stringify(record, null, 2)}\n`, true, scratch)
  } catch {
    // The next render owns only files that already hold what it would write.
  }
}

/** Remove `dir` and its parents up to the target's own directory while they are empty (a skill directory, its references/). */
function removeEmptyDirs(root: string, dir: string): void {
  for (let d = dir; /^\.claude\/skills\/[^/]+(\/references)?$/.test(d); d = dirname(d)) {
    if (!noSymlinkOnPath(root, d)) return
    try {
      if (readdirSync(join(root, d)).length) return
      rmdirSync(join(root, d))
    } catch {
      return
    }
  }
}
