/**
 * Compiled schema validators. `npm run build` precompiles both schemas into standalone modules with ajv's
 * standalone code (dist/generated/*.cjs), so hooks validate without loading or compiling ajv. Running from source
 * (vitest: this file is .ts) there are none, and ajv compiles them here, once per process. In the built package a
 * generated validator that does not load is a broken install: an error says which file and what to do, rather than
 * a silent compile at run time that costs every hook and could hide a stale build.
 */
import { join } from 'node:path'
import type { SchemaValidator } from '../../core/validate.js'

let learning: SchemaValidator | undefined
let config: SchemaValidator | undefined

const FROM_SOURCE = __filename.endsWith('.ts')

async function compile(schema: object): Promise<SchemaValidator> {
  const { Ajv } = await import('ajv')
  const ajv = new Ajv({ allErrors: true, strict: false })
  return ajv.compile(schema) as unknown as SchemaValidator
}

async function loadGenerated(file: string): Promise<SchemaValidator> {
  const path = join(__dirname, '..', '..', 'generated', file)
  let validate: unknown
  try {
    const mod = (await import(path)) as { default?: unknown }
    validate = typeof mod === 'function' ? mod : mod.default
  } catch (err) {
    throw new Error(
      `the precompiled validator ${path} does not load (${(err as Error).message.split('\n')[0]}): this git-learn build is incomplete. Reinstall it, or run \`npm run build\` in a checkout.`,
    )
  }
  if (typeof validate !== 'function')
    throw new Error(
      `the precompiled validator ${path} exports no function: this git-learn build is damaged. Reinstall it, or run \`npm run build\` in a checkout.`,
    )
  return validate as SchemaValidator
}

/** The validator of learning frontmatter. */
export async function loadLearningValidator(): Promise<SchemaValidator> {
  if (!learning)
    learning = FROM_SOURCE
      ? await compile((await import('../../core/learning-schema.js')).learningSchema)
      : await loadGenerated('learning-validator.cjs')
  return learning
}

/** The validator of `.learnings/config.yaml`. */
export async function loadConfigValidator(): Promise<SchemaValidator> {
  if (!config)
    config = FROM_SOURCE
      ? await compile((await import('../../core/config-schema.js')).configSchema)
      : await loadGenerated('config-validator.cjs')
  return config
}
