import { expect, test } from 'vitest'
import { PROBLEMS_LISTED, warnProblems } from '../../../../src/cli/messages/feed.js'

const problem = (i: number, reason: string) => ({ path: `.learnings/active/f-${i}.md`, reason })

test('a few skipped files are named one line each', () => {
  const out = warnProblems([problem(1, 'malformed YAML frontmatter: bad'), problem(2, 'withheld from agents: a key')])
  expect(out.split('\n').filter(Boolean)).toEqual([
    'warning: .learnings/active/f-1.md: malformed YAML frontmatter: bad (skipped; `git learn check` explains)',
    'warning: .learnings/active/f-2.md: withheld from agents: a key (skipped; `git learn check` explains)',
  ])
  expect(warnProblems([])).toBe('')
  // A tier's problems: `git learn check` reads the project's store, not a tier's, so it is not named.
  expect(
    warnProblems([
      { path: 'org:.learnings/active/x.md', reason: 'invalid learning: type' },
      { path: 'refs/learn/tiers/org', reason: 'its objects cannot be read (git said: fatal: x)' },
    ]),
  ).toBe(
    'warning: org:.learnings/active/x.md: invalid learning: type (skipped)\n' +
      'warning: refs/learn/tiers/org: its objects cannot be read (git said: fatal: x) (skipped)\n',
  )
})

test('past the first few, the rest are one line counted by kind, the most frequent first', () => {
  const many = [
    ...Array.from({ length: PROBLEMS_LISTED }, (_v, i) => problem(i, 'malformed YAML frontmatter: x')),
    ...Array.from({ length: 3 }, (_v, i) => problem(100 + i, 'withheld from agents: it holds a credential (line 3)')),
    ...Array.from({ length: 200 }, (_v, i) => problem(200 + i, 'malformed YAML frontmatter: Invalid escape')),
    problem(999, 'the file is not valid UTF-8 text; save it as UTF-8'),
  ]
  const lines = warnProblems(many).split('\n').filter(Boolean)
  expect(lines).toHaveLength(PROBLEMS_LISTED + 1)
  expect(lines[PROBLEMS_LISTED]).toBe(
    'warning: 204 more files skipped (200 malformed YAML frontmatter, 3 withheld from agents, 1 the file is not valid UTF-8 text); `git learn check` lists each',
  )
})
