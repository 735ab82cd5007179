import { isAbsolute, join } from 'node:path'
import { readFileBounded } from '../../adapters/store/read-bounded.js'
import type { BoundedRead } from '../../adapters/store/read-bounded.js'
import { decodeLearningBytes } from '../../adapters/store/store.js'
import { readTemplate } from '../../adapters/store/templates.js'
import { buildDraftFrontmatter } from '../../core/draft.js'
import { FileAccessError, LearningInvalidError, RefusedError, UsageError } from '../../core/errors.js'
import { LEARNING_TYPES } from '../../core/learning-schema.js'
import { MAX_LEARNING_BYTES, formatLearningFile, parseLearning } from '../../core/learning.js'
import type { Frontmatter } from '../../core/learning.js'
import { explainBadName } from '../../core/names.js'
import { addLearning } from '../../flows/add.js'
import { ExitCode } from '../context.js'
import { noteDetached } from '../detached.js'
import type { Ctx } from '../context.js'
import { tooLarge } from '../messages/errors.js'
import { added, badFlagValues, warningAt } from '../messages/lifecycle.js'
import { MOVE_JSON_OPTION, flag, stringOpt } from '../spec.js'
import type { CommandSpec, ParsedArgs } from '../spec.js'

export const spec: CommandSpec = {
  name: 'add',
  summary: 'Propose a learning: validate it, write .learnings/pending/<name>.md and commit that file alone.',
  usage: 'git learn add --file <path>|-   or   git learn add --name <name> --type <type> --description "…" [options]',
  details:
    'With --file the whole learning (frontmatter and body) comes from a file, or from stdin with "-".\n' +
    'Otherwise it is made from the flags, with the body from --body-file or templates/<type>.md.\n' +
    'The commit carries Learning, Learning-Action: add, Learning-To: pending and Proposed-by trailers;\n' +
    'anything else you had staged stays staged and out of it.',
  options: {
    file: {
      type: 'string',
      value: 'path|-',
      description: 'the learning as a markdown file with YAML frontmatter ("-" reads stdin)',
    },
    name: { type: 'string', value: 'name', description: 'kebab-case name, at most 64 characters; also the file name' },
    type: { type: 'string', value: 'type', description: `one of ${LEARNING_TYPES.join(', ')}` },
    description: { type: 'string', value: 'text', description: 'what it is and when to use it (1–1024 characters)' },
    trigger: {
      type: 'string',
      multiple: true,
      value: 'text',
      description:
        'the exact error message or symptom (required for error-solution, instinct, pattern, anti-pattern); repeat it for a list of triggers',
    },
    domain: {
      type: 'string',
      value: 'domain',
      description:
        'testing, debugging, git, workflow, code-style, security, architecture, performance, tooling or other',
    },
    tags: { type: 'string', value: 'a,b', description: 'comma-separated tags' },
    confidence: {
      type: 'string',
      value: '0..1',
      description: 'proposed confidence (the effective one is computed from use)',
    },
    'body-file': {
      type: 'string',
      value: 'path|-',
      description: 'the markdown body ("-" reads stdin; default: the type\'s template)',
    },
    'no-commit': { type: 'boolean', description: 'write and stage the file, but do not commit' },
    'dry-run': { type: 'boolean', description: 'validate and say what would happen; write nothing' },
    force: {
      type: 'boolean',
      description:
        'add it although quality gates fail or it is a near duplicate; the override is recorded in the commit',
    },
    'allow-directives': {
      type: 'boolean',
      description:
        'accept instructions aimed at agents (curl | sh, …) that look like prompt injection; recorded in the commit',
    },
    json: MOVE_JSON_OPTION,
  },
}

function readInput(ctx: Ctx, path: string, what: string): Buffer {
  let r: BoundedRead
  try {
    r = readFileBounded(isAbsolute(path) ? path : join(ctx.cwd, path), MAX_LEARNING_BYTES)
  } catch (err) {
    throw new FileAccessError(path, (err as NodeJS.ErrnoException).code ?? 'EIO', what)
  }
  if (r.over) throw new RefusedError(tooLarge(what, path, r.size, MAX_LEARNING_BYTES))
  return r.bytes
}

/** The frontmatter fields the flags give (name and type are judged before: a bad name, an unknown type). */
const FLAG_FIELDS = new Set(['description', 'trigger', 'domain', 'tags', 'confidence'])

/**
 * A bad flag value (`--confidence abc`, `--domain nope`, a required `--trigger` missing) is a usage error, exit 2, as
 * `--type bogus` is: the schema's word on the fields the flags gave. The body and the gates are judged by the add
 * itself, as refused content (exit 1).
 */
async function assertFlagValues(data: Frontmatter): Promise<void> {
  const [{ loadLearningValidator }, { formatSchemaErrors }] = await Promise.all([
    import('../../adapters/store/validators.js'),
    import('../../core/validate.js'),
  ])
  const validate = await loadLearningValidator()
  if (validate(data)) return
  const errors = (validate.errors ?? []).filter((e) => {
    const field = e.instancePath.split('/')[1] ?? String(e.params['missingProperty'] ?? '')
    return FLAG_FIELDS.has(field)
  })
  if (errors.length) throw new UsageError(badFlagValues(formatSchemaErrors(errors, data)), 'add')
}

export async function run(args: ParsedArgs, ctx: Ctx): Promise<ExitCode> {
  const file = stringOpt(args, 'file')
  // --trigger may be repeated: one value is a string trigger, several a list.
  const triggers = Array.isArray(args.values['trigger']) ? args.values['trigger'] : []
  const trigger = triggers.length > 1 ? triggers : triggers[0]
  const fields = {
    name: stringOpt(args, 'name'),
    type: stringOpt(args, 'type'),
    description: stringOpt(args, 'description'),
    trigger: triggers[0],
    domain: stringOpt(args, 'domain'),
    tags: stringOpt(args, 'tags'),
    confidence: stringOpt(args, 'confidence'),
    'body-file': stringOpt(args, 'body-file'),
  }
  if (file !== undefined && Object.values(fields).some((v) => v !== undefined))
    throw new UsageError(
      '--file brings the whole learning; do not combine it with --name, --type or the other field flags',
      'add',
    )

  let text: string
  let name: string
  if (file !== undefined) {
    const bytes = file === '-' ? await ctx.readStdin() : readInput(ctx, file, 'the learning file')
    if (bytes.byteLength > MAX_LEARNING_BYTES)
      throw new RefusedError(tooLarge('the learning', '<stdin>', bytes.byteLength, MAX_LEARNING_BYTES))
    text = decodeLearningBytes(bytes, file === '-' ? '<stdin>' : file)
    const draft = parseLearning(text, file === '-' ? '<stdin>' : file)
    if (typeof draft.data.name !== 'string')
      throw new LearningInvalidError(draft.path, ['field "name" is required; add it to the frontmatter'])
    name = draft.data.name
  } else {
    const missing = (['name', 'type', 'description'] as const).filter((k) => !fields[k])
    if (missing.length)
      throw new UsageError(
        `missing ${missing.map((m) => `--${m}`).join(', ')} (or give the whole learning with --file)`,
        'add',
      )
    name = fields.name as string
    if (!(LEARNING_TYPES as readonly string[]).includes(fields.type as string))
      throw new UsageError(`unknown type "${fields.type}"; use one of ${LEARNING_TYPES.join(', ')}`, 'add')
    const bodyFile = fields['body-file']
    let body: string
    if (bodyFile === '-') {
      const bytes = await ctx.readStdin()
      if (bytes.byteLength > MAX_LEARNING_BYTES)
        throw new RefusedError(tooLarge('the body', '<stdin>', bytes.byteLength, MAX_LEARNING_BYTES))
      body = decodeLearningBytes(bytes, '<stdin>')
    } else
      body =
        bodyFile !== undefined
          ? decodeLearningBytes(readInput(ctx, bodyFile, 'the body file'), bodyFile)
          : readTemplate(`${fields.type}.md`)
    const data = buildDraftFrontmatter(
      { ...fields, trigger, name, type: fields.type as string, description: fields.description as string },
      ctx.now(),
    )
    await assertFlagValues(data)
    text = formatLearningFile(data, body)
  }
  const bad = explainBadName(name)
  // A bad --name is a bad flag (exit 2); a bad name inside a file is that learning being invalid (exit 1).
  if (bad && file !== undefined)
    throw new LearningInvalidError(file === '-' ? '<stdin>' : file, [`field "name" is not a learning name: ${bad}`])
  if (bad) throw new UsageError(`not a learning name: ${bad}`, 'add')

  const dryRun = flag(args, 'dry-run')
  const commit = !flag(args, 'no-commit')
  const result = await addLearning(ctx.cwd, name, text, {
    source: file && file !== '-' ? file : undefined,
    force: flag(args, 'force'),
    allowDirectives: flag(args, 'allow-directives'),
    dryRun,
    commit,
    warn: (path, w) => ctx.stderr(warningAt(path, w)),
  })
  const detached = await noteDetached(ctx, [result.commit])
  if (flag(args, 'json')) ctx.stdout(`${JSON.stringify({ ...result, dryRun, ...detached })}\n`)
  else ctx.stdout(added(result, { dryRun, committed: commit }))
  return ExitCode.ok
}
