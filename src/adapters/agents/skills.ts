/**
 * The skills a team wrote by hand under `.claude/skills/<skill>/SKILL.md`: every skill directory there that render
 * did not write (its manifest says which it wrote), read without following a symbolic link, with the description of
 * its frontmatter. A malformed SKILL.md still counts as a skill (with no description): it is the team's.
 */
import { lstatSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { parseYamlMapping, splitFrontmatter } from '../../core/learning.js'
import { NAME_PATTERN } from '../../core/names.js'
import type { HandSkill } from '../../core/skills.js'
import { skillFilePath } from '../../core/skills.js'
import { readRenderManifest } from './render.js'

const MAX_SKILL_BYTES = 256 * 1024

export function readHandSkills(root: string, commonDir: string): HandSkill[] {
  const dir = join(root, '.claude', 'skills')
  for (const d of [join(root, '.claude'), dir]) if (!lstatSync(d, { throwIfNoEntry: false })?.isDirectory()) return []
  const ours = new Set(readRenderManifest(commonDir)?.files.keys() ?? [])
  const out: HandSkill[] = []
  for (const name of readdirSync(dir).sort()) {
    if (!NAME_PATTERN.test(name) || ours.has(skillFilePath(name))) continue
    if (!lstatSync(join(dir, name)).isDirectory()) continue
    const st = lstatSync(join(dir, name, 'SKILL.md'), { throwIfNoEntry: false })
    if (!st?.isFile() || st.size > MAX_SKILL_BYTES) continue
    let description = ''
    try {
      const data = parseYamlMapping(splitFrontmatter(readFileSync(join(dir, name, 'SKILL.md'), 'utf8')).matter)
      if (typeof data['description'] === 'string') description = data['description']
    } catch {
      // Not our file to judge: a skill with no readable description.
    }
    out.push({ name, description })
  }
  return out
}
