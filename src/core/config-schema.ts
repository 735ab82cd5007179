/** `.learnings/config.yaml`: its schema and defaults (DESIGN section 11). Every key is optional. */

export interface Config {
  gates: { min_discovery_depth: number; min_contexts: number; require_verification: boolean }
  dedupe: { similar: number; related: number; notes_file: string }
  approval: { distinct_approver: boolean }
  confidence: { confirm: number; contradict: number; decay_per_week: number; apply: number }
  prune: { after_days: number; min_matches: number }
  observe: {
    enabled: boolean
    max_field_bytes: number
    rotate_bytes: number
    ignore_tools: string[]
    skip_subagents: boolean
  }
  context: { max_tokens: number }
  zones: { system: string[] }
  secrets: { allow: string[] }
  tiers: { name: string; url: string; ref?: string; commit?: string; weight?: number }[]
  render: { targets: string[] }
}

export const DEFAULT_CONFIG: Config = {
  gates: { min_discovery_depth: 2, min_contexts: 2, require_verification: true },
  dedupe: { similar: 0.8, related: 0.5, notes_file: 'NOTES.md' },
  approval: { distinct_approver: true },
  confidence: { confirm: 0.05, contradict: 0.1, decay_per_week: 0.02, apply: 0.7 },
  prune: { after_days: 90, min_matches: 2 },
  observe: { enabled: true, max_field_bytes: 5120, rotate_bytes: 10485760, ignore_tools: [], skip_subagents: false },
  context: { max_tokens: 1500 },
  zones: { system: ['.claude/skills/**', '.claude/commands/**', '.claude/agents/**'] },
  secrets: { allow: [] },
  tiers: [],
  render: { targets: ['claude'] },
}

const unit = { type: 'number', minimum: 0, maximum: 1 }
const count = { type: 'integer', minimum: 0 }
const strings = { type: 'array', items: { type: 'string' } }
const section = (properties: Record<string, object>) => ({ type: 'object', additionalProperties: false, properties })

export const configSchema = {
  $id: 'https://git-learn.dev/schema/config.json',
  type: 'object',
  additionalProperties: false,
  properties: {
    gates: section({
      min_discovery_depth: { type: 'integer', minimum: 0, maximum: 3 },
      min_contexts: count,
      require_verification: { type: 'boolean' },
    }),
    dedupe: section({ similar: unit, related: unit, notes_file: { type: 'string' } }),
    approval: section({ distinct_approver: { type: 'boolean' } }),
    confidence: section({ confirm: unit, contradict: unit, decay_per_week: unit, apply: unit }),
    prune: section({ after_days: count, min_matches: count }),
    observe: section({
      enabled: { type: 'boolean' },
      max_field_bytes: { type: 'integer', minimum: 256 },
      rotate_bytes: { type: 'integer', minimum: 1024 },
      ignore_tools: strings,
      skip_subagents: { type: 'boolean' },
    }),
    context: section({ max_tokens: { type: 'integer', minimum: 100 } }),
    zones: section({ system: strings }),
    secrets: section({ allow: strings }),
    tiers: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'url'],
        properties: {
          // Not "project": the name labels a tier's learnings to agents, and "project" names this repository's own.
          name: { type: 'string', pattern: '^(?!project$)[a-z0-9]+(-[a-z0-9]+)*$' },
          url: { type: 'string', minLength: 1 },
          ref: { type: 'string' },
          commit: { type: 'string', pattern: '^[0-9a-f]{40,64}$' },
          weight: unit,
        },
      },
    },
    render: section({
      targets: { type: 'array', items: { enum: ['claude', 'agents', 'cursor', 'copilot', 'claude-md'] } },
    }),
  },
} as const

/** The user's partial config laid over the defaults, one section deep. */
export function mergeConfig(partial: Record<string, unknown> | null | undefined): Config {
  const out: Record<string, unknown> = structuredClone(DEFAULT_CONFIG) as unknown as Record<string, unknown>
  for (const [key, value] of Object.entries(partial ?? {})) {
    const base = out[key]
    if (
      base &&
      typeof base === 'object' &&
      !Array.isArray(base) &&
      value &&
      typeof value === 'object' &&
      !Array.isArray(value)
    )
      out[key] = { ...(base as object), ...(value as object) }
    else out[key] = value
  }
  return out as unknown as Config
}

/**
 * True when `value` has the shape of a merged Config: every section and key of the defaults, each a value of the
 * default's type, the lists lists of strings (the tiers, of objects with a string name and url). The config cache's
 * entries are checked with it (adapters/store/config.ts): an entry damaged into other JSON is a miss, not a crash of
 * every command that reads a section it lacks. The values' ranges are the schema's business, checked when the entry
 * was built.
 */
export function hasConfigShape(value: unknown): value is Config {
  return isLike(value, DEFAULT_CONFIG, '')
}

const TIER_KEYS = ['name', 'url'] as const

function isLike(value: unknown, model: unknown, key: string): boolean {
  if (Array.isArray(model)) {
    if (!Array.isArray(value)) return false
    if (key === 'tiers')
      return value.every(
        (t) =>
          !!t && typeof t === 'object' && TIER_KEYS.every((k) => typeof (t as Record<string, unknown>)[k] === 'string'),
      )
    return value.every((x) => typeof x === 'string')
  }
  if (model && typeof model === 'object') {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return false
    return Object.entries(model).every(([k, m]) => isLike((value as Record<string, unknown>)[k], m, k))
  }
  return typeof value === typeof model
}
