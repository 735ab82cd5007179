/**
 * Claude Code wiring for `git learn init --agent claude`: hooks added to `.claude/settings.json` in place (jsonc-parser's
 * modify + applyEdits: every other byte of the file, its formatting and key order, is kept; idempotent: a hook whose
 * command is there is not added again, one of ours in an older form is updated) and the agent commands copied from
 * templates/claude/commands/ into `.claude/commands/` (an existing file is never overwritten).
 * Hook format: {"hooks": {"<Event>": [{"matcher": "…", "hooks": [{"type": "command", "command": "…", "timeout": s}]}]}}.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { asCheckedOut } from '../git/checkout.js'
import { makeDirs, writeFileNoClobber } from '../store/write-file.js'
import { dirname, join } from 'node:path'
import { applyEdits, findNodeAtLocation, modify, parseTree, printParseErrorCode } from 'jsonc-parser'
import type { FormattingOptions, JSONPath, Node, ParseError } from 'jsonc-parser'
import { ConfigError, FileAccessError } from '../../core/errors.js'

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

type Sub = 'context' | 'recall' | 'observe' | 'capture'

/**
 * The command an agent hook runs: the project's own binary (node_modules/.bin) when there is one, else git-learn on
 * PATH, else nothing at all (exit 0), so the agent session of a teammate without git-learn sees no hook error.
 */
export function agentHookCommand(sub: Sub): string {
  return `b="\${CLAUDE_PROJECT_DIR:-.}/node_modules/.bin/git-learn"; [ -x "$b" ] || b=$(command -v git-learn) || exit 0; exec "$b" ${sub}`
}

/** The sub-command of one of our hook commands, in the current form or the older `git learn <sub>`. */
function ourSub(command: string): Sub | undefined {
  const m =
    /^git learn (context|recall|observe|capture)$/.exec(command) ??
    /node_modules\/\.bin\/git-learn".*exec "\$b" (context|recall|observe|capture)$/.exec(command)
  return m?.[1] as Sub | undefined
}

/** Where the transcript is read: at the end of every turn, of a subagent, before compaction, at the session's end. */
const CAPTURED = ['Stop', 'SubagentStop', 'PreCompact', 'SessionEnd']

/**
 * The per-call observe hooks an older `init` wrote (async, so Claude Code cancelled the last ones at the session's
 * end): removed when transcript capture is wired, or every tool call would be recorded twice.
 */
const isRetired = (command: unknown, async: unknown) =>
  typeof command === 'string' && ourSub(command) === 'observe' && async === true

/** The hooks git learn wants in Claude Code. */
export const CLAUDE_HOOKS: readonly HookSpec[] = [
  { event: 'SessionStart', command: agentHookCommand('context'), timeout: 10 },
  { event: 'PostToolUseFailure', matcher: '*', command: agentHookCommand('recall'), timeout: 5 },
  // Successful calls of other tools have no failing output to look up; Bash can "succeed" with a failing test run.
  { event: 'PostToolUse', matcher: 'Bash', command: agentHookCommand('recall'), timeout: 5 },
  // Synchronous: Claude Code cancels async hooks still running when a session ends; one short process per turn.
  ...CAPTURED.map((event) => ({ event, command: agentHookCommand('capture'), timeout: 30 })),
]

/** Parse settings text; ConfigError with the line of the first syntax error when it is not a JSON object. */
export function parseSettings(text: string, path = SETTINGS_PATH): Node {
  const errors: ParseError[] = []
  const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false })
  const first = errors[0]
  if (first) {
    const line = text.slice(0, first.offset).split('\n').length
    throw new ConfigError(path, [
      `malformed JSON at line ${line}: ${printParseErrorCode(first.error)}; fix it (nothing was changed)`,
    ])
  }
  if (!root || root.type !== 'object')
    throw new ConfigError(path, ['the file must hold a JSON object; nothing was changed'])
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
export function editSettings(
  text: string,
  wanted: readonly HookSpec[],
  path = SETTINGS_PATH,
): { text: string; added: string[]; updated: string[]; removed: string[] } {
  let out = text.trim() ? text : '{}\n'
  const formattingOptions = formattingOf(out)
  const added: string[] = []
  const updated: string[] = []
  const removed: string[] = []
  const edit = (at: JSONPath, value: unknown, isArrayInsertion = false) => {
    out = applyEdits(out, modify(out, at, value, { formattingOptions, isArrayInsertion }))
  }
  // First the retired per-call observe hooks, one at a time (each edit moves the offsets of the rest): the hook, or
  // its group when it was the group's only hook, or the event when that group was its only one.
  for (let guard = 0; guard < 1000; guard++) {
    const hooks = findNodeAtLocation(parseSettings(out, path), ['hooks'])
    if (hooks?.type !== 'object') break
    const at = retiredHookAt(hooks)
    if (!at) break
    const [event, gi, hi, groups, hooksInGroup] = at
    if (hooksInGroup > 1) edit(['hooks', event, gi, 'hooks', hi], undefined)
    else if (groups > 1) edit(['hooks', event, gi], undefined)
    else edit(['hooks', event], undefined)
    removed.push(`${event}: git learn observe`)
  }
  const shape = (node: Node | undefined, type: Node['type'], what: string) => {
    if (node && node.type !== type)
      throw new ConfigError(path, [
        `${what} must be ${type === 'object' ? 'an object' : 'an array'}; fix it (nothing was changed)`,
      ])
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
    const group = {
      ...(w.matcher !== undefined ? { matcher: w.matcher } : {}),
      hooks: [{ type: 'command', command: w.command, timeout: w.timeout, ...(w.async ? { async: true } : {}) }],
    }
    if (groups) edit(['hooks', w.event, groups.children?.length ?? 0], group, true)
    else edit(['hooks', w.event], [group])
    added.push(`${w.event}: git learn ${ourSub(w.command)}`)
  }
  return { text: out, added, updated, removed }
}

/** The first retired hook: its event, group and hook index, and how many groups and hooks surround it. */
function retiredHookAt(hooks: Node): [string, number, number, number, number] | undefined {
  for (const prop of hooks.children ?? []) {
    const [key, groups] = prop.children ?? []
    if (typeof key?.value !== 'string' || groups?.type !== 'array') continue
    for (const [gi, group] of (groups.children ?? []).entries()) {
      const list = findNodeAtLocation(group, ['hooks'])
      if (list?.type !== 'array') continue
      for (const [hi, hook] of (list.children ?? []).entries()) {
        if (isRetired(findNodeAtLocation(hook, ['command'])?.value, findNodeAtLocation(hook, ['async'])?.value)) {
          return [key.value, gi, hi, groups.children?.length ?? 0, list.children?.length ?? 0]
        }
      }
    }
  }
  return undefined
}

export interface AgentSetup {
  settings: string
  hooksAdded: string[]
  hooksUpdated: string[]
  /** The per-call observe hooks of an older init, replaced by transcript capture. */
  hooksRemoved: string[]
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
    makeDirs(join(root, '.claude'))
    // A new file as git checks it out (line endings); the user's own is edited in place, its bytes kept.
    writeFileNoClobber(file, text === null ? asCheckedOut(root, SETTINGS_PATH, edited.text) : edited.text, true)
  }
  const templates = readdirSync(COMMANDS_TEMPLATES)
    .filter((f) => f.endsWith('.md'))
    .sort()
  makeDirs(join(root, '.claude', 'commands'))
  for (const t of templates) {
    const rel = `.claude/commands/${t}`
    if (existsSync(join(root, rel))) {
      commandsKept.push(rel)
      continue
    }
    // Whole or not at all: a cut command left by a full disk would be kept as the user's by the next run.
    writeFileNoClobber(join(root, rel), asCheckedOut(root, rel, readFileSync(join(COMMANDS_TEMPLATES, t))))
    commandsWritten.push(rel)
  }
  return {
    settings: SETTINGS_PATH,
    hooksAdded: edited.added,
    hooksUpdated: edited.updated,
    hooksRemoved: edited.removed,
    commandsWritten,
    commandsKept,
  }
}

/** Throw the ConfigError of a malformed `.claude/settings.json` before anything is written. */
export function assertSettingsReadable(root: string): void {
  const file = join(root, SETTINGS_PATH)
  // .claude/ must be a folder (or not there yet): a file in its place fails here, before the store is written.
  const dir = statSync(dirname(file), { throwIfNoEntry: false })
  if (dir && !dir.isDirectory()) throw new FileAccessError(dirname(file), 'EEXIST')
  if (!existsSync(file)) return
  const text = readFileSync(file, 'utf8')
  if (text.trim()) parseSettings(text)
}
