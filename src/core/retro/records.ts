/**
 * Reading observation records for the retrospective: a line parsed (or counted as skipped), and the few views the
 * detectors need — what kind of tool it was, the shell command, a key for "the same call", a workflow step label,
 * and the informative line of an error.
 */
import { parseJsonLine } from '../jsonl.js'
import { slugify as slugifyName } from '../names.js'
import { normalizeError } from '../normalize-error.js'

/** The fields of an observation record the detectors read. */
export interface RetroRecord {
  ts: string
  agent: string
  session: string
  event: string
  tool: string | null
  input: unknown
  output: unknown
  error: unknown
  ok: boolean | null
}

/** A line of observations.jsonl as a record, or undefined for a corrupt, truncated or foreign line. */
export function parseObservationLine(line: string): RetroRecord | undefined {
  const o = parseJsonLine(line)
  if (!o) return undefined
  if (typeof o['event'] !== 'string' || typeof o['ts'] !== 'string') return undefined
  return {
    ts: o['ts'],
    agent: typeof o['agent'] === 'string' ? o['agent'] : 'unknown',
    session: typeof o['session'] === 'string' ? o['session'] : 'unknown',
    event: o['event'],
    tool: typeof o['tool'] === 'string' ? o['tool'] : null,
    input: o['input'],
    output: o['output'],
    error: o['error'],
    ok: typeof o['ok'] === 'boolean' ? o['ok'] : null,
  }
}

export type ToolKind = 'shell' | 'edit' | 'other'

// Tool names of Claude Code, Codex, Cursor (as mapped), Gemini CLI and Copilot CLI.
const SHELL_TOOLS = new Set([
  'Bash',
  'bash',
  'Shell',
  'shell',
  'run_shell_command',
  'exec_command',
  'local_shell',
  'container.exec',
  'powershell',
])
const EDIT_TOOLS = new Set([
  'Edit',
  'MultiEdit',
  'Write',
  'NotebookEdit',
  'edit',
  'create',
  'write',
  'write_file',
  'replace',
  'apply_patch',
  'str_replace_editor',
  'str_replace_based_edit_tool',
  'edit_file',
])

/** shell, edit or other, from the tool name. */
export function toolKind(tool: string | null): ToolKind {
  if (!tool) return 'other'
  if (SHELL_TOOLS.has(tool)) return 'shell'
  if (EDIT_TOOLS.has(tool)) return 'edit'
  return 'other'
}

const field = (v: unknown, ...keys: string[]): unknown => {
  if (typeof v !== 'object' || v === null) return undefined
  for (const k of keys) if ((v as Record<string, unknown>)[k] !== undefined) return (v as Record<string, unknown>)[k]
  return undefined
}

/** Is this a tool result (PostToolUse / PostToolUseFailure with a known outcome)? */
export function isToolResult(r: RetroRecord): boolean {
  return (r.event === 'PostToolUse' || r.event === 'PostToolUseFailure') && r.ok !== null && r.tool !== null
}

/** Claude Code's tool result when the user refused the call (the reason they gave follows it as a prompt). */
const REJECTED = /^The user doesn't want to proceed with this tool use\b/

/** Did the user refuse this call (rather than the call failing)? */
export function isRejection(r: RetroRecord): boolean {
  return r.ok === false && typeof r.error === 'string' && REJECTED.test(r.error)
}

/** The shell command of a shell tool call, whitespace collapsed, or undefined. */
export function commandOf(r: RetroRecord): string | undefined {
  if (toolKind(r.tool) !== 'shell') return undefined
  let c = typeof r.input === 'string' ? r.input : field(r.input, 'command', 'cmd')
  if (Array.isArray(c)) c = c.filter((x) => typeof x === 'string').join(' ')
  if (typeof c !== 'string') return undefined
  const s = c.replace(/\s+/g, ' ').trim()
  return s ? s.slice(0, 500) : undefined
}

/** The file paths an edit tool call touched. */
export function editedPaths(r: RetroRecord): string[] {
  const p = field(r.input, 'file_path', 'path', 'filePath', 'notebook_path', 'absolute_path')
  if (typeof p === 'string') return [p]
  const patch = field(r.input, 'patch', 'input')
  if (typeof patch === 'string')
    return [...patch.matchAll(/^\*\*\* (?:Update|Add) File: (.+)$/gm)].map((m) => (m[1] as string).trim())
  return []
}

function stableJson(v: unknown): string {
  if (typeof v !== 'object' || v === null) return JSON.stringify(v) ?? ''
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
    .join(',')}}`
}

/** "The same call": the shell command, or the tool and its input. */
export function callKey(r: RetroRecord): string {
  const cmd = commandOf(r)
  if (cmd) return `$ ${cmd}`
  return `${r.tool ?? '?'} ${stableJson(r.input).slice(0, 500)}`
}

const TEST_RUNNER =
  /\b(vitest|jest|mocha|pytest|rspec|phpunit|playwright test|cargo test|go test|(?:npm|pnpm|yarn|bun) (?:run )?test|tsc|eslint|mvn test|gradle test|dotnet test|make test)\b/

/** The test runner a command runs ("the same test" when the arguments differ), or undefined. */
export function testRunnerOf(command: string): string | undefined {
  return TEST_RUNNER.exec(command)?.[1]?.replace(/ run test$/, ' test')
}

const ENV_ASSIGN = /^[A-Za-z_][A-Za-z0-9_]*=/

/** The program a shell command runs (env assignments, sudo and `cd … &&` skipped): `pnpm`, `rg`, `git`. */
export function programOf(command: string): string | undefined {
  const tokens = command.replace(/^(?:cd\s+\S+\s*&&\s*)+/, '').split(' ')
  let i = 0
  while (
    i < tokens.length &&
    (ENV_ASSIGN.test(tokens[i] as string) || tokens[i] === 'sudo' || tokens[i] === 'env' || tokens[i] === 'time')
  )
    i++
  const p = tokens[i]
  if (!p) return undefined
  const base = p.split('/').pop() as string
  return /^[\w.+-]{1,40}$/.test(base) ? base : undefined
}

/** A workflow step: the tool, with the program and subcommand for shell calls and the extension for edits. */
export function stepLabel(r: RetroRecord): string {
  const kind = toolKind(r.tool)
  if (kind === 'shell') {
    const cmd = commandOf(r) ?? ''
    const prog = programOf(cmd)
    if (!prog) return 'Bash'
    const rest = cmd.replace(/^(?:cd\s+\S+\s*&&\s*)+/, '').split(' ')
    const at = rest.findIndex((t) => (t.split('/').pop() as string) === prog)
    const sub = rest[at + 1]
    const prefixed = prog === 'npx' || prog === 'pnpx' || prog === 'bunx'
    const sub2 =
      prefixed && sub && rest[at + 2] && /^[a-z][\w:-]*$/.test(rest[at + 2] as string) ? ` ${rest[at + 2]}` : ''
    return sub && /^[a-z][\w:-]*$/.test(sub) ? `Bash(${prog} ${sub}${sub2})` : `Bash(${prog})`
  }
  if (kind === 'edit') {
    const ext = /\.([A-Za-z0-9]{1,8})$/.exec(editedPaths(r)[0] ?? '')?.[1]
    return ext ? `${r.tool}(*.${ext})` : (r.tool ?? 'Edit')
  }
  return r.tool ?? 'unknown'
}

/** The text of a failure: the error field, else stderr/stdout of the output, else the output as JSON. */
export function failureText(r: RetroRecord): string {
  const pick = (v: unknown): string | undefined => {
    if (typeof v === 'string') return v
    if (v === undefined || v === null) return undefined
    const inner = field(v, 'error', 'message', 'stderr', 'stdout', 'output', 'textResultForLlm')
    if (typeof inner === 'string' && inner.trim()) return inner
    return JSON.stringify(v)
  }
  return (pick(r.error) ?? pick(r.output) ?? '').slice(0, 64 * 1024)
}

/** Terminal sequences: CSI (colours, cursor moves) and OSC (titles, OSC 8 hyperlinks, ended by BEL or ST). */
export const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g
const INFORMATIVE =
  /\b(?:\w*Error|error|ERR!|ERR_[A-Z_]+|exception|failed|failure|FAIL|fatal|panic|cannot|can't|unable|not found|refused|denied|invalid|unexpected|missing|timed? ?out|E[A-Z]{3,})\b|✗|×|✕/
const NAMED = /\b[A-Z]\w*(?:Error|Exception)\b|\berror(?: [A-Z]+\d+)?:|\bERR[!_]|\bE[A-Z]{3,}\b|\b(?:panic|fatal):/
const BORING = /^(?:exit code \d+|command failed|error:?|failed)$/i

/**
 * The line that names the error, normalized (numbers, paths and ids removed): the first line with an error name
 * (`TypeError`, `error TS2307:`, `ERR_…`, `ENOENT`), else the first informative line that says more than
 * "Exit code 1", else the first non-empty line. At most 200 characters.
 */
export function errorTrigger(text: string): string {
  const lines = text
    .replace(ANSI, '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, 400)
  const line =
    lines.find((l) => NAMED.test(l) && !BORING.test(l)) ??
    lines.find((l) => INFORMATIVE.test(l) && !BORING.test(l)) ??
    lines.find((l) => !BORING.test(l)) ??
    lines[0] ??
    'the command failed'
  const norm = normalizeError(line.slice(0, 400))
    .replace(/\s+/g, ' ')
    .replace(/^[^\w]+/, '')
    .trim()
  return (norm || line).slice(0, 200)
}

/** kebab-case words of a text, at most `max` characters, cut at a word boundary ("x" when none is left). */
export const slugify = (text: string, max = 40): string => slugifyName(text, max, 'x')
