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
})
