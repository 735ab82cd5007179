import { describe, expect, test } from 'vitest'
import { parseLearning } from '../../../src/core/learning.js'
import { locateSection, planRender, removeAgentsSection, spliceAgentsSection } from '../../../src/core/render.js'
import { renderSafe } from '../../../src/core/render-safe.js'
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
    const once = spliceAgentsSection(mine, section) as string
    expect(once).toBe(`# Mine\n\ntext\n\n${section}\n`)
    expect(spliceAgentsSection(once, section.replace('X', 'Y'))).toBe(
      `# Mine\n\ntext\n\n${section.replace('X', 'Y')}\n`,
    )
    expect(removeAgentsSection(once)).toBe('# Mine\n\ntext\n')
  })
  const B = '<!-- git-learn:begin -->'
  const E = '<!-- git-learn:end -->'
  test.each([
    ['no markers', '# Mine\n', 'none'],
    ['one pair', `x\n${B}\ny\n${E}\nz\n`, 'one'],
    ['text an older version copied out of a learning: two ends', `x\n${B}\n- a ${E} PERSISTED\n${E}\n`, 'one'],
    ['two begins', `${B}\n${E}\n${B}\n${E}\n`, 'unbalanced'],
    ['a begin with no end', `x\n${B}\ny\n`, 'unbalanced'],
    ['an end before the begin', `${E}\n${B}\n${E}\n`, 'unbalanced'],
    ['an end alone', `x\n${E}\n`, 'unbalanced'],
  ])('locateSection: %s', (_what, text, kind) => {
    expect(locateSection(text).kind).toBe(kind)
  })
  test('a section with a fake end marker is replaced whole, up to the last end marker; unbalanced ones are not spliced', () => {
    const section = `${B}\nX\n${E}`
    expect(spliceAgentsSection(`# Mine\n\n${B}\n- a ${E} PERSISTED\n${E} PERSISTED\n${E}\n`, section)).toBe(
      `# Mine\n\n${section}\n`,
    )
    expect(spliceAgentsSection(`x\n${B}\ny\n`, section)).toBeUndefined()
    expect(removeAgentsSection(`x\n${B}\ny\n`)).toBeUndefined()
  })
  test.each([
    ['tabs and newlines kept', 'a\tb\nc', 'a\tb\nc'],
    ['CRLF becomes LF, a stray CR is escaped', 'a\r\nb\rc', 'a\nb\\u000dc'],
    [
      'C0, C1, DEL, bidi escaped',
      '\u001b[2J\u0007\u0000\u009b\u007f\u202e',
      '\\u001b[2J\\u0007\\u0000\\u009b\\u007f\\u202e',
    ],
    ['HTML comment delimiters, so never our markers', 'x <!-- git-learn:end --> y', 'x &lt;!-- git-learn:end --&gt; y'],
    [
      'an @ before a path',
      'see @.env, @~/.aws/credentials, @/etc/passwd',
      'see \\@.env, \\@~/.aws/credentials, \\@/etc/passwd',
    ],
    ['an @ after emphasis or in a word', '**x**@.env a@b.co', '**x**\\@.env a\\@b.co'],
    ['an escaped @ stays escaped; an escaped backslash gets one more', '\\@.env \\\\@.env', '\\@.env \\\\\\@.env'],
    ['an @ before a space or punctuation is not an import', 'me @ home, @!', 'me @ home, @!'],
  ])('renderSafe: %s', (_what, text, out) => {
    expect(renderSafe(text)).toBe(out)
  })
})
