/**
 * The `tiers` list of `.learnings/config.yaml` edited by `git learn tier add|update|remove` as text: the lines of the
 * tier concerned change and no other byte of the file. Re-serialising the whole file (the `yaml` package's Document)
 * kept the comments but not their alignment, and wrote `[x]` as `[ x ]` in every flow list: the default
 * `system: [".claude/skills/**", …]` line, which the husky pre-commit line matches byte for byte, among them.
 *
 * Where the edit is precise: a tier added to, changed in or removed from a block list of block mappings (what `tier add`
 * writes), a list that is `[]`, empty or absent (what `git learn init` writes). Any other shape of the list (a flow
 * list with entries, a flow mapping as an entry) is rewritten as a block list: only the `tiers:` entry changes. The
 * text is then parsed again and must hold what was meant, the rest of the configuration included; if it does not
 * (a shape not foreseen), the Document is serialised as before.
 */
import * as YAML from '../vendor/yaml.js'
import type { Config } from './config-schema.js'
import { ConfigError } from './errors.js'
import { parseYamlMapping } from './learning.js'

type Tier = Config['tiers'][number]
type Entry = Record<string, unknown>
interface Edit {
  from: number
  to: number
  text: string
}

/** config.yaml as a Document, once it passes every other read's checks: aliases bounded, keys unique, a mapping. */
function configDocument(text: string, path: string): YAML.Document {
  const doc = YAML.parseDocument(text)
  if (doc.errors.length) throw new ConfigError(path, [`malformed YAML: ${doc.errors[0]?.message ?? ''}`])
  try {
    parseYamlMapping(text)
  } catch (err) {
    throw new ConfigError(path, [`malformed YAML: ${String((err as Error).message ?? err).split('\n')[0]}`])
  }
  return doc
}

const definedEntries = (tier: Tier): Entry =>
  Object.fromEntries(Object.entries(tier).filter(([, v]) => v !== undefined))

const isTierNamed = (it: unknown, name: string) => YAML.isMap(it) && it.get('name') === name

/** The text with the edits made (they do not overlap). */
function applyEdits(text: string, edits: Edit[]): string {
  let out = text
  for (const e of [...edits].sort((a, b) => b.from - a.from)) out = out.slice(0, e.from) + e.text + out.slice(e.to)
  return out
}

/** Edits the text for one change of the tiers list, or undefined for a shape this does not edit precisely. */
class TierText {
  readonly eol: string

  constructor(readonly text: string) {
    this.eol = text.includes('\r\n') ? '\r\n' : '\n'
  }

  lineStart(pos: number): number {
    return this.text.lastIndexOf('\n', pos - 1) + 1
  }

  /** The start of the line after the one `pos` ends in (pos itself when it starts a line), or the end of the text. */
  nextLine(pos: number): number {
    if (pos > 0 && this.text[pos - 1] === '\n') return pos
    const i = this.text.indexOf('\n', pos)
    return i < 0 ? this.text.length : i + 1
  }

  /** Lines inserted at `pos` (a line start, or the end of a text without a final newline). */
  insertLines(pos: number, lines: string): Edit {
    const needsBreak = pos > 0 && this.text[pos - 1] !== '\n'
    return { from: pos, to: pos, text: needsBreak ? this.eol + lines.slice(0, -this.eol.length) : lines }
  }

  /** One scalar as it is written after `key: `; undefined when it would not fit on one line. */
  static scalar(value: unknown): string | undefined {
    const s = YAML.stringify(value, { lineWidth: 0 }).replace(/\n$/, '')
    return s.includes('\n') ? undefined : s
  }

  /** A list entry as block lines: its dash at `dash`, its keys at `keys` (columns). */
  entryLines(entry: Entry, dash: number, keys: number): string {
    const lines = YAML.stringify(entry, { lineWidth: 0 }).replace(/\n$/, '').split('\n')
    const first = `${' '.repeat(dash)}-${' '.repeat(Math.max(1, keys - dash - 1))}`
    return lines.map((l, i) => (i ? ' '.repeat(keys) : first) + l + this.eol).join('')
  }

  /** The column of the dash of a block list's entry, if the entry's keys start on the dash's line. */
  dashOf(item: YAML.YAMLMap): number | undefined {
    const start = item.range?.[0] ?? 0
    const dash = this.text.lastIndexOf('-', start - 1)
    if (dash < 0 || !/^[ \t]*$/.test(this.text.slice(dash + 1, start))) return undefined
    if (!/^[ \t]*$/.test(this.text.slice(this.lineStart(dash), dash))) return undefined
    return dash
  }
}

/** The new text of config.yaml with the tiers list `after` (one entry added, changed or removed). */
function editTiers(
  text: string,
  doc: YAML.Document,
  after: Entry[],
  change: { add: Entry } | { set: number; entry: Entry } | { remove: number },
): string | undefined {
  const t = new TierText(text)
  const top = doc.contents
  if (top !== null && (!YAML.isMap(top) || top.flow)) return undefined
  const pair = top?.items.find((p) => YAML.isScalar(p.key) && p.key.value === 'tiers')
  const firstKey = top?.items[0]?.key as YAML.Node | undefined
  const keyCol = firstKey?.range ? firstKey.range[0] - t.lineStart(firstKey.range[0]) : 0
  if (!pair) {
    if (!after.length) return text
    const lines = `${' '.repeat(keyCol)}tiers:${t.eol}${after.map((e) => t.entryLines(e, keyCol + 2, keyCol + 4)).join('')}`
    return applyEdits(text, [t.insertLines(text.length, lines)])
  }
  const key = pair.key as YAML.Node
  const colonEnd = text.indexOf(':', key.range?.[1] ?? 0) + 1
  if (colonEnd <= 0) return undefined
  const value = pair.value as YAML.Node | null
  const seq = YAML.isSeq(value) && !value.flow ? value : undefined
  const maps = seq?.items.every((it) => YAML.isMap(it) && !it.flow && it.range) ? (seq?.items as YAML.YAMLMap[]) : []
  const dashes = maps.map((m) => t.dashOf(m))
  const precise = seq && maps.length && dashes.every((d) => d !== undefined)

  if (precise && 'add' in change) {
    const last = maps[maps.length - 1] as YAML.YAMLMap
    const dash = dashes[dashes.length - 1] as number
    const keys = (last.range?.[0] ?? 0) - t.lineStart(dash)
    const lines = t.entryLines(change.add, dash - t.lineStart(dash), keys)
    return applyEdits(text, [t.insertLines(t.nextLine(last.range?.[2] ?? 0), lines)])
  }
  if (precise && 'set' in change) {
    const map = maps[change.set] as YAML.YAMLMap
    const keys = (map.range?.[0] ?? 0) - t.lineStart(map.range?.[0] ?? 0)
    const edits: Edit[] = []
    let added = ''
    for (const [k, v] of Object.entries(change.entry)) {
      const written = TierText.scalar(v)
      if (written === undefined) return undefined
      const p = map.items.find((x) => YAML.isScalar(x.key) && x.key.value === k)
      if (!p) {
        added += `${' '.repeat(keys)}${k}: ${written}${t.eol}`
        continue
      }
      if (!YAML.isScalar(p.value) || !p.value.range) return undefined
      if (p.value.value === v) continue
      const [from, to] = p.value.range
      edits.push({ from, to, text: from === to ? ` ${written}` : written })
    }
    if (added) edits.push(t.insertLines(t.nextLine(map.range?.[2] ?? 0), added))
    return applyEdits(text, edits)
  }
  if (precise && 'remove' in change && maps.length > 1) {
    const map = maps[change.remove] as YAML.YAMLMap
    const from = t.lineStart(dashes[change.remove] as number)
    return applyEdits(text, [{ from, to: t.nextLine(map.range?.[2] ?? 0), text: '' }])
  }

  // The whole value, written anew: `[]` when empty, else a block list under the key.
  const range = value?.range
  if (!range) return undefined
  const block = after.map((e) => t.entryLines(e, keyCol + 2, keyCol + 4)).join('')
  if (seq) {
    if (block) return applyEdits(text, [{ from: t.lineStart(range[0]), to: t.nextLine(range[1]), text: block }])
    const keyLineEnd = t.nextLine(colonEnd)
    const rest = text.slice(colonEnd, keyLineEnd).replace(/\r?\n$/, '')
    const end = t.nextLine(range[1])
    return applyEdits(text, [
      { from: colonEnd, to: end, text: ` []${rest}${end === keyLineEnd || text[end - 1] === '\n' ? t.eol : ''}` },
    ])
  }
  if (!block) return applyEdits(text, [{ from: range[0], to: range[1], text: range[0] === range[1] ? ' []' : '[]' }])
  return applyEdits(text, [{ from: colonEnd, to: range[1], text: '' }, t.insertLines(t.nextLine(range[1]), block)])
}

/** The text, unless it does not hold `expected` (then the Document, serialised: comments kept, layout not). */
function checked(text: string | undefined, expected: unknown, doc: YAML.Document, tiers: Entry[]): string {
  if (text !== undefined) {
    try {
      const got = YAML.parseDocument(text)
      if (!got.errors.length && JSON.stringify(got.toJS()) === JSON.stringify(expected)) return text
    } catch {
      // Not what was meant: the Document below.
    }
  }
  if (!YAML.isMap(doc.contents)) doc.contents = doc.createNode({}) as never
  const seq = doc.createNode(tiers) as YAML.YAMLSeq
  seq.flow = !tiers.length
  doc.set('tiers', seq)
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false })
}

function tiersOf(doc: YAML.Document): { before: Entry; tiers: Entry[] } {
  const before = (doc.toJS() ?? {}) as Entry
  const tiers = Array.isArray(before['tiers']) ? (before['tiers'] as Entry[]) : []
  return { before, tiers }
}

/** config.yaml's text with the tier `tier.name` set to `tier` (added at the end when new); every other byte kept. */
export function setTierInConfig(text: string | undefined, tier: Tier, path: string): string {
  const doc = configDocument(text ?? '', path)
  const { before, tiers } = tiersOf(doc)
  const entry = definedEntries(tier)
  const at = tiers.findIndex((x) => x['name'] === tier.name)
  const after = at < 0 ? [...tiers, entry] : tiers.map((x, i) => (i === at ? { ...x, ...entry } : x))
  const seq = doc.get('tiers', true)
  const known = YAML.isSeq(seq) && at >= 0 && isTierNamed(seq.items[at], tier.name)
  const change = known ? { set: at, entry } : { add: entry }
  return checked(editTiers(text ?? '', doc, after, change), { ...before, tiers: after }, doc, after)
}

/** config.yaml's text without the tier of that name; every other byte kept. */
export function removeTierFromConfig(text: string, name: string, path: string): string {
  const doc = configDocument(text, path)
  const { before, tiers } = tiersOf(doc)
  const at = tiers.findIndex((x) => x['name'] === name)
  if (at < 0) return text
  const after = tiers.filter((_, i) => i !== at)
  return checked(editTiers(text, doc, after, { remove: at }), { ...before, tiers: after }, doc, after)
}
