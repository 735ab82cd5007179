/**
 * Installing the guards as git hooks without clobbering anyone's. With husky (core.hooksPath ending in `.husky/_`)
 * one marked line goes into `.husky/pre-commit` and `.husky/commit-msg` (husky's own `.husky/_` is never touched);
 * otherwise the `githooks/` shims are written into the hooks dir where no hook exists. Everything we add carries
 * the marker `# git-learn`; a hook file is ours only when it is byte-equal to a shipped shim, and a husky line only
 * when it is one of our git-learn commands ending with the marker: everything else is the user's and left alone.
 */
import { createHash } from 'node:crypto'
import { chmodSync, existsSync, lstatSync, readFileSync, readdirSync, renameSync, unlinkSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { SharedHooksPathError } from '../../core/errors.js'
import { pathLine } from '../../core/git-output.js'
import {
  DEFAULT_CONFIG,
  MANAGER_CONFIGS,
  configRunsGitLearn,
  hookManagerOf,
  managerEntries,
  managerSection,
} from '../../core/hook-managers.js'
import type { HookManager } from '../../core/hook-managers.js'
import { planHookLine } from '../../core/hook-script.js'
import type { HookScriptConcern } from '../../core/hook-script.js'
import { scratchDir } from '../state/journal.js'
import { makeDirs, writeFileNoClobber } from '../store/write-file.js'
import { asCheckedOut } from './checkout.js'
import type { Git } from './simple.js'

export const HOOK_MARKER = '# git-learn'
// pre-merge-commit: a merge without conflicts commits through it, not through pre-commit.
export const SHIM_HOOKS = ['pre-commit', 'pre-merge-commit', 'commit-msg', 'post-merge', 'post-checkout'] as const
const BACKUP_SUFFIX = '.git-learn-backup'
const EDITED_NOTE =
  'it mentions git-learn but differs from the shipped shim (edited, or from another version): left alone as yours'
const backupExistsNote = (hook: string) =>
  `a hook of your own is there and ${hook}${BACKUP_SUFFIX} already exists: move that backup away (or merge it into ${hook}) and run install --force again`

/**
 * The fast exit every guard starts with, in plain sh so a teammate's commit starts no Node and needs no git-learn:
 * nothing staged under .learnings/ or .claude/ (where the default zones are), and the config sets no other zones: no
 * `system:` line but init's. The config is the one being committed, as `check --staged` reads it, not the work tree's:
 * an unstaged edit that drops a zone, or a deleted config.yaml, must not let a file staged in that zone through
 * unchecked. With nothing staged under .learnings/ the staged config is HEAD's, read from HEAD's tree (the index, 10 MB
 * at 100,000 learnings, is read once, by the diff). `-G`: the user's grep.patternType is not ours. An unborn HEAD has
 * no config: the default zones, under .claude/.
 */
const NOTHING_STAGED = `git diff --cached --quiet -- .learnings .claude && ! git grep -q -G -e '^ *system:' --and --not -e 'system: \\[".claude/skills/\\*\\*", ".claude/commands/\\*\\*", ".claude/agents/\\*\\*"]' HEAD -- .learnings/config.yaml 2>/dev/null`
/**
 * True in sh where git learn is not used: no `.learnings/` in the work tree, in HEAD or staged (one in HEAD alone is a store
 * being deleted, which the guards must still see). A hooks folder every repository shares (`--force` installs
 * there) then does nothing in the others: no Node started, nothing said, never a refusal.
 */
const NO_STORE = `{ [ ! -d .learnings ] && ! git cat-file -e HEAD:.learnings 2>/dev/null && git diff --cached --quiet -- .learnings; }`
/** What a guard says when relevant files are staged and git-learn is not installed (instead of sh's exit 127). */
export const NOT_INSTALLED =
  'git-learn is not installed here, so the staged learnings cannot be checked: run npm install (git-learn is in the devDependencies), or skip once with GIT_LEARN_HOOKS=0.'
/**
 * What a guard says when it lets a commit of files under `.claude/` (the default zones) through without git-learn:
 * the teammate's commit of code and settings goes as before; only learnings are refused unchecked, and CI's
 * `check --base` checks the zones. A zone of the config's own outside `.claude/` passes silently the same way: the
 * shell cannot read the config's globs.
 */
export const ZONES_NOT_CHECKED =
  'git-learn is not installed here: the staged files under .claude/ are not checked locally; CI (git learn check --base) checks them.'
/**
 * What a guard says when it lets a merge through without git-learn: a teammate who never installed it must be able
 * to finish `git pull` or `git merge main` once main has new learnings; the other side was checked where it was made,
 * and CI's `check --base` checks what the merge brings.
 */
export const MERGE_NOT_CHECKED =
  'git-learn is not installed here: the learnings this merge brings are not checked locally; CI (git learn check --base) checks what was merged.'
/**
 * True in sh while a merge is being concluded: git writes MERGE_HEAD before commit-msg, and a conflicted merge leaves
 * it for the `git commit` (pre-commit) that concludes it; pre-merge-commit runs before it is written, and only for a
 * merge, so it needs no test.
 */
const MERGING = '[ -f "$(git rev-parse --git-path MERGE_HEAD)" ]'
/** True in sh when nothing under .learnings/ is staged: without git-learn only learnings are refused unchecked. */
const LEARNINGS_UNSTAGED = 'git diff --cached --quiet -- .learnings'
/** Say ZONES_NOT_CHECKED when something under .claude/ is staged (nothing for a commit of other files). */
const ZONES_NOTE = `git diff --cached --quiet -- .claude || echo "${ZONES_NOT_CHECKED}" >&2`
// No `exit 0` on the merge road: the husky line is one line of the user's hook, whose later lines must still run.
// commit-msg passes a merge quietly: pre-merge-commit (or pre-commit, for a conflicted merge) already said it.
const orSay = (command: string, merge: 'always' | 'if-merging' | 'quietly-if-merging') =>
  merge === 'always'
    ? `{ if command -v git-learn >/dev/null 2>&1; then ${command}; else echo "${MERGE_NOT_CHECKED}" >&2; fi; }`
    : `{ if command -v git-learn >/dev/null 2>&1; then ${command}; elif ${MERGING}; then ${merge === 'if-merging' ? `echo "${MERGE_NOT_CHECKED}" >&2` : ':'}; elif ${LEARNINGS_UNSTAGED}; then ${ZONES_NOTE}; else echo "${NOT_INSTALLED}" >&2; exit 1; fi; }`

/** The line each husky hook gets. husky puts node_modules/.bin on PATH and honours HUSKY=0; the line honours GIT_LEARN_HOOKS=0. */
export const HUSKY_LINES: Record<
  'pre-commit' | 'pre-merge-commit' | 'commit-msg' | 'post-merge' | 'post-checkout',
  string
> = {
  'pre-commit': `[ "\${GIT_LEARN_HOOKS-}" = 0 ] || ${NO_STORE} || { ${NOTHING_STAGED}; } || ${orSay('git-learn check --staged', 'if-merging')} ${HOOK_MARKER}`,
  // The variable names the hook in a refusal (an older git-learn ignores it).
  'pre-merge-commit': `[ "\${GIT_LEARN_HOOKS-}" = 0 ] || ${NO_STORE} || { ${NOTHING_STAGED}; } || ${orSay('GIT_LEARN_HOOK_NAME=pre-merge-commit git-learn check --staged', 'always')} ${HOOK_MARKER}`,
  // Nothing staged under .learnings/ says there is no store to guard as well: no NO_STORE test of its own.
  'commit-msg': `[ "\${GIT_LEARN_HOOKS-}" = 0 ] || git diff --cached --quiet -- .learnings || ${orSay('git-learn hook commit-msg "$1"', 'quietly-if-merging')} ${HOOK_MARKER}`,
  // The refresh of what render wrote: never fails, silent without git-learn or where render never ran.
  'post-merge': `[ "\${GIT_LEARN_HOOKS-}" = 0 ] || ${NO_STORE} || ! command -v git-learn >/dev/null 2>&1 || git-learn hook post-merge || true ${HOOK_MARKER}`,
  'post-checkout': `[ "\${GIT_LEARN_HOOKS-}" = 0 ] || [ "$3" != 1 ] || git diff --quiet "$1" "$2" -- .learnings 2>/dev/null || ! command -v git-learn >/dev/null 2>&1 || git-learn hook post-merge || true ${HOOK_MARKER}`,
}

export type HookAction =
  | 'created'
  | 'appended'
  | 'inserted'
  | 'moved'
  | 'replaced'
  | 'updated'
  | 'unchanged'
  | 'skipped'
  | 'removed'
  | 'restored'
  | 'absent'

export interface HookChange {
  /** Repository-relative when inside the work tree, else absolute. */
  file: string
  action: HookAction
  note?: string
  /** What in the hook may keep our line from running (src/core/hook-script.ts): said as a warning with file:line. */
  concerns?: HookScriptConcern[]
  /** The hook manager that wrote this hook (core/hook-managers.ts), when it is one's. */
  manager?: HookManager
}

/** Hooks a manager writes that do not run git-learn yet, and the entries of its config that would. */
export interface ManagedHooks {
  manager: HookManager
  /** Its config file (repository-relative): the one there, else the name it reads first. */
  config: string
  hooks: string[]
  /** The entries to merge into that config (core/hook-managers.ts managerEntries). */
  entries: string
  /**
   * Where the entries find our shims: `node_modules/git-learn/githooks` when the project installs git-learn (every
   * teammate's checkout has it), else this machine's copy, which a teammate's checkout lacks.
   */
  shimDir: string
  /** Whether `shimDir` is the project's copy (every teammate's checkout has it after `npm install`). */
  portable: boolean
}

const SHIMS = join(__dirname, '..', '..', '..', 'githooks')
/** The shims of git-learn installed as a dependency of the project. */
const PROJECT_SHIMS = 'node_modules/git-learn/githooks'

/** The text of a shipped shim. */
export function readShim(hook: string): string {
  return readFileSync(join(SHIMS, hook), 'utf8')
}

export interface HookLayout {
  kind: 'husky' | 'hooks-dir'
  /** Absolute directory the hooks go into (`.husky/` for husky). */
  dir: string
}

/**
 * core.hooksPath as configured and where git takes it: `~/` and `~user/` expanded (`--type=path`), a relative path
 * from the top of the work tree (githooks(5): hooks run there).
 */
async function readHooksPath(git: Git): Promise<{ hooksPath: string; dir: string } | undefined> {
  const hooksPath = (await git.tryRun(['config', 'core.hooksPath']))?.trim()
  if (!hooksPath) return undefined
  const expanded = (await git.tryRun(['config', '--type=path', 'core.hooksPath']))?.trim() || hooksPath
  return { hooksPath, dir: isAbsolute(expanded) ? expanded : join(git.root, expanded) }
}

/** Where hooks live here: husky's `.husky/` when core.hooksPath points at `.husky/_`, else `git rev-parse --git-path hooks`. */
export async function readHookLayout(git: Git): Promise<HookLayout> {
  const configured = await readHooksPath(git)
  if (configured && /(^|[\\/])\.husky[\\/]_[\\/]?$/.test(configured.hooksPath))
    return { kind: 'husky', dir: dirname(configured.dir.replace(/[\\/]+$/, '')) }
  const dir = pathLine(await git.run(['rev-parse', '--path-format=absolute', '--git-path', 'hooks']))
  return { kind: 'hooks-dir', dir }
}

/**
 * core.hooksPath when it names the same folder for every repository: an absolute path (`~/` expanded) set in the
 * system or global config, or in a file included from outside this repository (`git config --show-scope
 * --show-origin`). A relative one is read from each work tree's root, so each repository has its own (husky's
 * `.husky/_`); one set in this repository's own config is this repository's choice.
 */
export async function readSharedHooksPath(git: Git): Promise<SharedHooksPathError | undefined> {
  const out = await git.tryRun(['config', '-z', '--show-scope', '--show-origin', 'core.hooksPath'])
  const [scope = '', origin = '', hooksPath = ''] = (out ?? '').split('\0')
  if (!hooksPath) return undefined
  const expanded = (await git.tryRun(['config', '-z', '--type=path', 'core.hooksPath']))?.split('\0')[0] || hooksPath
  if (!isAbsolute(expanded)) return undefined
  // git names a config file relative to the top of the work tree (`file:.git/config`) or absolutely.
  const file = origin.startsWith('file:') ? resolve(git.root, origin.slice('file:'.length)) : undefined
  const inside = (dir: string) =>
    file !== undefined && !relative(dir, file).startsWith('..') && !isAbsolute(relative(dir, file))
  const shared =
    scope === 'system' ||
    scope === 'global' ||
    ((scope === 'local' || scope === 'worktree') && ![git.root, git.gitDir, git.commonDir].some(inside))
  if (!shared) return undefined
  const own = relative(git.root, join(git.commonDir, 'hooks'))
  const local = own.startsWith('..') || isAbsolute(own) ? join(git.commonDir, 'hooks') : own
  return new SharedHooksPathError(hooksPath, expanded, scope, file ?? origin, local)
}

export interface MissingHooksPath {
  /** core.hooksPath as configured. */
  hooksPath: string
  /** Where it points from this work tree. */
  dir: string
  husky: boolean
}

/**
 * A core.hooksPath that does not exist in this work tree: git then runs no hook at all, silently. The common case is
 * husky in a new `git worktree`: core.hooksPath is `.husky/_` in the shared config, relative to each work tree's
 * root (githooks(5)), and husky gitignores that folder, so only the checkout where `npx husky` ran has it.
 */
export async function readMissingHooksPath(git: Git): Promise<MissingHooksPath | undefined> {
  const configured = await readHooksPath(git)
  if (!configured || existsSync(configured.dir)) return undefined
  return { ...configured, husky: /(^|[\\/])\.husky[\\/]_[\\/]?$/.test(configured.hooksPath) }
}

/** The sha256 of every shim earlier versions shipped: an install from one of them is ours, and is updated. */
const EARLIER_SHIMS = new Set([
  '4adc515f31a01060defa2248f336786c854fc78459e8434db9939b2a2f10b606',
  'b56e85775b851c22b775cd7d4ced29b074d86e65c57052cb997fddd3e7fbcd9d',
  '113cb8503ec52eb6bafa9b366fecd500cff35d3c7e5516ab7831d785b4608ef4',
  '117d9e70afa1a03444043688dd805b7e56f426afb0533512eab8f3fb18efa6a0',
  '1348d1da62b083c7663cef33935d2ae5ae10d0ab425dca5ccde0135eb0a79471',
  '1af4aef650e1711921c23795a6f077f76e2b54925bb0907eab5d9f5d56269b80',
  '20f363d77ee47a0b2fdd4f34c5bcec571e3405febe8f15c937b28fe9cd252c27',
  '271b3e893818053a5708d8b326ef191a8c4987c7d4bc279c3910f70b4ce207b2',
  '28a235ef0ac57262577521997ce2cc96a118db121532593bb91d69f834c13300',
  '3cb138393376044b8d22432000388c6bd1ef341f94d398ae5c32f3e0c9308a22',
  '48cc2553b57680e00cd78b5683dfc6b4d397c271dfc9a02f5e2376f60605a890',
  '50141c20873db367ab013f49f6fafd71fe4a5f4ea141316764c5cb83988931e3',
  '6b4c7049338f74f04b0c19cfcce1b59a4e8685a954ee0340be6563a37a71fdde',
  '704ca2092fa7dff58ff9d858d5cb52cd2c56c9ca821f1fa7b343f1df498e5ec4',
  '723599320cc53ba68db729f6db2941957984ca7e7eaf33c61bee4719051152cf',
  '8491c0852835fc44a5b0a1c040e71651404ccd89ff78975aa6f19e49594d9b61',
  '8b0881a0e4a5f3bff314dae0415ce020c4d85c5ab5d4f2fb2c774e0098cdba75',
  '8b5d78524690503e712351092f27817a792dc2d09cadc9f2668a0283f3a6cce6',
  '93659c6eeba6a3b25222f1a3f4f909fca857587247b5d4508448fef08bd4f7d2',
  'bd947b8b8d0ccf206e372567b779bfbeb6279591f1e57c8bbee3f2a2bcbd55a4',
  'cf1692d57537f88e82980dba75024f4ee9f836c2bd0a27d779bf625f91478218',
  'd311690fd0928570f260f3e039fd0fbf762d6ef578ae8f66368cd6752d4822d2',
  'de827e5d0aaab20d960a93c3b0f274cf18a0629730c8b0659cee832b346d04e4',
  'e45c7b5d72a9aa21af2b90697c4c4ca2fa76bee2c83ad3cd0bffdfa06f4c31f0',
  'ed4b5fbd1213d999536a0b54568718f3e9379b664683bfea46f5fd9f450e142a',
  'f57855a9fa7d5b0d8f074d8a1b2360b3939e3ecdf7550ad547c1b48032baf64a',
  'f6c6803984081faad82640cf7ed39cfd19d7619aaa78b270c031e4f91e9a2e44',
  'f92e437743e519e3d8baa45ef594a6ad5526402c3d88a908218b3d398ed636f8',
])

/** Every shim git learn ships (githooks/*), read once, or one an earlier version shipped. */
let shipped: Set<string> | undefined
function isShippedShim(text: string): boolean {
  shipped ??= new Set(readdirSync(SHIMS).map((f) => readShim(f)))
  return shipped.has(text) || EARLIER_SHIMS.has(createHash('sha256').update(text).digest('hex'))
}

/** A line install put into a husky hook: a git-learn command ending with the marker (not any line mentioning it). */
function isOurHuskyLine(line: string): boolean {
  return Object.values(HUSKY_LINES).includes(line) || /\bgit-learn (check|hook)\b.*\s# git-learn\s*$/.test(line)
}

function shown(root: string, file: string): string {
  const rel = relative(root, file)
  return rel.startsWith('..') || isAbsolute(rel) ? file : rel
}

/**
 * Add the guards; `force` replaces foreign hooks (kept as `<hook>.git-learn-backup`, put back by uninstall) and
 * installs into a core.hooksPath every repository shares (refused otherwise: SharedHooksPathError, nothing written).
 */
export async function installHooks(
  git: Git,
  opts: { force?: boolean } = {},
): Promise<{ layout: HookLayout; changes: HookChange[]; managed: ManagedHooks[] }> {
  if (!opts.force) {
    const shared = await readSharedHooksPath(git)
    if (shared) throw shared
  }
  const layout = await readHookLayout(git)
  const changes: HookChange[] = []
  makeDirs(layout.dir)
  if (layout.kind === 'husky') {
    for (const [hook, line] of Object.entries(HUSKY_LINES)) {
      const file = join(layout.dir, hook)
      const rel = shown(git.root, file)
      if (!existsSync(file)) {
        // Whole or not at all (a full disk): an empty or cut hook left here would be taken for the user's own.
        writeFileNoClobber(file, `${line}\n`, false, undefined, 0o755)
        changes.push({ file: rel, action: 'created' })
        continue
      }
      // After a top-level `exit 0` our line would never run: it goes in front of it (and one already behind it
      // moves there); the end of the file otherwise, after lint-staged (docs/guards.md).
      const text = readFileSync(file, 'utf8')
      const plan = planHookLine(text, line, isOurHuskyLine)
      const concerns = plan.concerns.length ? { concerns: plan.concerns } : {}
      const exit = plan.before ? `\`${plan.before.text}\` (line ${plan.before.line})` : ''
      if (plan.text !== text) writeFileNoClobber(file, plan.text, true)
      if (plan.movedFrom !== undefined)
        changes.push({
          file: rel,
          action: 'moved',
          note: `it was line ${plan.movedFrom}, after ${plan.before ? `\`${plan.before.text}\`` : 'an exit'}, and never ran: now line ${plan.line}, before ${exit || 'it'}`,
          ...concerns,
        })
      else if (plan.existed)
        changes.push({ file: rel, action: plan.text === text ? 'unchanged' : 'updated', ...concerns })
      else if (plan.before)
        changes.push({
          file: rel,
          action: 'inserted',
          note: `line ${plan.line}, before ${exit}: nothing after it runs`,
          ...concerns,
        })
      else changes.push({ file: rel, action: 'appended', ...concerns })
    }
    return { layout, changes, managed: [] }
  }
  const managed = new Map<HookManager, ManagedHooks>()
  /** Each manager's part of its config (simple-git-hooks' entries extend the commands it holds). */
  const sections = new Map<HookManager, string | undefined>()
  // The team's checkouts have the shims where npm installs git-learn for the project; this copy's folder otherwise.
  const portable = existsSync(join(git.root, PROJECT_SHIMS))
  const shimDir = portable ? PROJECT_SHIMS : shown(git.root, SHIMS)
  for (const hook of SHIM_HOOKS) {
    const file = join(layout.dir, hook)
    const rel = shown(git.root, file)
    const shim = readShim(hook)
    if (lstatSync(file, { throwIfNoEntry: false })) {
      const text = readFileSync(file, 'utf8')
      // Ours only when byte-equal to a shipped shim: a marked file with lines of yours in it is yours.
      if (isShippedShim(text)) {
        if (text === shim) changes.push({ file: rel, action: 'unchanged' })
        else {
          writeFileNoClobber(file, shim, true)
          changes.push({ file: rel, action: 'updated' })
        }
        chmodSync(file, 0o755)
        continue
      }
      const manager = hookManagerOf(text)
      if (!opts.force && manager) {
        // A manager's hook: a line in it is gone at its next install, so the entry goes into its config.
        const config = readManagerConfig(git.root, manager, shimDir)
        if (config.runsGitLearn) {
          changes.push({ file: rel, action: 'unchanged', note: `${manager}'s; ${config.path} runs git-learn`, manager })
          continue
        }
        changes.push({ file: rel, action: 'skipped', note: `${manager}'s: add git-learn to ${config.path}`, manager })
        const m = managed.get(manager) ?? {
          manager,
          config: config.path,
          hooks: [],
          entries: '',
          shimDir,
          portable,
        }
        sections.set(manager, config.section)
        m.hooks.push(hook)
        managed.set(manager, m)
        continue
      }
      if (!opts.force) {
        changes.push({
          file: rel,
          action: 'skipped',
          note: text.includes(HOOK_MARKER) ? EDITED_NOTE : 'a hook of your own is there',
        })
        continue
      }
      if (lstatSync(`${file}${BACKUP_SUFFIX}`, { throwIfNoEntry: false })) {
        changes.push({ file: rel, action: 'skipped', note: backupExistsNote(hook) })
        continue
      }
      renameSync(file, `${file}${BACKUP_SUFFIX}`)
      try {
        writeFileNoClobber(file, shim, false, undefined, 0o755)
      } catch (err) {
        // Not written (a full disk): the user's hook goes back where it was, still running.
        renameSync(`${file}${BACKUP_SUFFIX}`, file)
        throw err
      }
      changes.push({ file: rel, action: 'replaced', note: `yours is kept as ${hook}${BACKUP_SUFFIX}` })
      continue
    }
    // Whole or not at all (a full disk, a kill): an empty or cut shim left here would fail commits, or be taken for a
    // hook of the user's by the next install, which would then never put the guard in.
    writeFileNoClobber(file, shim, false, undefined, 0o755)
    changes.push({ file: rel, action: 'created' })
  }
  for (const m of managed.values()) m.entries = managerEntries(m.manager, m.hooks, shimDir, sections.get(m.manager))
  return { layout, changes, managed: [...managed.values()] }
}

/**
 * The manager's config here (the first of its names that holds its part, else DEFAULT_CONFIG), its part, and
 * whether that runs git-learn.
 */
function readManagerConfig(
  root: string,
  manager: HookManager,
  shimDir: string,
): { path: string; section?: string; runsGitLearn: boolean } {
  for (const name of MANAGER_CONFIGS[manager]) {
    let text: string
    try {
      text = readFileSync(join(root, name), 'utf8')
    } catch {
      continue
    }
    const section = managerSection(manager, name, text)
    if (section !== undefined) return { path: name, section, runsGitLearn: configRunsGitLearn(section, shimDir) }
  }
  return { path: DEFAULT_CONFIG[manager], runsGitLearn: false }
}

/** Remove exactly what install added: our marked lines from husky hooks, our shims (putting back a replaced hook). */
export async function uninstallHooks(git: Git): Promise<{ layout: HookLayout; changes: HookChange[] }> {
  const layout = await readHookLayout(git)
  const changes: HookChange[] = []
  const hooks = layout.kind === 'husky' ? Object.keys(HUSKY_LINES) : [...SHIM_HOOKS]
  for (const hook of hooks) {
    const file = join(layout.dir, hook)
    const rel = shown(git.root, file)
    if (!existsSync(file)) {
      changes.push({ file: rel, action: 'absent' })
      continue
    }
    const text = readFileSync(file, 'utf8')
    const ours = layout.kind === 'husky' ? text.split('\n').some(isOurHuskyLine) : isShippedShim(text)
    if (!ours) {
      changes.push({ file: rel, action: 'absent', note: 'not ours; left alone' })
      continue
    }
    if (layout.kind === 'husky') {
      const rest = text.split('\n').filter((l) => !isOurHuskyLine(l))
      if (rest.join('').trim() === '') unlinkSync(file)
      else writeFileNoClobber(file, rest.join('\n'), true)
      changes.push({ file: rel, action: 'removed' })
      continue
    }
    unlinkSync(file)
    if (existsSync(`${file}${BACKUP_SUFFIX}`)) {
      renameSync(`${file}${BACKUP_SUFFIX}`, file)
      changes.push({ file: rel, action: 'restored', note: 'your earlier hook is back' })
    } else changes.push({ file: rel, action: 'removed' })
  }
  return { layout, changes }
}

export const WORKFLOW_PATH = '.github/workflows/git-learn.yml'
export const CODEOWNERS_PATH = '.github/CODEOWNERS'

/**
 * `init --ci`: the workflow (from templates/github-workflow.yml, the push branch set to the current one) and the
 * CODEOWNERS block; an existing CODEOWNERS gets our block appended once (recognised by the marker).
 */
export async function writeCiFiles(
  git: Git,
  readTemplate: (file: string) => string,
): Promise<{ created: string[]; existing: string[]; pinned: boolean }> {
  const created: string[] = []
  const existing: string[] = []
  const branch = (await git.tryRun(['symbolic-ref', '--short', '-q', 'HEAD']))?.trim() || 'main'
  const workflow = join(git.root, WORKFLOW_PATH)
  if (existsSync(workflow)) existing.push(WORKFLOW_PATH)
  else {
    makeDirs(dirname(workflow))
    const yml = readTemplate('github-workflow.yml').replace(/__DEFAULT_BRANCH__/g, branch)
    writeFileNoClobber(workflow, asCheckedOut(git.root, WORKFLOW_PATH, yml), false, scratchDir(git.commonDir))
    created.push(WORKFLOW_PATH)
  }
  const owners = ['CODEOWNERS', 'docs/CODEOWNERS', CODEOWNERS_PATH]
    .map((p) => ({ p, abs: join(git.root, p) }))
    .find((o) => existsSync(o.abs))
  const block = readTemplate('CODEOWNERS')
  if (!owners) {
    makeDirs(join(git.root, '.github'))
    const text = asCheckedOut(git.root, CODEOWNERS_PATH, block)
    writeFileNoClobber(join(git.root, CODEOWNERS_PATH), text, false, scratchDir(git.commonDir))
    created.push(CODEOWNERS_PATH)
  } else {
    const text = readFileSync(owners.abs, 'utf8')
    if (text.includes(HOOK_MARKER)) existing.push(owners.p)
    else {
      // The user's bytes as they are, then the block as git checks it out there (line endings).
      const appended = asCheckedOut(git.root, owners.p, `${text.endsWith('\n') || !text ? '' : '\n'}\n${block}`)
      writeFileNoClobber(owners.abs, Buffer.concat([readFileSync(owners.abs), appended]), true)
      created.push(`${owners.p} (git-learn block appended)`)
    }
  }
  return { created, existing, pinned: pinsGitLearn(git.root) }
}

/** Whether the project's package.json lists git-learn, so `npm ci` in the workflow installs the pinned copy it runs. */
function pinsGitLearn(root: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, unknown> | undefined
    >
    return ['devDependencies', 'dependencies'].some((k) => typeof pkg[k]?.['git-learn'] === 'string')
  } catch {
    return false
  }
}
