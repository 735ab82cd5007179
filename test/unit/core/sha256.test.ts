import { createHash } from 'node:crypto'
import { expect, test } from 'vitest'
import { sha256Hex } from '../../../src/core/sha256.js'
import { seeded } from '../../helpers/random.js'

test.each([
  ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
  ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
])('the FIPS 180-4 examples: %j', (text, hex) => {
  expect(sha256Hex(text)).toBe(hex)
})

test("node:crypto's digest, for every length around the block edges and for text beyond ASCII", () => {
  const { pick } = seeded(7)
  const alphabet = ['a', 'Z', ' ', '\n', 'é', '→', '😀', '|', '\u0000']
  for (let n = 0; n < 300; n++) {
    let text = ''
    for (let i = 0; i < n; i++) text += pick(alphabet)
    expect(sha256Hex(text), JSON.stringify(text)).toBe(createHash('sha256').update(text).digest('hex'))
  }
})
