/**
 * Learning text made safe to write into the files agents load by themselves (skills, rules, AGENTS.md, the CLAUDE.md
 * index). A learning file is hostile: what render copies out of it must not steer the terminal or the reader, close
 * the marked section it sits in, or make an agent load other files.
 */
import { escapeControl } from './escape.js'

/**
 * Claude Code's `@path` import, as its 2.1 memory loader finds one: it lexes the file with marked and runs
 * `(?:^|\s)@((?:[^\s\\]|\\ )+)` over the text of every `text` token (and over HTML blocks less their comments),
 * skipping `code` (fenced and indented blocks) and `codespan` tokens; the path must start with `./`, `~/`, `/` or a
 * letter, digit, `.`, `_` or `-`. In a list item, marked's `text` token holds the item's raw lines, so there a code
 * span is scanned like the words around it. An inline text token also starts right after another token (emphasis,
 * a link, an escape, a code span), so an `@` after any character that is not a letter or digit can start one:
 * `**x**@.env` is an import (test/e2e/claude-code-imports.test.ts holds these against the real loader).
 *
 * So an `@` before such a character is written `\@` (a markdown escape: prose shows `@`) where it starts a word: at
 * the start of the text, after white space or punctuation, or after an e-mail address (`a@b.co@.env`: GFM makes the
 * address an autolink a text token could start after; Claude Code 2.1.331 imports nothing there, and the backslash
 * costs nothing in prose). An `@` inside a word stays (`ada@example.com`, `git@github.com:org/repo`): no text token
 * starts there. Code is left as written, where a backslash would show (`@pytest.fixture`, `npm i @types/node`):
 * - a fenced code block (``` or ~~~ at most three spaces in, closed by a run of the same character at least as long
 *   with nothing after it, or by the end of the text; a backtick fence's info string holds no backtick). A line
 *   less indented than its opening fence ends it (a fence in a list item ends with the item);
 * - a code span (a run of backticks to the next run of the same length, not after a backslash) in a plain paragraph.
 *   Not in a list item (scanned whole), a heading, an HTML block, or a paragraph where marked might not see the span
 *   we see: one with a rule, setext or table delimiter line, inline HTML or an autolink, `~`, an escaped backtick, a
 *   link, reference or URL that holds a backtick, or emphasis beside a span of two or more backticks.
 * - an indented code block (four columns of spaces or a tab) where one certainly starts: at the start of the text,
 *   after a blank line, after a heading or a closing fence outside quotes, and not in a list (where an item's
 *   content starts is marked's to decide; Claude Code 2.1.331 reads indented code there as code too, and in quotes,
 *   but a wrong guess there leaves prose unescaped). Blank lines and lines indented four columns or more go on with
 *   it. An indented line right after a line of a paragraph continues that paragraph (lazily), and is escaped.
 * Whatever is not certainly code is escaped: a stray backslash in code is cosmetic, a missed `@` loads a file.
 */
// Begun only where a run of backslashes begins: tried from every backslash of a long run, in quadratic time.
const IMPORT_AT = /(?<!\\)(\\*)@(?=[a-zA-Z0-9._~/-])/g
const WORD_CHAR = /[\p{L}\p{N}]/u

/** Whether the `@` at `at` (after `slashes` backslashes) needs a backslash: it starts a word, and is not escaped. */
function startsImport(text: string, at: number, slashes: number): boolean {
  if (slashes % 2) return false
  if (slashes > 0 || at === 0) return true
  if (!WORD_CHAR.test(text[at - 1] as string)) return true
  // Inside a word: only after an e-mail address, which GFM can make a link the next text token starts after.
  for (let i = at - 1; i >= 0 && !/\s/.test(text[i] as string); i--) if (text[i] === '@') return true
  return false
}

/**
 * Whether `at` is inside one of the ranges [start, end), sorted and apart (codeSpans' order): a binary search, so that
 * a paragraph of many `@`s and many code spans is not read in the product of their numbers.
 */
function inRanges(ranges: readonly (readonly [number, number])[], at: number): boolean {
  let lo = 0
  let hi = ranges.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((ranges[mid] as readonly [number, number])[1] <= at) lo = mid + 1
    else hi = mid
  }
  return lo < ranges.length && (ranges[lo] as readonly [number, number])[0] <= at
}

/** `text` with every `@` that could start an import escaped, but those inside the `code` ranges [start, end). */
function escapeAts(text: string, code: readonly (readonly [number, number])[] = []): string {
  return text.replace(IMPORT_AT, (m, slashes: string, offset: number) => {
    const at = offset + slashes.length
    if (inRanges(code, at) || !startsImport(text, at, slashes.length)) return m
    return `${slashes}\\@`
  })
}

/** The code spans of a paragraph as CommonMark pairs them: [start, end) of each, backticks included. */
function codeSpans(text: string): [number, number][] {
  const spans: [number, number][] = []
  const runs = [...text.matchAll(/`+/g)].map((m) => {
    let slashes = 0
    while (m.index - slashes > 0 && text[m.index - slashes - 1] === '\\') slashes++
    // Outside a span (where an opening run is), a backslash escapes the first backtick of the run.
    const start = slashes % 2 ? m.index + 1 : m.index
    return { start, end: m.index + m[0].length, len: m[0].length }
  })
  // The runs of each length in order, and how far each list has been read: pairing stays linear.
  const byLen = new Map<number, number[]>()
  runs.forEach((r, i) => {
    const list = byLen.get(r.len)
    if (list) list.push(i)
    else byLen.set(r.len, [i])
  })
  const read = new Map<number, number>()
  for (let i = 0; i < runs.length; i++) {
    const open = runs[i] as (typeof runs)[number]
    const n = open.end - open.start
    const same = byLen.get(n) ?? []
    let k = read.get(n) ?? 0
    while (k < same.length && (same[k] as number) <= i) k++
    read.set(n, k)
    if (n === 0 || k === same.length) continue
    const close = same[k] as number
    spans.push([open.start, (runs[close] as (typeof runs)[number]).end])
    i = close
  }
  return spans
}

const outside = (text: string, spans: readonly [number, number][]) => {
  let out = ''
  let from = 0
  for (const [s, e] of spans) {
    out += `${text.slice(from, s)} `
    from = e
  }
  return out + text.slice(from)
}

/** A paragraph where marked may pair backticks differently, or not lex them as code spans at all. */
function spansUncertain(lines: readonly string[], text: string, spans: readonly [number, number][]): boolean {
  if (
    lines.map(unquoted).some(
      (l) =>
        /^ {0,3}([-*_])(\s*\1){2,}\s*$/.test(l) || // a rule
        /^ {0,3}(=+|-+)\s*$/.test(l) || // a setext underline
        /^ {0,3}(`{3,}|~{3,})/.test(l) || // a fence, in a quote (a quote's end ends it)
        (/-/.test(l) && /^[\s|:-]+$/.test(l)), // a table's delimiter row
    ) ||
    /^(\s{4}|\t)/.test(lines[0] as string) // an indented code block
  )
    return true
  const rest = outside(text, spans)
  if (/<[A-Za-z/!?]|~|\\`/.test(rest)) return true // HTML, an autolink, a strikethrough, an escaped backtick
  if (!text.includes('`')) return false
  const free = (at: number) => !inRanges(spans, at)
  if (linkWithBacktick(text)) return true // a link's destination or reference with a backtick
  if (bracketsBeforeBacktick(text).some(free)) return true // a link text or reference with a lone backtick
  if (urlsBeforeBacktick(text).some(free)) return true // a URL that takes one in
  // Emphasis finds its delimiters with spans masked one backtick to the next.
  return /[*_]/.test(rest) && /``/.test(text)
}

/**
 * For each position of `text`, the first position at or after it holding a character `stop` takes (text.length:
 * none). The scans below ask it where an expression tried from every opening character would read on to the same
 * stop each time: `/\[[^\]`]*`/g` took 0.65 s on 40,000 `[`, growing with the square of the length.
 */
function nextStops(text: string, stop: (c: string) => boolean): Int32Array {
  const next = new Int32Array(text.length + 1)
  next[text.length] = text.length
  for (let i = text.length - 1; i >= 0; i--) next[i] = stop(text[i] as string) ? i : (next[i + 1] as number)
  return next
}

/** `/\](?:\([^)`]*`|\[[^\]`]*`|:[^\n]*`)/.test(text)`, in linear time. */
export function linkWithBacktick(text: string): boolean {
  const closes: Record<string, string> = { '(': ')', '[': ']', ':': '\n' }
  const next: Record<string, Int32Array> = {}
  for (let i = text.indexOf(']'); i !== -1; i = text.indexOf(']', i + 1)) {
    const close = closes[text[i + 1] as string]
    if (close === undefined) continue
    const stops = (next[close] ??= nextStops(text, (c) => c === close || c === '`'))
    if (text[stops[i + 2] as number] === '`') return true
  }
  return false
}

/** Where `/\[[^\]`]*`/g` matches (each match's start), in linear time. */
export function bracketsBeforeBacktick(text: string): number[] {
  const out: number[] = []
  const stops = nextStops(text, (c) => c === ']' || c === '`')
  for (let i = text.indexOf('['); i !== -1;) {
    const stop = stops[i + 1] as number
    if (text[stop] === '`') {
      out.push(i)
      i = text.indexOf('[', stop + 1)
    } else i = text.indexOf('[', i + 1)
  }
  return out
}

const URL_START = /https?:\/\/|ftp:\/\/|www\./g
const URL_STOP = /[\s<`]/

/** Where `/(?:https?:\/\/|ftp:\/\/|www\.)[^\s<`]*`/g` matches (each match's start), in linear time. */
export function urlsBeforeBacktick(text: string): number[] {
  const out: number[] = []
  let stops: Int32Array | undefined
  URL_START.lastIndex = 0
  for (let m = URL_START.exec(text); m; m = URL_START.exec(text)) {
    stops ??= nextStops(text, (c) => URL_STOP.test(c))
    const stop = stops[m.index + m[0].length] as number
    if (text[stop] === '`') {
      out.push(m.index)
      URL_START.lastIndex = stop + 1
    } else URL_START.lastIndex = m.index + 1
  }
  return out
}

const QUOTE = /^(?:[ \t]*>)+/
/** A line without its block quote markers. */
const unquoted = (line: string) => line.replace(QUOTE, '')
const quoteDepth = (line: string) => (QUOTE.exec(line)?.[0].match(/>/g) ?? []).length
const BLANK = /^[ \t\r]*$/
const LIST_ITEM = /^(?:[ \t]*>)*[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/
const HTML_START = /^(?:[ \t]*>)*[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)*<(!\[CDATA\[|[A-Za-z/!?][A-Za-z]*)/
/** The end of an HTML block that a blank line does not end (CommonMark kinds 1 to 5). */
const htmlEnd = (tag: string): RegExp | undefined =>
  /^(script|pre|style|textarea)$/i.test(tag)
    ? new RegExp(`</${tag}>`, 'i')
    : tag === '![CDATA['
      ? /\]\]>/
      : tag.startsWith('?')
        ? /\?>/
        : tag.startsWith('!')
          ? />/
          : undefined
const indent = (line: string) => (/^[ \t]*/.exec(line) as RegExpExecArray)[0].replace(/\t/g, '    ').length

/**
 * Whether `line` may close `fence`: a run of its character at least as long at the line's start, whatever follows.
 * CommonMark wants only spaces after it; Claude Code's parser closes on more (a "```~" line), and a fence taken as
 * closed too early only escapes an `@` of code, where taking it as open too long would leave one of prose.
 */
function closesFenceEagerly(line: string, fence: { char: string; len: number }): boolean {
  const run = /^ {0,3}(`+|~+)/.exec(line)?.[1]
  return run !== undefined && run[0] === fence.char && run.length >= fence.len
}

/**
 * `text` with a closing fence added when it ends inside a fenced block: bodies are joined in one file (a skill's
 * references), where the next body's opening fence would close this one and leave that body's code as prose.
 */
function closeOpenFence(text: string): string {
  if (!text.includes('```') && !text.includes('~~~')) return text
  let fence: { char: string; len: number } | undefined
  for (const line of text.split('\n')) {
    if (fence) {
      if (closesFenceEagerly(line, fence)) fence = undefined
      continue
    }
    const open = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line)
    if (open && !(open[1]?.[0] === '`' && open[2]?.includes('`')))
      fence = { char: open[1]?.[0] as string, len: (open[1] as string).length }
  }
  return fence ? `${text.replace(/\n?$/, '\n')}${fence.char.repeat(fence.len)}\n` : text
}

/** A markdown document's `@`s escaped as the comment on IMPORT_AT says: code left alone, nothing else trusted. */
function escapeMarkdownAts(text: string): string {
  const lines = text.split('\n')
  const out: string[] = []
  let fence: { char: string; len: number; indent: number } | undefined
  let html: { end: RegExp | undefined } | undefined
  let list = false
  let para: string[] = []
  let blank = true
  // An indented code block: open, or may open on this line (at the start, after a blank line, a heading or a fence).
  let code = false
  let codeMayStart = true
  const flush = () => {
    if (!para.length) return
    const joined = para.join('\n')
    const spans = codeSpans(joined)
    out.push(escapeAts(joined, list || spansUncertain(para, joined, spans) ? [] : spans))
    para = []
  }
  for (const line of lines) {
    // Blank as CommonMark and Claude Code's reader count it: spaces and tabs only. trim() also drops U+00A0, U+3000
    // and U+FEFF, and a line of those read as blank would open an indented code block where the reader sees prose.
    const isBlank = BLANK.test(line)
    const mayStartCode = codeMayStart
    codeMayStart = false
    if (code) {
      // Blank lines and lines indented four columns or more go on with it; the first line less indented ends it.
      if (isBlank || indent(line) >= 4) {
        out.push(line)
        blank = isBlank
        continue
      }
      code = false
    }
    if (fence) {
      const closes = closesFenceEagerly(line, fence)
      if (closes || isBlank || indent(line) >= fence.indent) {
        if (closes) fence = undefined
        codeMayStart = closes
        out.push(line)
        blank = isBlank
        continue
      }
      // Less indented than its fence: the list item holding the fence ended, and the block with it.
      fence = undefined
    }
    if (html) {
      if (html.end?.test(line)) html.end = undefined
      else if (isBlank && !html.end) html = undefined
      codeMayStart = !html
      out.push(escapeAts(line))
      blank = isBlank
      continue
    }
    if (isBlank) {
      flush()
      out.push(line)
      blank = true
      codeMayStart = true
      continue
    }
    if (mayStartCode && !list && indent(line) >= 4) {
      // An indented code block, outside lists (whose items Claude Code reads whole) and quotes: left as written.
      code = true
      out.push(line)
      blank = false
      continue
    }
    if (blank && indent(line) === 0 && !LIST_ITEM.test(line)) list = false
    blank = false
    const open = /^( {0,3})(`{3,}|~{3,})(.*)$/.exec(line)
    if (open && !(open[2]?.[0] === '`' && open[3]?.includes('`'))) {
      flush()
      fence = { char: open[2]?.[0] as string, len: (open[2] as string).length, indent: (open[1] as string).length }
      out.push(line)
      continue
    }
    const tag = HTML_START.exec(line)
    if (tag) {
      flush()
      const end = htmlEnd(tag[1] as string)
      html = { end: end?.test(line.slice(tag.index + tag[0].length)) ? undefined : end }
      out.push(escapeAts(line))
      continue
    }
    if (/^ {0,3}#{1,6}(\s|$)/.test(unquoted(line))) {
      // A heading is a block of its own, even inside a paragraph.
      flush()
      out.push(escapeAts(line))
      codeMayStart = quoteDepth(line) === 0
      continue
    }
    if (BLANK.test(unquoted(line))) {
      // An empty line of a quote ends its paragraph.
      flush()
      out.push(line)
      continue
    }
    if (LIST_ITEM.test(line)) {
      flush()
      list = true
    }
    // A quote (or a deeper one) starts a block of its own; a line less deep may be a lazy continuation, and stays.
    if (para.length && quoteDepth(line) > quoteDepth(para[para.length - 1] as string)) flush()
    para.push(line)
  }
  flush()
  return out.join('\n')
}

// A carriage return left once CRLF is LF is a stray one, even before a line feed ("\r\r\n" left "\r\n", which
// escapeControl takes for a line end): escaped as escapeControl escapes one.
const neutral = (text: string) =>
  escapeControl(text.replace(/\r\n/g, '\n'))
    .replace(/\r/g, '\\u000d')
    .replace(/<!--/g, '&lt;!--')
    .replace(/-->/g, '--&gt;')

/**
 * `text` as render writes it inside a line of its own (a description, a trigger, a path; in a list item of INDEX.md
 * or AGENTS.md, where code spans are scanned too): carriage returns of CRLF dropped; control characters, a stray
 * carriage return and the bidirectional overrides as `\uXXXX` (core/escape.ts, the rules of everything printed); HTML
 * comment delimiters as `&lt;!--` / `--&gt;`, so no text of a learning is a marker of ours (`<!-- git-learn:end -->`)
 * or hidden from the person reading the file; and an `@` that could start an import as `\@` wherever it is
 * (IMPORT_AT), so neither Claude Code nor Cursor takes it for an import of `.env` or `~/.aws/credentials`.
 */
export function renderSafe(text: string): string {
  const safe = neutral(text)
  return safe.includes('@') ? escapeAts(safe) : safe
}

/**
 * A learning's body as render writes it, as markdown blocks of their own: the same escapes as renderSafe, but an `@`
 * in code (a fenced block, or a code span outside list items) is left as written (IMPORT_AT says where exactly).
 */
export function renderSafeMarkdown(text: string): string {
  const safe = closeOpenFence(neutral(text))
  // Only an `@` changes: most bodies have none, and need no reading as markdown.
  return safe.includes('@') ? escapeMarkdownAts(safe) : safe
}
