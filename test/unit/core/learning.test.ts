import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { loadLearningValidator } from '../../../src/adapters/store/validators.js'
import { LearningParseError } from '../../../src/core/errors.js'
import { LEARNING_TYPES, REQUIRED_SECTIONS } from '../../../src/core/learning-schema.js'
import {
  formatLearningFile,
  parseLearning,
  parseSections,
  parseStorePath,
  sectionText,
  validateLearning,
} from '../../../src/core/learning.js'

const validator = await loadLearningValidator()
const body = '## Problem\np\n\n## Trigger Conditions\nt\n\n## Root Cause\nr\n\n## Solution\ns\n\n## Verification\nv\n'
const file = (fm: string, b = body) => `---\n${fm}\n---\n${b}`
const base =
  'name: x-y\ndescription: Fix x. Use when y.\ntype: error-solution\ntrigger: "Error: boom"\ncreated: "2026-11-20"'
const check = (text: string, path = '.learnings/pending/x-y.md') =>
  validateLearning(parseLearning(text, path), validator)

describe('valid frontmatter', () => {
  test.each([
    ['minimal error-solution', file(base)],
    ['unquoted date stays a string', file(base.replace('"2026-11-20"', '2026-11-20'))],
    ['29 February of a leap year', file(base.replace('"2026-11-20"', '"2028-02-29"'))],
    ['29 February of a year 400 divides', file(base.replace('"2026-11-20"', '"2000-02-29"'))],
    [
      'every documented key',
      file(
        `${base}\ndomain: testing\ntags: [vitest, esm]\nconfidence: 0.6\ngates: {discovery_depth: 2, reusability: [a, b], verification: "npm test"}\nevidence: {commit: 3f2c1e9, paths: [a.ts]}\nsource: {kind: retrospective, agent: claude-code, session: s1}\nrelated: [other-one]\nsupersedes: []\nversion: 1.0.0`,
      ),
    ],
    [
      'a list of triggers',
      file(base.replace('trigger: "Error: boom"', 'trigger:\n  - "Error: boom"\n  - "boom: exit code 3"')),
    ],
    [
      'a decision needs no trigger',
      file(
        'name: x-y\ndescription: d\ntype: decision\ncreated: "2026-11-20"',
        '## Context\nc\n## Decision\nd\n## Consequences\nc\n',
      ),
    ],
  ])('%s', (_l, text) => {
    expect(check(text)).toEqual({ errors: [], warnings: [] })
  })
})

describe('invalid frontmatter: sentences that name the field and the fix', () => {
  test.each([
    ['missing description', file(base.replace('description: Fix x. Use when y.\n', ''))],
    ['unknown type', file(base.replace('type: error-solution', 'type: recipe'))],
    ['missing trigger for error-solution', file(base.replace('trigger: "Error: boom"\n', ''))],
    ['trigger neither a string nor a list', file(base.replace('trigger: "Error: boom"', 'trigger: 5'))],
    ['an empty trigger in a list', file(base.replace('trigger: "Error: boom"', 'trigger: ["Error: boom", ""]'))],
    ['confidence out of range', file(`${base}\nconfidence: 1.5`)],
    ['tags not a list', file(`${base}\ntags: vitest`)],
    ['bad date', file(base.replace('"2026-11-20"', '"20/11/2026"'))],
    ['description too long', file(base.replace('Fix x. Use when y.', 'a'.repeat(1025)))],
    ['name differs from file', file(base.replace('name: x-y', 'name: other-name'))],
    ['bad related name', file(`${base}\nrelated: ["../etc"]`)],
    ['missing sections', file(base, '## Problem\nonly this\n')],
  ])('%s', (_l, text) => {
    const { errors } = check(text)
    expect(errors.length).toBeGreaterThan(0)
    expect(errors.join('\n')).toMatchSnapshot()
  })
  // Date.parse reads 2026-02-30 as 2 March: the pattern of the schema alone let such a day through.
  test.each([
    ['"2026-02-30"', 'field "created" is "2026-02-30", which is not a day of the calendar (February 2026 has 28 days)'],
    ['2026-02-29', 'field "created" is "2026-02-29", which is not a day of the calendar (February 2026 has 28 days)'],
    ['"1900-02-29"', 'field "created" is "1900-02-29", which is not a day of the calendar (February 1900 has 28 days)'],
    ['"2026-04-31"', 'field "created" is "2026-04-31", which is not a day of the calendar (April 2026 has 30 days)'],
    ['"2026-13-01"', 'field "created" is "2026-13-01", which has no month 13'],
    ['"2026-12-00"', 'field "created" is "2026-12-00", which is not a day of the calendar (December 2026 has 31 days)'],
  ])('created: %s is refused as no day of the calendar', (created, sentence) => {
    const { errors } = check(file(base.replace('"2026-11-20"', created)))
    expect(errors).toEqual([`${sentence}; write the day it was created`])
  })
  test.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'a type named like an Object property (%s) is a schema error, not a crash',
    (type) => {
      const { errors } = check(file(base.replace('type: error-solution', `type: ${type}`)))
      expect(errors.join('\n')).toMatch(/type/)
    },
  )
  test('a list of more than 20 triggers is told so, with how many it lists', () => {
    const many = Array.from({ length: 21 }, (_, i) => `  - "Error: boom ${i}"`).join('\n')
    const { errors } = check(file(base.replace('trigger: "Error: boom"', `trigger:\n${many}`)))
    expect(errors).toEqual([
      'field "trigger" may list at most 20 triggers, and it lists 21: keep the forms of the error that differ most',
    ])
  })
  test('unknown keys are kept and warned about', () => {
    const text = file(`${base}\nowner: team-a`)
    const l = parseLearning(text, '.learnings/pending/x-y.md')
    expect(l.data['owner']).toBe('team-a')
    expect(validateLearning(l, validator)).toEqual({
      errors: [],
      warnings: ['unknown frontmatter key "owner" is kept but not used; check its spelling'],
    })
  })
})

describe('parse errors', () => {
  test.each([
    ['no frontmatter', '# just markdown\n', /no YAML frontmatter/],
    ['unclosed frontmatter', '---\nname: x\n', /not closed|malformed/],
    ['malformed YAML', '---\nname: [x\n---\nbody\n', /malformed YAML frontmatter/],
    ['duplicate key', '---\nname: a\nname: b\n---\n', /malformed YAML/],
    ['a list, not a mapping', '---\n- a\n- b\n---\n', /mapping/],
    [
      'alias bomb',
      `---\na: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n---\n`,
      /malformed YAML|alias/i,
    ],
  ])('%s', (_l, text, reason) => {
    expect(() => parseLearning(text, '.learnings/pending/x.md')).toThrow(LearningParseError)
    expect(() => parseLearning(text, '.learnings/pending/x.md')).toThrow(reason)
  })
  test('the error names the line of bad YAML', () => {
    try {
      parseLearning('---\nname: x\ntags: [a\n---\n', '.learnings/pending/x.md')
      expect.unreachable()
    } catch (e) {
      expect((e as LearningParseError).line).toBeGreaterThan(1)
    }
  })
  // The parser counts lines from the block it was given, one short of the file's: only the file's line is named.
  test("the reason does not add the parser's own line and column to the line of the file", () => {
    try {
      parseLearning('---\nname: [\n---\n', '.learnings/pending/x.md')
      expect.unreachable()
    } catch (e) {
      expect((e as LearningParseError).line).toBe(3)
      expect((e as LearningParseError).reason).toMatch(/^malformed YAML frontmatter: \S/)
      expect((e as LearningParseError).reason).not.toMatch(/line \d|column|:$/)
    }
  })
})

test('a NUL character anywhere is refused, with its line (check calls such a file binary)', () => {
  const text = file(base, body.replace('p\n', 'p\u0000q\n'))
  expect(() => parseLearning(text, '.learnings/pending/x-y.md')).toThrow(/holds a NUL character/)
  try {
    parseLearning(text, '.learnings/pending/x-y.md')
  } catch (e) {
    expect((e as LearningParseError).line).toBe(9)
  }
})

describe('an unresolved merge conflict', () => {
  const conflicted = (b: string) => file(base, b)
  test.each([
    ['in the body, with labels', `## Solution\n<<<<<<< HEAD\nRun A.\n=======\nRun B.\n>>>>>>> a\n`, 9],
    [
      'diff3 style, CRLF',
      '## Solution\r\n<<<<<<< ours\r\nA\r\n||||||| base\r\nO\r\n=======\r\nB\r\n>>>>>>> theirs\r\n',
      9,
    ],
    ['bare markers', '<<<<<<<\nA\n=======\nB\n>>>>>>>\n', 8],
    ['the two sides change a fence', '<<<<<<< HEAD\n```sh\n=======\n```bash\n>>>>>>> feature\nrun it\n```\n', 8],
  ])('%s: refused with the line and the fix', (_l, b, line) => {
    try {
      parseLearning(conflicted(b), '.learnings/pending/x-y.md')
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(LearningParseError)
      expect((e as LearningParseError).reason).toMatch(/unresolved merge conflict.*`git add`/)
      expect((e as LearningParseError).line).toBe(line)
    }
  })
  test('in the frontmatter: named as a conflict, not as bad YAML', () => {
    const text = '---\n<<<<<<< HEAD\nname: x-y\n=======\nname: x-z\n>>>>>>> b\n---\nbody\n'
    expect(() => parseLearning(text, '.learnings/pending/x-y.md')).toThrow(/unresolved merge conflict/)
  })
  test.each([
    ['an opening line alone', '<<<<<<< HEAD\nA\n'],
    ['a closing line alone', '>>>>>>> a\n'],
    ['a setext heading', 'Title\n=======\n'],
    ['markers not at the start of a line', 'x <<<<<<< HEAD\nA\n x >>>>>>> a\n'],
    ['eight of them', '<<<<<<<< HEAD\nA\n>>>>>>>> a\n'],
    ['no "=======" between them', '<<<<<<< HEAD\nA\n>>>>>>> a\n'],
    ['quoted in a fenced block', '```text\n<<<<<<< HEAD\nA\n=======\nB\n>>>>>>> feature\n```\n'],
    ['quoted in a tilde fence', '~~~\n<<<<<<< HEAD\nA\n=======\nB\n>>>>>>> feature\n~~~\n'],
  ])('not a conflict: %s', (_l, extra) => {
    expect(() => parseLearning(conflicted(body + extra), '.learnings/pending/x-y.md')).not.toThrow()
  })
})

test('sections ignore headings inside code fences', () => {
  expect(parseSections('## A\n```md\n## Not\n```\n## B ##\n### C\n')).toEqual(['A', 'B'])
  expect(sectionText('## Solution\nDo D.\n\n## Verification\nok', 'solution')).toBe('Do D.')
})

test('sections: indented and tilde fences, a fence closed by a longer one, headings with trailing hashes', () => {
  const body = '  ```\n## In\n   ````\n## A #\n~~~\n## In\n~~~~\n##  B  ##  \n#### C\n##D\n ## E\n## F `x`\n'
  expect(parseSections(body)).toEqual(['A', 'B', 'F `x`'])
  expect(sectionText(body, 'a')).toBe('~~~')
  expect(sectionText(body, 'F `x`')).toBe('')
  expect(sectionText(body, 'In')).toBe('````')
})

// A heading line that goes on after a run of blanks: `/^##\s+(.+?)\s*#*\s*$/` tried every split of the run between
// its tails at every length of the heading (3,000 blanks: 7 s in check; 20,000: hours), and sectionText's own
// `\s*#*\s*$` every split of the run (300,000 tabs: minutes). This test timed out (vitest's 5 s) before; one pass now.
test('sections: a heading line with a long run of blanks inside is read in one pass', () => {
  const blanks = ' '.repeat(20_000)
  const b = `## Problem\np\n\n## Solution x${blanks}y ##  \ns\n\n## Solution${'\t'.repeat(300_000)}x\nt\n`
  expect(parseSections(b)).toEqual(['Problem', `Solution x${blanks}y`, `Solution${'\t'.repeat(300_000)}x`])
  expect(parseSections(`~\n${b}`)).toEqual(parseSections(b))
  expect(sectionText(b, 'Solution')).toBeUndefined()
  expect(sectionText(`${b}## Solution ${blanks}##${blanks}\nfound\n`, 'Solution')).toBe('found')
})

test('store paths', () => {
  expect(parseStorePath('.learnings/active/x-y.md')).toEqual({ state: 'active', name: 'x-y' })
  expect(parseStorePath('.learnings/x.md')).toBeUndefined()
  expect(parseStorePath('docs/.learnings/active/x.md')).toBeUndefined()
})

test('formatLearningFile round-trips and quotes dates', () => {
  const text = formatLearningFile(
    { type: 'decision', name: 'x-y', description: 'd: with colon', created: '2026-11-20', extra: 1 },
    '## Context\nc\n',
  )
  expect(text).toContain('created: "2026-11-20"')
  expect(text.indexOf('name:')).toBeLessThan(text.indexOf('type:'))
  const l = parseLearning(text, '.learnings/pending/x-y.md')
  expect(l.data).toEqual({
    name: 'x-y',
    description: 'd: with colon',
    type: 'decision',
    created: '2026-11-20',
    extra: 1,
  })
  expect(l.body).toBe('## Context\nc\n')
})

// Runs of blanks within a learning's 1 MB: `/^\s*#[^\n]+/gm` (frontmatter of only comments) was tried from every line
// of a run of blank lines and `/\s*$/` (the body's end) from every character of a run of blanks, each try running
// over the rest of the run: 300,000 of them took minutes, and this test timed out (vitest's 5 s). Now one pass each.
test('300,000 blank lines before the frontmatter, and 300,000 blanks inside a body, are read in one pass', () => {
  const blankLines = '\n'.repeat(300_000)
  expect(parseLearning(`---${blankLines}# only a comment\n---\nbody\n`, '.learnings/pending/x-y.md').data).toEqual({})
  expect(parseLearning(file(`${blankLines}${base}`), '.learnings/pending/x-y.md').data['name']).toBe('x-y')
  const blanks = ' \t'.repeat(150_000)
  const text = formatLearningFile({ name: 'x-y', type: 'decision' }, `## Context\nc${blanks}d\n${blanks}\n\n`)
  expect(text.endsWith(`c${blanks}d\n`)).toBe(true)
})

test.each([...LEARNING_TYPES])('templates/%s.md carries the required sections of its type', (type) => {
  const text = readFileSync(new URL(`../../../templates/${type}.md`, import.meta.url), 'utf8')
  expect(parseSections(text)).toEqual(expect.arrayContaining([...REQUIRED_SECTIONS[type]]))
})
