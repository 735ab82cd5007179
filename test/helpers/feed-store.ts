/** A store of a few dozen realistic learnings for the feeding commands' tests. */
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { learningText } from './repo.js'
import type { TestRepo } from './repo.js'

export interface Seed {
  name: string
  type?: string
  trigger: string
  description: string
  tags: string[]
  domain?: string
  solution: string
  state?: 'pending' | 'active' | 'archived'
  confidence?: number
  created?: string
  evidence?: { commit?: string; paths: string[] }
}

export const SEEDS: Seed[] = [
  {
    name: 'vitest-esm-mock-hoisting',
    trigger: "ReferenceError: Cannot access '__vi_import_0__' before initialization",
    description:
      'Fix "Cannot access __vi_import_0__ before initialization" when mocking ESM modules in vitest. Use when a vi.mock of an ESM import throws a TDZ error.',
    tags: ['vitest', 'esm', 'mocking'],
    solution: 'Move the variables the factory uses into vi.hoisted() and reference them from the vi.mock factory.',
    confidence: 0.8,
    evidence: { paths: ['test/api.test.ts'] },
  },
  {
    name: 'jest-esm-require',
    trigger: 'SyntaxError: Cannot use import statement outside a module',
    description:
      'Fix jest failing on ESM syntax in node_modules. Use when jest reports Cannot use import statement outside a module.',
    tags: ['jest', 'esm'],
    solution: 'Add the package to transformIgnorePatterns exceptions so babel-jest transforms it.',
  },
  {
    name: 'node-err-require-esm',
    trigger: 'Error [ERR_REQUIRE_ESM]: require() of ES Module not supported',
    description:
      'Fix ERR_REQUIRE_ESM when a CommonJS file requires an ESM-only package. Use when node refuses require() of an ES module.',
    tags: ['node', 'esm', 'commonjs'],
    solution: 'Use a dynamic import() or pin the last CommonJS release of the package.',
  },
  {
    name: 'postgres-econnrefused',
    trigger: 'Error: connect ECONNREFUSED 127.0.0.1:5432',
    description:
      'Fix tests failing with ECONNREFUSED on port 5432. Use when the integration tests cannot reach postgres.',
    tags: ['postgres', 'docker', 'testing'],
    solution: 'Start the database with docker compose up -d db and wait for pg_isready before running the tests.',
  },
  {
    name: 'eaddrinuse-dev-server',
    trigger: 'Error: listen EADDRINUSE: address already in use :::3000',
    description: 'Fix the dev server failing to start because the port is taken. Use when node prints EADDRINUSE.',
    tags: ['node', 'dev-server'],
    domain: 'debugging',
    solution: 'Find the old process with lsof -i :3000 and stop it, or set PORT to a free port.',
  },
  {
    name: 'ts-module-not-found-js-suffix',
    trigger: "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/app/dist/core/x' imported from /app/dist/cli/main.js",
    description:
      'Fix ERR_MODULE_NOT_FOUND in compiled NodeNext TypeScript. Use when relative imports lack the .js suffix.',
    tags: ['typescript', 'esm', 'node'],
    domain: 'tooling',
    solution: 'Write relative imports with the .js suffix; NodeNext resolution does not add extensions.',
  },
  {
    name: 'react-hooks-order',
    trigger: 'Error: Rendered more hooks than during the previous render.',
    description:
      'Fix React complaining about more hooks than the previous render. Use when a hook is called conditionally.',
    tags: ['react', 'hooks'],
    domain: 'code-style',
    solution: 'Call hooks unconditionally at the top level of the component; move the condition inside the hook.',
  },
  {
    name: 'git-refusing-unrelated-histories',
    trigger: 'fatal: refusing to merge unrelated histories',
    description:
      'Fix git refusing to merge unrelated histories after creating a repository on the forge with a README.',
    tags: ['git', 'merge'],
    domain: 'git',
    solution: 'Pull once with --allow-unrelated-histories, resolve, and push.',
  },
  {
    name: 'npm-eresolve-peer',
    trigger: 'npm ERR! ERESOLVE unable to resolve dependency tree',
    description: 'Fix npm install failing with ERESOLVE on peer dependencies. Use when npm 7+ refuses a peer range.',
    tags: ['npm', 'dependencies'],
    domain: 'tooling',
    solution: 'Align the peer versions; use --legacy-peer-deps only as a stop-gap and record why.',
  },
  {
    name: 'docker-enospc',
    trigger: 'ENOSPC: no space left on device',
    description: 'Fix builds failing with ENOSPC in docker. Use when the docker disk is full.',
    tags: ['docker', 'disk'],
    domain: 'tooling',
    solution: 'Run docker system prune and raise the disk image size.',
  },
  {
    name: 'typeerror-not-a-function-default-import',
    trigger: 'TypeError: (0 , _foo.default) is not a function',
    description:
      'Fix a default import that is undefined under interop. Use when a CommonJS module is imported as default.',
    tags: ['typescript', 'esm', 'interop'],
    solution: 'Turn on esModuleInterop or import the named export instead of the default.',
  },
  {
    name: 'eslint-parser-project',
    trigger: 'Parsing error: "parserOptions.project" has been set for @typescript-eslint/parser',
    description:
      'Fix the typescript-eslint parser error for files outside the tsconfig. Use when eslint names parserOptions.project.',
    tags: ['eslint', 'typescript'],
    domain: 'tooling',
    solution: 'Add the file to a tsconfig.eslint.json include list, or use projectService.',
  },
  {
    name: 'no-sleep-in-tests',
    type: 'anti-pattern',
    trigger: 'flaky test passes locally and times out in CI: Test timed out in 5000ms',
    description:
      'Do not wait with fixed sleeps in tests; wait for the condition. Use when a test times out in CI only.',
    tags: ['testing', 'flaky', 'vitest'],
    solution: 'Await the condition with vi.waitFor or an event instead of setTimeout sleeps.',
  },
  {
    name: 'prefer-git-mv',
    type: 'decision',
    trigger: '',
    description: 'We move learnings with git mv so the history follows the file.',
    tags: ['git', 'workflow'],
    domain: 'workflow',
    solution: 'Always move with git mv in one commit.',
    confidence: 0.9,
  },
  {
    name: 'pending-example',
    state: 'pending',
    trigger: 'Error: pending thing failed',
    description: 'A pending learning about a pending thing failing.',
    tags: ['pending', 'example'],
    solution: 'Not reviewed yet.',
  },
  {
    name: 'archived-vitest-old',
    state: 'archived',
    trigger: "ReferenceError: Cannot access '__vi_import_0__' before initialization",
    description: 'An old, archived note about vitest mock hoisting.',
    tags: ['vitest'],
    solution: 'Outdated advice.',
  },
]

// Fillers so ranking works against a few dozen documents.
const TOPICS = [
  'redis',
  'nginx',
  'kafka',
  'graphql',
  'prisma',
  'webpack',
  'rust',
  'go',
  'python',
  'java',
  'kotlin',
  'swift',
  'terraform',
  'helm',
  'vite',
]
for (const [i, t] of TOPICS.entries())
  SEEDS.push({
    name: `${t}-config-fix`,
    trigger: `Error: ${t} configuration invalid at startup (code ${i})`,
    description: `Fix ${t} refusing its configuration at startup. Use when ${t} reports an invalid configuration.`,
    tags: [t, 'config'],
    domain: 'tooling',
    solution: `Validate the ${t} config with its own check command before deploying.`,
  })

const SECTIONS: Record<string, (s: Seed) => string> = {
  'error-solution': (s) =>
    `## Problem\n${s.description}\n\n## Trigger Conditions\n${s.trigger}\n\n## Root Cause\nWe tried reinstalling and clearing caches first.\n\n## Solution\n${s.solution}\n\n## Verification\nThe suite passed afterwards.\n`,
  'anti-pattern': (s) =>
    `## Anti-pattern\nSleeping for a fixed time.\n\n## Correct pattern\n${s.solution}\n\n## Rationale\nCI machines are slower.\n`,
  decision: (s) =>
    `## Context\nMoves lose history otherwise.\n\n## Decision\n${s.solution}\n\n## Consequences\nOne commit per move.\n`,
}

/** The text of a seed learning. */
export function seedText(s: Seed): string {
  const type = s.type ?? 'error-solution'
  const fm = [
    `name: ${s.name}`,
    `description: ${JSON.stringify(s.description)}`,
    `type: ${type}`,
    ...(s.trigger ? [`trigger: ${JSON.stringify(s.trigger)}`] : []),
    `domain: ${s.domain ?? 'testing'}`,
    `tags: [${s.tags.join(', ')}]`,
    ...(s.confidence !== undefined ? [`confidence: ${s.confidence}`] : []),
    ...(s.evidence
      ? [
          `evidence:`,
          ...(s.evidence.commit ? [`  commit: ${s.evidence.commit}`] : []),
          `  paths: [${s.evidence.paths.join(', ')}]`,
        ]
      : []),
    `created: "${s.created ?? '2026-11-18'}"`,
  ]
  return `---\n${fm.join('\n')}\n---\n${(SECTIONS[type] ?? SECTIONS['error-solution']!)(s)}`
}

/** Write and commit the seeds (or the given ones) into the repository's store. */
export function seedStore(repo: TestRepo, seeds: readonly Seed[] = SEEDS): void {
  for (const st of ['pending', 'active', 'archived']) repo.write(`.learnings/${st}/.gitkeep`, '')
  for (const s of seeds) repo.write(`.learnings/${s.state ?? 'active'}/${s.name}.md`, seedText(s))
  repo.git('add', '-A')
  repo.git('commit', '-q', '-m', 'seed learnings')
}

/** A real vitest failure output, colours and all. */
export const VITEST_FAILURE = `
 \u001b[31m❯\u001b[39m test/api.test.ts \u001b[2m(0 test)\u001b[22m

\u001b[31m⎯⎯⎯⎯⎯⎯ Failed Suites 1 ⎯⎯⎯⎯⎯⎯⎯\u001b[39m

\u001b[31m\u001b[1m FAIL \u001b[22m\u001b[39m test/api.test.ts \u001b[2m[ test/api.test.ts ]\u001b[22m
\u001b[31m\u001b[1mReferenceError\u001b[22m: Cannot access '__vi_import_0__' before initialization\u001b[39m
\u001b[36m \u001b[2m❯\u001b[22m test/api.test.ts:\u001b[2m5:1\u001b[22m\u001b[39m
    \u001b[90m  3| \u001b[39m\u001b[35mimport\u001b[39m { getUsers } \u001b[35mfrom\u001b[39m \u001b[32m'../src/api'\u001b[39m
    \u001b[90m  4| \u001b[39m
    \u001b[90m  5| \u001b[39mvi.mock('../src/db', () => ({ query: mockQuery }))

\u001b[31m⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯\u001b[39m

\u001b[2m Test Files \u001b[22m \u001b[1m\u001b[31m1 failed\u001b[39m\u001b[22m\u001b[90m (1)\u001b[39m
\u001b[2m      Tests \u001b[22m \u001b[2mno tests\u001b[22m
\u001b[2m   Start at \u001b[22m 10:31:07
\u001b[2m   Duration \u001b[22m 412ms\u001b[2m (transform 31ms, setup 0ms, collect 0ms, tests 0ms, environment 0ms, prepare 63ms)\u001b[22m
`

/**
 * `status --json` of the store without its usage figures: each recall run records match events, which status counts,
 * so comparisons of what the store decides leave them out.
 */
export async function storeStatus(repo: TestRepo, now: Date): Promise<unknown> {
  const s = (await repo.cli(['status', '--json'], { now })).json()
  return {
    counts: s.counts,
    pending: s.pending,
    domains: s.domains.map((d: { domain: string; learnings: { name: string }[] }) => [
      d.domain,
      d.learnings.map((l) => l.name).sort(),
    ]),
  }
}

/** The key the only work tree of a repository wrote its feed cache under last (its `last-key-<work tree>` file). */
export function lastCacheKey(cacheDir: string): string {
  const files = readdirSync(cacheDir).filter((n) => n.startsWith('last-key-'))
  if (files.length !== 1) throw new Error(`expected one last-key file in ${cacheDir}, found ${files.join(', ')}`)
  return (JSON.parse(readFileSync(join(cacheDir, files[0] as string), 'utf8')) as { key: string }).key
}

/**
 * Writes `n` active learnings `learning-<i>`, each triggered by a connection refused on its own port (6000 + i): a
 * store whose every learning a failure can name exactly (the kept-parse tests).
 */
export function writePortLearnings(repo: TestRepo, n = 24): void {
  for (let i = 0; i < n; i++)
    repo.write(
      `.learnings/active/learning-${i}.md`,
      learningText(`learning-${i}`, { trigger: `Error: connect ECONNREFUSED 127.0.0.1:${6000 + i}` }),
    )
}
