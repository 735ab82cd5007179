/**
 * Text aimed at agents that looks like prompt injection. A learning is read by agents as instructions, so a
 * learning that says "ignore previous instructions", sends credentials somewhere, or pipes the network into a
 * shell is refused unless a person said it is meant (`git learn add --allow-directives`).
 */
import { buildKeywordMatcher, scanKeywords } from './keyword-scan.js'
import { redactSecrets } from './secrets.js'
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

/**
 * Every directive-like passage of `text`, one finding per rule and line. `everyRule` reads every line and run against
 * every rule, without the first look (the test that holds the first look to losing nothing).
 */
export function scanDirectives(text: string, opts: { everyRule?: boolean } = {}): DirectiveFinding[] {
  const out: DirectiveFinding[] = []
  if (!opts.everyRule && !mayHaveDirectives(text)) return out
  // A rule that matches no part of the whole text matches none of its lines: no rule is anchored or looks around, so
  // a match in a line is one in the text. Except in a line cut at LINE_CHARS, whose cut end may close a match (`\b`)
  // that the whole line continues: a text with such a line is read line by line with every rule.
  const lines = text.split('\n')
  const joined = joinedLines(lines)
  const rules =
    opts.everyRule || hasLongLine(text)
      ? DIRECTIVE_RULES
      : DIRECTIVE_RULES.filter((r) => r.re.test(text) || joined.some((j) => r.re.test(j.text)))
  if (!rules.length) return out
  const found = new Set<(typeof DIRECTIVE_RULES)[number]>()
  for (let i = 0; i < lines.length; i++) {
    const whole = lines[i] as string
    const seen = new Set<DirectiveKind>()
    // A line is read LINE_CHARS at a time, the windows overlapping by WINDOW_OVERLAP: a longer one is read whole, never
    // past one window at once (a rule's backtracking stays within it).
    for (let from = 0; from === 0 || from < whole.length - WINDOW_OVERLAP; from += LINE_CHARS - WINDOW_OVERLAP) {
      const line = whole.slice(from, from + LINE_CHARS)
      for (const r of rules) {
        if (seen.has(r.kind)) continue
        if (!r.re.test(line)) continue
        seen.add(r.kind)
        found.add(r)
        // The excerpt is cut from the redacted line, so a token inside a command is never shown whole.
        const shown = r.re.exec(redactSecrets(line))?.[0] ?? redactSecrets(line)
        out.push({ kind: r.kind, description: r.description, line: i + 1, excerpt: shown.slice(0, 120) })
      }
    }
  }
  // A rule no single line holds may still hold across a break a reader does not see ("Ignore all previous⏎instructions"
  // inside a paragraph, a `curl … \⏎ | sh`): read in the lines as joined, reported at the line where the match starts.
  for (const r of rules) {
    if (found.has(r)) continue
    for (const j of joined) {
      const m = r.re.exec(j.text)
      if (!m) continue
      let line = j.first
      while (line - j.first + 1 < j.starts.length && (j.starts[line - j.first + 1] as number) <= m.index) line++
      if (!out.some((f) => f.kind === r.kind && f.line === line + 1)) {
        const shown = r.re.exec(redactSecrets(m[0]))?.[0] ?? m[0]
        out.push({
          kind: r.kind,
          description: r.description,
          line: line + 1,
          excerpt: redactSecrets(shown).slice(0, 120),
        })
      }
      break
    }
  }
  return out.sort((a, b) => a.line - b.line)
}

/** A run of lines a reader reads as one: its text, its first line (0-based) and where each line starts in the text. */
interface JoinedLine {
  text: string
  first: number
  starts: number[]
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
  let last: { index: number; text: string } | undefined
  const close = () => {
    if (run && run.starts.length > 1) out.push(run)
    run = undefined
  }
  const start = (index: number, text: string) => {
    run = { text: text.slice(0, LINE_CHARS), first: index, starts: [0] }
  }
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] as string).replace(/\r$/, '')
    const quoted = QUOTE.test(raw)
    const line = raw.replace(QUOTE, '')
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
        if (last) start(last.index, last.text)
      }
      const r = run as JoinedLine | undefined
      if (r) {
        r.text = `${continued ? r.text.replace(/\\$/, '') : r.text} ${part}`
        r.starts.push(r.text.length - part.length)
      } else start(i, line)
    } else {
      close()
      if (!blank && !fenceLine && (!code || /\\$/.test(line))) start(i, line)
    }
    last = { index: i, text: line.trim() }
    if (fenceLine || blank || (!code && /^ {0,3}#/.test(line) && !/\\$/.test(line))) close()
  }
  close()
  return out
}

/** The trailer `add --allow-directives` records, with the learning's name as its value. */
export const DIRECTIVES_ALLOWED_TRAILER = 'Learning-Directives-Allowed'

/** Names whose override trailer appears in `message` (anywhere: squash merges fold messages together). */
export function parseDirectivesAllowed(message: string): Set<string> {
  const out = new Set<string>()
  for (const m of message.matchAll(/^\s*[*-]?\s*Learning-Directives-Allowed:[ \t]+(\S+)\s*$/gm)) out.add(m[1] as string)
  return out
}
