import { describe, expect, test } from 'vitest'
import { parseLearning } from '../../../src/core/learning.js'
import { locateSection, planRender, removeAgentsSection, spliceAgentsSection } from '../../../src/core/render.js'
import { renderSafe, renderSafeMarkdown } from '../../../src/core/render-safe.js'
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
    ['an @ after emphasis, after an e-mail address', '**x**@.env a@b.co@.env', '**x**\\@.env a@b.co\\@.env'],
    [
      'an @ inside a word is no import',
      'ada@example.com git@github.com:org/repo.git',
      'ada@example.com git@github.com:org/repo.git',
    ],
    ['a code span is escaped too (a list item is scanned whole)', '`npm i @types/node`', '`npm i \\@types/node`'],
    ['an escaped @ stays escaped; an escaped backslash gets one more', '\\@.env \\\\@.env', '\\@.env \\\\\\@.env'],
    ['an @ before a space or punctuation is not an import', 'me @ home, @!', 'me @ home, @!'],
  ])('renderSafe: %s', (_what, text, out) => {
    expect(renderSafe(text)).toBe(out)
  })
  const FENCE = '```python\n@pytest.fixture\ndef db(): ...\n```'
  test.each([
    ['a fenced block is code', `${FENCE}\nsee @.env`, `${FENCE}\nsee \\@.env`],
    ['a ~~~ fence, closed by a longer run', '~~~ sh\n@a\n~~~~\n@b', '~~~ sh\n@a\n~~~~\n\\@b'],
    // Closed where it ends: joined with the next body (a skill's references), it would take that body's opening fence.
    ['a fence never closed is closed at the end', '```\n@a\n', '```\n@a\n```\n'],
    ['a fence that is not one (a backtick in its info string)', '``` a`b\n@x\n```', '``` a`b\n\\@x\n```\n```\n'],
    [
      'a fence closes on its run followed by more (as Claude Code reads it)',
      '```\nx\n```~\n@pa',
      '```\nx\n```~\n\\@pa',
    ],
    [
      'a shorter or other closing run does not close',
      '````\n```\n~~~~\n@a\n````\n@b',
      '````\n```\n~~~~\n@a\n````\n\\@b',
    ],
    ['indented four spaces, a fence is not one', '    ```\n@a\n    ```', '    ```\n\\@a\n    ```'],
    [
      'an indented code block is code',
      'Run:\n\n    npm i @types/node\n    @pytest.fixture\n\nthen @.env',
      'Run:\n\n    npm i @types/node\n    @pytest.fixture\n\nthen \\@.env',
    ],
    ['a tab indents code too, at the start of the text', '\t@a\n  \t@b', '\t@a\n  \t@b'],
    [
      'indented code after a heading or a closing fence',
      '# h\n    @a\n```\nx\n```\n    @b',
      '# h\n    @a\n```\nx\n```\n    @b',
    ],
    ['blank lines go on with it; a line less indented ends it', '    @a\n\n    @b\n@c', '    @a\n\n    @b\n\\@c'],
    ['an HTML tag indented four is code', '    <div> @a', '    <div> @a'],
    ['after an HTML block a blank line ended', '<div>\n\n    @a\n\n</div>', '<div>\n\n    @a\n\n</div>'],
    ['an indented line right after a paragraph line continues it', 'para\n    @a', 'para\n    \\@a'],
    // Blank is spaces and tabs only: a line of U+00A0, U+3000 or U+FEFF is prose, so the paragraph goes on.
    [
      'a line of no-break spaces is no blank line',
      'Text\n\u00a0\n    @~/.aws/credentials',
      'Text\n\u00a0\n    \\@~/.aws/credentials',
    ],
    [
      'a line of ideographic spaces is no blank line',
      '    code\n\u3000\n    @~/.ssh/id_rsa',
      '    code\n\u3000\n    \\@~/.ssh/id_rsa',
    ],
    ['a BOM-only line is no blank line', 'Text\n\ufeff\n    @.env', 'Text\n\ufeff\n    \\@.env'],
    ['indented in a list item: escaped (its content offset is a guess)', '- a\n\n      @a', '- a\n\n      \\@a'],
    ['indented in a quote: escaped', '>     @a', '>     \\@a'],
    ['a quoted heading opens no code', '> # h\n    @a', '> # h\n    \\@a'],
    ['a fence in a list item ends with the item', '- a\n  ```\n  @x\n- @y\n  ```', '- a\n  ```\n  @x\n- \\@y\n  ```'],
    ['a line less indented than its fence ends it', '1. a\n   ```\n  @.env\n   ```', '1. a\n   ```\n  \\@.env\n   ```'],
    [
      'a fence inside an HTML block is HTML, scanned',
      '<div>\n```\n@.env\n```\n</div>',
      '<div>\n```\n\\@.env\n```\n</div>',
    ],
    ['a code span in a paragraph is code', 'Run `npm i @types/node` and @.env', 'Run `npm i @types/node` and \\@.env'],
    ['a code span over two lines', 'para `x\n@y` z', 'para `x\n@y` z'],
    ['a double-backtick span', 'use ``a ` @b`` here', 'use ``a ` @b`` here'],
    ['a code span in a list item is scanned', '- Run `npm i @types/node`', '- Run `npm i \\@types/node`'],
    ["and in a list item's continuation", '- a\n  run `@.env x`\n\n  `b @c`', '- a\n  run `\\@.env x`\n\n  `b \\@c`'],
    ['a paragraph after the list is a paragraph again', '- a\n\n`b @c`', '- a\n\n`b @c`'],
    ['an escaped backtick opens no span', '\\`x @.env`', '\\`x \\@.env`'],
    ['a link destination that takes a backtick', '[x](`a) @.env `)', '[x](`a) \\@.env `)'],
    ['a URL that takes a backtick', 'see https://x.com/`a @.env `', 'see https://x.com/`a \\@.env `'],
    ['inline HTML beside a span', '<b title="`">@.env`', '<b title="`">\\@.env`'],
    ['a strikethrough across a span', '~~`a~~ @.env `', '~~`a~~ \\@.env `'],
    ['an empty line of a quote ends its paragraph', '> a `x\n>\n> @.env ` y', '> a `x\n>\n> \\@.env ` y'],
    ['a quote starts a block of its own', '`x\n> @.env `', '`x\n> \\@.env `'],
    ['a heading in a quote is a block of its own', '> `a\n> # @.env `', '> `a\n> # \\@.env `'],
    ['a fence in a quote ends with the quote', '> ```\n@.env\n> ```', '> ```\n\\@.env\n> ```'],
    ["a lazy line continues a quote's paragraph", '> `a\nb` @.env `c`', '> `a\nb` \\@.env `c`'],
    ["a quote's code span is code", '> run `npm i @types/node -D`', '> run `npm i @types/node -D`'],
    [
      'a heading is a block of its own: backticks pair after it',
      '# h `x\ny` @.env `z` @a',
      '# h `x\ny` @.env `z` \\@a',
    ],
    [
      'a link elsewhere in the paragraph leaves spans alone',
      'See [docs](https://x.dev) and `npm i @types/node`',
      'See [docs](https://x.dev) and `npm i @types/node`',
    ],
    [
      'e-mail addresses and git@host stay in prose',
      'mail ada@example.com; git@github.com:o/r',
      'mail ada@example.com; git@github.com:o/r',
    ],
    [
      'control characters and markers are neutralised in code too',
      '```\n<!-- x -->\u001b\n```',
      '```\n&lt;!-- x --&gt;\\u001b\n```',
    ],
  ])('renderSafeMarkdown: %s', (_what, text, out) => {
    expect(renderSafeMarkdown(text)).toBe(out)
  })
  test('renderSafeMarkdown pairs thousands of backtick runs in linear time', () => {
    const text = Array.from({ length: 3000 }, (_, i) => '`'.repeat(i + 1)).join(' @x ')
    const t = Date.now()
    expect(renderSafeMarkdown(text)).toContain('\\@x')
    expect(Date.now() - t).toBeLessThan(1000)
  })
})
