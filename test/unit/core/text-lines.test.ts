import { expect, test } from 'vitest'
import { Fences, lineOfOffset } from '../../../src/core/text-lines.js'

const code = (text: string) => {
  const f = new Fences()
  return text
    .split('\n')
    .map((l) => (f.read(l) ? 'c' : 'p'))
    .join('')
}

test.each([
  ['prose only', 'a\nb', 'pp'],
  ['a backtick fence and its close', 'a\n```sh\nx\n```\nb', 'pcccp'],
  ['a tilde fence holding a backtick fence', '~~~\n```\n~~~\nb', 'cccp'],
  ['a longer close closes, a shorter one does not', '````\n```\nx\n`````\nb', 'ccccp'],
  ['a close followed by more closes early (the safe side)', '```\nx\n```~\nb', 'cccp'],
  ['a backtick in the info string is no fence', '``` a`b\nx', 'pp'],
  ['four spaces in is no fence', '    ```\nx', 'pp'],
  ['never closed: code to the end', '```\nx\ny', 'ccc'],
])('%s', (_l, text, want) => {
  expect(code(text)).toBe(want)
})

test('lineOfOffset counts the line feeds before an offset', () => {
  expect([0, 1, 2, 3, 4].map((o) => lineOfOffset('a\nb\nc', o))).toEqual([1, 1, 2, 2, 3])
})
