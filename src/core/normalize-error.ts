/**
 * Error text normalized for matching: what varies between two runs of the same failure (numbers, paths, hex ids,
 * line:column, quotes, ANSI colour codes, timestamps) is removed, so a pasted stack trace and a learning's trigger
 * share their words. Applied to the indexed trigger and body and to every query.
 */

// ESC [ … final byte (SGR colours, cursor moves) and OSC hyperlinks.
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g
const CLOCK = /\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi
const HEX_ADDR = /\b0x[0-9a-f]+\b/gi
// A hex run of 7+ characters with at least one digit and one letter (commit ids, hashes, object ids).
const HEX_ID = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi
const URL_RE = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi
// node_modules/<pkg> and node_modules/@scope/<pkg>: the package name is the informative part of such a path.
const NODE_MODULE = /(?:[\w.@~-]*\/)*node_modules\/((?:@[\w.-]+\/)?[\w.-]+)(?:\/[\w.@~+-]*)*/g
// Paths: absolute, home-relative, ./relative, Windows drive, or anything with a slash and a file extension.
const PATH =
  /(?:[A-Za-z]:\\[^\s:'"`()]+)|(?:(?:~|\.{1,2})?\/[\w.@~+-]+(?:\/[\w.@~+-]*)*)|(?:\b[\w.@~+-]+(?:\/[\w.@~+-]+)+\.[A-Za-z0-9]+\b)|(?:\b[\w@~+-]+\.(?:[cm]?[jt]sx?|py|rb|go|rs|java|kt|cs|cpp|c|h|json|ya?ml|toml|md|sh|vue|svelte)\b)/g
const LINE_COL = /:\d+(?::\d+)?\b/g
const NUMBER = /\b\d+(?:[.,]\d+)*(?:ms|s|m|h|kb|mb|gb|b|%)?\b/gi
const QUOTES = /[`'"‘’“”«»]/g
const DURATION_PAREN = /\(\s*\)/g

/** The error text with run-specific details removed and whitespace collapsed (one line per input line). */
export function normalizeError(text: string): string {
  return text
    .replace(ANSI, '')
    .replace(URL_RE, ' ')
    .replace(ISO_TIME, ' ')
    .replace(CLOCK, ' ')
    .replace(UUID, ' ')
    .replace(HEX_ADDR, ' ')
    .replace(NODE_MODULE, (_m, pkg: string) => ` ${pkg.replace('/', ' ')} `)
    .replace(PATH, ' ')
    .replace(LINE_COL, ' ')
    .replace(HEX_ID, ' ')
    .replace(NUMBER, ' ')
    .replace(QUOTES, '')
    .replace(DURATION_PAREN, ' ')
    .split(/\r?\n/)
    .map((l) => l.replace(/[ \t]+/g, ' ').trim())
    .filter(Boolean)
    .join('\n')
}

/** Lines that usually carry the error in a log: error names, failures, assertions, panics. */
const INFORMATIVE = /\b(?:error|errors|exception|failed|failure|fail|fatal|panic|cannot|can't|unable|not found|undefined|expected|received|assertion|refused|denied|invalid|unexpected|missing|timed? ?out|warning|traceback|ERR_[A-Z_]+|E[A-Z]{3,})\b|✗|×|✕|FAIL/i

/** Text beyond this is not read at all (stdin is already capped at 8 MB). */
export const MAX_QUERY_CHARS = 4 * 1024 * 1024
export const MAX_QUERY_LINES = 40
export const MAX_LINE_CHARS = 500
export const MAX_QUERY_TOKENS = 64

/**
 * A bounded query out of any text (a 1 MB pasted log included): when the text has more than MAX_QUERY_LINES lines,
 * only the distinct lines that look like errors are kept (first occurrences, in order, at most MAX_QUERY_LINES),
 * falling back to the first lines; each line is cut to MAX_LINE_CHARS, and the result to MAX_QUERY_TOKENS × 4 words
 * (search then keeps MAX_QUERY_TOKENS distinct index terms).
 */
export function boundQuery(text: string): string {
  const head = text.length > MAX_QUERY_CHARS ? text.slice(0, MAX_QUERY_CHARS) : text
  let lines = head.split(/\r?\n/)
  if (lines.length > MAX_QUERY_LINES) {
    const seen = new Set<string>()
    const picked: string[] = []
    for (const raw of lines) {
      const l = raw.slice(0, MAX_LINE_CHARS).replace(ANSI, '').trim()
      if (!l || seen.has(l) || !INFORMATIVE.test(l)) continue
      seen.add(l)
      picked.push(l)
      if (picked.length >= MAX_QUERY_LINES) break
    }
    lines = picked.length ? picked : lines.slice(0, MAX_QUERY_LINES)
  }
  const seen = new Set<string>()
  const words: string[] = []
  for (const line of lines)
    for (const w of line.slice(0, MAX_LINE_CHARS).split(/\s+/)) {
      const k = w.toLowerCase()
      if (!w || seen.has(k)) continue
      seen.add(k)
      words.push(w)
      if (words.length >= MAX_QUERY_TOKENS * 4) return words.join(' ')
    }
  return words.join(' ')
}
