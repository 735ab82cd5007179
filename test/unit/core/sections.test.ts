import { describe, expect, test } from 'vitest'
import { parseSections } from '../../../src/core/sections.js'

/** The line-by-line reading (what parseSections did for every body before its fence-free road). */
function lineByLine(body: string): string[] {
  const out: string[] = []
  let fence: string | undefined
  for (const line of body.split('\n')) {
    const f = /^\s*(```+|~~~+)/.exec(line)
    if (f) {
      if (!fence) fence = f[1]
      else if (line.trim().startsWith(fence)) fence = undefined
      continue
    }
    if (fence || !line.startsWith('##')) continue
    const h = /^##\s+(.+?)\s*#*\s*$/.exec(line)
    if (h) out.push(h[1] as string)
  }
  return out
}

describe('parseSections', () => {
  test('reads a body without fences as the line-by-line reading does, over random bodies', () => {
    const lines = [
      '## Problem',
      '##Solution',
      '### Deeper',
      'text ## not',
      '',
      '## Root Cause ##',
      '##',
      '## ',
      '\r',
      '## Verification\r',
      ' ## indented',
      '## Ünïcode  ',
      '#',
      'x',
      '##\t tab',
    ]
    let a = 7
    const next = () => (a = (Math.imul(a, 1103515245) + 12345) >>> 0) / 4294967296
    for (let n = 0; n < 2000; n++) {
      const count = Math.floor(next() * 12)
      const body = Array.from({ length: count }, () => lines[Math.floor(next() * lines.length)]).join('\n')
      expect(parseSections(body), JSON.stringify(body)).toEqual(lineByLine(body))
    }
  })

  test('headings inside fences are not sections', () => {
    const body = '## A\n```\n## not\n```\n~~~\n## nor\n~~~\n## B'
    expect(parseSections(body)).toEqual(['A', 'B'])
    expect(parseSections(body)).toEqual(lineByLine(body))
  })
})
