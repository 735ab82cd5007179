/**
 * The frontmatter JSON Schema of a learning (draft-07, validated with ajv). Unknown keys are allowed here and
 * warned about by `findUnknownKeys`, so a newer file is never rejected by an older tool.
 */

export const LEARNING_TYPES = ['error-solution', 'pattern', 'anti-pattern', 'decision', 'instinct', 'skill'] as const
export type LearningType = (typeof LEARNING_TYPES)[number]

export const DOMAINS = [
  'testing',
  'debugging',
  'git',
  'workflow',
  'code-style',
  'security',
  'architecture',
  'performance',
  'tooling',
  'other',
] as const
export type Domain = (typeof DOMAINS)[number]

/** Types whose `trigger` is required. */
export const TRIGGER_REQUIRED: readonly LearningType[] = ['error-solution', 'instinct', 'pattern', 'anti-pattern']

const nameRef = { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 64 }

export const learningSchema = {
  $id: 'https://git-learn.dev/schema/learning.json',
  type: 'object',
  required: ['name', 'description', 'type', 'created'],
  properties: {
    name: nameRef,
    description: { type: 'string', minLength: 1, maxLength: 1024 },
    type: { enum: [...LEARNING_TYPES] },
    // One trigger, or a list of them (the same failure in other words or from other tools).
    trigger: {
      anyOf: [
        { type: 'string', minLength: 1, maxLength: 2000 },
        { type: 'array', items: { type: 'string', minLength: 1, maxLength: 2000 }, minItems: 1, maxItems: 20 },
      ],
    },
    domain: { enum: [...DOMAINS] },
    tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, maxItems: 50 },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    gates: {
      type: 'object',
      properties: {
        discovery_depth: { type: 'integer', minimum: 0, maximum: 3 },
        reusability: { type: 'array', items: { type: 'string' }, maxItems: 50 },
        verification: { type: 'string' },
      },
    },
    evidence: {
      type: 'object',
      properties: {
        commit: { type: 'string', pattern: '^[0-9a-f]{4,64}$' },
        paths: { type: 'array', items: { type: 'string' }, maxItems: 200 },
      },
    },
    source: {
      type: 'object',
      properties: {
        kind: { type: 'string' },
        agent: { type: 'string' },
        session: { type: 'string' },
      },
    },
    related: { type: 'array', items: nameRef, maxItems: 100 },
    supersedes: { type: 'array', items: nameRef, maxItems: 100 },
    created: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+' },
  },
  allOf: [
    {
      if: { properties: { type: { enum: [...TRIGGER_REQUIRED] } }, required: ['type'] },
      then: { required: ['trigger'] },
    },
  ],
} as const

export const KNOWN_KEYS: ReadonlySet<string> = new Set(Object.keys(learningSchema.properties))

/** Required body sections per type; `templates/<type>.md` carries each of them (a unit test holds the two together). */
export const REQUIRED_SECTIONS: Readonly<Record<LearningType, readonly string[]>> = {
  'error-solution': ['Problem', 'Trigger Conditions', 'Solution', 'Verification'],
  skill: ['Problem', 'Trigger Conditions', 'Solution', 'Verification'],
  pattern: ['Anti-pattern', 'Correct pattern', 'Rationale'],
  'anti-pattern': ['Anti-pattern', 'Correct pattern', 'Rationale'],
  decision: ['Context', 'Decision', 'Consequences'],
  instinct: ['Action', 'Evidence'],
}
