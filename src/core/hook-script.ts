/**
 * Where git learn's line goes in a husky hook script (sh), so that it runs. Our line is appended at the end (after
 * `npx lint-staged`, so the check sees the staged files as they will be committed), except that a script ending
 * with a top-level `exit …` or `exec <command>` never reaches its end: then the line goes just before that line.
 * The top of the file would always run, but before lint-staged, whose formatter may still rewrite what we checked.
 * Reading sh exactly needs a shell; this is a line scanner that knows `if/case/for/while/until/{ … }` nesting,
 * `;`/`&&`/`||`/`|` lists, comments, quotes, line continuations and here-documents. What it cannot follow, or an
 * `exit`/`exec` that may end the script before our line, it reports instead of guessing.
 */

/** Something in the script that may keep our line from running (1-based line numbers of the planned text). */
export interface HookScriptConcern {
  kind: 'may-exit' | 'unparsed'
  line: number
  text: string
}

export interface HookLinePlan {
  /** The whole script with our line in place. */
  text: string
  /** Our line's 1-based number in `text`. */
  line: number
  /** The top-level `exit`/`exec` our line was put in front of. */
  before?: { line: number; text: string }
  /** Where our line was before it was moved (1-based, in the old text); set only when it moved. */
  movedFrom?: number
  /** Whether our line was already there (possibly as an older version). */
  existed: boolean
  concerns: HookScriptConcern[]
}

interface Segment {
  words: string[]
  /** The operator before this command on its line: '' at the start of the line. */
  after: '' | ';' | '&&' | '||' | '|' | '&'
  /** Nesting depth (if, case, loops, braces) at this command; set by scanScript. */
  depth: number
}

interface ScannedLine {
  /** Index into the script's lines of the line's first physical line. */
  index: number
  segments: Segment[]
}

const OPEN = new Set(['if', 'case', 'for', 'while', 'until', '{'])
const CLOSE = new Set(['fi', 'esac', 'done', '}'])
const LEADING = new Set(['then', 'do', 'else', '!', 'time'])

/** Split one logical line into commands (quote-aware), dropping a trailing comment. */
function splitCommands(line: string): Segment[] {
  const segments: Segment[] = []
  let word = ''
  let words: string[] = []
  let after: Segment['after'] = ''
  let quote = ''
  const endWord = () => {
    if (word) words.push(word)
    word = ''
  }
  const endCommand = (op: Segment['after']) => {
    endWord()
    segments.push({ words, after, depth: 0 })
    words = []
    after = op
  }
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string
    if (quote) {
      if (c === quote) quote = ''
      else if (c === '\\' && quote === '"') i++
      word += c
      continue
    }
    if (c === '"' || c === "'") {
      quote = c
      word += c
    } else if (c === '\\') {
      word += line.slice(i, i + 2)
      i++
    } else if (c === '#' && !word) break
    else if (c === ' ' || c === '\t') endWord()
    else if (c === ';') {
      endCommand(';')
      while (line[i + 1] === ';') i++
    } else if (c === '&' || c === '|') {
      const two = line[i + 1] === c
      if (two) i++
      endCommand(two ? (c === '&' ? '&&' : '||') : c === '&' ? '&' : '|')
    } else word += c
  }
  endCommand('')
  return segments.filter((s) => s.words.length)
}

/** Words before a segment's command: `then`, `do`, `else`, `!`, a case pattern (`*)`), and openers (`{ if …`). */
const isPrefix = (w: string) =>
  LEADING.has(w) || (/\)$/.test(w) && !/\(\)$/.test(w)) || w === '{' || w === 'if' || w === 'while' || w === 'until'

/** The command words of a segment, past its prefix words. */
function commandWords(s: Segment): string[] {
  let i = 0
  while (i < s.words.length - 1 && isPrefix(s.words[i] as string)) i++
  return s.words.slice(i)
}

/** The script's logical lines with their nesting depth; `ok` false when the nesting does not add up. */
function scanScript(lines: readonly string[]): { scanned: ScannedLine[]; ok: boolean } {
  const scanned: ScannedLine[] = []
  let depth = 0
  let ok = true
  for (let i = 0; i < lines.length; i++) {
    const index = i
    let text = (lines[i] as string).replace(/\r$/, '') // a hook saved with CRLF
    while (/(^|[^\\])\\$/.test(text) && i + 1 < lines.length)
      text = text.slice(0, -1) + (lines[++i] as string).replace(/\r$/, '')
    const segments = splitCommands(text)
    scanned.push({ index, segments })
    for (const s of segments) {
      s.depth = depth
      let opened = false
      for (const w of s.words) {
        if (!isPrefix(w) && !OPEN.has(w)) break
        if (OPEN.has(w)) {
          depth++
          opened = true
        }
      }
      const words = commandWords(s)
      const first = words[0] as string
      if (CLOSE.has(first)) depth--
      else if (!opened && s.words.length > 1 && s.words[s.words.length - 1] === '{') depth++ // name() {
      if (depth < 0) ok = false
    }
    const heredoc = /<<-?\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?/.exec(text)
    if (heredoc) {
      const end = heredoc[1] as string
      while (i + 1 < lines.length && (lines[i + 1] as string).replace(/^\t+/, '') !== end) i++
      i++
    }
  }
  return { scanned, ok: ok && depth === 0 }
}

/** `exec` with a command (not `exec < /dev/tty`, which only redirects and goes on). */
function execsCommand(words: string[]): boolean {
  if (words[0] !== 'exec') return false
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as string
    const redirect = /^\d*(<<?|>>?|<>|>\||<&|>&)(.*)$/.exec(w)
    if (!redirect) return true
    if (!redirect[2]) i++ // `< /dev/tty`: the target is the next word
  }
  return false
}

/** Whether an `exit` may end the script successfully (a non-zero literal, `$?` or a bare `|| exit` cannot). */
function exitsZero(s: Segment, words: string[]): boolean {
  const status = words[1]
  if (status === undefined) return s.after !== '||'
  if (/^\d+;?$/.test(status)) return Number.parseInt(status, 10) === 0
  return !/^["']?\$\?["']?$/.test(status)
}

/** The first line after which nothing runs: an unconditional top-level `exit` or `exec <command>`. */
function findTerminal(scanned: readonly ScannedLine[]): ScannedLine | undefined {
  return scanned.find((l) =>
    l.segments.some((s) => {
      const words = commandWords(s)
      return s.depth === 0 && (s.after === '' || s.after === ';') && (words[0] === 'exit' || execsCommand(words))
    }),
  )
}

/** Lines before `upto` (an index into the lines) with an `exit`/`exec` that may end the script first. */
function findExitsBefore(scanned: readonly ScannedLine[], upto: number, lines: readonly string[]): HookScriptConcern[] {
  const out: HookScriptConcern[] = []
  for (const l of scanned) {
    if (l.index >= upto) break
    const hit = l.segments.some((s) => {
      const words = commandWords(s)
      return (words[0] === 'exit' && exitsZero(s, words)) || execsCommand(words)
    })
    if (hit) out.push({ kind: 'may-exit', line: l.index + 1, text: (lines[l.index] as string).trim() })
  }
  return out
}

/**
 * Place `line` in a hook script: where a line of ours already is (replaced by `line`) unless a top-level
 * `exit`/`exec` comes before it (then it moves in front of that), else at the end, or in front of such an
 * `exit`/`exec` when the script has one. `isOurs` recognises a line of ours (any version).
 */
export function planHookLine(text: string, line: string, isOurs: (l: string) => boolean): HookLinePlan {
  const had = text.split('\n')
  const at = had.findIndex(isOurs)
  const lines = at >= 0 ? had.filter((_, i) => i !== at) : had
  if (lines.length && lines[lines.length - 1] === '') lines.pop()
  const { scanned, ok } = scanScript(lines)
  const terminal = findTerminal(scanned)
  let index: number
  if (at >= 0 && (!terminal || at <= terminal.index)) index = at
  else index = terminal ? terminal.index : lines.length
  lines.splice(index, 0, line)
  const out = `${lines.join('\n')}\n`
  const concerns = findExitsBefore(scanned, index, lines)
  if (!ok) concerns.push({ kind: 'unparsed', line: index + 1, text: line })
  return {
    text: out,
    line: index + 1,
    ...(terminal && index === terminal.index
      ? { before: { line: index + 2, text: (lines[index + 1] as string).trim() } }
      : {}),
    ...(at >= 0 && at !== index ? { movedFrom: at + 1 } : {}),
    existed: at >= 0,
    concerns,
  }
}
