import { describe, expect, test } from 'vitest'
import { parseCatFileBatch } from '../../../src/core/git-output.js'

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
