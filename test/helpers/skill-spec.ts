/**
 * The Agent Skills specification (agentskills.io) as a JSON Schema, to validate what `git learn render` writes:
 * only the spec's six frontmatter keys; name 1–64 lower-case letters, digits and single hyphens, equal to the
 * directory; description 1–1024 characters; compatibility at most 500; metadata a string-to-string map.
 */
import { Ajv } from 'ajv'
import YAML from 'yaml'

const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' },
    description: { type: 'string', minLength: 1, maxLength: 1024 },
    license: { type: 'string' },
    compatibility: { type: 'string', minLength: 1, maxLength: 500 },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
    'allowed-tools': { type: 'string' },
  },
}
const validate = new Ajv({ allErrors: true }).compile(schema)

/** The spec violations of one SKILL.md text in directory `dir` (empty when valid). */
export function skillSpecErrors(text: string, dir: string): string[] {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text)
  if (!m) return ['no frontmatter']
  const data = YAML.parse(m[1] as string) as Record<string, unknown>
  const errors = validate(data)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath || '(top)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
  if (data['name'] !== dir) errors.push(`name "${String(data['name'])}" is not the directory "${dir}"`)
  return errors
}
