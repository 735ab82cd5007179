/**
 * Text aimed at agents that looks like prompt injection. A learning is read by agents as instructions, so a
 * learning that says "ignore previous instructions", sends credentials somewhere, or pipes the network into a
 * shell is refused unless a person said it is meant (`git learn add --allow-directives`).
 */
import { buildKeywordMatcher, scanKeywords } from './keyword-scan.js'
import { redactSecrets } from './secrets.js'

export type DirectiveKind = 'ignore-instructions' | 'exfiltration' | 'pipe-to-shell' | 'base64-to-shell'

export interface DirectiveFinding {
  kind: DirectiveKind
  description: string
  /** 1-based. */
  line: number
  /** The matched text, cut to 120 characters. */
  excerpt: string
  /** Found in a frontmatter value as YAML decodes it (core/agent-safety.ts decodedValues), not in the text as written. */
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
      String.raw`\b(?:curl|wget|http)\b[^\n|;]*?\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file|--post-file)(?:\s+|=)['"]?(?:[\w.-]+=)?@?[^\s'"]*(?:${SECRET_PLACE})`,
      'i',
    ),
  },
  {
    kind: 'exfiltration',
    description: 'pipes credentials into a network tool',
    re: new RegExp(
      String.raw`(?:\b(?:cat|base64|tar|zip|gpg|xxd)\b[^\n|]*(?:${SECRET_PLACE})[^\n|]*|\b(?:env|printenv|set)\s*)\|\s*(?:curl|wget|nc|ncat|netcat|socat|telnet)\b`,
      'i',
    ),
  },
  {
    kind: 'exfiltration',
    description: 'tells the agent to send credentials or private files somewhere',
    re: new RegExp(
      String.raw`\b(?:send|upload|post|exfiltrate|transmit|forward|email|leak|copy)\b[^\n]{0,80}?(?:${SECRET_WORD})[^\n]{0,80}?\b(?:to|at|into)\b\s+[^\n]{0,40}?(?:https?:\/\/|\b[\w-]+(?:\.[\w-]+)*\.(?:com|net|org|io|dev|sh|xyz|ru|cn|me|co|app|site|info|biz|top|tk|cc)\b|\S+@[\w-]+\.\w+|webhook)`,
      'i',
    ),
  },
  {
    kind: 'pipe-to-shell',
    description: 'pipes a download into a shell',
    re: new RegExp(
      String.raw`\b(?:curl|wget|fetch|iwr|invoke-webrequest|irm|invoke-restmethod)\b[^\n|;]*\|\s*(?:${SHELL})\b`,
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
      String.raw`base64\s+(?:-d|--decode|-D)\b[^\n]*\|\s*(?:${SHELL})\b|\beval\b[^\n]*base64\s+(?:-d|--decode|-D)\b|\b(?:ba|z)?sh\s+-c\s+["']?\$\([^)\n]*base64\s+(?:-d|--decode|-D)`,
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

/** The characters of a line the rules read. */
const LINE_CHARS = 4000

/** Whether a line of `text` is longer than LINE_CHARS. */
function hasLongLine(text: string): boolean {
  let start = 0
  for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
    if (end - start > LINE_CHARS) return true
    start = end + 1
  }
  return text.length - start > LINE_CHARS
}

/** Every directive-like passage of `text`, one finding per rule and line. */
export function scanDirectives(text: string): DirectiveFinding[] {
  const out: DirectiveFinding[] = []
  if (!mayHaveDirectives(text)) return out
  // A rule that matches no part of the whole text matches none of its lines: no rule is anchored or looks around, so
  // a match in a line is one in the text. Except in a line cut at LINE_CHARS, whose cut end may close a match (`\b`)
  // that the whole line continues: a text with such a line is read line by line with every rule.
  // What a reader joins: markdown renders a line break inside a paragraph as a space, a shell joins a line ending in
  // a backslash to the next. Same length as the text (each break becomes spaces), so an offset is one of the text.
  const joined = text.replace(JOINED_BREAK, (m) => ' '.repeat(m.length))
  const rules = hasLongLine(text) ? DIRECTIVE_RULES : DIRECTIVE_RULES.filter((r) => r.re.test(joined))
  if (!rules.length) return out
  const lines = text.split('\n')
  const found = new Set<(typeof DIRECTIVE_RULES)[number]>()
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).slice(0, LINE_CHARS)
    const seen = new Set<DirectiveKind>()
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
  // A rule no single line holds may still hold across a break ("Ignore all previous⏎instructions", a `curl … \⏎ | sh`):
  // found in the joined text, it is reported at the line where it starts.
  for (const r of rules) {
    if (found.has(r)) continue
    const m = r.re.exec(joined)
    if (!m) continue
    const line = lineAt(text, m.index)
    if (out.some((f) => f.kind === r.kind && f.line === line)) continue
    const shown = r.re.exec(redactSecrets(joined.slice(m.index, m.index + m[0].length)))?.[0] ?? m[0]
    out.push({ kind: r.kind, description: r.description, line, excerpt: redactSecrets(shown).slice(0, 120) })
  }
  return out.sort((a, b) => a.line - b.line)
}

/** A line break inside a paragraph (the next line is not blank), and a shell's backslash before a line break. */
const JOINED_BREAK = /\\\r?\n|\r?\n(?![ \t]*(?:\r?\n|$))/g

/** The 1-based line of `offset` in `text`. */
function lineAt(text: string, offset: number): number {
  let line = 1
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) line++
  return line
}

/** The trailer `add --allow-directives` records, with the learning's name as its value. */
export const DIRECTIVES_ALLOWED_TRAILER = 'Learning-Directives-Allowed'

/** Names whose override trailer appears in `message` (anywhere: squash merges fold messages together). */
export function parseDirectivesAllowed(message: string): Set<string> {
  const out = new Set<string>()
  for (const m of message.matchAll(/^\s*[*-]?\s*Learning-Directives-Allowed:[ \t]+(\S+)\s*$/gm)) out.add(m[1] as string)
  return out
}
