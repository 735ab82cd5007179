import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { SECRET_RULES } from '../../../src/core/secret-rules.js'
import { fnv1a64, maskSecret, redactSecrets, scanSecrets, type SecretFinding } from '../../../src/core/secrets.js'

interface Labelled {
  id: string
  kind: string
  text: string
  secret?: string
}

const load = (name: string): Labelled[] =>
  readFileSync(new URL(`../../fixtures/secrets/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as Labelled)

const positives = load('positives.jsonl')
const negatives = load('negatives.jsonl')

function secretOf(sample: Labelled): { secret: string; start: number; end: number } {
  const secret = sample.secret ?? ''
  const start = sample.text.indexOf(secret)
  return { secret, start, end: start + secret.length }
}

/** A positive is found when some finding's [start, end) overlaps the labelled secret. */
function overlaps(findings: readonly SecretFinding[], start: number, end: number): boolean {
  return findings.some((finding) => finding.start < end && finding.end > start)
}

describe('labelled corpus', () => {
  test('is big and varied enough to mean something', () => {
    expect(positives.length).toBeGreaterThanOrEqual(60)
    expect(new Set(positives.map((sample) => sample.kind)).size).toBeGreaterThanOrEqual(40)
    expect(negatives.length).toBeGreaterThanOrEqual(60)
    for (const sample of positives) expect(secretOf(sample).start, sample.id).toBeGreaterThanOrEqual(0)
  })

  test('recall >= 0.97 and false-positive rate <= 0.03', () => {
    const missed = positives.filter((sample) => {
      const { start, end } = secretOf(sample)
      return !overlaps(scanSecrets(sample.text), start, end)
    })
    const flagged = negatives.filter((sample) => scanSecrets(sample.text).length > 0)
    const recall = (positives.length - missed.length) / positives.length
    const fpr = flagged.length / negatives.length
    console.log(
      `secrets corpus: recall ${recall.toFixed(3)} (${positives.length - missed.length}/${positives.length}), ` +
        `false-positive rate ${fpr.toFixed(3)} (${flagged.length}/${negatives.length})` +
        (missed.length > 0 ? `\n  missed: ${missed.map((sample) => sample.id).join(', ')}` : '') +
        (flagged.length > 0 ? `\n  flagged: ${flagged.map((sample) => sample.id).join(', ')}` : ''),
    )
    expect(recall).toBeGreaterThanOrEqual(0.97)
    expect(fpr).toBeLessThanOrEqual(0.03)
  })
})

describe('keyword prefilter', () => {
  // The scanner skips a rule when none of its keywords occurs in the text; that must never hide a match.
  const texts = [...positives, ...negatives].flatMap((sample) => [
    sample.text,
    sample.text.toUpperCase(),
    sample.text.toLowerCase(),
  ])

  test('keywords are lower-case ASCII (the prefilter looks them up by their first two characters)', () => {
    for (const rule of SECRET_RULES)
      for (const keyword of rule.keywords) {
        expect(keyword, rule.id).toBe(keyword.toLowerCase())
        expect(keyword, rule.id).toMatch(/^[\x20-\x7e]+$/)
      }
  })

  test('a keyword is found wherever it stands: first, last, or next to non-ASCII text', () => {
    for (const sample of positives) {
      const rules = scanSecrets(sample.text).map((f) => f.rule)
      expect(
        scanSecrets(`é\n${sample.text}\né`).map((f) => f.rule),
        sample.id,
      ).toEqual(rules)
      expect(
        scanSecrets(`${sample.text.trimEnd()}`).map((f) => f.rule),
        sample.id,
      ).toEqual(rules)
    }
  })

  test('every match a rule finds, run without the prefilter, contains one of its keywords', () => {
    let matched = 0
    for (const rule of SECRET_RULES.filter((r) => r.keywords.length > 0)) {
      for (const text of texts) {
        rule.find(text, (start, end) => {
          matched++
          const around = text.slice(Math.max(0, start - 64), end + 64).toLowerCase()
          expect(
            rule.keywords.some((keyword) => around.includes(keyword)),
            `${rule.id} in ${text.slice(0, 80)}`,
          ).toBe(true)
        })
      }
    }
    expect(matched).toBeGreaterThan(100)
  })

  test('a text with no keyword of any rule still gets the rules without keywords (private keys, URLs)', () => {
    const url = 'postgres://deploy:Zr8qT2vLm4Xw9Kp1@db.internal:5432/app'
    expect(scanSecrets(url).map((f) => f.rule)).toEqual(['url-credentials'])
  })
})

describe('maskSecret', () => {
  test.each([
    ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'ghp_…89'],
    ['abcdefghijkl', 'abcd…kl'],
    ['hunter2', '*******'],
    ['', ''],
  ])('%s -> %s', (value, masked) => {
    expect(maskSecret(value)).toBe(masked)
  })

  test('a finding never shows its full value', () => {
    for (const sample of positives) {
      for (const finding of scanSecrets(sample.text)) {
        const value = sample.text.slice(finding.start, finding.end)
        expect(finding.masked, sample.id).not.toContain(value)
        expect(finding.masked.length, sample.id).toBeLessThanOrEqual(Math.max(7, value.length))
      }
    }
  })
})

describe('redactSecrets', () => {
  test('removes every labelled secret, and the result scans clean', () => {
    for (const sample of positives) {
      const redacted = redactSecrets(sample.text)
      expect(redacted, sample.id).not.toContain(secretOf(sample).secret)
      expect(redacted, sample.id).toMatch(/\[REDACTED:[a-z0-9-]+\]/)
      expect(scanSecrets(redacted), sample.id).toEqual([])
    }
  })

  test('leaves a text without secrets untouched', () => {
    for (const sample of negatives) expect(redactSecrets(sample.text)).toBe(sample.text)
  })

  test('names the rule in the replacement', () => {
    const token = 'ghp_' + 'Zk3mQ9vXw2LrT8yBn5HcJ4dFs7GpA1eKuV6o'
    expect(redactSecrets(`export GITHUB_TOKEN=${token}\n`)).toBe('export GITHUB_TOKEN=[REDACTED:github-token]\n')
  })
})

describe('allow list', () => {
  const first = 'glpat-' + 'Qw3rTy8UiOp1AsDfGh2J'
  const second = 'npm_' + 'Lk8Jh2Gf5Ds9Aq3Wz7Xc4Vb1Nm6Pl0Ok2Ij5'
  const text = `RENOVATE_TOKEN=${first}\n//registry.npmjs.org/:_authToken=${second}\n`

  test('a fingerprint suppresses exactly that finding', () => {
    const findings = scanSecrets(text)
    expect(findings.map((finding) => finding.rule)).toEqual(['gitlab-token', 'npm-token'])
    const [gitlab, npm] = findings
    const remaining = scanSecrets(text, { allow: [gitlab?.fingerprint ?? ''] })
    expect(remaining).toEqual([npm])
    expect(scanSecrets(text, { allow: findings.map((finding) => finding.fingerprint) })).toEqual([])
    expect(redactSecrets(text, { allow: [gitlab?.fingerprint ?? ''] })).toContain(first)
  })

  test('a fingerprint depends on the rule and the value, not on where the value is', () => {
    const [here] = scanSecrets(text)
    const [there] = scanSecrets(`# moved\n\n  token: "${first}"`)
    expect(there?.fingerprint).toBe(here?.fingerprint)
    expect(here?.fingerprint).toMatch(/^gitlab-token:[0-9a-f]{16}$/)
    expect(scanSecrets(text.replace(first, first.slice(0, -1) + 'K'))[0]?.fingerprint).not.toBe(here?.fingerprint)
  })

  test('FNV-1a 64 matches the reference vectors', () => {
    expect(fnv1a64('')).toBe('cbf29ce484222325')
    expect(fnv1a64('a')).toBe('af63dc4c8601ec8c')
    expect(fnv1a64('foobar')).toBe('85944171f73967e8')
  })
})

describe('positions', () => {
  test('line and column are 1-based and point at the value', () => {
    const aws = 'AKIA' + 'Q3ZL7TXW2YB5NRKD'
    const stripe = 'sk_live_' + '51Hq8ZxKmLp2Vn4Rt6Yw9Bc3Df'
    const text = ['# Deploy notes', '', `  AWS_ACCESS_KEY_ID=${aws}`, 'then:', `\tstripe = "${stripe}" # rotate`].join(
      '\n',
    )
    const findings = scanSecrets(text)
    expect(findings.map(({ rule, line, column }) => ({ rule, line, column }))).toEqual([
      { rule: 'aws-access-key-id', line: 3, column: 21 },
      { rule: 'stripe-secret-key', line: 5, column: 12 },
    ])
    for (const finding of findings) {
      const lineText = text.split('\n')[finding.line - 1] ?? ''
      expect(lineText.slice(finding.column - 1)).toMatch(new RegExp(`^${text.slice(finding.start, finding.end)}`))
    }
  })

  test('a multi-line private key is one finding spanning the block', () => {
    const body = Array.from(
      { length: 6 },
      (_, i) => 'MIIEpAIBAAKCAQEA' + 'x9Lk2Qw8Zr4Tn6Vb3Hy7Jd1Fs5Gm0Pc'.repeat(2).slice(i) + i,
    )
    const block = ['-----BEGIN RSA PRIVATE KEY-----', ...body, '-----END RSA PRIVATE KEY-----'].join('\n')
    const text = `key for the box:\n${block}\ndone`
    const [finding, ...rest] = scanSecrets(text)
    expect(rest).toEqual([])
    expect(finding).toMatchObject({
      rule: 'private-key',
      line: 2,
      column: 1,
      start: text.indexOf(block),
      end: text.indexOf(block) + block.length,
    })
  })
})

describe('large and hostile input', () => {
  const prose = negatives.map((sample) => sample.text).join('\n\n') + '\n'

  test('a 2 MB text without secrets scans without throwing', () => {
    let big = ''
    while (big.length < 2 * 1024 * 1024) big += prose
    expect(Array.isArray(scanSecrets(big))).toBe(true)
  })

  test('secrets anywhere in a multi-megabyte text are found once, with the right line', () => {
    const key = secretOf(positives.find((sample) => sample.kind === 'private-key') ?? positives[0]!).secret
    const token = 'ghp_' + 'Hn4Kq8Zt2Wx6Lm0Pb5Vc9Rj3Yf7Ds1Ga2Eu8Io'
    let big = ''
    const expected: number[] = []
    while (big.length < 3 * 1024 * 1024) {
      big += prose
      // Put the key right before and across the 256 KiB boundaries the scanner may cut at.
      if (big.length % (256 * 1024) > 240 * 1024) {
        expected.push(big.length)
        big += `${key}\n`
      }
    }
    big += `last line GITHUB_TOKEN=${token}`
    const findings = scanSecrets(big)
    const keys = findings.filter((finding) => finding.rule === 'private-key')
    expect(expected.length).toBeGreaterThan(5)
    expect(keys.map((finding) => finding.start)).toEqual(expected)
    const last = findings[findings.length - 1]
    expect(last?.rule).toBe('github-token')
    expect(last?.line).toBe(big.split('\n').length)
  })

  const base64 = (length: number): string => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
    let out = ''
    for (let i = 0; out.length < length; i++) out += alphabet[(i * 7919 + (i >> 3)) % 64]
    return out
  }

  test.each([
    ['a run of one letter', 'a'.repeat(100_000)],
    ['a long base64 run', base64(1_000_000)],
    ['a long base64 data URI', `<img src="data:image/png;base64,${base64(500_000)}">`],
    ['an unterminated JWT', 'eyJ' + base64(300_000).replace(/[+/]/g, 'A') + '.eyJ' + 'B'.repeat(300_000)],
    ['assignments with no end', 'password='.repeat(100_000)],
    ['a flood of key headers', '-----BEGIN PRIVATE KEY-----\n'.repeat(20_000)],
    ['URL-ish colons', 'https://' + 'a:'.repeat(200_000)],
    ['at signs', 'a:b@'.repeat(200_000)],
    ['one huge line of tokens', 'token=' + 'x1'.repeat(300_000)],
    ['dots after a Discord-like lead', 'M'.repeat(30) + '.'.repeat(100_000)],
  ])('%s does not hang', (_, text) => {
    expect(Array.isArray(scanSecrets(text))).toBe(true)
  })
})

describe('a token at the end of a sentence', () => {
  // A full stop after a token ends the sentence; it is not part of a longer dotted value.
  test.each([
    ['github-token', 'ghp_' + 'R8fK2mXq9LsV4tYw7ZbN3cJ6hD1pGe5aUo0i'],
    ['aws-access-key-id', 'AKIA' + 'Q3ZL7TXW2YB5NRKD'],
  ])('%s followed by "." is found', (rule, token) => {
    for (const text of [`Use ${token}.`, `Use ${token}.\nThen run it.`, `(${token}).`])
      expect(
        scanSecrets(text).map((f) => f.rule),
        text,
      ).toContain(rule)
  })
})

describe('a token followed by punctuation', () => {
  // A token's body ends where its charset ends: a file name, a domain or a flag after it does not hide it.
  test.each([
    ['github-token', 'ghp_' + 'R8fK2mXq9LsV4tYw7ZbN3cJ6hD1pGe5aUo0i'],
    ['github-token', 'ghs_' + 'K2vN8qLw3XbT7mZpR4sYc9NdJ1fHa6Ue5Gi0'],
    ['databricks-token', 'dapi' + '3f9a1c7e5b2d8046e1f3a9c7b5d2e8f4'],
    ['atlassian-api-token', 'ATBB' + 'q7Kx2Lw9XbT4mZpV8sYc3NdJ6fHa1Ue5'],
    ['sentry-token', 'sntryu_' + '3f9a1c7e5b2d8046e1f3a9c7b5d2e8f4a6c1b3d5e7f9a2c4b6d8e0f1a3c5b7d9'],
    ['supabase-token', 'sbp_' + '3f9a1c7e5b2d8046e1f3a9c7b5d2e8f4a6c1b3d5'],
  ])('%s %s', (rule, token) => {
    for (const text of [
      `/tmp/${token}.txt`,
      `${token}.com`,
      `${token}-x`,
      `--token=${token}-x --verbose`,
      `"transcript_path":"/tmp/${token}.jsonl"`,
    ]) {
      const found = scanSecrets(text).filter((f) => f.rule === rule)
      expect(
        found.map((f) => text.slice(f.start, f.end)),
        text,
      ).toEqual([token])
    }
  })

  test.each([
    ['a longer word', (t: string) => `${t}Z`],
    ['an identifier going on', (t: string) => `${t}_backup`],
  ])('a token run on by %s is not cut out of it', (_what, wrap) => {
    const token = 'ghp_' + 'R8fK2mXq9LsV4tYw7ZbN3cJ6hD1pGe5aUo0i'
    const text = wrap(token)
    expect(
      scanSecrets(text).filter((f) => f.rule === 'github-token' && f.end === token.length),
      text,
    ).toEqual([])
  })
})
