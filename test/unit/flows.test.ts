// src/flows/*.ts orchestrate: they may use adapters and core, but never the CLI (its messages, its context) and
// never print or read the process (argv, env, exit, stdout): a command hands them what they need.
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'

const flowsDir = new URL('../../src/flows/', import.meta.url).pathname
const flows = readdirSync(flowsDir).filter((f) => f.endsWith('.ts'))

test('there are flows to check', () => {
  expect(flows.length).toBeGreaterThan(0)
})

test.each(flows)('src/flows/%s imports no CLI module, prints nothing and reads no process state', (file) => {
  const text = readFileSync(join(flowsDir, file), 'utf8')
  expect(text).not.toMatch(/from\s+['"][^'"]*\/cli\/|import\(\s*['"][^'"]*\/cli\//)
  expect(text).not.toMatch(/\bprocess\.|\bconsole\./)
})
