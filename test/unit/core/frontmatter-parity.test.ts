import matter from 'gray-matter'
import YAML from 'yaml'
import { expect, test } from 'vitest'
import { parseLearning } from '../../../src/core/learning.js'

// parseLearning splits frontmatter itself (gray-matter costs ~27 ms to import, on every hook run). gray-matter with
// the yaml engine stays the oracle: for every input both accept, data and body must agree.
const engine = {
  engines: { yaml: { parse: (s: string) => YAML.parse(s) ?? {}, stringify: (d: object) => YAML.stringify(d) } },
}
const cases: [string, string][] = [
  ['plain', '---\nname: a\ntype: decision\n---\n## Context\nx\n'],
  ['BOM', '\ufeff---\nname: a\n---\nbody\n'],
  ['empty body', '---\nname: a\n---\n'],
  ['no trailing newline', '---\nname: a\n---'],
  ['comment-only block', '---\n# nothing\n---\nbody\n'],
  ['--- inside a block scalar', '---\ndescription: |\n  a\n  ---x\nname: a\n---\nbody\n'],
  ['a later --- line in the body', '---\nname: a\n---\nintro\n---\nmore\n'],
  ['closing with trailing spaces', '---\nname: a\n---  \nbody\n'],
  ['folded description', '---\ndescription: >-\n  one\n  two\nname: a\n---\n\n## Problem\np\n'],
  ['dates stay strings', '---\ncreated: 2026-11-20\n---\nx\n'],
]

test.each(cases)('%s: same data and body as gray-matter', (_label, text) => {
  const ours = parseLearning(text, '.learnings/pending/a.md')
  const theirs = matter(text, engine as never)
  expect(ours.data).toEqual(theirs.data)
  expect(ours.body).toBe(theirs.content.replace(/^\r?\n/, ''))
})

// CRLF (core.autocrlf=true checkouts): gray-matter keeps the "\r" of the block's last line (name: "a\r"), and the yaml
// package refuses a quoted scalar followed by it. A CRLF file reads as the same file with LF endings.
test.each([
  ['unquoted last value', '---\nname: a\ntype: decision\n---\n## Context\nx\n'],
  ['quoted last value', '---\nname: a\ncreated: "2026-11-20"\nversion: "1.0.0"\n---\n## Context\nx\n'],
])('CRLF, %s: the same data as with LF', (_label, lf) => {
  const crlf = lf.replace(/\n/g, '\r\n')
  expect(parseLearning(crlf, '.learnings/pending/a.md').data).toEqual(matter(lf, engine as never).data)
})
