import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import YAML from 'yaml'
import { describe, expect, test } from 'vitest'
import { parseSimpleFrontmatter } from '../../../src/core/frontmatter-fast.js'
import { splitFrontmatter } from '../../../src/core/learning.js'
import { propertyRuns } from '../../helpers/random.js'

// The yaml package is the parser of record; the fast road must give exactly its result (key order included) on
// every input it accepts, and decline the rest.
const OPTIONS = { maxAliasCount: 50, uniqueKeys: true }
const same = (block: string) => {
  const fast = parseSimpleFrontmatter(block)
  expect(fast, block).toBeDefined()
  expect(JSON.stringify(fast)).toBe(JSON.stringify(YAML.parse(block, OPTIONS)))
}

describe('accepted, and equal to YAML.parse', () => {
  test.each([
    [
      'what add writes',
      'name: vitest-mock-hoisting\ndescription: "Fix hoisting: use vi.hoisted()"\ntype: error-solution\ntrigger: Cannot access before initialization\ndomain: testing\ntags: [vitest, esm]\nconfidence: 0.7\ncreated: "2026-11-20"\nversion: "1.0.0"',
    ],
    [
      'nested gates and evidence',
      'name: a\ngates:\n  discovery_depth: 2\n  reusability: [a, b]\n  verification: "npm test: 14 passed"\nevidence:\n  commit: "3f2c1e9"\n  paths: [src/a.ts, "src/b c.ts"]',
    ],
    ['block sequence at 2 and at 0', 'tags:\n  - vitest\n  - esm\nrelated:\n- other-one\n- two'],
    ['empty values are null, [] is empty', 'a:\nb: []\nc:\n  d:\n  e: 1'],
    ['comments and blank lines', '# top\nname: a\n\n# between\ntype: decision\n'],
    ['numbers', 'a: 0\nb: 12\nc: 0.5\nd: 1.0\ne: 0.50\nf: 123456789012345'],
    [
      'plain words the 1.2 core schema keeps as strings',
      'a: yes\nb: no\nc: on\nd: Off\ne: y\nf: nullish\ng: True love',
    ],
    ['trailing spaces and unicode in quotes', 'a: plain words   \nb: "été 🚀 ok"  \nc:    spaced'],
    [
      'a long description as add writes it (folded)',
      'name: a\ndescription: >-\n  The newest majors of lint-staged (17): "quoted" # not a comment\n  require Node 22; pin them.\ntype: decision',
    ],
    ['keys of underscores, dashes and digits', '_a: 1\nb-c_2: x\nD: "q"\ne:\n  _f-1: 2\n  G: [h]'],
    [
      'escapes JSON reads alike, as add writes a description holding a quote',
      'description: "Use when it fails with \\"Cannot connect: x\\" in C:\\\\tmp"\na: "one\\ntwo\\tthree"\nb: ["q\\"r", s]',
    ],
    [
      'flow mappings of scalars, as written by hand',
      'source: {kind: issue-thread}\ngates:\n  x: {a: 1, b: "c d", e: f (g)}\nh: {}\ni: { j: k }',
    ],
    ['literal and clipped block scalars', 'a: |-\n  one\n  two: x\nb: >\n  three\n  four\nc: |\n  five\n# after\nd: 1'],
  ])('%s', (_label, block) => same(block))

  test('every template, every learning of this repository and of the real-world evaluation set', () => {
    const root = new URL('../../../', import.meta.url).pathname
    const files = [
      ...readdirSync(join(root, 'templates'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => join(root, 'templates', f)),
      ...readdirSync(join(root, '.learnings', 'active'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => join(root, '.learnings', 'active', f)),
      // Hand-written learnings: flow mappings, escapes, folded descriptions.
      ...readdirSync(join(root, 'test/fixtures/eval/real-world/learnings'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => join(root, 'test/fixtures/eval/real-world/learnings', f)),
    ]
    let accepted = 0
    for (const f of files) {
      const block = splitFrontmatter(readFileSync(f, 'utf8')).matter
      const fast = parseSimpleFrontmatter(block)
      if (fast === undefined) continue
      accepted++
      expect(JSON.stringify(fast), f).toBe(JSON.stringify(YAML.parse(block, OPTIONS)))
    }
    expect(accepted).toBeGreaterThan(60)
  })
})

describe('declined (the yaml package decides)', () => {
  test.each([
    ['a tab', 'a:\tb'],
    ['CR', 'a: b\r'],
    ['single quotes', "a: 'b'"],
    ['an escape JSON does not share', 'a: "b\\x41"'],
    ['a unicode escape', 'a: "\\u0041"'],
    ['an escaped slash', 'a: "\\/"'],
    ['an escaped closing quote', 'a: "b\\"'],
    ['a nested flow mapping', 'a: {b: {c: 1}}'],
    ['a sequence in a flow mapping', 'a: {b: [c]}'],
    ['a key alone in a flow mapping', 'a: {b}'],
    ['an empty value in a flow mapping', 'a: {b: }'],
    ['a duplicate key in a flow mapping', 'a: {b: 1, b: 2}'],
    ['a comma inside quotes in a flow mapping', 'a: {b: "c, d"}'],
    ['an unclosed flow mapping', 'a: {b: c'],
    ['a flow mapping in a flow sequence', 'a: [{b: c}]'],
    ['block scalar indented by four', 'a: |\n    text'],
    ['folded plain continuation', 'a: one\n  two'],
    ['anchor and alias', 'a: &x b\nc: *x'],
    ['tag', 'a: !!str 1'],
    ['nested flow', 'a: [b, [c]]'],
    ['trailing comma', 'a: [b, ]'],
    ['duplicate key', 'a: 1\na: 2'],
    ['duplicate nested key', 'a:\n  b: 1\n  b: 2'],
    ['deeper nesting', 'a:\n  b:\n    c: 1'],
    ['mixed item indent', 'a:\n  - b\n- c'],
    ['map then items', 'a:\n  b: 1\n  - c'],
    ['null and booleans', 'a: null'],
    ['True', 'a: True'],
    ['~', 'a: ~'],
    ['signed number', 'a: -1'],
    ['leading zero', 'a: 007'],
    ['hex', 'a: 0x1F'],
    ['exponent', 'a: 1e3'],
    ['version-like', 'a: 1.0.0'],
    ['unquoted date', 'created: 2026-11-20'],
    ['colon inside', 'a: b: c'],
    ['comment after a value', 'a: b # c'],
    ['no space after the colon', 'a:b'],
    ['space before the colon', 'a : b'],
    ['top-level item', '- a'],
    ['reserved key', 'null: a'],
    ['__proto__', '__proto__: a'],
    ['indented comment', 'a:\n  # c\n  b: 1'],
    ['directive', '%YAML 1.1\n---\na: b'],
    ['a second document', 'a: b\n---\nc: d'],
    ['blank line inside a folded block', 'a: >-\n  one\n\n  two'],
    ['more-indented line in a block', 'a: >-\n  one\n    two'],
    ['keep chomping', 'a: >+\n  one'],
    ['indentation indicator', 'a: >2-\n  one'],
    ['empty block', 'a: >-\nb: 1'],
    ['trailing space in a block line', 'a: |-\n  one \n  two'],
    ['a key starting with a digit', '1a: b'],
    ['a key with a dot', 'a.b: c'],
    ['a child at three spaces', 'a:\n   b: 1'],
    ['a child with no space after its colon', 'a:\n  b:c'],
    ['a line separator in a value', 'a: b\u2028c'],
    ['a paragraph separator in a child value', 'a:\n  b: c\u2029'],
    ['a quote not closed at the end', 'a: "b" c'],
    ['a no-break space after a value (trim would strip it; YAML keeps it)', 'name: fix-it\u00a0'],
    ['a no-break space after a flow mapping (an error to YAML)', 'source: {kind: issue-thread}\u00a0'],
    ['a no-break space before a flow key', 'a: {\u00a0b: c}'],
    ['an ideographic space in a sequence', 'a: [b\u3000, c]'],
    ['a form feed', 'a: b\f'],
    ['a byte order mark inside', 'a: \ufeffb'],
    // YAML's limit on an implicit key: the yaml package refuses the first two.
    ['a key of 1,025 characters', `${'k'.repeat(1025)}: b`],
    ['a child key of 1,025 characters', `a:\n  ${'k'.repeat(1025)}: b`],
    ['a flow key of 1,025 characters', `a: {${'k'.repeat(1025)}: b}`],
  ])('%s', (_label, block) => expect(parseSimpleFrontmatter(block)).toBeUndefined())
})

test('a key of 1,024 characters is read, as the yaml package reads it', () => {
  same(`${'k'.repeat(1024)}: b\na:\n  ${'c'.repeat(1024)}: d`)
})

test('on 4,000 generated frontmatters mixing easy and tricky values, whatever is accepted equals YAML.parse', () => {
  let seed = 11
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T
  const values = [
    'plain words',
    'x',
    'Fix (case 3) now',
    'a/b.c-d_e+f',
    '"quoted: yes"',
    '""',
    '"é"',
    '0',
    '7',
    '0.25',
    '10.0',
    '[a, b]',
    '[]',
    '["x y", 2]',
    'yes',
    'null',
    'NULL',
    'false',
    '~',
    '-3',
    '07',
    '1e2',
    '.5',
    'a: b',
    'a #b',
    "'s'",
    '"a\\"b"',
    '"c:\\\\d"',
    '"x\\ty\\n"',
    '"\\u0041"',
    '"\\"',
    '{kind: issue-thread}',
    '{a: b, c: "d e"}',
    '{}',
    '{a: b, a: c}',
    '{a: "x, y"}',
    '{a: {b: c}}',
    '{true: x}',
    '[a, [b]]',
    '{a: 1}',
    '&x y',
    '*x',
    '!t v',
    'é',
    '  spaced  ',
    '2026-11-20',
    'TRUE',
    'x\u00a0',
    '{a: b}\u3000',
    '[\u2000a]',
  ]
  // Keys at YAML's limit of 1,024 characters and past it (a key of 1,025 was read by the fast road, refused by YAML).
  const keys = [
    'name',
    'type',
    'a',
    'b_c',
    'd-e',
    'tags',
    'gates',
    'x1',
    'true',
    'null',
    'k'.repeat(1024),
    'l'.repeat(1025),
  ]
  let accepted = 0
  for (let i = 0; i < propertyRuns(4000); i++) {
    const lines: string[] = []
    for (let k = 0, n = 1 + Math.floor(rand() * 6); k < n; k++) {
      const key = pick(keys)
      const form = rand()
      if (form < 0.6) lines.push(`${key}: ${pick(values)}`)
      else if (form < 0.75)
        lines.push(
          `${key}:`,
          ...Array.from({ length: Math.floor(rand() * 3) }, () => `  ${pick(keys)}: ${pick(values)}`),
        )
      else if (form < 0.8)
        lines.push(
          `${key}: ${pick(['>-', '|-', '>', '|', '>+'])}`,
          ...Array.from({ length: Math.floor(rand() * 3) }, () => `${pick(['  ', '  ', '   ', ''])}${pick(values)}`),
        )
      else if (form < 0.9)
        lines.push(
          `${key}:`,
          ...Array.from({ length: 1 + Math.floor(rand() * 3) }, () => `${pick(['  ', '', '    '])}- ${pick(values)}`),
        )
      else lines.push(pick(['# note', '', `${key}:  ${pick(values)}`, ` ${key}: x`]))
    }
    const block = lines.join('\n')
    const fast = parseSimpleFrontmatter(block)
    if (fast === undefined) continue
    accepted++
    let theirs: unknown
    expect(() => (theirs = YAML.parse(block, OPTIONS)), block).not.toThrow()
    expect(JSON.stringify(fast), block).toBe(JSON.stringify(theirs))
  }
  expect(accepted).toBeGreaterThan(250)
})
