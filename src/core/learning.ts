/** The learning model: a markdown file with YAML frontmatter, parsed and checked without touching the disk. */
import { yaml } from '../vendor/lazy/yaml.js'
import { parseSimpleFrontmatter } from './frontmatter-fast.js'
import { parseSections, sectionText } from './sections.js'
import { Fences, lineOfOffset } from './text-lines.js'
import { LearningParseError } from './errors.js'
import type { LearningState } from './errors.js'
import { KNOWN_KEYS, REQUIRED_SECTIONS, learningSchema } from './learning-schema.js'
import type { LearningType } from './learning-schema.js'
import { explainBadName } from './names.js'
import { redactSecrets } from './secrets.js'
import { formatSchemaErrors } from './validate.js'
import type { SchemaValidator } from './validate.js'

import { STATES, STORE_DIR, learningPath, parseStorePath } from './layout.js'

export { STATES, STORE_DIR, learningPath, parseSections, parseStorePath, sectionText }
/** Largest learning file accepted, in bytes. */
export const MAX_LEARNING_BYTES = 1024 * 1024
/** YAML aliases allowed in frontmatter: enough for hand-written anchors, far too few for a billion laughs. */
export const MAX_YAML_ALIASES = 50

export type Frontmatter = Record<string, unknown> & {
  name?: unknown
  description?: unknown
  type?: unknown
  trigger?: unknown
  tags?: unknown
}

export interface Learning {
  /** Repository-relative path, e.g. `.learnings/pending/x.md`. */
  path: string
  /** The name the path gives (the file name without `.md`). */
  name: string
  state: LearningState
  data: Frontmatter
  body: string
  /** 1-based line of the first body line in the file. */
  bodyLine: number
}

/**
 * A YAML error's first line without the parser's " at line L, column C:" (its code frame follows): the callers name
 * the line themselves, of the file rather than of the frontmatter block the parser was given.
 */
export function yamlReason(err: unknown): string {
  const e = err as { message?: string; reason?: string }
  return (String(e.reason ?? e.message ?? err).split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')
}

/**
 * The YAML engine for gray-matter: the `yaml` package (dates stay strings), aliases bounded, errors with a line.
 * `what` names the document in the error for one that is not a mapping (config.yaml, a bundle: not frontmatter).
 */
export function parseYamlMapping(text: string, what = 'the frontmatter'): Record<string, unknown> {
  // Plain frontmatter (what add and the templates write) is read without the yaml package: ~20× faster, same result.
  const simple = parseSimpleFrontmatter(text)
  if (simple) return simple
  const value: unknown = yaml().parse(text, { maxAliasCount: MAX_YAML_ALIASES, uniqueKeys: true, prettyErrors: true })
  if (value === null || value === undefined) return {}
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`${what} must be a mapping of keys to values`)
  return value as Record<string, unknown>
}

/**
 * The frontmatter block and the body after it, split as gray-matter 4 splits them (which this replaced: loading it
 * and js-yaml cost a hook ~30 ms, and its per-file overhead showed in a check of 10,000 files). The text starts with
 * `---` and a newline (checked by the caller); the block runs to the first "\n---" (even inside a longer line, as
 * gray-matter's does), the body starts after it, less one "\r" and one "\n". No closing line: all is frontmatter.
 */
export function splitFrontmatter(text: string): { matter: string; content: string } {
  const str = text.slice(3)
  const close = str.indexOf('\n---')
  if (close === -1) return { matter: str, content: '' }
  let content = str.slice(close + 4)
  if (content.charCodeAt(0) === 13) content = content.slice(1)
  if (content.charCodeAt(0) === 10) content = content.slice(1)
  // With CRLF line endings (core.autocrlf on Windows) the block's last line keeps its "\r": the yaml package refuses a
  // quoted scalar followed by a lone "\r", so the block is handed over without it.
  return { matter: str.slice(0, close).replace(/\r$/, ''), content }
}

/**
 * Parse a learning file's text; throws LearningParseError with the file and reason when it is not one. `parseYaml`
 * turns the frontmatter block into its mapping: parseYamlMapping, or a cache in front of it (check over a store).
 */
export function parseLearning(
  text: string,
  path: string,
  parseYaml: (matter: string) => Record<string, unknown> = parseYamlMapping,
): Learning {
  const where = parseStorePath(path)
  const fileName = path.split('/').pop()?.replace(/\.md$/, '') ?? path
  if (text.length > MAX_LEARNING_BYTES)
    throw new LearningParseError(path, `the file is larger than ${MAX_LEARNING_BYTES} bytes`)
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  // What check calls binary (a NUL in its first 8,000 bytes, as git decides) is refused on every road, not only there.
  const nul = text.indexOf('\0')
  if (nul !== -1)
    throw new LearningParseError(
      path,
      'holds a NUL character: a learning is UTF-8 markdown text; remove it',
      lineOfOffset(text, nul),
    )
  const conflict = conflictLine(text)
  if (conflict !== undefined)
    throw new LearningParseError(
      path,
      'holds an unresolved merge conflict (a "<<<<<<<" line and its ">>>>>>>"): keep the right text, remove the marker lines, then `git add` the file',
      conflict,
    )
  if (!/^---\r?\n/.test(text))
    throw new LearningParseError(path, 'no YAML frontmatter: the file must start with a line "---"', 1)
  const parsed = splitFrontmatter(text)
  let data: Record<string, unknown>
  try {
    // A block of nothing but blank and comment lines is an empty mapping without asking the parser (as in gray-matter).
    // A block that starts with a key's letter is not one, which spares nearly every file the pass over its block.
    data = !startsWithLetter(parsed.matter) && isOnlyComments(parsed.matter) ? {} : parseYaml(parsed.matter)
  } catch (err) {
    const e = err as { message?: string; linePos?: { line: number }[] }
    const line = e.linePos?.[0]?.line
    throw new LearningParseError(
      path,
      `malformed YAML frontmatter: ${yamlReason(err)}`,
      line === undefined ? undefined : line + 1,
    )
  }
  if (!/\r?\n---\s*(\r?\n|$)/.test(text.slice(3)))
    throw new LearningParseError(path, 'the frontmatter is not closed by a line "---"', 1)
  // The opening `---`, the matter's lines, the closing `---`: the body starts on the line after.
  const bodyLine = lineOfOffset(parsed.matter, parsed.matter.length) + 2
  return {
    path,
    name: fileName,
    state: where?.state ?? 'pending',
    data,
    body: parsed.content.replace(/^\r?\n/, ''),
    bodyLine,
  }
}

/**
 * The 1-based line of the first conflict marker git leaves in a file it could not merge: a line of exactly seven "<"
 * (alone or before a space and a label), then a line of seven "=", then one of seven ">", none of them inside a fenced
 * code block (a learning about merge conflicts quotes them there) or indented as code. Any one of them alone is text
 * ("=======" underlines a heading in markdown).
 */
export function conflictLine(text: string): number | undefined {
  if (!text.includes('<<<<<<<')) return undefined
  const lines = text.split('\n')
  const fences = new Fences()
  let open: number | undefined
  let middle = false
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).replace(/\r$/, '')
    // Inside a hunk (after a "<<<<<<<" outside a fence) fences are the hunk's text: two sides that change a code block's
    // info string open a fence each.
    if (open === undefined) {
      if (fences.read(line)) continue
      if (/^<{7}(?:[ \t].*)?$/.test(line)) open = i + 1
    } else if (/^={7}$/.test(line)) middle = true
    else if (middle && /^>{7}(?:[ \t].*)?$/.test(line)) return open
  }
  return undefined
}

/** True when `text` starts with an ASCII letter. */
function startsWithLetter(text: string): boolean {
  const c = text.charCodeAt(0) | 32
  return c >= 97 && c <= 122
}

/**
 * True when the frontmatter block holds nothing but blank lines and `#` comments. The blanks before a `#` stay on its
 * line: `^\s*` would be tried from every line of a run of blank lines, each try running over the rest of the run.
 */
function isOnlyComments(matter: string): boolean {
  return matter.replace(/^[^\S\n\r\u2028\u2029]*#[^\n]+/gm, '').trim() === ''
}

export interface Validation {
  errors: string[]
  warnings: string[]
}

/** Schema, name and section problems of a parsed learning, as sentences. */
export function validateLearning(learning: Learning, validator: SchemaValidator): Validation {
  const errors: string[] = []
  const warnings: string[] = []
  const data = learning.data
  if (!validator(data)) errors.push(...formatSchemaErrors(validator.errors ?? [], data))
  const badDay = typeof data.created === 'string' ? explainBadDay(data.created) : undefined
  if (badDay) errors.push(`field "created" is "${data.created as string}", ${badDay}; write the day it was created`)
  const badFile = explainBadName(learning.name)
  if (badFile) errors.push(`the file name is not a valid learning name: ${badFile}`)
  else if (typeof data.name === 'string' && data.name !== learning.name)
    errors.push(
      `field "name" is "${data.name}" but the file is ${learning.name}.md; they must be equal (rename the file or the field)`,
    )
  const type = data.type as LearningType
  // Own keys only: a hostile `type: constructor` would otherwise reach Object.prototype's.
  const required =
    typeof type === 'string' && Object.hasOwn(REQUIRED_SECTIONS, type) ? REQUIRED_SECTIONS[type] : undefined
  if (required) {
    const have = new Set(parseSections(learning.body).map((s) => s.toLowerCase()))
    const missing = required.filter((s) => !have.has(s.toLowerCase()))
    if (missing.length)
      errors.push(
        `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type} needs the section${missing.length > 1 ? 's' : ''} ${missing.map((s) => `"## ${s}"`).join(', ')} in its body, each a heading of its own`,
      )
  }
  for (const key of Object.keys(data))
    if (!KNOWN_KEYS.has(key)) warnings.push(`unknown frontmatter key "${key}" is kept but not used; check its spelling`)
  // A name or a key is quoted as written: a credential there is shown redacted (check runs in CI, whose logs are read).
  return { errors: errors.map((e) => redactSecrets(e)), warnings: warnings.map((w) => redactSecrets(w)) }
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]

/**
 * Why a `YYYY-MM-DD` text is no day of the calendar (2026-02-30, 2026-13-01), or undefined when it is one or is not of
 * that form (the schema's pattern says so). `Date.parse` takes 2026-02-30 as 2 March: the schema alone let it through.
 */
export function explainBadDay(text: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (!m) return undefined
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (mo < 1 || mo > 12) return `which has no month ${mo}`
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)
  const days = mo === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(mo) ? 30 : 31
  if (d < 1 || d > days) return `which is not a day of the calendar (${MONTHS[mo - 1] as string} ${y} has ${days} days)`
  return undefined
}

const KEY_ORDER = Object.keys(learningSchema.properties)

/**
 * A learning's text as git learn writes it: LF line endings. A CRLF blob in a repository with `* text eol=lf` (or
 * `core.autocrlf`) reads as modified in a clean checkout, and approve then refuses it for good (CONTRIBUTING.md).
 */
export function toLfLineEndings(text: string): string {
  return text.includes('\r\n') ? text.replace(/\r\n/g, '\n') : text
}

/** The file text of a learning: frontmatter in the canonical key order (unknown keys last), then the body. */
export function formatLearningFile(data: Frontmatter, body: string): string {
  const ordered: Record<string, unknown> = {}
  for (const k of KEY_ORDER) if (data[k] !== undefined) ordered[k] = data[k]
  for (const k of Object.keys(data)) if (!(k in ordered) && data[k] !== undefined) ordered[k] = data[k]
  const YAML = yaml()
  const doc = new YAML.Document(ordered)
  // Dates and versions stay quoted, so YAML 1.1 readers (js-yaml, gray-matter's default) keep them strings.
  for (const key of ['created', 'version']) {
    const node = doc.get(key, true)
    if (YAML.isScalar(node) && typeof node.value === 'string') node.type = 'QUOTE_DOUBLE'
  }
  const matter = doc.toString({ lineWidth: 0 })
  // trimEnd, not `/\s*$/`: that is tried from every character of a run of blanks inside the body.
  const text = `${toLfLineEndings(body).replace(/^\n+/, '').trimEnd()}\n`
  return `---\n${matter}---\n${text}`
}

export { triggersOf } from './triggers.js'
