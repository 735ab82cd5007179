/** The `rendered` rule, apart from check.ts: it loads the renderer (and YAML), which the hooks never need. */
import type { CheckFile, Finding } from './check.js'
import { finding } from './check.js'
import { isRendered } from './check-zones.js'
import type { Learning } from './learning.js'
import { renderSkill } from './render.js'

/**
 * Rendered skills in the tree that no longer say what the store says: a `.claude/skills/<name>/SKILL.md` rendered by
 * git learn (reported, never owned, by its marker) whose learning is not active any more, or whose text differs from
 * what `git learn render` writes for it now. Agents would read the old version. A file's text is read as git reads it
 * (the caller's: a CRLF checkout of what render wrote compares equal), as render compares it.
 */
export function checkRendered(
  files: readonly CheckFile[],
  learnings: readonly Learning[],
  tiers: readonly { tier: string; learning: Learning }[] = [],
): Finding[] {
  // A project learning first, as render folds them; then a tier's, rendered with its tier's mark.
  const active = new Map<string, { l: Learning; tier?: string }>()
  for (const t of tiers) if (!active.has(t.learning.name)) active.set(t.learning.name, { l: t.learning, tier: t.tier })
  for (const l of learnings) if (l.state === 'active') active.set(l.name, { l })
  const out: Finding[] = []
  for (const f of files) {
    const name = skillName(f)
    if (!name) continue
    const found = active.get(name)
    if (!found)
      out.push(
        finding(
          'rendered',
          f.path,
          1,
          `${f.path} was rendered from ${name}, which is no longer active, and agents still read it: run \`git learn render\` (it removes the file) and commit, or \`git rm ${f.path}\``,
        ),
      )
    else if (renderSkill(found.l, found.tier).content !== f.text)
      out.push(
        finding(
          'rendered',
          f.path,
          1,
          `${f.path} is out of date: ${found.tier ? `${found.tier}:` : ''}${found.l.path} changed since it was rendered (or another version of git-learn rendered it: one before 2026-12-07 leaves a tier's learning unmarked), and agents read the old text: run \`git learn render\` and commit ${f.path}`,
        ),
      )
  }
  return out
}

/** The learning a file is the rendered skill of (its `.claude/skills/<name>/SKILL.md` path and render's marker). */
function skillName(f: CheckFile): string | undefined {
  const name = /^\.claude\/skills\/([^/]+)\/SKILL\.md$/.exec(f.path)?.[1]
  return name && f.text !== undefined && isRendered(f.text) ? name : undefined
}

/** The names of the rendered skills among `files`. */
export function renderedSkillNames(files: readonly CheckFile[]): string[] {
  return files.map(skillName).filter((n): n is string => n !== undefined)
}
