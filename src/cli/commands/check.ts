/**
 * `git learn check`: the pre-commit hook (`--staged`, the index) and CI (the work tree, plus `--base` for the
 * transitions since the merge base). Only light modules are imported at the top: with nothing guarded staged,
 * the hook answers after `git diff --cached` alone (the staged config.yaml, when the commit leaves it alone, is
 * HEAD's, cached by commit id), without loading the schema, simple-git or the scanner (YAML only when that config
 * sets zones).
 *
 * Why over 300 lines: the three modes (staged, commit-msg, CI) each keep their imports lazy for the hook's speed,
 * which keeps their small readers here rather than behind a shared module every mode would load.
 */
import { join } from 'node:path'
import {
  findRepositoryDir,
  findRoot,
  readStagedConfigFor,
  readZones,
  stagedChanges,
} from '../../adapters/git/index-reader.js'
import { PARSED_LOG, gitSync, runGitSync } from '../../adapters/git/run.js'
import { changedPaths } from '../../core/check-diff.js'
import type { DiffEntry } from '../../core/check-diff.js'
import { DEFAULT_SYSTEM_ZONES, buildZoneMatcher, isGuardedPath, isLocalStateFile } from '../../core/check-zones.js'
import { BaseUnreachableError, RangeCutShortError, UsageError } from '../../core/errors.js'
import { pathLine } from '../../core/git-output.js'
import type { CheckFile, CheckReport, Finding } from '../../core/check.js'
import type { Learning } from '../../core/learning.js'
import { ExitCode } from '../context.js'
import type { Ctx } from '../context.js'
import { flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'check',
  summary: 'Check the store: schema, zones, secrets, directives, staleness, budget, and with --base the transitions.',
  usage: 'git learn check [--staged | [--base <ref>] [--head <ref>]] [--format text|json|github] [--json]',
  details:
    'With --staged (the pre-commit hook) the index is checked: the staged learnings and system-zone files only;\n' +
    'it exits 0 at once when nothing under .learnings/ or a system zone is staged. The zones, secrets.allow and the\n' +
    'config schema come from .learnings/config.yaml as staged (none in the index: the defaults), not the work tree.\n' +
    'Without it every learning in the work tree is checked; --base <ref> adds every transition since the merge base\n' +
    '(added only to pending/, lifecycle moves only, no deletions, moves into active/ approved in a commit).\n' +
    'With --head <ref> the learnings are read from that commit instead of the work tree, and --base compares\n' +
    'with it instead of HEAD: this needs no work tree, so it runs in a bare repository too (a pre-receive hook:\n' +
    '`git learn check --base "$old" --head "$new"`).\n' +
    'Exit 1 when any finding is an error; warnings (stale, budget) do not fail.',
  options: {
    staged: { type: 'boolean', description: 'check what is staged (the pre-commit hook)' },
    base: {
      type: 'string',
      value: 'ref',
      description: 'also check the transitions since the merge base with <ref> (CI)',
    },
    head: {
      type: 'string',
      value: 'ref',
      description: 'check the commit <ref> instead of the work tree (no work tree needed: a bare repository)',
    },
    format: {
      type: 'string',
      value: 'text|json|github',
      description: 'output: text (default), json, or GitHub annotations',
    },
    json: {
      type: 'boolean',
      description:
        'same as --format json: {"ok":bool,"findings":[{rule,severity,path,line,message}]} (a directive also has its fingerprint)',
    },
  },
}

type Format = 'text' | 'json' | 'github'

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const given = stringOpt(args, 'format')
  if (given !== undefined && !['text', 'json', 'github'].includes(given))
    throw new UsageError(`unknown --format "${given}"; use text, json or github`, 'check')
  if (flag(args, 'json') && given !== undefined && given !== 'json')
    throw new UsageError(`--json is --format json, and --format says ${given}; use one of them`, 'check')
  const format = (flag(args, 'json') ? 'json' : (given ?? 'text')) as Format
  const base = stringOpt(args, 'base')
  const staged = flag(args, 'staged')
  const head = stringOpt(args, 'head')
  if (staged && base !== undefined)
    throw new UsageError('--staged checks the index and --base a branch; use one of them', 'check')
  if (staged && head !== undefined)
    throw new UsageError('--staged checks the index and --head a commit; use one of them', 'check')

  if (staged) {
    const root = findRoot(ctx.cwd, ctx.env)
    const entries = await stagedChanges(root, ctx.cwd, ctx.env)
    const quiet = () => {
      if (format === 'json') ctx.stdout('{"ok":true,"findings":[]}\n')
      return ExitCode.ok
    }
    if (!entries.length) return quiet()
    // A change under .learnings/ is always checked: the config is then read along with the staged learnings.
    if (entries.some((e) => changedPaths([e]).some(isStorePath)))
      return print(ctx, format, await checkStaged(ctx, root, entries), hookName(ctx))
    // The commit's own config (the index), not the work tree's: an unstaged edit must neither break nor loosen it.
    const config = readStagedConfigFor(root, ctx.env, entries)
    const inZone = buildZoneMatcher(await readZones(config, DEFAULT_SYSTEM_ZONES))
    const relevant = entries.filter((e) => changedPaths([e]).some((p) => isGuardedPath(p, inZone)))
    if (!relevant.length) return quiet()
    return print(ctx, format, await checkStaged(ctx, root, relevant, { config }), hookName(ctx))
  }
  // A commit is read from git's objects: the work tree's root, or a bare repository's git directory, will do.
  const root = head === undefined ? findRoot(ctx.cwd, ctx.env) : findRepositoryDir(ctx.cwd, ctx.env)
  const commit = head === undefined ? undefined : { ref: head, id: resolveHead(root, ctx.env, head) }
  // On a pull request, GitHub's job summary gets the reviewer's view of the learnings it changes.
  const summary = format === 'github' && base !== undefined ? ctx.env['GITHUB_STEP_SUMMARY'] : undefined
  return print(ctx, format, await checkTree(ctx, root, base, summary || undefined, commit), undefined)
}

/** The commit id `ref` names; BaseUnreachableError (exit 3, "fetch it first") when it names none here. */
function resolveHead(root: string, env: Ctx['env'], ref: string): string {
  const r = runGitSync(['rev-parse', '-q', '--verify', '--end-of-options', `${ref}^{commit}`], { cwd: root, env })
  const id = r.stdout.toString('utf8').trim()
  if (r.code === 0 && id) return id
  throw new BaseUnreachableError(ref, isShallow(root, env), false, r.stderr.trim())
}

function isShallow(root: string, env: Ctx['env']): boolean {
  return (
    runGitSync(['rev-parse', '--is-shallow-repository'], { cwd: root, env }).stdout.toString('utf8').trim() === 'true'
  )
}

/** The hook running `check --staged`: the pre-merge-commit shim and husky line say so (GIT_LEARN_HOOK_NAME). */
function hookName(ctx: Ctx): 'pre-commit' | 'pre-merge-commit' {
  return ctx.env['GIT_LEARN_HOOK_NAME'] === 'pre-merge-commit' ? 'pre-merge-commit' : 'pre-commit'
}

async function print(
  ctx: Ctx,
  format: Format,
  report: CheckReport,
  hook: 'pre-commit' | 'pre-merge-commit' | undefined,
): Promise<ExitCode> {
  const { formatGithub, formatText } = await import('../../core/check.js')
  if (format === 'json') ctx.stdout(`${JSON.stringify(report)}\n`)
  else if (format === 'github') ctx.stdout(formatGithub(report))
  else {
    const text = formatText(report)
    const hint = !report.ok && hook ? (await import('../messages/guards.js')).checkStopped(hook) : ''
    // A hook's stdout and stderr both reach the terminal; stderr keeps stdout free for whoever pipes `git commit`.
    // A clean commit stays quiet.
    if (hook) {
      if (report.findings.length) ctx.stderr(text + hint)
      if (!report.ok) await (await import('../half-done.js')).noteHalfDone(ctx, 'unfinished')
    } else ctx.stdout(text)
  }
  return report.ok ? ExitCode.ok : ExitCode.refused
}

async function loadEngine() {
  const [engine, validators] = await Promise.all([
    import('../../core/check.js'),
    import('../../adapters/store/validators.js'),
  ])
  return { engine, validator: await validators.loadLearningValidator() }
}

/**
 * The config, or the defaults and a finding when it is invalid: the work tree's file (`root`), or the bytes staged or
 * committed (`{ bytes }`, undefined when the index or the commit has no config), through the config cache when
 * `commonDir` is known (the parsed entry of those bytes: on a hit neither the YAML parser nor the config's validator
 * loads).
 */
async function readConfigOrFinding(
  from: string | { bytes: Buffer | undefined; commonDir: string | undefined },
  findings: Finding[],
) {
  const { ConfigError } = await import('../../core/errors.js')
  const { DEFAULT_CONFIG } = await import('../../core/config-schema.js')
  const { configFromBytes, readConfig } = await import('../../adapters/store/config.js')
  try {
    return typeof from === 'string' ? await readConfig(from) : await configFromBytes(from.bytes, from.commonDir)
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    for (const p of err.problems)
      findings.push({
        rule: 'schema',
        severity: 'error',
        path: err.path,
        // The YAML parser says where ("… at line 37, column 3"); a schema problem is the file's.
        line: Number(/\bline (\d+)/.exec(p)?.[1] ?? 1),
        message: `${p}; fix .learnings/config.yaml (every key is optional)`,
      })
    return DEFAULT_CONFIG
  }
}

/** The index: staged learnings and zone files, deletions, name clashes with everything else in the index. */
/**
 * The staged changes. With `known` the staged config was already read (zone files only); otherwise it comes in the
 * same two git processes as the staged learnings and the index paths their names could clash with.
 */
async function checkStaged(
  ctx: Ctx,
  root: string,
  entries: readonly DiffEntry[],
  known?: { config: Buffer | undefined },
): Promise<CheckReport> {
  const { readBlobs, readIndexPaths, readStagedForCheck, isMerging } =
    await import('../../adapters/git/index-reader.js')
  // Light modules only before git starts: core/learning.js would load the engine's parser and schema first.
  const { parseStorePath, learningPath, STATES } = await import('../../core/layout.js')
  const { NAME_PATTERN } = await import('../../core/names.js')
  const findings: Finding[] = []
  // An unmerged path (a merge or cherry-pick that stopped on a conflict) has no staged blob: said as what it is below.
  const unmerged = entries.filter((e) => e.status === 'U')
  entries = entries.filter((e) => e.status !== 'U')
  const present = entries.filter((e) => e.status !== 'D')
  const readable = (e: DiffEntry) => e.newMode !== '120000' && e.newMode !== '160000'
  // Only the staged names can clash: ask the index for those names in every state, not for every path of a store of
  // thousands. A name that is not a valid one (it gets its own finding) could not be asked on cat-file's stdin.
  const names = new Set(present.map((e) => parseStorePath(e.path)?.name).filter((n): n is string => n !== undefined))
  const askable = names.size <= 200 && [...names].every((n) => NAME_PATTERN.test(n))
  const specs = askable ? [...names].flatMap((name) => STATES.map((state) => learningPath(state, name))) : []
  // git reads the index while the engine loads (readStagedForCheck), its answer spooled in the cache directory.
  const { findGitDirs } = await import('../../adapters/git/locate.js')
  const commonDir = findGitDirs(root, ctx.env)?.commonDir
  const reading = readStagedForCheck(
    root,
    ctx.env,
    present.filter((e) => readable(e) && isStorePath(e.path)).map((e) => ({ sha: e.newSha, path: e.path })),
    specs,
    !known,
    commonDir === undefined ? undefined : join(commonDir, 'learn', 'cache'),
  )
  reading.catch(() => undefined) // awaited below; a failure is reported there
  const { engine, validator } = await loadEngine()
  const staged = await reading
  const config = await readConfigOrFinding({ bytes: known ? known.config : staged.config, commonDir }, findings)
  const inZone = buildZoneMatcher(config.zones.system)
  const relevant = entries.filter((e) => changedPaths([e]).some((p) => isGuardedPath(p, inZone)))
  const zoneShas = relevant
    .filter((e) => e.status !== 'D' && readable(e) && !staged.blobs.has(e.newSha))
    .map((e) => e.newSha)
  const blobs = zoneShas.length ? new Map([...staged.blobs, ...readBlobs(root, ctx.env, zoneShas)]) : staged.blobs
  const files = relevant
    .filter((e) => e.status !== 'D' && e.newMode !== '160000')
    .map((e) => ({
      path: e.path,
      mode: e.newMode,
      ...(e.newMode === '120000' ? {} : (blobs.get(e.newSha) ?? { skipped: 'unreadable' })),
    }))
  const result = engine.checkFiles(files, { validator, inZone, secretsAllow: config.secrets.allow, directives: false })
  findings.push(...result.findings)
  for (const e of unmerged)
    if (isGuardedPath(e.path, inZone))
      findings.push(
        engine.finding(
          'schema',
          e.path,
          1,
          `${e.path} has an unresolved merge conflict: keep the right text, remove the marker lines, then \`git add ${e.path}\``,
        ),
      )
  const stagedStore = new Set(files.map((f) => f.path).filter((p) => parseStorePath(p)))
  if (stagedStore.size)
    findings.push(
      ...engine.checkUniqueNames(askable ? staged.inIndex : readIndexPaths(root, ctx.env, ['.learnings']), stagedStore),
    )
  const deleted = relevant.filter((e) => e.status === 'D' && parseStorePath(e.path))
  if (deleted.length && !isMerging(root, ctx.env))
    for (const e of deleted)
      findings.push(
        engine.finding(
          'transition',
          e.path,
          1,
          `${e.path} is staged for deletion; learnings are never deleted: \`git restore --staged --worktree ${e.path}\`, then archive it with \`git learn ${parseStorePath(e.path)?.state === 'pending' ? `reject ${parseStorePath(e.path)?.name ?? '<name>'} --reason …` : 'prune'}\``,
        ),
      )
  return engine.buildReport(findings)
}

/** A path inside the store directory. */
function isStorePath(path: string): boolean {
  return path === '.learnings' || path.startsWith('.learnings/')
}

async function openCache(root: string, ctx: Ctx, known?: string) {
  // Found by walking up to `.git`, as the feed does (locate.ts), unless the environment redirects git: then git says.
  const { findGitDirs } = await import('../../adapters/git/locate.js')
  let commonDir = known ?? findGitDirs(root, ctx.env)?.commonDir
  if (commonDir === undefined) {
    const r = runGitSync(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: root, env: ctx.env })
    commonDir = r.code === 0 ? pathLine(r.stdout.toString('utf8')) : ''
  }
  if (!commonDir) return undefined
  const { openParseCache } = await import('../../adapters/state/parse-cache.js')
  return openParseCache(commonDir)
}

/**
 * The files with each rendered skill that holds a CR read as git reads it (commit.ts readAsGitSees), as render compares
 * them: under core.autocrlf=true the checked-out CRLF copy of what render wrote is what it wrote, not a change.
 */
async function renderedAsGitSees(root: string, files: readonly CheckFile[]): Promise<CheckFile[]> {
  const crlf = files.flatMap((f) =>
    f.text?.includes('\r') && /^\.claude\/skills\/[^/]+\/SKILL\.md$/.test(f.path)
      ? [{ path: f.path, text: f.text }]
      : [],
  )
  if (!crlf.length) return [...files]
  const seen = await (await import('../../adapters/git/commit.js')).readAsGitSees(root, crlf)
  return files.map((f) => {
    const v = seen.get(f.path)
    return v ? { ...f, text: v.text } : f
  })
}

/** The commit `check --head` reads instead of the work tree: the ref as given, and the commit id it names. */
interface HeadCommit {
  ref: string
  id: string
}

/**
 * The work tree (CI), or with `commit` that commit's tree (no work tree needed): every learning and zone file, names,
 * budget, staleness, and with a base the transitions up to HEAD or that commit.
 */
async function checkTree(
  ctx: Ctx,
  root: string,
  base: string | undefined,
  summaryFile?: string,
  commit?: HeadCommit,
): Promise<CheckReport> {
  const findings: Finding[] = []
  const reader = await import('../../adapters/git/index-reader.js')
  // A bare repository's cache is in its git directory: found by git, not by the walk up to a `.git`.
  const commonDir = commit
    ? gitSync(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: root, env: ctx.env }).trim()
    : undefined
  const config = await readConfigOrFinding(
    commit ? { bytes: reader.readCommitConfig(root, ctx.env, commit.id), commonDir } : root,
    findings,
  )
  const inZone = buildZoneMatcher(config.zones.system)
  // git lists the files while the rules and the schema validator load.
  const listing = commit
    ? reader.readCommitFiles(root, ctx.env, commit.id, (p) => isStorePath(p) || inZone(p) || isLocalStateFile(p))
    : reader.listTreeFiles(root, ctx.env, config.zones.system).then((paths) => reader.readTreeFiles(root, paths))
  listing.catch(() => undefined) // awaited below; a failure is reported there
  const { engine, validator } = await loadEngine()
  const files = await listing
  if (files.length > 2000) ctx.stderr(`git learn check: checking ${files.length} files…\n`)
  // Parsed frontmatter is cached under the git common dir (see parse-cache.ts): a second run parses only what changed.
  const cache = files.length >= 50 ? await openCache(root, ctx, commonDir) : undefined
  const result = engine.checkFiles(files, {
    validator,
    inZone,
    secretsAllow: config.secrets.allow,
    directives: true,
    ...(cache ? { parseYaml: cache.parseYaml } : {}),
  })
  cache?.save()
  let content = result.findings
  // The directives a person accepted (trailers naming their fingerprints, in HEAD's history) are taken out.
  if (content.some((f) => f.rule === 'directives')) {
    const { parseDirectivesAllowed } = await import('../../core/directive-trailer.js')
    content = engine.acceptDirectives(
      content,
      parseDirectivesAllowed(reader.readDirectiveOverrides(root, ctx.env, commit?.id)),
    )
  }
  findings.push(...content)
  findings.push(...engine.checkUniqueNames(files.map((f) => f.path)))
  findings.push(...engine.checkBudget(result.learnings))
  const { checkRendered, renderedSkillNames } = await import('../../core/check-rendered.js')
  const tierLearnings: { tier: string; learning: Learning }[] = []
  if (config.tiers.length) {
    // A fresh clone or CI fetches pinned tiers on first use; one that cannot be had is named with what to run.
    const [{ openRepo }, { openGitAt }, { readTierPins, readTierSources }] = await Promise.all([
      import('../../adapters/store/repo.js'),
      import('../../adapters/git/simple.js'),
      import('../../adapters/feed/tiers.js'),
    ])
    // A commit's own config decides its tiers (openRepo would read the work tree's, and needs one). Read only: the
    // commit is not accepted yet (a pre-receive hook), so a tier URL it names is never fetched and nothing is cached
    // for it; a pin not here yet is said as one.
    const repo = commit
      ? { git: await openGitAt(root), root, config: async () => config, readOnly: true as const }
      : await openRepo(root)
    await readTierPins(repo, (w) =>
      findings.push(engine.finding('tier', '.learnings/config.yaml', 1, `${w.path}: ${w.reason}`)),
    )
    // A skill render wrote from a tier's learning is compared with that learning; the tiers are read only then.
    const active = new Set(result.learnings.filter((l) => l.state === 'active').map((l) => l.name))
    if (renderedSkillNames(files).some((n) => !active.has(n)))
      for (const s of await readTierSources(repo))
        for (const l of s.learnings) tierLearnings.push({ tier: s.tier, learning: l })
  }
  // A commit's blobs are what git stores already; only the work tree's copies are read as git would store them.
  const rendered = commit ? files : await renderedAsGitSees(root, files)
  findings.push(...checkRendered(rendered, result.learnings, tierLearnings))

  const pinned = result.learnings
    .filter((l) => l.state === 'active')
    .flatMap((l) => {
      const e = engine.readEvidence(l)
      return e ? [{ l, e }] : []
    })
  if (pinned.length) {
    // One git process for all of them; a commit unknown here (a shallow clone, another repository) decides nothing.
    const { readEvidenceChanges } = await import('../../adapters/git/fast.js')
    const { changed, unread } = readEvidenceChanges(
      root,
      pinned.map((p) => p.e),
      ctx.env,
      commit?.id,
    )
    // git could not read the trees (a partial clone offline): one warning, not a silent "nothing is stale".
    if (unread !== undefined) {
      const { staleUnread } = await import('../messages/feed.js')
      findings.push(engine.finding('stale', '.learnings/active', 1, staleUnread(unread)))
    }
    pinned.forEach(({ l, e }, i) => {
      const f = engine.staleFinding(l, e.commit, changed[i] ?? [])
      if (f) findings.push(f)
    })
  }

  if (base !== undefined) {
    const { parseRawDiff } = await import('../../core/check-diff.js')
    const { RAW_LOG_FORMAT, parseAuditTrail, parseRawLog } = await import('../../core/trailers.js')
    const tip = commit?.id ?? 'HEAD'
    const found = runGitSync(['merge-base', '--end-of-options', base, tip], { cwd: root, env: ctx.env })
    if (found.code !== 0) {
      // git merge-base says nothing when the history simply does not reach a common commit (a shallow clone).
      const known =
        runGitSync(['rev-parse', '-q', '--verify', '--end-of-options', `${base}^{commit}`], { cwd: root, env: ctx.env })
          .code === 0
      throw new BaseUnreachableError(base, isShallow(root, ctx.env), known, found.stderr.trim(), commit?.ref)
    }
    const mergeBase = found.stdout.toString('utf8').trim()
    const changes = parseRawDiff(
      gitSync(['diff', '--raw', '-z', '-M', '--no-abbrev', mergeBase, tip, '--', '.learnings'], {
        cwd: root,
        env: ctx.env,
      }),
    )
    // A shallow clone cut inside the range lacks commits whose trailers a move needs: said, not judged without them.
    if (engine.needsAuditTrail(changes)) {
      const { readShallowCommitsAt } = await import('../../adapters/git/shallow.js')
      const shallow = readShallowCommitsAt(root, ctx.env)
      const cut = shallow.size
        ? gitSync(['rev-list', `${mergeBase}..${tip}`], { cwd: root, env: ctx.env })
            .split('\n')
            .find((c) => shallow.has(c))
        : undefined
      if (cut) throw new RangeCutShortError(base, cut, commit?.ref)
    }
    const events = parseAuditTrail(
      parseRawLog(
        gitSync([...PARSED_LOG, `--format=${RAW_LOG_FORMAT}`, `${mergeBase}..${tip}`], { cwd: root, env: ctx.env }),
      ),
    )
    const { proposerReader } = await import('../../adapters/git/proposers.js')
    const { parseStorePath } = await import('../../core/layout.js')
    // The learnings the range puts into active/: their proposers are read in one git log, when the rule asks.
    const intoActive = changes.flatMap((c) => {
      const to = 'RAC'.includes(c.status) ? parseStorePath(c.path) : undefined
      return to?.state === 'active' ? [to.name] : []
    })
    findings.push(
      ...engine.checkTransitions(changes, events, {
        distinct: config.approval.distinct_approver,
        ...proposerReader(root, ctx.env, tip, intoActive),
      }),
    )
    if (summaryFile) {
      const text = new Map(files.map((f) => [f.path, f.text]))
      const learnings = result.learnings.map((learning) => ({ learning, text: text.get(learning.path) ?? '' }))
      const { writeReviewSummary } = await import('../../flows/review-summary.js')
      writeReviewSummary(summaryFile, { base, changes, learnings, findings, config })
    }
  }
  return engine.buildReport(findings)
}
