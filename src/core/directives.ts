/**
 * Text aimed at agents that looks like prompt injection. A learning is read by agents as instructions, so a
 * learning that says "ignore previous instructions", sends credentials somewhere, or pipes the network into a
 * shell is refused unless a person said it is meant (`git learn add --allow-directives`).
 */
import { buildKeywordMatcher, scanKeywords } from './keyword-scan.js'
import { redactRanges, scanSecrets } from './secrets.js'
import { sha256Hex } from './sha256.js'
import type { SecretRange } from './secrets.js'
import { Fences } from './text-lines.js'

export type DirectiveKind =
  | 'ignore-instructions'
  | 'exfiltration'
  | 'pipe-to-shell'
  | 'base64-to-shell'
  /** A frontmatter too large or too deep to screen (core/agent-safety.ts): withheld, as one that could hide anything. */
  | 'unscreened'

export interface DirectiveFinding {
  kind: DirectiveKind
  description: string
  /** 1-based. */
  line: number
  /** The matched text, cut to 120 characters. */
  excerpt: string
  /** Found in a frontmatter value as YAML decodes it (core/agent-safety.ts decodedFrontmatter), not in the text as written. */
  decoded?: true
  /**
   * What a person accepts (directiveFingerprint): `<kind>:<16 hex digits>`, of the sentence the directive is in.
   * Absent on an `unscreened` finding, which nobody can accept.
   */
  fingerprint?: string
}

const SHELL = String.raw`(?:sudo\s+)?(?:ba|z|da|k|fi)?sh|iex|python3?|perl|ruby|node`
const SECRET_PLACE = String.raw`~?\/?\.ssh\b|id_(?:rsa|ed25519|ecdsa)|\.env\b|\.aws\/credentials|\.npmrc|\.netrc|\.pypirc|\.git-credentials|\.kube\/config|\/etc\/(?:passwd|shadow)`
const SECRET_WORD = String.raw`${SECRET_PLACE}|credentials|secrets?|tokens?|api[_ -]?keys?|passwords?|private keys?|env(?:ironment)? var(?:iable)?s`

/** The rules, in the order a line is read against them. */
export const DIRECTIVE_RULES: readonly { kind: DirectiveKind; description: string; re: RegExp }[] = [
  {
    kind: 'ignore-instructions',
    description: 'tells the agent to ignore its instructions',
    re: /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+)?(?:previous|prior|above|earlier|preceding|original|system|existing)\s+(?:instructions?|prompts?|rules|directions|guidelines|messages?)/i,
  },
  {
    kind: 'ignore-instructions',
    description: 'asks the agent to reveal or replace its system prompt',
    re: /\b(?:reveal|print|show|output|repeat)\s+(?:your\s+|the\s+)?system\s+prompt\b|\byou\s+are\s+now\s+(?:in\s+)?(?:developer|dan|jailbreak|unrestricted)\b/i,
  },
  {
    kind: 'exfiltration',
    description: 'uploads a credentials file with curl or wget',
    re: new RegExp(
      String.raw`\b(?:curl|wget|http)\b[^\n|;]{0,400}?\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file|--post-file)(?:\s+|=)['"]?(?:[\w.-]+=)?@?[^\s'"]{0,200}?(?:${SECRET_PLACE})`,
      'i',
    ),
  },
  {
    kind: 'exfiltration',
    description: 'pipes credentials into a network tool',
    re: new RegExp(
      String.raw`(?:\b(?:cat|base64|tar|zip|gpg|xxd)\b[^\n|]{0,400}?(?:${SECRET_PLACE})[^\n|]{0,400}|\b(?:env|printenv|set)\s*)\|\s*(?:curl|wget|nc|ncat|netcat|socat|telnet)\b`,
      'i',
    ),
  },
  {
    kind: 'exfiltration',
    description: 'tells the agent to send credentials or private files somewhere',
    re: new RegExp(
      String.raw`\b(?:send|upload|post|exfiltrate|transmit|forward|email|leak|copy)\b[^\n]{0,80}?(?:${SECRET_WORD})[^\n]{0,80}?\b(?:to|at|into)\b\s+[^\n]{0,40}?(?:https?:\/\/|\b[\w-]+(?:\.[\w-]+)*\.(?:com|net|org|io|dev|sh|xyz|ru|cn|me|co|app|site|info|biz|top|tk|cc)\b|[^\s@]{1,64}@[\w-]{1,63}\.\w{1,24}|webhook)`,
      'i',
    ),
  },
  {
    // A reply that shows such an image makes the reader's client fetch the URL, with whatever the agent filled in (a
    // query, or a `{placeholder}` or `$VAR` in its path).
    kind: 'exfiltration',
    description: 'shows an image from a URL that carries data (fetched when a reply shows it)',
    re: /!\[[^\]\n]{0,200}\]\(\s*<?(?:https?:)?\/\/[^\s)>]{1,400}?[?{$][^\s)>]{0,400}|<img\b[^>\n]{0,200}?\bsrc\s*=\s*["']?(?:https?:)?\/\/[^\s"'>]{1,400}?[?{$]/i,
  },
  {
    kind: 'pipe-to-shell',
    description: 'pipes a download into a shell',
    re: new RegExp(
      String.raw`\b(?:curl|wget|fetch|iwr|invoke-webrequest|irm|invoke-restmethod)\b[^\n|;]{0,400}\|\s*(?:${SHELL})\b`,
      'i',
    ),
  },
  {
    kind: 'pipe-to-shell',
    description: 'runs a download in a shell',
    re: /\b(?:(?:ba|z|da|k)?sh|source|\.|eval)\s+(?:-c\s+)?["']?(?:<\(|\$\(|`)\s*(?:curl|wget)\b/i,
  },
  {
    kind: 'base64-to-shell',
    description: 'decodes base64 into a shell',
    re: new RegExp(
      String.raw`base64\s+(?:-d|--decode|-D)\b[^\n]{0,400}\|\s*(?:${SHELL})\b|\beval\b[^\n]{0,400}base64\s+(?:-d|--decode|-D)\b|\b(?:ba|z)?sh\s+-c\s+["']?\$\([^)\n]{0,400}base64\s+(?:-d|--decode|-D)`,
      'i',
    ),
  },
]

/**
 * Words at least one rule needs, as `/ignore|disregard|…|base64/i` would find them: the literals in one keyword
 * pass (keyword-scan.ts), and where a word must be followed by more (`system prompt`, `irm` then a word boundary),
 * that part checked at the word. A text without any of them is skipped after that one pass.
 */
const FIRST_LOOK: ReadonlyArray<readonly [string, RegExp?]> = [
  ['ignore'],
  ['disregard'],
  ['forget'],
  ['override'],
  ['system', /system\s+prompt/iy],
  ['you', /you\s+are\s+now/iy],
  ['curl'],
  ['wget'],
  ['fetch'],
  ['iwr'],
  ['invoke-'],
  ['irm', /irm\b/iy],
  ['|', /\|\s*(?:nc|ncat|netcat|socat|telnet)\b/iy],
  ['send'],
  ['upload'],
  ['post'],
  ['exfiltrate'],
  ['transmit'],
  ['forward'],
  ['email'],
  ['leak'],
  ['copy'],
  ['base64'],
  ['!['],
  ['<img'],
]
const FIRST_LOOK_MATCHER = buildKeywordMatcher(FIRST_LOOK.map(([word]) => word))

/** Whether any word of FIRST_LOOK occurs in `text` (with what must follow it): the texts the rules need to read. */
export function mayHaveDirectives(text: string): boolean {
  return scanKeywords(FIRST_LOOK_MATCHER, text, (ids, last) =>
    ids.some((id) => {
      const [word, rest] = FIRST_LOOK[id] as readonly [string, RegExp?]
      if (!rest) return true
      rest.lastIndex = last + 1 - word.length
      return rest.test(text)
    }),
  )
}

/** The characters of a line the rules read at once. */
const LINE_CHARS = 4000
/** How much two windows of a long line share: more than any match's length, which the rules bound. */
const WINDOW_OVERLAP = 1000

/** Whether a line of `text` is longer than LINE_CHARS. */
function hasLongLine(text: string): boolean {
  let start = 0
  for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
    if (end - start > LINE_CHARS) return true
    start = end + 1
  }
  return text.length - start > LINE_CHARS
}

type Rule = (typeof DIRECTIVE_RULES)[number]

/** The rules as eachMatch runs them: every match, from each place one can start. */
let everyMatch: RegExp[] | undefined

/**
 * Every match of `rules` in `text`, from each place one can start, read LINE_CHARS at a time, the windows
 * overlapping by WINDOW_OVERLAP: a longer text is read whole, never past one window at once (a rule's backtracking
 * stays within it). A match is taken from the first window it starts in before the overlap, so the next window, which
 * holds it whole, does not read it again.
 */
function eachMatch(
  text: string,
  rules: readonly Rule[],
  found: (rule: Rule, start: number, end: number) => void,
): void {
  everyMatch ??= DIRECTIVE_RULES.map((r) => new RegExp(r.re.source, `${r.re.flags}g`))
  for (let from = 0; from === 0 || from < text.length - WINDOW_OVERLAP; from += LINE_CHARS - WINDOW_OVERLAP) {
    const window = text.slice(from, from + LINE_CHARS)
    const last = from + LINE_CHARS >= text.length
    for (const rule of rules) {
      if (!rule.re.test(window)) continue
      const re = everyMatch[DIRECTIVE_RULES.indexOf(rule)] as RegExp
      re.lastIndex = 0
      for (let m = re.exec(window); m; m = re.exec(window)) {
        if (!last && m.index >= LINE_CHARS - WINDOW_OVERLAP) break
        found(rule, from + m.index, from + m.index + m[0].length)
        re.lastIndex = m.index + 1
      }
    }
  }
}

/** A match of a rule in one reader's line (`unit`), before the matches its passage holds are left out. */
interface Match {
  rule: Rule
  unit: JoinedLine
  start: number
  end: number
  /** Where its passage (what the fingerprint covers) starts and ends in the unit's text. */
  from: number
  to: number
}

/**
 * Every directive-like passage of `text`: every match of every rule in the lines as a reader reads them (a
 * paragraph's lines joined, a shell's `\`-continued command as one line; see joinedLines), except one that lies
 * within the passage of an earlier one of its kind (the same sentence: its fingerprint covers it already). Each is
 * reported at the line where it starts, with its fingerprint. `everyRule` reads every line and run against every
 * rule, without the first look (the test that holds the first look to losing nothing).
 */
export function scanDirectives(text: string, opts: { everyRule?: boolean } = {}): DirectiveFinding[] {
  const found = scanWritten(text, opts)
  // An image by reference (`![ok][s]`, its `[s]: https://…?d=…` lines away) renders as the inline one does: read again
  // with each such image written inline, what that adds is reported at the image's line.
  const shown = inlineImageRefs(text)
  if (shown !== text)
    for (const d of scanWritten(shown, opts))
      if (!found.some((x) => x.line === d.line && x.kind === d.kind)) found.push(d)
  return found
}

/** A Markdown link reference definition, `[label]: url` (or `<url>`), at most three spaces in. */
const REFERENCE_DEFINITION = /^ {0,3}\[([^\]\n]{1,200})\]:[ \t]*<?([^\s>]{1,1000})/gm
/** A reference-style image: `![alt][label]`, `![label][]` or `![label]` (not an inline `![alt](url)`). */
const REFERENCE_IMAGE = /!\[([^\]\n]{0,200})\](?:\[([^\]\n]{0,200})\])?(?![(:[])/g

/** A reference label as Markdown matches it: case and runs of white space aside. */
const labelKey = (label: string) => label.trim().replace(/\s+/g, ' ').toLowerCase()

/** `text` with each image by reference to a definition it holds written inline; no line is added or removed. */
function inlineImageRefs(text: string): string {
  if (!text.includes('![') || !text.includes(']:')) return text
  const urls = new Map<string, string>()
  for (const m of text.matchAll(REFERENCE_DEFINITION)) {
    const key = labelKey(m[1] as string)
    if (!urls.has(key)) urls.set(key, m[2] as string) // the first definition of a label is the one used
  }
  if (!urls.size) return text
  return text.replace(REFERENCE_IMAGE, (image: string, alt: string, label: string | undefined) => {
    const url = urls.get(labelKey(label || alt))
    return url === undefined ? image : `![${alt}](${url})`
  })
}

/** scanDirectives of the text as written. */
function scanWritten(text: string, opts: { everyRule?: boolean }): DirectiveFinding[] {
  if (!opts.everyRule && !mayHaveDirectives(text)) return []
  // A rule that matches no part of the whole text matches none of its lines: no rule is anchored or looks around, so
  // a match in a line is one in the text. Except in a line cut at LINE_CHARS, whose cut end may close a match (`\b`)
  // that the whole line continues: a text with such a line is read line by line with every rule.
  const lines = text.split('\n')
  const joined = joinedLines(lines)
  const rules =
    opts.everyRule || hasLongLine(text)
      ? DIRECTIVE_RULES
      : DIRECTIVE_RULES.filter((r) => r.re.test(text) || joined.some((j) => r.re.test(j.text)))
  if (!rules.length) return []
  const passages = new Passages(lines)
  const matches: Match[] = []
  const seen = new Map<JoinedLine, Set<string>>()
  const add = (rule: Rule, unit: JoinedLine, start: number, end: number) => {
    const key = `${DIRECTIVE_RULES.indexOf(rule)} ${start}`
    const known = seen.get(unit) ?? new Set<string>()
    if (known.has(key)) return
    seen.set(unit, known.add(key))
    matches.push({ rule, unit, start, end, ...passages.around(unit, start, end) })
  }
  for (const unit of readerLines(lines, joined))
    eachMatch(unit.text, rules, (rule, start, end) => add(rule, unit, start, end))
  // Each line of a run is read as written too, as it always was (its quote marks and indentation, a continuation's
  // backslash): what a rule finds there is taken at its place in the run, whose sentence its passage is.
  for (const run of joined)
    for (let k = 0; k < run.starts.length; k++) {
      const line = lines[run.first + k] as string
      if (line.length > LINE_CHARS) continue // read alone, whole (readerLines)
      const at = run.starts[k] as number
      const lead = run.leads[k] as number
      const stop = k + 1 < run.starts.length ? (run.starts[k + 1] as number) - 1 : run.text.length
      eachMatch(line, rules, (rule, start, end) => {
        const from = Math.min(stop, at + Math.max(0, start - lead))
        add(rule, run, from, Math.max(from, Math.min(stop, at + end - lead)))
      })
    }
  const out: (DirectiveFinding & { column: number })[] = []
  const kept: Match[] = []
  matches.sort((a, b) => a.unit.first - b.unit.first || a.start - b.start || b.end - a.end)
  for (const m of matches) {
    const kind = m.rule.kind
    // Within the passage of one already reported (the same sentence): its fingerprint covers this one too.
    if (kept.some((k) => k.unit === m.unit && k.rule.kind === kind && k.from <= m.start && m.end <= k.to)) continue
    kept.push(m)
    const { line, column } = lineOf(m.unit, m.start)
    const fingerprint = directiveFingerprint(kind, m.unit.text.slice(m.from, m.to))
    // A line longer than a run holds is read alone too: the same passage found twice is one finding.
    if (out.some((f) => f.line === line && f.fingerprint === fingerprint)) continue
    out.push({
      kind,
      description: m.rule.description,
      line,
      excerpt: excerptOf(m.unit, m.start, m.end),
      fingerprint,
      column,
    })
  }
  return out.sort((a, b) => a.line - b.line || a.column - b.column).map(({ column: _, ...f }) => f)
}

/** The 1-based line and 0-based column in the unit's line of `offset` in its text. */
function lineOf(unit: JoinedLine, offset: number): { line: number; column: number } {
  let k = 0
  while (k + 1 < unit.starts.length && (unit.starts[k + 1] as number) <= offset) k++
  return { line: unit.first + k + 1, column: offset - (unit.starts[k] as number) + (unit.leads[k] as number) }
}

/** The match at [start, end) of the unit's text, its secrets redacted, cut to 120 characters. */
function excerptOf(unit: JoinedLine, start: number, end: number): string {
  unit.secrets ??= scanSecrets(unit.text)
  const inside: SecretRange[] = []
  for (const s of unit.secrets)
    if (s.start < end && s.end > start)
      inside.push({ rule: s.rule, start: Math.max(s.start, start) - start, end: Math.min(s.end, end) - start })
  return redactRanges(unit.text.slice(start, end), inside).slice(0, 120)
}

/** How far a passage reaches either side of its match, at most. */
const PASSAGE_REACH = 200
/** What ends a sentence: `.`, `!`, `?` or `;` before a blank (or, after the match, the end). */
const SENTENCE_END_BEFORE = /[.!?;]\s/g
const SENTENCE_END_AFTER = /[.!?;](?=\s|$)/
/** A frontmatter line's key and what opens its value (`key: "`, `key: >-`), left out of a passage. */
const KEY_PREFIX = /^[\w.-]+:[ \t]*(?:[|>][-+0-9]*[ \t]*)?/

/**
 * The passage around a match, what its fingerprint covers: the sentence it is in, as a reader reads it. It reaches
 * back to the end of the previous sentence and on to the end of its own (`.`, `!`, `?` or `;` and a blank), at most
 * PASSAGE_REACH characters either way, within its reader's line; in a frontmatter, within its key's value (the key
 * line and the indented lines YAML folds into it, the key left out), so another key's value is never part of it.
 */
class Passages {
  /** Index of the line that closes the frontmatter, or -1. */
  private readonly matterEnd: number

  constructor(private readonly lines: readonly string[]) {
    let close = -1
    if (lines.length > 1 && (lines[0] as string).trimEnd() === '---')
      close = lines.findIndex((l, i) => i > 0 && l.trimEnd() === '---')
    this.matterEnd = close
  }

  around(unit: JoinedLine, start: number, end: number): { from: number; to: number } {
    let lo = 0
    let hi = unit.text.length
    const first = lineOf(unit, start).line - 1 - unit.first
    if (this.inMatter(unit.first + first)) {
      let k = first
      while (k > 0 && this.folded(unit.first + k)) k--
      lo = (unit.starts[k] as number) + (KEY_PREFIX.exec(unit.text.slice(unit.starts[k] as number))?.[0].length ?? 0)
      let j = lineOf(unit, Math.max(start, end - 1)).line - 1 - unit.first
      while (j + 1 < unit.starts.length && this.folded(unit.first + j + 1)) j++
      if (j + 1 < unit.starts.length) hi = (unit.starts[j + 1] as number) - 1
    }
    let from = Math.max(lo, start - PASSAGE_REACH)
    SENTENCE_END_BEFORE.lastIndex = from
    for (let m = SENTENCE_END_BEFORE.exec(unit.text); m && m.index + 1 < start; m = SENTENCE_END_BEFORE.exec(unit.text))
      from = m.index + 1
    const after = unit.text.slice(end, Math.min(hi, end + PASSAGE_REACH))
    const stop = SENTENCE_END_AFTER.exec(after)
    return { from: Math.min(from, start), to: end + (stop ? stop.index : after.length) }
  }

  private inMatter(line: number): boolean {
    return line > 0 && line < this.matterEnd
  }

  /** A frontmatter line YAML folds into the value above it: indented. */
  private folded(line: number): boolean {
    return this.inMatter(line) && /^[ \t]/.test(this.lines[line] as string)
  }
}

/**
 * The fingerprint of a directive: `<kind>:` and the first 16 hex digits of the SHA-256 of its kind and its passage
 * (the sentence it is in, see Passages) lower-cased, every run of blanks as one space, without the quotes, list and
 * quote marks or punctuation at either end. Moving the sentence, re-indenting it, re-wrapping its paragraph or
 * quoting it another way keeps it; any change of its words (the command, the URL, a "do not" in front) makes another.
 */
export function directiveFingerprint(kind: DirectiveKind, passage: string): string {
  const text = passage
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/^(?:[\s"'`*_>#+-]|\d{1,9}[.)]\s)+/, '')
    .replace(/[\s"'`*_.,;:!?]+$/, '')
  return `${kind}:${sha256Hex(`${kind}\n${text}`).slice(0, 16)}`
}

/**
 * The lines as a reader reads them, each line in one: the joined runs (joinedLines), and every other line alone. A
 * line longer than a run holds (LINE_CHARS) is read alone too, whole.
 */
function readerLines(lines: readonly string[], joined: readonly JoinedLine[]): JoinedLine[] {
  const inRun = new Uint8Array(lines.length)
  for (const j of joined) for (let k = 0; k < j.starts.length; k++) inRun[j.first + k] = 1
  const out = [...joined]
  for (let i = 0; i < lines.length; i++)
    if (!inRun[i] || (lines[i] as string).length > LINE_CHARS)
      out.push({ text: lines[i] as string, first: i, starts: [0], leads: [0] })
  return out
}

/**
 * A run of lines a reader reads as one: its text, its first line (0-based), where each line starts in the text and
 * how many of that line's characters come before (quote marks, indentation).
 */
interface JoinedLine {
  text: string
  first: number
  starts: number[]
  leads: number[]
  /** The secrets in its text, once a finding's excerpt needs them. */
  secrets?: SecretRange[]
}

/** A line that starts a block of its own in markdown (a heading, a list item, a table row), read after its quote marks. */
const BLOCK_START = /^ {0,3}(?:#|[-*+] |\d{1,9}[.)] |\|)/
/** A block quote's marks at a line's start. */
const QUOTE = /^(?: {0,3}> ?)+/

/**
 * The runs of two or more lines that read as one line: a paragraph's lines (markdown shows each break as a space; a
 * block quote's too, its marks left out; never across a blank line, a heading, a list item, a table row or a code
 * fence, nor inside a fence), and a shell command continued by a backslash at a line's end (in code too). Each run
 * is cut at LINE_CHARS, as one line is; the next run starts again at the last line of the one cut, so that no two
 * lines a reader joins are read apart, and no rule reads more at once than it does in one line.
 */
function joinedLines(lines: readonly string[]): JoinedLine[] {
  const out: JoinedLine[] = []
  const fences = new Fences()
  let run: JoinedLine | undefined
  let last: { index: number; text: string; lead: number } | undefined
  const close = () => {
    if (run && run.starts.length > 1) out.push(run)
    run = undefined
  }
  const start = (index: number, text: string, lead: number) => {
    run = { text: text.slice(0, LINE_CHARS), first: index, starts: [0], leads: [lead] }
  }
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] as string).replace(/\r$/, '')
    const quoted = QUOTE.test(raw)
    const line = raw.replace(QUOTE, '')
    const lead = raw.length - line.trimStart().length
    const prev = i > 0 ? (lines[i - 1] as string).replace(/\r$/, '') : ''
    const continued = /\\$/.test(prev)
    const wasInside = fences.inside
    const code = fences.read(line)
    // A fence's own line opens or closes it; a line between is code, joined only by a shell's continuation.
    const fenceLine = code && wasInside !== fences.inside
    const blank = line.trim() === ''
    const paragraph = !code && !blank && !BLOCK_START.test(line)
    const joins = run !== undefined && (continued || (paragraph && quoted === QUOTE.test(prev)))
    if (joins && run) {
      const part = line.trim()
      if (run.text.length + 1 + part.length > LINE_CHARS) {
        // Cut here: the next run begins again at the last line read, so the two lines on either side are read together.
        close()
        if (last) start(last.index, last.text, last.lead)
      }
      const r = run as JoinedLine | undefined
      if (r) {
        r.text = `${continued ? r.text.replace(/\\$/, '') : r.text} ${part}`
        r.starts.push(r.text.length - part.length)
        r.leads.push(lead)
      } else start(i, line, raw.length - line.length)
    } else {
      close()
      if (!blank && !fenceLine && (!code || /\\$/.test(line))) start(i, line, raw.length - line.length)
    }
    last = { index: i, text: line.trim(), lead }
    if (fenceLine || blank || (!code && /^ {0,3}#/.test(line) && !/\\$/.test(line))) close()
  }
  close()
  return out
}
