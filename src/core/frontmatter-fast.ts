/**
 * A fast road for the plain frontmatter that `git learn add` and the templates write, in front of the `yaml` package
 * (which stays the parser of record). The yaml package spends ~0.2 ms on a 15-line frontmatter; a cold check of
 * 10,000 learnings is mostly that. This reads only a narrow, unambiguous subset of YAML and returns undefined for
 * anything else, which is then parsed by the yaml package as before (with its errors and line numbers):
 *
 *   key: plain words          key: "double-quoted, \" \\ \n \t"         key: 12 | 0.75
 *   key: [a, "b", 3]          key: []          key: {k: v, k2: "w"}  (blank lines and whole-line # comments)
 *   key:                      key:                   key: >-            (also > | |-: what `add` writes for a long
 *     sub: value                - item                 folded text        description, its lines at two spaces,
 *                                                      at two spaces      none blank, none starting or ending in a space)
 *
 * Keys are `[A-Za-z_][A-Za-z0-9_-]*` of at most 1,024 characters, one level of nesting at two spaces. A plain
 * scalar starts with a letter and holds letters, digits, spaces and `_ . / ( ) + -` (never `:` or `#`), and is not one
 * of YAML's null and boolean words; a number is `0`, or digits not starting with 0, with an optional decimal part. A
 * double-quoted scalar's escapes are those JSON reads the same way (`\"`, `\\`, `\n`, `\t`: what `add` writes for a
 * description holding a quote); a flow mapping holds `key: scalar` pairs (`source: {kind: issue-thread}`, as people
 * write it by hand). Tabs, single quotes, other escapes, indented block scalars, anchors, tags, nested flow
 * collections, duplicate keys, deeper nesting and white space other than the space (a no-break space, a BOM,
 * U+2028…) all go to the yaml package. test/unit/core/frontmatter-fast.test.ts holds this to `YAML.parse` on every
 * input it accepts.
 */

const ITEM = /^( {2})?- (.*)$/
const PLAIN = /^[A-Za-z][A-Za-z0-9 _./()+-]*$/
const QUOTED = /^"(?:[^"\\\x00-\x1f\x7f\u0085\u2028\u2029\ufeff]|\\["\\nt])*"$/
const BLOCK_HEADER = /^([>|])(-?)$/
const BLOCK_LINE = /^ {2}(\S(?:.*\S)?)$/
const NUMBER = /^(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?$/
/** Plain words the YAML 1.2 core schema reads as null or a boolean (as values, and as keys). */
const RESERVED = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE'])
const NO = Symbol('not in the subset')
/**
 * What String.prototype.trim strips that YAML does not count as white space (YAML's is the space and the tab): a
 * block holding one goes to the yaml package, so that every trim() here strips spaces only (`name: fix-it\u00a0` is
 * `"fix-it\u00a0"` to YAML; `{kind: issue-thread}\u00a0` is an error).
 */
const JS_ONLY_SPACE = /[\v\f\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/

type Scalar = string | number
type Inline = Scalar | Scalar[] | Record<string, Scalar>
type Value = Inline | null | Record<string, Inline | null>

/**
 * One scalar of the subset, or NO. Its first character picks the one pattern that can match (a quote, a digit, a
 * letter): a check of 10,000 learnings tries each of ~150,000 values against one regex instead of three.
 */
function scalar(raw: string): Scalar | typeof NO {
  const text = raw.trim()
  const first = text.charCodeAt(0)
  // The escapes QUOTED lets through mean in YAML what they mean in JSON.
  if (first === 34)
    return QUOTED.test(text) ? (text.includes('\\') ? (JSON.parse(text) as string) : text.slice(1, -1)) : NO
  if (first >= 48 && first <= 57) return NUMBER.test(text) ? Number(text) : NO
  if (PLAIN.test(text) && !RESERVED.has(text)) return text
  return NO
}

/**
 * An inline value: a scalar, a flow sequence of scalars or a flow mapping of `key: scalar` pairs (keys as a line's);
 * NO outside the subset. An empty value is handled by the caller.
 */
function inline(raw: string): Inline | typeof NO {
  const text = raw.trim()
  if (text.startsWith('{')) return flowMap(text)
  if (!text.startsWith('[')) return scalar(text)
  if (!text.endsWith(']')) return NO
  const inner = text.slice(1, -1).trim()
  if (inner === '') return []
  const items: Scalar[] = []
  for (const part of inner.split(',')) {
    const s = scalar(part.trim())
    if (s === NO || (typeof s === 'string' && /[[\]{}]/.test(s))) return NO
    items.push(s)
  }
  return items
}

function flowMap(text: string): Record<string, Scalar> | typeof NO {
  if (!text.endsWith('}')) return NO
  const inner = text.slice(1, -1).trim()
  const map: Record<string, Scalar> = {}
  if (inner === '') return map
  for (const part of inner.split(',')) {
    const pair = part.trim()
    const colon = keyColon(pair, 0)
    if (colon === -1 || colon + 1 === pair.length) return NO
    const key = pair.slice(0, colon)
    const s = scalar(pair.slice(colon + 2))
    if (s === NO || (typeof s === 'string' && /[[\]{}]/.test(s))) return NO
    if (Object.hasOwn(map, key) || key === '__proto__' || RESERVED.has(key)) return NO
    map[key] = s
  }
  return map
}

/**
 * Where the colon of a `key: value` line is, reading the key at `from`, or -1: what
 * `/^([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?$/` matches (from 0; from 2 after two spaces for a child), read without a
 * regex, whose match arrays were a third of a full check's garbage. `.` stops at U+2028 and U+2029 (a line has no
 * "\n", and a block with "\r" never gets here). A key of more than 1,024 characters is not read: YAML's limit on an
 * implicit key, which the yaml package enforces in a block mapping (declined in a flow mapping too, to keep one rule).
 */
function keyColon(line: string, from: number): number {
  let code = line.charCodeAt(from)
  if (!(((code | 32) >= 97 && (code | 32) <= 122) || code === 95)) return -1
  let at = from + 1
  for (; at < line.length; at++) {
    code = line.charCodeAt(at)
    const letter = (code | 32) >= 97 && (code | 32) <= 122
    if (!(letter || (code >= 48 && code <= 57) || code === 95 || code === 45)) break
  }
  if (code !== 58 || at >= line.length || at - from > 1024) return -1
  if (at + 1 === line.length) return at
  if (line.charCodeAt(at + 1) !== 32 || line.includes('\u2028', at) || line.includes('\u2029', at)) return -1
  return at
}

/** The mapping of a frontmatter block in the subset, or undefined: parse it with the yaml package. */
export function parseSimpleFrontmatter(block: string): Record<string, unknown> | undefined {
  if (block.includes('\t') || block.includes('\r') || JS_ONLY_SPACE.test(block)) return undefined
  const out: Record<string, Value> = {}
  // The key whose value is still being read from indented lines, and what has been read.
  let open: { key: string; map?: Record<string, Inline | null>; seq?: Scalar[]; seqIndent?: string } | undefined
  const close = () => {
    if (!open) return
    out[open.key] = open.map ?? open.seq ?? null
    open = undefined
  }
  // A block scalar being read: its key, style (> folds lines with spaces, | keeps them), chomping and lines.
  let text: { key: string; folded: boolean; strip: boolean; lines: string[] } | undefined
  const closeText = (): boolean => {
    if (!text) return true
    if (!text.lines.length) return false
    out[text.key] = text.lines.join(text.folded ? ' ' : '\n') + (text.strip ? '' : '\n')
    text = undefined
    return true
  }
  for (const line of block.split('\n')) {
    if (text) {
      const l = BLOCK_LINE.exec(line)
      if (l) {
        text.lines.push(l[1] as string)
        continue
      }
      if (line.startsWith(' ') || line.trim() === '' || !closeText()) return undefined
    }
    if (line.charCodeAt(0) === 35 || line.trim() === '') continue
    if (open) {
      // Only a line that starts with "-" or two spaces can be an item or a child (both patterns say so).
      const indented = line.startsWith('  ')
      const item = indented || line.charCodeAt(0) === 45 ? ITEM.exec(line) : null
      if (item && !open.map) {
        // Every item of one sequence at the same indent (0 or 2), as YAML requires.
        const indent = item[1] ?? ''
        if (open.seqIndent !== undefined && open.seqIndent !== indent) return undefined
        open.seqIndent = indent
        const s = scalar(item[2] as string)
        if (s === NO) return undefined
        ;(open.seq ??= []).push(s)
        continue
      }
      const childColon = indented ? keyColon(line, 2) : -1
      if (childColon !== -1 && !open.seq) {
        const key = line.slice(2, childColon)
        const raw = childColon + 1 === line.length ? undefined : line.slice(childColon + 2)
        const map = (open.map ??= {})
        if (Object.hasOwn(map, key) || key === '__proto__' || RESERVED.has(key)) return undefined
        if (raw === undefined || raw.trim() === '') map[key] = null
        else {
          const v = inline(raw)
          if (v === NO) return undefined
          map[key] = v
        }
        continue
      }
      if (line.startsWith(' ') || line.startsWith('-')) return undefined
      close()
    }
    const colon = keyColon(line, 0)
    if (colon === -1) return undefined
    const key = line.slice(0, colon)
    const raw = colon + 1 === line.length ? undefined : line.slice(colon + 2)
    if (Object.hasOwn(out, key) || key === '__proto__' || RESERVED.has(key)) return undefined
    if (raw === undefined || raw.trim() === '') {
      open = { key }
      continue
    }
    const value = raw.trim()
    const header = value.charCodeAt(0) === 62 || value.charCodeAt(0) === 124 ? BLOCK_HEADER.exec(value) : null
    if (header) {
      text = { key, folded: header[1] === '>', strip: header[2] === '-', lines: [] }
      continue
    }
    const v = inline(raw)
    if (v === NO) return undefined
    out[key] = v
  }
  close()
  if (!closeText()) return undefined
  // Nothing but comments: YAML.parse says null, and the caller decides what that means.
  return Object.keys(out).length ? out : undefined
}
