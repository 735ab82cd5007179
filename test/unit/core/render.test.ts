import { describe, expect, test } from 'vitest'
import { parseLearning } from '../../../src/core/learning.js'
import { planRender, removeAgentsSection, spliceAgentsSection } from '../../../src/core/render.js'
import { SEEDS, seedText } from '../../helpers/feed-store.js'

describe('render', () => {
  const learnings = SEEDS.filter((s) => (s.state ?? 'active') === 'active').map((s) =>
    parseLearning(seedText(s), `.learnings/active/${s.name}.md`),
  )
  test('the same learnings in any order give the same bytes', () => {
    const a = planRender(learnings, ['claude', 'cursor', 'copilot', 'agents'])
    const b = planRender([...learnings].reverse(), ['agents', 'copilot', 'cursor', 'claude'])
    expect(JSON.stringify(b)).toBe(JSON.stringify(a))
    expect(a.files.every((f) => !/\d{4}-\d{2}-\d{2}T/.test(f.content))).toBe(true)
  })
  test('skill names and descriptions follow the Agent Skills limits', () => {
    for (const f of planRender(learnings, ['claude']).files) {
      const name = /^name: (.+)$/m.exec(f.content)?.[1]
      expect(f.path).toBe(`.claude/skills/${name}/SKILL.md`)
      expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
      expect((/^description: (.+)$/m.exec(f.content)?.[1] ?? '').length).toBeLessThanOrEqual(1026)
    }
  })
  test('the AGENTS.md section is spliced and removed without touching the rest', () => {
    const section = '<!-- git-learn:begin -->\nX\n<!-- git-learn:end -->'
    expect(spliceAgentsSection(null, section)).toBe(`${section}\n`)
    const mine = '# Mine\n\ntext\n'
    const once = spliceAgentsSection(mine, section)
    expect(once).toBe(`# Mine\n\ntext\n\n${section}\n`)
    expect(spliceAgentsSection(once, section.replace('X', 'Y'))).toBe(
      `# Mine\n\ntext\n\n${section.replace('X', 'Y')}\n`,
    )
    expect(removeAgentsSection(once)).toBe('# Mine\n\ntext\n')
  })
})
