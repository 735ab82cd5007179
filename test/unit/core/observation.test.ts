import { describe, expect, test } from 'vitest'
import {
  DEFAULT_OBSERVE_SETTINGS,
  boundJsonValue,
  buildObservationRecord,
  formatObservationLine,
  isIgnoredTool,
  parseObserveSettings,
  salvagePayload,
  utf8Length,
} from '../../../src/core/observation.js'
import type { ObservedEvent } from '../../../src/core/observation.js'
import { redactSecrets, scanSecrets } from '../../../src/core/secrets.js'

const noRedact = (s: string) => s
const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v))
const TOKEN = 'ghp_R7kq2Lw9XbT4mZpV8sYc3NdJ6fHa1Ue5Gi0o'

describe('boundJsonValue', () => {
  test.each([
    ['a short string', 'hello'],
    ['a number', 42],
    ['null', null],
    ['a small object', { command: 'npm test', timeout: 1000, flags: [true, false] }],
  ])('keeps %s as it is', (_what, value) => {
    expect(boundJsonValue(value, 5120, noRedact)).toEqual({ value, truncated: false })
  })

  test.each([
    ['a 50 KB string', 'x'.repeat(50_000)],
    ['a 1 MB string of multi-byte characters', 'é€😀'.repeat(100_000)],
    ['an object with a huge field', { stdout: 'y'.repeat(200_000), stderr: 'short', interrupted: false }],
    ['an array of 10,000 items', Array.from({ length: 10_000 }, (_, i) => `line ${i}`)],
    ['an object of 5,000 keys', Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]))],
    ['deep nesting', JSON.parse('['.repeat(500) + ']'.repeat(500))],
    // Deeper than JSON.stringify's recursion reaches: it threw, and observe and capture lost the record.
    ['nesting 100,000 levels deep', JSON.parse('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000))],
    ['NUL bytes and quotes', `a\u0000b"c\\d\`$(rm -rf /)'''`.repeat(2000)],
    ['a lone surrogate at the cut', `${'a'.repeat(5118)}😀😀😀${'b'.repeat(10_000)}`],
  ])('cuts %s to at most max bytes, as JSON that parses', (_what, value) => {
    const out = boundJsonValue(value, 5120, noRedact)
    expect(out.truncated).toBe(true)
    const line = JSON.stringify(out.value)
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(5120)
    expect(() => JSON.parse(line)).not.toThrow()
    expect(line).toContain('truncated')
  })

  test('a cut string ends with the marker that says how many bytes were dropped', () => {
    const out = boundJsonValue('z'.repeat(10_000), 1024, noRedact)
    expect(out.value).toMatch(/^z+…\[truncated \d+ bytes\]$/)
    const kept = (out.value as string).indexOf('…')
    expect(Number(/(\d+) bytes/.exec(out.value as string)?.[1])).toBe(10_000 - kept)
  })

  test('every string is redacted, including one that straddles the cut', () => {
    const value = { stdout: `${'a'.repeat(1000)}${TOKEN}${'b'.repeat(5000)}`, env: [`TOKEN=${TOKEN}`] }
    const out = boundJsonValue(value, 1024 + 10, (s) => redactSecrets(s))
    const line = JSON.stringify(out.value)
    expect(line).not.toContain(TOKEN)
    expect(line).not.toContain(TOKEN.slice(0, 12))
  })
})

describe('buildObservationRecord', () => {
  test('redacts secrets in every field and keeps the line valid JSON', () => {
    const rec = buildObservationRecord(
      {
        agent: 'claude-code',
        session: 's1',
        event: 'PostToolUse',
        tool: 'Bash',
        tool_use_id: 't1',
        input: { command: `echo ${TOKEN}` },
        output: { stdout: `GITHUB_TOKEN=${TOKEN}` },
        ok: true,
        cwd: '/r',
      },
      { ts: '2026-11-20T12:00:00.000Z', maxFieldBytes: 5120, scan: (s) => scanSecrets(s) },
    )
    const line = formatObservationLine(rec)
    expect(line).not.toContain(TOKEN)
    expect(line).toContain('[REDACTED:')
    expect(line.endsWith('\n')).toBe(true)
    expect(line.slice(0, -1)).not.toContain('\n')
    expect(JSON.parse(line)).toMatchObject({ v: 1, agent: 'claude-code', event: 'PostToolUse', tool: 'Bash', ok: true })
  })

  test('marks the record truncated when a field was cut', () => {
    const rec = buildObservationRecord(
      {
        agent: 'a',
        session: null,
        event: 'PostToolUse',
        tool: 'Read',
        tool_use_id: null,
        output: 'q'.repeat(20_000),
        ok: true,
        cwd: null,
      },
      { ts: 't', maxFieldBytes: 512, scan: () => [] },
    )
    expect(rec.truncated).toBe(true)
    expect(size(rec.output)).toBeLessThanOrEqual(512)
  })
})

describe('parseObserveSettings', () => {
  test.each([
    ['no config', undefined, DEFAULT_OBSERVE_SETTINGS, 0],
    [
      'observe keys',
      {
        observe: {
          enabled: false,
          max_field_bytes: 300,
          rotate_bytes: 2048,
          ignore_tools: ['Read', 'mcp__*'],
          skip_subagents: true,
        },
      },
      {
        ...DEFAULT_OBSERVE_SETTINGS,
        enabled: false,
        max_field_bytes: 300,
        rotate_bytes: 2048,
        ignore_tools: ['Read', 'mcp__*'],
        skip_subagents: true,
      },
      0,
    ],
    [
      'secrets.allow',
      { secrets: { allow: ['github-pat:00'] } },
      { ...DEFAULT_OBSERVE_SETTINGS, secrets_allow: ['github-pat:00'] },
      0,
    ],
    [
      'wrong types fall back to defaults',
      { observe: { enabled: 'yes', rotate_bytes: 10, max_field_bytes: 1.5, ignore_tools: 'Read' } },
      DEFAULT_OBSERVE_SETTINGS,
      4,
    ],
  ])('%s', (_what, config, expected, problems) => {
    const out = parseObserveSettings(config)
    expect(out.settings).toEqual(expected)
    expect(out.problems).toHaveLength(problems)
  })
})

test.each([
  ['Read', ['Read'], true],
  ['mcp__github__search', ['mcp__*'], true],
  ['Bash', ['Read', 'mcp__*'], false],
  [null, ['*'], false],
])('isIgnoredTool(%s, %j) is %s', (tool, ignore, expected) => {
  expect(isIgnoredTool(tool, ignore)).toBe(expected)
})

test('salvagePayload reads the well-known fields of a payload that is not JSON', () => {
  const text = `{"session_id":"abc","hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":{"stdout":"${'x'.repeat(100)}`
  const out = salvagePayload(text, 64)
  expect(out.fields).toEqual({ session_id: 'abc', hook_event_name: 'PostToolUse', tool_name: 'Bash' })
  expect(out.excerpt.startsWith('{"session_id"')).toBe(true)
})

test('utf8Length counts bytes as Buffer does', () => {
  for (const s of ['', 'abc', 'é', '€', '😀', 'a😀b€é', '\ud800x']) expect(utf8Length(s)).toBe(Buffer.byteLength(s))
})

describe('secrets under keys, and one field beside another', () => {
  const AWS_ID = 'AKIAZ3MXP7Q2LN4TB6WD'
  const AWS_SECRET = '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'
  const PASSWORD = 'Tr0ub4dor&3xQz9'
  const HEX = '0x3f9a1c7e5b2d8046e1f3a9c7b5d2e8f4a6c1b3d5e7f9a2c4b6d8e0f1a3c5b7d9'
  const event = (over: Partial<ObservedEvent>): ObservedEvent => ({
    agent: 'claude-code',
    session: 's1',
    event: 'PostToolUse',
    tool: 'Bash',
    tool_use_id: null,
    ok: true,
    cwd: null,
    ...over,
  })
  const record = (ev: ObservedEvent) =>
    buildObservationRecord(ev, { ts: 't', maxFieldBytes: 5120, scan: (s) => scanSecrets(s) })

  test('a key that is a credential is redacted; a value is scanned with its key, so rules that need the name fire', () => {
    const rec = record(
      event({
        tool: 'mcp__vault__set',
        input: { [AWS_ID]: 'x', env: { AWS_SECRET_ACCESS_KEY: AWS_SECRET, DB_PASSWORD: PASSWORD, NODE_ENV: 'test' } },
      }),
    )
    const line = formatObservationLine(rec)
    for (const secret of [AWS_ID, AWS_SECRET, PASSWORD]) expect(line).not.toContain(secret)
    expect(rec.input).toEqual({
      '[REDACTED:aws-access-key-id]': 'x',
      env: {
        AWS_SECRET_ACCESS_KEY: '[REDACTED:aws-secret-access-key]',
        DB_PASSWORD: '[REDACTED:generic-assignment]',
        NODE_ENV: 'test',
      },
    })
    expect(rec.truncated).toBeUndefined()
  })

  test('strings of an array under a key are scanned with that key', () => {
    const rec = record(event({ input: { password: [PASSWORD, 'ok'] } }))
    expect(rec.input).toEqual({ password: ['[REDACTED:generic-assignment]', 'ok'] })
  })

  test('a value with quotes and line breaks: only the secret the key reveals is redacted, in place', () => {
    const rec = record(
      event({
        input: {
          wallet: `"note" \\ key ${HEX} ok\nsecond line`,
          secret: 'quote"d\\Zq9#kLm2Vp7wXy',
          'DB_PASSWORD\n': `${PASSWORD}\n${PASSWORD}`,
        },
      }),
    )
    expect(rec.input).toEqual({
      wallet: '"note" \\ key [REDACTED:hex-private-key] ok\nsecond line',
      secret: '[REDACTED:generic-assignment]',
      // The key names the value on its line: the first line.
      'DB_PASSWORD\n': `[REDACTED:generic-assignment]\n${PASSWORD}`,
    })
  })

  test('two keys redacted alike stay two keys', () => {
    const rec = record(event({ input: { [AWS_ID]: 'a', AKIAQ4NV2XW7RT5KM3LB: 'b' } }))
    expect(rec.input).toEqual({ '[REDACTED:aws-access-key-id]': 'a', '[REDACTED:aws-access-key-id] (2)': 'b' })
  })

  test('a long key is redacted before it is cut, and the record says it was cut', () => {
    const rec = record(event({ input: { [`${'k'.repeat(190)} ${AWS_ID}`]: 'v' } }))
    const key = Object.keys(rec.input as object)[0] as string
    expect(key).not.toContain(AWS_ID.slice(0, 10))
    expect(key).toBe(`${'k'.repeat(190)} [REDACTED…`)
    expect(rec.truncated).toBe(true)
  })

  test.each([
    ['transaction hash block', 'ok'],
    ['ok', 'transaction hash block'],
  ])('words in another field change no verdict (output %j, error %j)', (stdout, error) => {
    const rec = record(event({ input: { command: `echo wallet private key ${HEX}` }, output: { stdout }, error }))
    expect(rec.input).toEqual({ command: 'echo wallet private key [REDACTED:hex-private-key]' })
    expect(rec.output).toEqual({ stdout })
    expect(rec.error).toBe(error)
  })

  test('a payload of many strings is scanned at the size it is kept at, not at every halving', () => {
    const big = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [
        `k${i}`,
        Object.fromEntries(Array.from({ length: 300 }, (_, j) => [`n${j}`, `v${i}-${j}`])),
      ]),
    )
    let scans = 0
    const rec = buildObservationRecord(event({ input: big }), {
      ts: 't',
      maxFieldBytes: 5120,
      scan: (s) => {
        scans++
        return scanSecrets(s)
      },
    })
    expect(rec.truncated).toBe(true)
    expect(size(rec.input)).toBeLessThanOrEqual(5120)
    expect(scans).toBeLessThan(2000)
  })

  test('every string of a record is what scanning it alone (with its key) gives', () => {
    const fields = [`echo wallet private key ${HEX}`, 'transaction hash block', `GITHUB_TOKEN=${TOKEN}`, 'a', '']
    const rec = record(event({ session: fields[1] ?? null, input: fields, output: fields.join(' '), error: 'block' }))
    expect(rec.input).toEqual(fields.map((f) => redactSecrets(f)))
    expect(rec.output).toBe(redactSecrets(fields.join(' ')))
    expect(rec.session).toBe(fields[1])
  })
})
