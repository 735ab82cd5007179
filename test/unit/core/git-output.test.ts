import { describe, expect, test } from 'vitest'
import {
  chunkBounds,
  groupBySize,
  parseCatFileBatch,
  parseDubiousOwnership,
  parseLsTree,
  parseRevParsePaths,
  pathLine,
} from '../../../src/core/git-output.js'

const bytes = (s: string) => new TextEncoder().encode(s)
const text = (b: Uint8Array | undefined) => (b ? new TextDecoder().decode(b) : b)

describe('parseCatFileBatch', () => {
  test('objects in request order; a missing name has no bytes', () => {
    const out = bytes(
      '3f2c9a0000000000000000000000000000000000 blob 12\nhello world\n\n' +
        'abcd missing\n' +
        'd00d000000000000000000000000000000000000 blob 0\n\n' +
        'beef ambiguous\n' +
        'c0ffee0000000000000000000000000000000000 blob 9\nline\nnext\n',
    )
    expect(parseCatFileBatch(out).map((o) => [o.oid, o.type, text(o.bytes)])).toEqual([
      ['3f2c9a0000000000000000000000000000000000', 'blob', 'hello world\n'],
      ['abcd', 'missing', undefined],
      ['d00d000000000000000000000000000000000000', 'blob', ''],
      ['beef', 'ambiguous', undefined],
      ['c0ffee0000000000000000000000000000000000', 'blob', 'line\nnext'],
    ])
  })

  test('a size counts bytes, not characters', () => {
    const [o] = parseCatFileBatch(bytes('aa blob 6\nnaïve\n'))
    expect(text(o?.bytes)).toBe('naïve')
  })

  test('nothing, or a torn header, gives no objects', () => {
    expect(parseCatFileBatch(bytes(''))).toEqual([])
    expect(parseCatFileBatch(bytes('3f2c blob 12'))).toEqual([])
  })
})

// The rebuild and a tier's read ask cat-file for blobs a chunk at a time: a small first chunk (what the reader waits
// for before its first parse), then large ones, covering every object once, in order.
test.each([
  [0, 1000, 10_000, []],
  [1, 1000, 10_000, [[0, 1]]],
  [1000, 1000, 10_000, [[0, 1000]]],
  [
    1001,
    1000,
    10_000,
    [
      [0, 1000],
      [1000, 1001],
    ],
  ],
  [
    25_000,
    1000,
    10_000,
    [
      [0, 1000],
      [1000, 11_000],
      [11_000, 21_000],
      [21_000, 25_000],
    ],
  ],
  [
    5,
    2,
    2,
    [
      [0, 2],
      [2, 4],
      [4, 5],
    ],
  ],
])('chunkBounds(%i, %i, %i)', (n, first, rest, chunks) => {
  expect(chunkBounds(n, first, rest)).toEqual(chunks)
})

// What one `git cat-file --batch` is asked for, by the rebuild and a tier's read: a chunk of learnings near the 1 MB
// limit is never ~10 GB in one answer.
test('groupBySize cuts where the sizes pass the limit; a group holds at least one item, even one over the limit', () => {
  const sizes: Record<string, number> = { a: 40, b: 50, c: 10, d: 150, e: 1, f: 0 }
  const groups = (names: string[], limit: number) =>
    groupBySize(names, (n) => sizes[n] as number, limit).map((g) => [g.items.join(''), g.bytes])
  expect(groups(['a', 'b', 'c', 'd', 'e', 'f'], 100)).toEqual([
    ['abc', 100],
    ['d', 150],
    ['ef', 1],
  ])
  expect(groups(['a', 'b'], 1)).toEqual([
    ['a', 40],
    ['b', 50],
  ])
  expect(groups([], 100)).toEqual([])
})

// A repository path may hold a newline (or end in spaces): `git rev-parse` prints it as it is, on a line of its own.
test("rev-parse paths: a path a line when they make exactly that many; only the final newline is git's", () => {
  expect(parseRevParsePaths('/r\n/r/.git\n', 2)).toEqual(['/r', '/r/.git'])
  expect(parseRevParsePaths('/new\nline\n/new\nline/.git\n', 2)).toBeUndefined()
  expect(parseRevParsePaths('/r', 2)).toBeUndefined()
  expect(pathLine('/new\nline \n')).toBe('/new\nline ')
  expect(pathLine('/r')).toBe('/r')
})

test.each([
  [
    "fatal: detected dubious ownership in repository at '/srv/r x'\nTo add an exception for this directory, call:\n\n\tgit config --global --add safe.directory /srv/r x\n",
    '/srv/r x',
  ],
  // The sentence in another language: its command is not translated.
  [
    "fatal: Unsicherer Besitz des Repositorys in '/srv/r'\n\n\tgit config --global --add safe.directory '/srv/r'\n",
    '/srv/r',
  ],
  ["fatal: detected dubious ownership in repository at '/srv/r'\n", '/srv/r'],
  ['fatal: not a git repository (or any of the parent directories): .git\n', undefined],
])('parseDubiousOwnership(%j)', (stderr, path) => {
  expect(parseDubiousOwnership(stderr)).toBe(path)
})

test('parseLsTree: mode, type, id and path of each record; a path may hold a tab or a newline', () => {
  const oid = 'a'.repeat(40)
  const out = [
    `100644 blob ${oid}\t.learnings/active/x.md`,
    `120000 blob ${oid}\tlink`,
    `160000 commit ${oid}\tsub`,
    `100644 blob ${oid}\ta\tb\nc.md`,
    '',
  ].join('\0')
  expect(parseLsTree(out)).toEqual([
    { mode: '100644', type: 'blob', oid, path: '.learnings/active/x.md' },
    { mode: '120000', type: 'blob', oid, path: 'link' },
    { mode: '160000', type: 'commit', oid, path: 'sub' },
    { mode: '100644', type: 'blob', oid, path: 'a\tb\nc.md' },
  ])
  expect(parseLsTree('')).toEqual([])
})
