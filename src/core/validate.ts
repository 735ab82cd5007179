/**
 * Schema errors as sentences. ajv's raw output (`/gates/discovery_depth must be <= 3`) never reaches a user:
 * each error becomes "field X …; fix: …", as commitlint's config-validator does.
 */
import { redactSecrets } from './secrets.js'

/** The part of an ajv ErrorObject we read (ajv itself stays in the adapters: the core does not compile). */
export interface SchemaErrorLike {
  instancePath: string
  keyword: string
  params: Record<string, unknown>
  message?: string
}

/** A compiled validator, ajv's or a standalone one. */
export type SchemaValidator = ((data: unknown) => boolean) & { errors?: SchemaErrorLike[] | null }

function fieldName(instancePath: string, extra?: string): string {
  const parts = instancePath
    .split('/')
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
  if (extra) parts.push(extra)
  return parts.length ? parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i ? `.${p}` : p)).join('') : '(top level)'
}

/** One sentence per schema error, naming the field and the fix; `where` is what a missing field goes into. */
export function formatSchemaErrors(
  errors: readonly SchemaErrorLike[],
  data: unknown,
  where = 'the frontmatter',
): string[] {
  const out: string[] = []
  // A field with alternatives (trigger: a string or a list) fails each of them: say it once, as the alternatives.
  const alternatives = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath))
  for (const e of errors) {
    if (e.keyword === 'if') continue
    if (alternatives.has(e.instancePath) && e.keyword !== 'anyOf') continue
    // The list form was meant when an item of it is at fault: that item's sentence says it all.
    if (e.keyword === 'anyOf' && errors.some((x) => x.instancePath.startsWith(`${e.instancePath}/`))) continue
    const field = fieldName(e.instancePath)
    const value = valueAt(data, e.instancePath)
    // Redacted before it is cut: a credential in a field is never shown, not even the part of it before the cut.
    const shown = value === undefined ? '' : `; it is ${redactSecrets(JSON.stringify(value) ?? '').slice(0, 80)}`
    switch (e.keyword) {
      case 'required': {
        const missing = fieldName(e.instancePath, String(e.params['missingProperty']))
        out.push(
          missing === 'trigger'
            ? 'field "trigger" is required for this type; quote the exact error message or symptom that should bring this learning up'
            : `field "${missing}" is required; add it to ${where}`,
        )
        break
      }
      case 'enum':
        out.push(`field "${field}" must be one of ${(e.params['allowedValues'] as unknown[]).join(', ')}${shown}`)
        break
      case 'type':
        out.push(`field "${field}" must be ${article(String(e.params['type']))}${shown}`)
        break
      case 'pattern':
        out.push(`field "${field}" ${patternHint(field, value)}${shown}`)
        break
      case 'minLength':
        out.push(`field "${field}" must not be empty`)
        break
      case 'maxLength':
        out.push(`field "${field}" must be at most ${String(e.params['limit'])} characters; shorten it`)
        break
      case 'maxItems':
        out.push(`field "${field}" may list at most ${String(e.params['limit'])} items`)
        break
      case 'minimum':
      case 'maximum':
        out.push(`field "${field}" must be ${e.keyword === 'minimum' ? '≥' : '≤'} ${String(e.params['limit'])}${shown}`)
        break
      case 'anyOf': {
        // A list of strings that is only too long: say that, not the whole form of the field.
        const tooMany = errors.find((x) => x.instancePath === e.instancePath && x.keyword === 'maxItems')
        if (field === 'trigger' && tooMany && Array.isArray(value)) {
          out.push(
            `field "trigger" may list at most ${String(tooMany.params['limit'])} triggers, and it lists ${value.length}: keep the forms of the error that differ most`,
          )
          break
        }
        out.push(
          `field "${field}" must be ${field === 'trigger' ? 'a string or a list of strings (each not empty, at most 2000 characters)' : 'one of its allowed forms'}${shown}`,
        )
        break
      }
      case 'additionalProperties':
        out.push(
          `unknown key "${fieldName(e.instancePath, String(e.params['additionalProperty']))}"; remove it or check its spelling`,
        )
        break
      default:
        out.push(`field "${field}" ${e.message ?? 'is invalid'}${shown}`)
    }
  }
  return [...new Set(out)]
}

function article(type: string): string {
  if (type === 'array') return 'a list, such as [a, b]'
  if (type === 'object') return 'a mapping of keys to values'
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`
}

function patternHint(field: string, value: unknown): string {
  // Accepted before 2026-12-07: a team that upgrades is told what the name stands for and what to do, not "wrong form".
  if (/^tiers\[\d+\]\.name$/.test(field) && value === 'project')
    return 'may not be "project", which names this repository\'s own learnings to agents (a git-learn before 2026-12-07 accepted it): rename the tier in .learnings/config.yaml (for example to "project-tier") and commit it'
  if (/^tiers\[\d+\]\.name$/.test(field)) return 'must be a kebab-case name (a-z, 0-9, single hyphens)'
  if (field === 'name' || /^(related|supersedes)\[/.test(field))
    return 'must be a kebab-case name (a-z, 0-9, single hyphens, at most 64 characters)'
  if (field === 'created') return 'must be a date written as "YYYY-MM-DD" (quote it)'
  if (field === 'version') return 'must be a version such as "1.0.0"'
  if (field === 'evidence.commit') return 'must be a commit id in hex (git rev-parse --short HEAD)'
  return 'has the wrong form'
}

function valueAt(data: unknown, instancePath: string): unknown {
  let cur: unknown = data
  for (const p of instancePath.split('/').filter(Boolean)) {
    if (cur === null || typeof cur !== 'object') return undefined
    cur = (cur as Record<string, unknown>)[p]
  }
  return instancePath ? cur : undefined
}
