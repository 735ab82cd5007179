/**
 * Applying a render plan to the work tree. Ownership is by marker: a file is git learn's when it carries the render
 * marker (core/check-zones isRendered); anything else at a target path is left alone and reported. Files of the
 * selected targets that carry the marker but are no longer planned are removed (with their skill directory when it
 * is left empty). The list of written files is also kept in `<common dir>/learn/render-manifest.json`.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { isRendered } from '../../core/check-zones.js'
import { AGENTS_FILE, spliceAgentsSection } from '../../core/render.js'
import type { RenderPlan, RenderTarget } from '../../core/render.js'

export interface RenderResult {
  written: string[]
  unchanged: string[]
  removed: string[]
  /** Target paths holding a file git learn did not write: left alone. */
  skipped: string[]
}

const TARGET_OF: [RegExp, RenderTarget][] = [
  [/^\.claude\/skills\//, 'claude'],
  [/^\.cursor\/rules\//, 'cursor'],
  [/^\.github\/instructions\//, 'copilot'],
]

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

/** Repository-relative paths of rendered files already in the work tree, for the given targets. */
function findRendered(root: string, targets: ReadonlySet<RenderTarget>): string[] {
  const out: string[] = []
  const scan = (dir: string, pick: (entry: string) => string | undefined) => {
    let entries: string[]
    try {
      entries = readdirSync(join(root, dir))
    } catch {
      return
    }
    for (const e of entries) {
      const rel = pick(e)
      if (!rel) continue
      const text = readText(join(root, rel))
      if (text !== undefined && isRendered(text)) out.push(rel)
    }
  }
  if (targets.has('claude')) scan('.claude/skills', (e) => `.claude/skills/${e}/SKILL.md`)
  if (targets.has('cursor')) scan('.cursor/rules', (e) => (e.endsWith('.mdc') ? `.cursor/rules/${e}` : undefined))
  if (targets.has('copilot')) scan('.github/instructions', (e) => (e.endsWith('.instructions.md') ? `.github/instructions/${e}` : undefined))
  return out
}

/** A path is safe to write when no component on the way is a symbolic link. */
function noSymlinkOnPath(root: string, rel: string): boolean {
  let cur = root
  for (const part of rel.split('/')) {
    cur = join(cur, part)
    try {
      if (lstatSync(cur).isSymbolicLink()) return false
    } catch {
      return true
    }
  }
  return true
}

/** Write the plan for `targets`; with `dryRun`, report what would change and write nothing. */
export function applyRender(root: string, commonDir: string, plan: RenderPlan, targets: readonly RenderTarget[], dryRun = false): RenderResult {
  const on = new Set(targets)
  const result: RenderResult = { written: [], unchanged: [], removed: [], skipped: [] }
  const planned = new Set(plan.files.map((f) => f.path))
  for (const f of plan.files) {
    const abs = join(root, f.path)
    const current = readText(abs)
    if (current === f.content) {
      result.unchanged.push(f.path)
      continue
    }
    if ((current !== undefined && !isRendered(current)) || (existsSync(abs) && current === undefined) || !noSymlinkOnPath(root, f.path)) {
      result.skipped.push(f.path)
      continue
    }
    if (!dryRun) {
      mkdirSync(dirname(abs), { recursive: true })
      writeFileSync(abs, f.content)
    }
    result.written.push(f.path)
  }
  for (const rel of findRendered(root, on).sort()) {
    if (planned.has(rel) || !TARGET_OF.some(([re, t]) => re.test(rel) && on.has(t))) continue
    if (!dryRun) {
      unlinkSync(join(root, rel))
      if (rel.startsWith('.claude/skills/')) {
        try {
          rmdirSync(join(root, dirname(rel)))
        } catch {
          // Not empty: the user keeps other files there.
        }
      }
    }
    result.removed.push(rel)
  }
  if (plan.agentsSection !== null) {
    const abs = join(root, AGENTS_FILE)
    const current = readText(abs) ?? null
    const next = spliceAgentsSection(current, plan.agentsSection)
    if (next === current) result.unchanged.push(AGENTS_FILE)
    else if (!noSymlinkOnPath(root, AGENTS_FILE)) result.skipped.push(AGENTS_FILE)
    else {
      if (!dryRun) writeFileSync(abs, next)
      result.written.push(AGENTS_FILE)
    }
  }
  if (!dryRun) {
    try {
      mkdirSync(join(commonDir, 'learn'), { recursive: true })
      const files = [...plan.files.map((f) => f.path).filter((p) => !result.skipped.includes(p)), ...(plan.agentsSection !== null ? [AGENTS_FILE] : [])].sort()
      writeFileSync(join(commonDir, 'learn', 'render-manifest.json'), `${JSON.stringify({ files }, null, 2)}\n`)
    } catch {
      // The manifest is informational; ownership is decided by the marker.
    }
  }
  return result
}
