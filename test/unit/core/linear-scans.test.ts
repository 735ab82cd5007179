// Scans that took super-linear time on hostile text (a commit message, a learning from a tier or a pull request), each
// rewritten to run in linear time. Each is held to the expression it replaced, on random short texts of the characters
// that matter to it, and fed a text long enough that the old expression would not finish within the test's timeout
// (measured alone: 40,000 blanks took the old trailer expression 1.2 s and the directive one 2.9 s, growing with the
// square of the length; these texts are 8 to 10 times longer, so 70 s and more).
import { describe, expect, test } from 'vitest'
import { stripText } from '../../../src/core/bundle.js'
import type { StripCounts } from '../../../src/core/bundle.js'
import { normalizeText } from '../../../src/core/dedupe.js'
import { parseDirectivesAllowed } from '../../../src/core/directive-trailer.js'
import { sectionsForTheReviewer } from '../../../src/core/gates.js'
import {
  bracketsBeforeBacktick,
  linkWithBacktick,
  renderSafeMarkdown,
  urlsBeforeBacktick,
} from '../../../src/core/render-safe.js'
import { matchableError, normalizeError } from '../../../src/core/normalize-error.js'
import { TRAILING_BLANKS, endingInOneNewline, withoutFinalNewlines } from '../../../src/core/text-lines.js'
import { trailerLine } from '../../../src/core/trailers.js'
import { seeded } from '../../helpers/random.js'

/** `n` random texts of up to `max` characters drawn from `parts`. */
function texts(seed: number, parts: readonly string[], n = 20_000, max = 14): string[] {
  const r = seeded(seed)
  return Array.from({ length: n }, () =>
    Array.from({ length: Math.floor(r.next() * max) }, () => r.pick(parts)).join(''),
  )
}

const OLD_TRAILER_LINE = /^([A-Za-z][A-Za-z0-9-]*):[ \t]+(.*\S)\s*$/

function oldDirectivesAllowed(message: string): [string, string][] {
  return [...message.matchAll(/^[ \t]*[*-]?[ \t]*Learning-Directives-Allowed:[ \t]+(\S+)[ \t]*([^\n]*?)\s*$/gm)].map(
    (m) => [m[1] as string, m[2] as string],
  )
}

function oldSectionsForTheReviewer(body: string): string[] {
  const out: string[] = []
  for (const m of body.matchAll(/^##[ \t]+(.+?)[ \t]*\r?\n\s*(.*)$/gm))
    if ((m[2] as string).startsWith('To be filled in by the reviewer')) out.push((m[1] as string).trim())
  return out
}

const oldNormalizeDots = (s: string) => s.replace(/(^|\s)[./-]+|[./-]+(?=\s|$)/g, ' ')
const newNormalizeDots = (s: string) => s.replace(/(^|\s)[./-]+|(?<![./-])[./-]+(?=\s|$)/g, ' ')

describe('the same answers as the expressions they replace', () => {
  test('a trailer line', () => {
    for (const t of texts(1, ['Learning', 'A-b', ':', ' ', '\t', 'x', '\r', '\n', '\u2028', '\u00a0', '-', '9']))
      expect(trailerLine(t), JSON.stringify(t)).toEqual(
        ((m) => (m ? { token: m[1], value: m[2] } : undefined))(OLD_TRAILER_LINE.exec(t)),
      )
  })
  test('a directive acceptance', () => {
    for (const t of texts(2, ['Learning-Directives-Allowed:', ' ', '\t', '*', '-', 'n', 'x:0', '\r', '\n', '\u2028']))
      expect(
        [...parseDirectivesAllowed(t).byName].concat([...parseDirectivesAllowed(t).fingerprints.keys()]),
        JSON.stringify(t),
      ).toEqual(
        ((pairs) =>
          [...new Set(pairs.filter(([, r]) => !r).map(([n]) => n))].concat([
            ...new Set(
              pairs
                .filter(([, r]) => r && r.split(/[\s,]+/).some((f) => /^[a-z][a-z-]*:[0-9a-f]{16}$/.test(f)))
                .map(([n]) => n),
            ),
          ]))(oldDirectivesAllowed(t)),
      )
  })
  test("a section still for the reviewer, the blanks ending a line, a text's last line feeds, a run of dots", () => {
    const reviewer = ['## ', '##', ' ', '\t', 'S', '\r', '\n', '\u2028', 'To be filled in by the reviewer', '#']
    for (const t of texts(3, reviewer))
      expect(sectionsForTheReviewer(t), JSON.stringify(t)).toEqual(oldSectionsForTheReviewer(t))
    for (const t of texts(4, [' ', '\t', 'a', '\n', '\r', '\u2028'])) {
      expect(t.replace(TRAILING_BLANKS, ''), JSON.stringify(t)).toBe(t.replace(/[ \t]+$/gm, ''))
      expect(withoutFinalNewlines(t)).toBe(t.replace(/\n*$/, ''))
      expect(endingInOneNewline(t)).toBe(t.replace(/\n+$/, '\n'))
    }
    for (const t of texts(5, ['.', '/', '-', ' ', 'a']))
      expect(newNormalizeDots(t), JSON.stringify(t)).toBe(oldNormalizeDots(t))
  })
})

const OLD_ESCAPED_QUOTE = /\\+(?=["'])/g
const NEW_ESCAPED_QUOTE = /(?<!\\)\\+(?=["'])/g

describe('the same answers as the expressions they replace (found by timing every scan on long runs)', () => {
  test("render-safe's tests of a paragraph for a backtick its code spans may not pair as we do", () => {
    const parts = ['[', ']', '(', ')', ':', '`', '\n', ' ', 'a', 'www.', 'http://', 'https://', 'ftp://', '<', '\u3000']
    for (const t of texts(6, parts)) {
      expect(linkWithBacktick(t), JSON.stringify(t)).toBe(/\](?:\([^)`]*`|\[[^\]`]*`|:[^\n]*`)/.test(t))
      expect(bracketsBeforeBacktick(t), JSON.stringify(t)).toEqual([...t.matchAll(/\[[^\]`]*`/g)].map((m) => m.index))
      expect(urlsBeforeBacktick(t), JSON.stringify(t)).toEqual(
        [...t.matchAll(/(?:https?:\/\/|ftp:\/\/|www\.)[^\s<`]*`/g)].map((m) => m.index),
      )
    }
  })
  test('the backslashes before a quote that normalizeError drops', () => {
    for (const t of texts(7, ['\\', '"', "'", 'a', ' ']))
      expect(t.replace(NEW_ESCAPED_QUOTE, ''), JSON.stringify(t)).toBe(t.replace(OLD_ESCAPED_QUOTE, ''))
  })
})

describe('linear time on hostile text', () => {
  const blanks = ' '.repeat(400_000)
  test('a trailer, and a directive acceptance, holding a long run of blanks', () => {
    expect(trailerLine(`Learning: a${blanks}b`)).toEqual({ token: 'Learning', value: `a${blanks}b` })
    expect(trailerLine(`Learning: a${blanks}b\u2028c`)).toBeUndefined()
    const acceptances = parseDirectivesAllowed(`Learning-Directives-Allowed: x${blanks}y${blanks}z\r\rq\n${blanks}`)
    expect(acceptances.fingerprints.size + acceptances.byName.size).toBe(0)
  })
  test('blanks that a word follows, a heading line of blanks, line feeds that text follows, a run of dots', () => {
    expect(`a${blanks}b\n`.replace(TRAILING_BLANKS, '')).toBe(`a${blanks}b\n`)
    expect(sectionsForTheReviewer(`## a${blanks}b`)).toEqual([])
    expect(withoutFinalNewlines(`${'\n'.repeat(400_000)}x`)).toHaveLength(400_001)
    expect(normalizeText(`a${'.'.repeat(400_000)}b`)).toBe(`a${'.'.repeat(400_000)}b`)
    expect(renderSafeMarkdown(`${'\\'.repeat(400_000)}x`)).toContain('x')
    const exported = (text: string) =>
      stripText(text, { keepCode: true, now: new Date('2026-12-07T00:00:00Z') }, {} as StripCounts)
    expect(exported(`${'%.'.repeat(200_000)}@`)).toHaveLength(400_001)
    expect(exported(`mail me at dev.one@example.com or %3Aops@example.org`)).toBe('mail me at <email> or <email>')
  })
  test('a run of backslashes in an error (100,000 took normalizeError 13 s), and a quote one escapes', () => {
    // A run of backslashes is a path (of no file), dropped; before a quote it is an escape, dropped too.
    const slashes = '\\'.repeat(400_000)
    expect(normalizeError(`a ${slashes}x b`)).toBe('a b')
    expect(normalizeError(`${slashes}"q`)).toBe('q')
    expect(matchableError(`${slashes}"`)).toBe('')
    expect(normalizeError('say \\"hi\\" now')).toBe('say hi now')
  })
  test("a body of brackets, links, URLs or @s and code spans (render-safe's scans: 100,000 took 3.6 s)", () => {
    // Each holds an @ to escape, and a backtick, so that every scan of an uncertain paragraph runs.
    const many = (unit: string) => `@x ${unit.repeat(Math.ceil(400_000 / unit.length))} \``
    for (const unit of ['[', '](', ']:', 'www.', 'http://', '@\u001b['])
      expect(renderSafeMarkdown(many(unit)), unit).toMatch(/^\\@x /)
    // Many @s between many code spans: the @s in code stay, the others are escaped.
    const spans = '@a `@b` '.repeat(50_000)
    expect(renderSafeMarkdown(spans)).toBe('\\@a `@b` '.repeat(50_000))
  })
})
