/**
 * Compiled schema validators. `npm run build` precompiles both schemas into standalone modules with ajv's
 * standalone code (dist/generated/*.js), so hooks validate without loading or compiling ajv; when those are
 * absent (running from source under vitest), ajv compiles them here, once per process.
 */
import { join } from 'node:path'
import type { SchemaValidator } from '../../core/validate.js'

let learning: SchemaValidator | undefined
let config: SchemaValidator | undefined

async function compile(schema: object): Promise<SchemaValidator> {
  const { Ajv } = await import('ajv')
  const ajv = new Ajv({ allErrors: true, strict: false })
  return ajv.compile(schema) as unknown as SchemaValidator
}

async function loadGenerated(file: string): Promise<SchemaValidator | undefined> {
  try {
    const mod = require(join(__dirname, '..', '..', 'generated', file)) as SchemaValidator | { default: SchemaValidator }
    return 'default' in mod ? mod.default : mod
  } catch {
    return undefined
  }
}

/** The validator of learning frontmatter. */
export async function loadLearningValidator(): Promise<SchemaValidator> {
  if (!learning) {
    learning = await loadGenerated('learning-validator.cjs')
    if (!learning) learning = await compile((await import('../../core/learning-schema.js')).learningSchema)
  }
  return learning
}

/** The validator of `.learnings/config.yaml`. */
export async function loadConfigValidator(): Promise<SchemaValidator> {
  if (!config) {
    config = await loadGenerated('config-validator.cjs')
    if (!config) config = await compile((await import('../../core/config-schema.js')).configSchema)
  }
  return config
}
