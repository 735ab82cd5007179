/** The `rendered` rule, apart from check.ts: it loads the renderer (and YAML), which the hooks never need. */
import type { CheckFile, Finding } from './check.js'
import { finding } from './check.js'
import { isRendered } from './check-zones.js'
import type { Learning } from './learning.js'
import { renderSkill } from './render.js'

/**
 * Rendered skills in the tree that no longer say what the store says: a `.claude/skills/<name>/SKILL.md` rendered by
 * git learn (reported, never owned, by its marker) whose learning is not active any more, or whose text differs from
 * what `git learn render` writes for it now. Agents would read the old version.
 */
export function checkRendered(files: readonly CheckFile[], learnings: readonly Learning[]): Finding[] {
  const active = new Map(learnings.filter((l) => l.state === 'active').map((l) => [l.name, l]))
  const out: Finding[] = []
  for (const f of files) {
    const name = /^\.claude\/skills\/([^/]+)\/SKILL\.md$/.exec(f.path)?.[1]
    if (!name || f.text === undefined || !isRendered(f.text)) continue
    const l = active.get(name)
    if (!l)
      out.push(
        finding(
          'rendered',
          f.path,
          1,
          `${f.path} was rendered from ${name}, which is no longer active, and agents still read it: run \`git learn render\` (it removes the file) and commit, or \`git rm ${f.path}\``,
        ),
      )
    else if (renderSkill(l).content !== f.text.replace(/\r\n/g, '\n'))
      out.push(
        finding(
          'rendered',
          f.path,
          1,
          `${f.path} is out of date: ${l.path} changed since it was rendered, and agents read the old text: run \`git learn render\` and commit ${f.path}`,
        ),
      )
  }
  return out
}
