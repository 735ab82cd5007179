/**
 * Claude Code wiring for `git learn init --agent claude`: hooks merged into `.claude/settings.json` (other hooks
 * and keys kept, idempotent: a hook whose command is already there is not added again) and the agent commands
 * copied from templates/claude/commands/ into `.claude/commands/` (an existing file is never overwritten).
 * Hook format: {"hooks": {"<Event>": [{"matcher": "…", "hooks": [{"type": "command", "command": "…", "timeout": s}]}]}}.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '../../core/errors.js'

export const SETTINGS_PATH = '.claude/settings.json'
const COMMANDS_TEMPLATES = join(__dirname, '..', '..', '..', 'templates', 'claude', 'commands')

export interface HookSpec {
  event: string
  /** Tool-name matcher for the tool events; omitted for the others. */
  matcher?: string
  command: string
  /** Seconds. */
  timeout: number
  async?: boolean
}

/** Where the transcript is read: at the end of every turn, of a subagent, before compaction, at the session's end. */
const CAPTURED = ['Stop', 'SubagentStop', 'PreCompact', 'SessionEnd']
/** The per-call observe hooks an older `init` wrote (async, so Claude Code cancelled the last ones at the session's
 * end): removed when transcript capture is wired, or every tool call would be recorded twice. */
const RETIRED = { command: 'git learn observe', async: true } as const

/** The hooks git learn wants in Claude Code. */
export const CLAUDE_HOOKS: readonly HookSpec[] = [
  { event: 'SessionStart', command: 'git learn context', timeout: 10 },
  { event: 'PostToolUseFailure', matcher: '*', command: 'git learn recall', timeout: 5 },
  // Successful calls of other tools have no failing output to look up; Bash can "succeed" with a failing test run.
  { event: 'PostToolUse', matcher: 'Bash', command: 'git learn recall', timeout: 5 },
  // Synchronous: Claude Code cancels async hooks still running when a session ends; one short process per turn.
  ...CAPTURED.map((event) => ({ event, command: 'git learn capture', timeout: 30 })),
]

type Json = Record<string, unknown>

/** Parse settings text; ConfigError with the line of the syntax error when it is not a JSON object. */
export function parseSettings(text: string, path = SETTINGS_PATH): Json {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch (err) {
    const msg = String((err as Error).message)
    const pos = /position (\d+)/.exec(msg)
    const lineOf = /line (\d+)/.exec(msg)
    const offset = pos ? Number(pos[1]) : findJsonErrorOffset(text)
    const line = lineOf ? Number(lineOf[1]) : offset !== undefined ? text.slice(0, offset).split('\n').length : undefined
    throw new ConfigError(path, [`malformed JSON${line ? ` at line ${line}` : ''}: ${msg.split('\n')[0]}; fix it (nothing was changed)`])
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ConfigError(path, ['the file must hold a JSON object; nothing was changed'])
  return v as Json
}

/**
 * Where a JSON text first stops being JSON: a small recursive-descent scan; undefined when it finds no error. Kept
 * because Node 20's JSON.parse gives no position for some errors ("Unexpected token ',', … is not valid JSON" for
 * `[,]`, "Unexpected end of JSON input"), and the refusal names the line.
 */
export function findJsonErrorOffset(text: string): number | undefined {
  let i = 0
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++
  }
  const fail = (): never => {
    throw i
  }
  const value = (depth: number): void => {
    if (depth > 512) fail()
    ws()
    const c = text[i]
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']'
      i++
      ws()
      if (text[i] === close) return void i++
      for (;;) {
        if (c === '{') {
          ws()
          if (text[i] !== '"') fail()
          string()
          ws()
          if (text[i] !== ':') fail()
          i++
        }
        value(depth + 1)
        ws()
        if (text[i] === ',') i++
        else if (text[i] === close) return void i++
        else fail()
      }
    }
    if (c === '"') return string()
    const m = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400))
    if (!m) fail()
    i += (m as RegExpExecArray)[0].length
  }
  const string = () => {
    i++
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++
      else if ((text.charCodeAt(i) ?? 0) < 0x20) fail()
      i++
    }
    if (i >= text.length) fail()
    i++
  }
  try {
    value(0)
    ws()
    return i < text.length ? i : undefined
  } catch (at) {
    return typeof at === 'number' ? Math.min(at, text.length) : undefined
  }
}

/** Settings with the hooks added where missing (and the retired per-call observe hooks of an older init removed); the
 * names of the hooks added and removed ("Event: command"). */
export function mergeHooks(settings: Json, wanted: readonly HookSpec[]): { settings: Json; added: string[]; removed: string[] } {
  const out: Json = structuredClone(settings)
  const hooks = (out['hooks'] && typeof out['hooks'] === 'object' && !Array.isArray(out['hooks']) ? out['hooks'] : (out['hooks'] = {})) as Json
  const added: string[] = []
  const removed: string[] = []
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue
    for (const g of groups as Json[]) {
      if (!g || !Array.isArray(g['hooks'])) continue
      const kept = (g['hooks'] as Json[]).filter((h) => !(h && h['command'] === RETIRED.command && h['async'] === RETIRED.async))
      if (kept.length !== (g['hooks'] as Json[]).length) removed.push(`${event}: ${RETIRED.command}`)
      g['hooks'] = kept
    }
    hooks[event] = (groups as Json[]).filter((g) => !(g && Array.isArray(g['hooks']) && (g['hooks'] as Json[]).length === 0))
    if ((hooks[event] as Json[]).length === 0) delete hooks[event]
  }
  for (const w of wanted) {
    const groups = (Array.isArray(hooks[w.event]) ? hooks[w.event] : (hooks[w.event] = [])) as Json[]
    const present = groups.some((g) => Array.isArray(g?.['hooks']) && (g['hooks'] as Json[]).some((h) => h && h['command'] === w.command))
    if (present) continue
    groups.push({ ...(w.matcher !== undefined ? { matcher: w.matcher } : {}), hooks: [{ type: 'command', command: w.command, timeout: w.timeout, ...(w.async ? { async: true } : {}) }] })
    added.push(`${w.event}: ${w.command}`)
  }
  return { settings: out, added, removed }
}

export interface AgentSetup {
  settings: string
  hooksAdded: string[]
  /** The per-call observe hooks of an older init, replaced by transcript capture. */
  hooksRemoved: string[]
  commandsWritten: string[]
  commandsKept: string[]
}

/** Wire Claude Code into the repository at `root`. Refuses (ConfigError) before writing anything when settings are malformed. */
export function installClaudeAgent(root: string): AgentSetup {
  const file = join(root, SETTINGS_PATH)
  const text = existsSync(file) ? readFileSync(file, 'utf8') : null
  const current = text === null || !text.trim() ? {} : parseSettings(text)
  const { settings, added, removed } = mergeHooks(current, CLAUDE_HOOKS)
  const commandsWritten: string[] = []
  const commandsKept: string[] = []
  if (added.length || removed.length || text === null) {
    mkdirSync(join(root, '.claude'), { recursive: true })
    writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`)
  }
  const templates = readdirSync(COMMANDS_TEMPLATES).filter((f) => f.endsWith('.md')).sort()
  mkdirSync(join(root, '.claude', 'commands'), { recursive: true })
  for (const t of templates) {
    const rel = `.claude/commands/${t}`
    if (existsSync(join(root, rel))) {
      commandsKept.push(rel)
      continue
    }
    writeFileSync(join(root, rel), readFileSync(join(COMMANDS_TEMPLATES, t)), { flag: 'wx' })
    commandsWritten.push(rel)
  }
  return { settings: SETTINGS_PATH, hooksAdded: added, hooksRemoved: removed, commandsWritten, commandsKept }
}

/** Throw the ConfigError of a malformed `.claude/settings.json` before anything is written. */
export function assertSettingsReadable(root: string): void {
  const file = join(root, SETTINGS_PATH)
  if (!existsSync(file)) return
  const text = readFileSync(file, 'utf8')
  if (text.trim()) parseSettings(text)
}
