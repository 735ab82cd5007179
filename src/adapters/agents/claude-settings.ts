/**
 * Claude Code wiring for `git learn init --agent claude`: hooks added to `.claude/settings.json` in place (jsonc-parser's
 * modify + applyEdits: every other byte of the file, its formatting and key order, is kept; idempotent: a hook whose
 * command is there is not added again, one of ours in an older form is updated) and the agent commands copied from
 * templates/claude/commands/ into `.claude/commands/` (an existing file is never overwritten).
 * Hook format: {"hooks": {"<Event>": [{"matcher": "…", "hooks": [{"type": "command", "command": "…", "timeout": s}]}]}}.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { applyEdits, findNodeAtLocation, modify, parseTree, printParseErrorCode } from 'jsonc-parser'
import type { FormattingOptions, JSONPath, Node, ParseError } from 'jsonc-parser'
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

type Sub = 'context' | 'recall' | 'observe'

/**
 * The command an agent hook runs: the project's own binary (node_modules/.bin) when there is one, else git-learn on
 * PATH, else nothing at all (exit 0), so the agent session of a teammate without git-learn sees no hook error.
 */
export function agentHookCommand(sub: Sub): string {
  return `b="\${CLAUDE_PROJECT_DIR:-.}/node_modules/.bin/git-learn"; [ -x "$b" ] || b=$(command -v git-learn) || exit 0; exec "$b" ${sub}`
}

/** The sub-command of one of our hook commands, in the current form or the older `git learn <sub>`. */
function ourSub(command: string): Sub | undefined {
  const m = /^git learn (context|recall|observe)$/.exec(command) ?? /node_modules\/\.bin\/git-learn".*exec "\$b" (context|recall|observe)$/.exec(command)
  return m?.[1] as Sub | undefined
}

const TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure'])
const OBSERVED = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'UserPromptSubmit', 'Stop', 'SessionStart', 'SessionEnd']

/** The hooks git learn wants in Claude Code. */
export const CLAUDE_HOOKS: readonly HookSpec[] = [
  { event: 'SessionStart', command: agentHookCommand('context'), timeout: 10 },
  { event: 'PostToolUseFailure', matcher: '*', command: agentHookCommand('recall'), timeout: 5 },
  // Successful calls of other tools have no failing output to look up; Bash can "succeed" with a failing test run.
  { event: 'PostToolUse', matcher: 'Bash', command: agentHookCommand('recall'), timeout: 5 },
  ...OBSERVED.map((event) => ({ event, ...(TOOL_EVENTS.has(event) ? { matcher: '*' } : {}), command: agentHookCommand('observe'), timeout: 5, async: true })),
]

/** Parse settings text; ConfigError with the line of the first syntax error when it is not a JSON object. */
export function parseSettings(text: string, path = SETTINGS_PATH): Node {
  const errors: ParseError[] = []
  const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false })
  const first = errors[0]
  if (first) {
    const line = text.slice(0, first.offset).split('\n').length
    throw new ConfigError(path, [`malformed JSON at line ${line}: ${printParseErrorCode(first.error)}; fix it (nothing was changed)`])
  }
  if (!root || root.type !== 'object') throw new ConfigError(path, ['the file must hold a JSON object; nothing was changed'])
  return root
}

/** The file's own indentation and line ends, so what we insert reads like the rest. */
function formattingOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1]
  const eol = text.includes('\r\n') ? '\r\n' : '\n'
  if (indent?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol }
  return { insertSpaces: true, tabSize: indent ? indent.length : 2, eol }
}

/**
 * The settings text with the hooks added where missing and ours in an older form updated, edited in place; the
 * names of the hooks added and updated ("Event: command"). Refuses (ConfigError) a malformed file or a `hooks` that
 * is not an object.
 */
export function editSettings(text: string, wanted: readonly HookSpec[], path = SETTINGS_PATH): { text: string; added: string[]; updated: string[] } {
  let out = text.trim() ? text : '{}\n'
  const formattingOptions = formattingOf(out)
  const added: string[] = []
  const updated: string[] = []
  const edit = (at: JSONPath, value: unknown, isArrayInsertion = false) => {
    out = applyEdits(out, modify(out, at, value, { formattingOptions, isArrayInsertion }))
  }
  const shape = (node: Node | undefined, type: Node['type'], what: string) => {
    if (node && node.type !== type) throw new ConfigError(path, [`${what} must be ${type === 'object' ? 'an object' : 'an array'}; fix it (nothing was changed)`])
  }
  for (const w of wanted) {
    const root = parseSettings(out, path)
    shape(findNodeAtLocation(root, ['hooks']), 'object', '"hooks"')
    const groups = findNodeAtLocation(root, ['hooks', w.event])
    shape(groups, 'array', `"hooks.${w.event}"`)
    let found = false
    for (const [gi, group] of (groups?.children ?? []).entries()) {
      const matcher = findNodeAtLocation(group, ['matcher'])?.value
      for (const [hi, hook] of (findNodeAtLocation(group, ['hooks'])?.children ?? []).entries()) {
        const command = findNodeAtLocation(hook, ['command'])?.value
        if (typeof command !== 'string' || (matcher ?? undefined) !== w.matcher) continue
        if (command === w.command) found = true
        else if (ourSub(command) && ourSub(command) === ourSub(w.command)) {
          edit(['hooks', w.event, gi, 'hooks', hi, 'command'], w.command)
          updated.push(`${w.event}: git learn ${ourSub(w.command)}`)
          found = true
        }
      }
    }
    if (found) continue
    const group = { ...(w.matcher !== undefined ? { matcher: w.matcher } : {}), hooks: [{ type: 'command', command: w.command, timeout: w.timeout, ...(w.async ? { async: true } : {}) }] }
    if (groups) edit(['hooks', w.event, groups.children?.length ?? 0], group, true)
    else edit(['hooks', w.event], [group])
    added.push(`${w.event}: git learn ${ourSub(w.command)}`)
  }
  return { text: out, added, updated }
}

export interface AgentSetup {
  settings: string
  hooksAdded: string[]
  hooksUpdated: string[]
  commandsWritten: string[]
  commandsKept: string[]
}

/** Wire Claude Code into the repository at `root`. Refuses (ConfigError) before writing anything when settings are malformed. */
export function installClaudeAgent(root: string): AgentSetup {
  const file = join(root, SETTINGS_PATH)
  const text = existsSync(file) ? readFileSync(file, 'utf8') : null
  const edited = editSettings(text ?? '', CLAUDE_HOOKS)
  const commandsWritten: string[] = []
  const commandsKept: string[] = []
  if (edited.text !== text) {
    mkdirSync(join(root, '.claude'), { recursive: true })
    writeFileSync(file, edited.text)
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
  return { settings: SETTINGS_PATH, hooksAdded: edited.added, hooksUpdated: edited.updated, commandsWritten, commandsKept }
}

/** Throw the ConfigError of a malformed `.claude/settings.json` before anything is written. */
export function assertSettingsReadable(root: string): void {
  const file = join(root, SETTINGS_PATH)
  if (!existsSync(file)) return
  const text = readFileSync(file, 'utf8')
  if (text.trim()) parseSettings(text)
}
