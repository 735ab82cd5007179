import { describe, expect, test } from 'vitest'
import { parseLearning } from '../../../src/core/learning.js'
import { renderSkillReferences } from '../../../src/core/skills.js'
import { learningText } from '../../helpers/repo.js'

describe('renderSkillReferences', () => {
  test("the body's headings go one level down, under the learning's title; code in a fence stays as written", () => {
    const body =
      '## Problem\nIt broke.\n\n## Solution\n```sh\n# install the hooks\nnpm i @types/node\n```\n\n~~~\n# still code\n~~~\n\n# After\n'
    const l = parseLearning(learningText('hook-fix', { skill: 'deploy' }, body), '.learnings/active/hook-fix.md')
    const text = renderSkillReferences('deploy', [l])
    expect(text).toContain('## hook-fix\n')
    expect(text).toContain('### Problem\nIt broke.\n\n### Solution\n```sh\n# install the hooks\nnpm i @types/node\n```')
    expect(text).toContain('~~~\n# still code\n~~~\n\n## After')
  })

  // The body's indented code keeps its `@` (render-safe.ts): trimmed, its first line would be prose, an import.
  test('a body that starts with indented code keeps its indentation', () => {
    const l = parseLearning(
      learningText('indent-first', { skill: 'deploy' }, '\n    source @.env\n\n## Problem\nx @.env\n'),
      '.learnings/active/indent-first.md',
    )
    const text = renderSkillReferences('deploy', [l])
    expect(text).toContain('\n\n    source @.env\n\n### Problem\nx \\@.env\n')
  })

  // Bodies are joined in one file: one that leaves a fence open would make the next body's opening fence its close,
  // and that body's fenced `@` prose to Claude Code. Each body's open fence is closed where it ends.
  test("a body that leaves a fence open does not take the next body's fence", () => {
    const a = parseLearning(
      learningText('aaa-open', { skill: 'deploy' }, '## Problem\nx\n\n## Solution\n```sh\nnpm test\n'),
      '.learnings/active/aaa-open.md',
    )
    const b = parseLearning(
      learningText('bbb-at', { skill: 'deploy' }, '## Problem\ny\n\n## Solution\n```\nnpm i @types/node\n```\n'),
      '.learnings/active/bbb-at.md',
    )
    const text = renderSkillReferences('deploy', [a, b])
    expect(text).toMatch(/```sh\nnpm test\n```\n[\s\S]*## bbb-at[\s\S]*```\nnpm i @types\/node\n```/)
  })
})
