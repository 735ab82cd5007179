/**
 * Secret detection rules: provider formats with known prefixes (charset, length, and a checksum or embedded
 * structure where there is one), private-key blocks, Kubernetes Secret manifests, credentials in URLs, command lines
 * and headers, JWTs, entropy-checked values assigned to secret-looking names in the assignment forms of many
 * languages, and random tokens beside a name. Pure: strings in, ranges out. Each family has generated positives and
 * negatives in test/unit/core/secret-rules.test.ts; docs/secrets.md lists them.
 *
 * Every regex is written to stay linear on hostile input: quantifiers are bounded, a pattern that starts with a
 * character class has a lookbehind so that only the first character of a run can start a match attempt, and tokens
 * whose distinctive literal sits in the middle are found from that literal (`lead`). A token ends where its own
 * charset ends: a body of letters and digits is ended by `.`, `-` or `/` (`ghp_….txt`, `….com`, `…-x`), and a format
 * with several shapes gives each alternative its own end, never the union of their charsets. Every rule that has one names
 * the literals a match must contain (`keywords`): the scanner runs a rule only when one occurs in the text, so a
 * hook scanning a small payload compiles only the few regexes that could match (V8 compiles each on first use).
 *
 * Why one long file: it is a table of data (the rules, grouped by provider family, in the order the scanner tries
 * them) plus the few readers they share; split by family, each part would repeat those readers and the order would
 * live in a second place.
 */

/** Reports the [start, end) range of a secret value inside the scanned text. */
export type Emit = (start: number, end: number) => void

export interface SecretRule {
  readonly id: string
  readonly description: string
  /**
   * Lower-case substrings, one of which every match contains (case-insensitively): the rule, and so the first
   * compilation of its regex, runs only when one occurs in the text. Empty: always runs.
   */
  readonly keywords: readonly string[]
  /** Wins over lower priorities when two findings overlap: provider formats > structural > generic. */
  readonly priority: number
  find(text: string, emit: Emit): void
}

const PROVIDER = 30
const STRUCTURAL = 20
const GENERIC = 10

const ASCII_COUNTS = new Int32Array(128)

/** Shannon entropy in bits per character. */
export function shannonEntropy(value: string): number {
  const length = value.length
  if (length === 0) return 0
  ASCII_COUNTS.fill(0)
  let others: Map<number, number> | undefined
  for (let i = 0; i < length; i++) {
    const code = value.charCodeAt(i)
    if (code < 128) ASCII_COUNTS[code] = (ASCII_COUNTS[code] ?? 0) + 1
    else (others ??= new Map()).set(code, (others.get(code) ?? 0) + 1)
  }
  let bits = 0
  const add = (count: number): void => {
    const p = count / length
    bits -= p * Math.log2(p)
  }
  for (const count of ASCII_COUNTS) if (count > 0) add(count)
  if (others !== undefined) for (const count of others.values()) add(count)
  return bits
}

/** Documented example values, published by the vendors themselves; never a real credential. */
const KNOWN_EXAMPLES: ReadonlySet<string> = new Set([
  'AKIAIOSFODNN7EXAMPLE',
  'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'sk_test_4eC39HqLyjWDarjtT1zdp7dc',
  'sk_test_BQokikJOvBiI2HlWgH4olfQ2',
  'pk_test_TYooMQauvdEDq54NiTphI7jx',
])

/** jwt.io's sample token: its "John Doe" payload and its signature. */
const JWT_IO_PAYLOAD = 'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9l'
const JWT_IO_SIGNATURE = 'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'

const PLACEHOLDER_MARKERS =
  /xxxx|\*\*\*\*|•••|…|\.\.\.|[<>]|\$\{|\{\{|\}\}|%\(|example|placeholder|redacted|change[_-]?me|dummy|sample|your|insert|replace|[_-]here|not[_-]?(?:a[_-])?real|fake[_-]|secret[_-]value|random[_-]?string|(?:token|key|secret|string|value)here/i

/** True for values that are obviously stand-ins: markers like `xxxx` or `<...>`, runs, alphabet sequences. */
export function isPlaceholder(value: string, maxRun = 5): boolean {
  if (KNOWN_EXAMPLES.has(value) || PLACEHOLDER_MARKERS.test(value)) return true
  let run = 1
  let ascending = 0
  for (let i = 1; i < value.length; i++) {
    const previous = value.charCodeAt(i - 1)
    const code = value.charCodeAt(i)
    run = code === previous ? run + 1 : 1
    if (run > maxRun) return true
    if (code === previous + 1) ascending++
  }
  return value.length >= 8 && ascending / (value.length - 1) >= 0.5
}

/**
 * A value carrying a provider's distinctive prefix in that provider's exact charset and length is in the shape of a
 * live credential: only an explicit stand-in (`xxxx`, `<…>`, `your_…`, `…example…`, `changeme`, `dummy`, `redacted`,
 * an ellipsis) or a vendor's documented example passes. A run like `AAAA…` is what a leaked test fixture looks like too.
 */
function isShapedToken(value: string): boolean {
  return !KNOWN_EXAMPLES.has(value) && !PLACEHOLDER_MARKERS.test(value)
}

/** A stand-in counts when the value has the provider's exact shape (`exact`); any other match must look random. */
function shapedOr(exact: RegExp): (value: string) => boolean {
  return (value) => (exact.test(value) ? isShapedToken(value) : isRandomToken(value))
}

/** Provider tokens: the format already matched, so only reject stand-ins and visibly non-random bodies. */
function isRandomToken(value: string): boolean {
  if (isPlaceholder(value, 5)) return false
  return value.length < 16 || shannonEntropy(value) >= 3
}

function charClasses(value: string): { lower: boolean; upper: boolean; digit: boolean; other: boolean } {
  return {
    lower: /[a-z]/.test(value),
    upper: /[A-Z]/.test(value),
    digit: /[0-9]/.test(value),
    other: /[^A-Za-z0-9]/.test(value),
  }
}

function lineAround(text: string, index: number): string {
  const from = text.lastIndexOf('\n', index) + 1
  let to = text.indexOf('\n', index)
  if (to === -1) to = text.length
  return text.slice(Math.max(from, index - 2000), Math.min(to, index + 2000))
}

const BASE64_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

/** Decodes standard or URL-safe base64 to a latin-1 string; undefined when the input is not base64. */
export function decodeBase64(input: string): string | undefined {
  const clean = input.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/')
  let out = ''
  let buffer = 0
  let bits = 0
  for (let i = 0; i < clean.length; i++) {
    const index = BASE64_CHARS.indexOf(clean.charAt(i))
    if (index === -1) return undefined
    buffer = (buffer << 6) | index
    bits += 6
    if (bits >= 8) {
      bits -= 8
      out += String.fromCharCode((buffer >> bits) & 0xff)
    }
  }
  return out
}

interface RegexRuleSpec {
  id: string
  description: string
  keywords: readonly string[]
  priority?: number
  /** Global regex with the `d` flag when `group` is used. */
  pattern: RegExp
  /** Capture group holding the secret value; 0 (the default) is the whole match. */
  group?: number
  /** Extra acceptance test; defaults to `isRandomToken` on the value. */
  accept?: (value: string, text: string, start: number) => boolean
  /**
   * For tokens whose distinctive literal sits in the middle (`….atlasv1.…`, `…Q~…`): `pattern` starts at the literal
   * and `lead`, anchored with `$` and tested on the `leadMax` characters before it, captures the part in front.
   */
  lead?: RegExp
  leadMax?: number
}

function regexRule(spec: RegexRuleSpec): SecretRule {
  const group = spec.group ?? 0
  const accept = spec.accept ?? isRandomToken
  return {
    id: spec.id,
    description: spec.description,
    keywords: spec.keywords.map((keyword) => keyword.toLowerCase()),
    priority: spec.priority ?? PROVIDER,
    find(text, emit) {
      const pattern = spec.pattern
      pattern.lastIndex = 0
      for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
        if (match[0].length === 0) pattern.lastIndex++
        const span: readonly [number, number] | undefined =
          group === 0 ? [match.index, match.index + match[0].length] : match.indices?.[group]
        if (span === undefined) continue
        let start = span[0]
        let end = span[1]
        if (spec.lead !== undefined) {
          const front = spec.lead.exec(text.slice(Math.max(0, match.index - (spec.leadMax ?? 64)), match.index))?.[1]
          if (front === undefined) continue
          if (group === 0) start -= front.length
        }
        // A token at the end of a sentence: the period belongs to the prose.
        while (end > start && text.charCodeAt(end - 1) === 46) end--
        const value = text.slice(start, end)
        if (value.length > 0 && accept(value, text, start)) emit(start, end)
      }
    },
  }
}

/**
 * `AKIA…`, `sk_live_…`: a fixed prefix followed by a body of one alphabet. The keywords are the prefixes: a text
 * without any of them never compiles the regex (V8 compiles a regex on its first exec, ~0.1 ms each, which a hook
 * pays on every call).
 */
function prefixRule(
  id: string,
  description: string,
  keywords: readonly string[],
  pattern: RegExp,
  accept?: RegexRuleSpec['accept'],
): SecretRule {
  return regexRule({ id, description, keywords, pattern, ...(accept ? { accept } : {}) })
}

/** A token found by the literal in its middle; `lead` captures (group 1) the characters in front of it. */
function leadRule(
  id: string,
  description: string,
  keywords: readonly string[],
  lead: RegExp,
  leadMax: number,
  pattern: RegExp,
  accept?: RegexRuleSpec['accept'],
): SecretRule {
  return regexRule({ id, description, keywords, pattern, lead, leadMax, ...(accept ? { accept } : {}) })
}

const PRIVATE_KEY_LABEL = /^[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?$/
const PRIVATE_KEY_BODY = /[A-Za-z0-9+/=]/g

/** `-----BEGIN … PRIVATE KEY-----` blocks, complete or truncated, raw or JSON-escaped (`\n`). */
const privateKeyRule: SecretRule = {
  id: 'private-key',
  description: 'Private key',
  keywords: [],
  priority: PROVIDER,
  find(text, emit) {
    // Both searches are cached so that a text of many BEGIN lines stays linear.
    let nextEnd = -2
    let begin = text.indexOf('-----BEGIN ')
    while (begin !== -1) {
      const labelStart = begin + 11
      const following = text.indexOf('-----BEGIN ', labelStart)
      const labelEnd = text.indexOf('-----', labelStart)
      if (labelEnd !== -1 && labelEnd - labelStart <= 48 && PRIVATE_KEY_LABEL.test(text.slice(labelStart, labelEnd))) {
        const bodyStart = labelEnd + 5
        if (nextEnd !== -1 && nextEnd < bodyStart) nextEnd = text.indexOf('-----END ', bodyStart)
        const limit = following === -1 ? text.length : following
        let bodyEnd: number
        let end: number
        if (nextEnd !== -1 && nextEnd < limit && nextEnd - bodyStart < 65536) {
          bodyEnd = nextEnd
          const close = text.indexOf('-----', nextEnd + 9)
          end = close !== -1 && close - nextEnd < 64 ? close + 5 : nextEnd + 9
        } else {
          bodyEnd = truncatedKeyEnd(text, bodyStart, limit)
          end = bodyEnd
        }
        const body = text.slice(bodyStart, bodyEnd).replace(/\\[nr]/g, '\n')
        const base64 = body.match(PRIVATE_KEY_BODY)?.length ?? 0
        if (base64 >= 64 && !hasBodyPlaceholder(body)) {
          while (end > begin && /\s/.test(text.charAt(end - 1))) end--
          emit(begin, end)
        }
      }
      begin = following
    }
  },
}

/** A truncated paste: the key runs while lines look like base64 (or PEM headers such as `Proc-Type: 4,ENCRYPTED`). */
function truncatedKeyEnd(text: string, bodyStart: number, limit: number): number {
  let cursor = bodyStart
  for (;;) {
    const next = text.indexOf('\n', cursor + 1)
    const lineEnd = next === -1 || next > limit ? limit : next
    const line = text.slice(cursor, lineEnd).trim()
    if (line.length > 0 && !/^[A-Za-z0-9+/=\\-]+$|^[A-Za-z-]+: /.test(line)) return cursor
    cursor = lineEnd
    if (lineEnd >= limit || cursor - bodyStart > 16384) return cursor
  }
}

function hasBodyPlaceholder(body: string): boolean {
  // Case-sensitive and with separators: a random base64 body may contain `your` or `xxxx` by chance.
  return ['...', '…', '<', 'xxxxx', 'XXXXX', 'redacted', 'REDACTED', 'your-', 'your_', 'YOUR_', 'EXAMPLE'].some(
    (marker) => body.includes(marker),
  )
}

/** Passwords that are the product's documented default or a word in a docs snippet, not a secret. */
const DEFAULT_PASSWORDS: ReadonlySet<string> = new Set([
  'password',
  'passwd',
  'pass',
  'secret',
  'changeme',
  'admin',
  'root',
  'test',
  'guest',
  'postgres',
  'mysql',
  'redis',
  'user',
  'demo',
  'default',
  'letmein',
  'qwerty',
  'welcome',
  'token',
  'mypassword',
  'yourpassword',
  'pwd',
  'sa',
  'rabbitmq',
  'minio',
  'minioadmin',
  'example',
  'sample',
  'foobar',
  'foo',
  'bar',
  'hunter',
])

/** `password1`, `mysecretpassword`, `my-secret-pw`: a docs default dressed up, not a chosen secret. */
function isDefaultPassword(value: string, dressedUp = true): boolean {
  const letters = value.toLowerCase().replace(/[^a-z]/g, '')
  if (letters.length === 0 || DEFAULT_PASSWORDS.has(letters)) return true
  const digits = value.replace(/[^0-9]/g, '').length
  return dressedUp && digits <= 4 && /password|passwd|secret|changeme/.test(letters)
}

/** After `scheme://`: `user:password@` followed by the first character of a host. */
const URL_USERINFO = /([^\s:/?#@"'<>`\\[\]{}|]{0,128}):([^\s/?#@"'<>`\\{}|]{1,256})@[A-Za-z0-9[_-]/dy

function isSchemeCode(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 43 ||
    code === 46 ||
    code === 45
  )
}

/** `scheme://user:password@host`: the password (or a token used as the user name with a dummy password). */
const urlCredentialsRule: SecretRule = {
  id: 'url-credentials',
  description: 'Password in a URL',
  keywords: [],
  priority: STRUCTURAL,
  find(text, emit) {
    // Anchored on the literal `://`, then a sticky regex: no scan starts at every word of the text.
    for (let at = text.indexOf('://'); at !== -1; at = text.indexOf('://', at + 3)) {
      if (at === 0 || !isSchemeCode(text.charCodeAt(at - 1))) continue
      URL_USERINFO.lastIndex = at + 3
      const match = URL_USERINFO.exec(text)
      const userSpan = match?.indices?.[1]
      const passwordSpan = match?.indices?.[2]
      if (match === null || userSpan === undefined || passwordSpan === undefined) continue
      const user = match[1] ?? ''
      const password = match[2] ?? ''
      if (/^x-oauth-basic$|^x-oauth$/i.test(password)) {
        if (isCredentialValue(user)) emit(userSpan[0], userSpan[1])
        continue
      }
      // `mySecret2024` in a URL is a chosen password; only a bare default (`password`, `guest`) is a stand-in.
      if (password === user || isDefaultPassword(password, false) || !isCredentialValue(password, false)) continue
      emit(passwordSpan[0], passwordSpan[1])
    }
  },
}

/** `abc`, `1234`, `xyz`: a run of the alphabet or the digits. */
function isAlphabetRun(value: string): boolean {
  for (let i = 1; i < value.length; i++) if (value.charCodeAt(i) !== value.charCodeAt(i - 1) + 1) return false
  return true
}

/** A password or token taken from a URL or command line: not a reference and not a stand-in. */
function isCredentialValue(value: string, dressedUp = true): boolean {
  if (value.length < 3 || isPlaceholder(value, 5) || /^(.)\1*$/.test(value) || isAlphabetRun(value)) return false
  if (/^[$%{]|^\*+$/.test(value)) return false
  return !isDefaultPassword(value, dressedUp)
}

/** `curl -u user:pass`, `mysql -pSECRET`, `sshpass -p pass`, `redis-cli -a pass`, `docker login -p pass`. */
const CLI_PATTERNS: ReadonlyArray<readonly [readonly string[], RegExp | undefined, RegExp]> = [
  [['-u'], /(?:^|[\s`'"(])()$/, /-(?:u|-user)[\s=]{1,3}["']?[^\s:"'$`]{0,64}:["']?([^\s"'`]{3,128})/dg],
  [
    ['mysql', 'mariadb'],
    undefined,
    /\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,200}?\s-p(["']?)([^\s"'`]{3,128})\1/dg,
  ],
  [['sshpass'], undefined, /\bsshpass\s{1,3}-p\s{0,3}(["']?)([^\s"'`]{3,128})\1/dg],
  [['redis-cli'], undefined, /\bredis-cli\b[^\n]{0,200}?\s-a\s{1,3}(["']?)([^\s"'`]{3,128})\1/dg],
  [
    ['login'],
    undefined,
    /\b(?:docker|podman|helm)\s{1,3}(?:registry\s{1,3})?login\b[^\n]{0,200}?\s-p\s{1,3}(["']?)([^\s"'`]{3,128})\1/dg,
  ],
]

const cliPasswordRules: readonly SecretRule[] = CLI_PATTERNS.map(([keywords, lead, pattern]) =>
  regexRule({
    id: 'cli-password',
    description: 'Password on a command line',
    keywords,
    ...(lead ? { lead, leadMax: 1 } : {}),
    priority: STRUCTURAL,
    pattern,
    // The last group is the password; the one before it, when there is one, is its quote.
    group: pattern.source.includes('\\1') ? 2 : 1,
    accept: (value) => !value.startsWith('-') && isCredentialValue(value),
  }),
)

/** A token in an HTTP header: random-looking, long enough, not `$TOKEN` or `<token>`. */
function isHeaderToken(value: string): boolean {
  if (value.length < 16 || isPlaceholder(value, 5)) return false
  const classes = charClasses(value)
  return shannonEntropy(value) >= 3 && classes.digit && (classes.lower || classes.upper)
}

function isBasicCredentials(value: string): boolean {
  const decoded = decodeBase64(value)
  if (decoded === undefined || !/^[\x20-\x7e]+$/.test(decoded)) return false
  const colon = decoded.indexOf(':')
  if (colon <= 0) return false
  const password = decoded.slice(colon + 1)
  return isCredentialValue(password)
}

function isJwt(value: string): boolean {
  if (value.includes(JWT_IO_PAYLOAD) || value.endsWith(JWT_IO_SIGNATURE)) return false
  const parts = value.split('.')
  const header = decodeBase64(parts[0] ?? '')
  return header !== undefined && header.startsWith('{"') && !isPlaceholder(value, 12)
}

/** A Discord bot token begins with the base64 of the bot's numeric user id. */
function isDiscordToken(value: string): boolean {
  const id = decodeBase64(value.slice(0, value.indexOf('.')))
  return id !== undefined && /^\d{17,20}$/.test(id) && isRandomToken(value)
}

function hasDigitAndLetter(value: string): boolean {
  const classes = charClasses(value)
  return classes.digit && (classes.lower || classes.upper) && isRandomToken(value)
}

/** A Slack token's full structure: the numeric team, user (and bot) ids, then the random part. */
const SLACK_EXACT = /^xox[abposre]-(?:\d{1,3}-)?\d{8,13}-\d{8,13}(?:-\d{8,13})?-[A-Za-z0-9]{18,64}$/

const PROVIDER_RULES: readonly SecretRule[] = [
  prefixRule(
    'aws-access-key-id',
    'AWS access key id',
    ['a3t', 'akia', 'asia', 'abia', 'acca'],
    /(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Za-z0-9])/g,
  ),
  regexRule({
    id: 'aws-secret-access-key',
    description: 'AWS secret access key',
    keywords: ['secret'],
    pattern:
      /secret[_.-]?(?:access[_.-]?)?key["']?\s{0,4}(?:=|:|=>|:=)\s{0,4}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/dgi,
    group: 1,
  }),
  prefixRule(
    'aws-session-token',
    'AWS session token',
    ['iqojb3jpz2lux2vj', 'fwogzxivyxdze'],
    /(?<![A-Za-z0-9+/])(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdzE)[A-Za-z0-9+/]{80,4000}={0,2}/g,
  ),
  prefixRule('gcp-api-key', 'Google API key', ['aiza'], /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g),
  prefixRule(
    'gcp-oauth-client-secret',
    'Google OAuth client secret',
    ['gocspx-'],
    /(?<![A-Za-z0-9_-])GOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])/g,
  ),
  prefixRule(
    'gcp-oauth-access-token',
    'Google OAuth access token',
    ['ya29.'],
    /(?<![A-Za-z0-9_.-])ya29\.[A-Za-z0-9_-]{30,2000}(?![A-Za-z0-9_-])/g,
  ),
  regexRule({
    id: 'azure-storage-key',
    description: 'Azure storage or Service Bus key',
    keywords: ['accountkey', 'sharedaccesskey'],
    pattern: /(?:AccountKey|SharedAccessKey)\s{0,2}=\s{0,2}([A-Za-z0-9+/]{40,100}={0,2})/dgi,
    group: 1,
  }),
  regexRule({
    id: 'azure-sas-token',
    description: 'Azure SAS signature',
    keywords: ['sig='],
    pattern: /sig=([A-Za-z0-9%+/=]{30,150})/dg,
    group: 1,
    accept: (value, text, start) =>
      /[?&;]/.test(text.charAt(start - 5)) && /[?&;]sv=\d{4}-/.test(lineAround(text, start)) && isRandomToken(value),
  }),
  leadRule(
    'azure-client-secret',
    'Azure AD client secret',
    ['q~'],
    /(?:^|[^A-Za-z0-9_~.-])([A-Za-z0-9_~.-]{3}\d)$/,
    5,
    /Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g,
  ),
  leadRule(
    'azure-devops-pat',
    'Azure DevOps personal access token',
    ['jqqj9'],
    /(?:^|[^A-Za-z0-9])([A-Za-z0-9]{52})$/,
    53,
    /JQQJ9[9DH][A-Za-z0-9]{18}AZDO[A-Za-z0-9]{4}(?![A-Za-z0-9])/g,
  ),
  prefixRule(
    'github-token',
    'GitHub token',
    ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'],
    /(?<![A-Za-z0-9_])gh[pousr]_(?:[A-Za-z0-9]{36,251}(?![A-Za-z0-9_])|\d{1,12}_eyJ[A-Za-z0-9_-]{10,2000}\.[A-Za-z0-9_.-]{20,4000}(?![A-Za-z0-9_-]|\.[A-Za-z0-9_-]))/g,
  ),
  prefixRule(
    'github-fine-grained-pat',
    'GitHub fine-grained personal access token',
    ['github_pat_'],
    /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{70,120}(?![A-Za-z0-9_])/g,
  ),
  prefixRule(
    'gitlab-token',
    'GitLab token',
    [
      'glpat-',
      'gldt-',
      'glrt-',
      'glptt-',
      'glft-',
      'glsoat-',
      'glcbt-',
      'gloas-',
      'glimt-',
      'glagent-',
      'glffct-',
      'gr1348941',
    ],
    /(?<![A-Za-z0-9_-])(?:(?:glpat|gldt|glrt|glptt|glft|glsoat|glcbt|gloas|glimt|glagent|glffct)-|GR1348941)[A-Za-z0-9_.-]{20,100}(?![A-Za-z0-9_-])/g,
  ),
  prefixRule(
    'slack-token',
    'Slack token',
    ['xox'],
    /(?<![A-Za-z0-9-])xox[abposre]-(?:\d+-)?[A-Za-z0-9-]{10,250}(?![A-Za-z0-9-])/g,
    (value) => /\d/.test(value.slice(5)) && !value.endsWith('-') && shapedOr(SLACK_EXACT)(value),
  ),
  prefixRule(
    'slack-app-token',
    'Slack app-level token',
    ['xapp-'],
    /(?<![A-Za-z0-9-])xapp-\d-[A-Z0-9]{9,12}-\d{10,16}-[a-f0-9]{40,80}(?![A-Za-z0-9])/g,
  ),
  prefixRule(
    'slack-webhook',
    'Slack webhook URL',
    ['hooks.slack.com/'],
    /(?:https?:\/\/)?hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/]{20,150}/g,
  ),
  prefixRule(
    'stripe-secret-key',
    'Stripe secret or restricted key',
    ['k_live_', 'k_test_', 'k_prod_'],
    /(?<![A-Za-z0-9_])[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,247}(?![A-Za-z0-9])/g,
    shapedOr(/^[sr]k_(?:live|test|prod)_(?:[A-Za-z0-9]{24}|[A-Za-z0-9]{99})$/),
  ),
  prefixRule(
    'stripe-webhook-secret',
    'Stripe webhook signing secret',
    ['whsec_'],
    /(?<![A-Za-z0-9_])whsec_[A-Za-z0-9+/]{24,64}(?![A-Za-z0-9+/])/g,
  ),
  prefixRule(
    'openai-api-key',
    'OpenAI API key',
    ['sk-'],
    /(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{0,160}T3BlbkFJ[A-Za-z0-9_-]{10,160}(?![A-Za-z0-9_-])/g,
  ),
  prefixRule(
    'anthropic-api-key',
    'Anthropic API key',
    ['sk-ant-'],
    /(?<![A-Za-z0-9_-])sk-ant-(?:api|admin|oat|ort)\d{2}-[A-Za-z0-9_-]{20,200}(?![A-Za-z0-9_-])/g,
    shapedOr(/^sk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{93}AA$/),
  ),
  prefixRule(
    'groq-api-key',
    'Groq API key',
    ['gsk_'],
    /(?<![A-Za-z0-9_])gsk_[A-Za-z0-9]{48,56}(?![A-Za-z0-9])/g,
    shapedOr(/^gsk_[A-Za-z0-9]{52}$/),
  ),
  prefixRule('xai-api-key', 'xAI API key', ['xai-'], /(?<![A-Za-z0-9_-])xai-[A-Za-z0-9]{70,90}(?![A-Za-z0-9])/g),
  prefixRule(
    'perplexity-api-key',
    'Perplexity API key',
    ['pplx-'],
    /(?<![A-Za-z0-9_-])pplx-[A-Za-z0-9]{40,56}(?![A-Za-z0-9])/g,
  ),
  prefixRule(
    'replicate-api-token',
    'Replicate API token',
    ['r8_'],
    /(?<![A-Za-z0-9_])r8_[A-Za-z0-9]{37}(?![A-Za-z0-9])/g,
  ),
  prefixRule(
    'huggingface-token',
    'Hugging Face token',
    ['hf_', 'api_org_'],
    /(?<![A-Za-z0-9_])(?:hf|api_org)_[A-Za-z]{34}(?![A-Za-z0-9_])/g,
    (value) =>
      !/^(?:hf|api_org)_(?:[A-Z][a-z]+)+$/.test(value) &&
      /[A-Z]/.test(value) &&
      /[a-z]/.test(value.slice(3)) &&
      isRandomToken(value),
  ),
  prefixRule('npm-token', 'npm access token', ['npm_'], /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g),
  regexRule({
    id: 'npmrc-auth',
    description: 'npm registry credential in .npmrc',
    keywords: [':_auth', ':_password'],
    priority: STRUCTURAL,
    pattern: /:_(?:authToken|auth|password)\s{0,2}=\s{0,2}["']?([^\s"']{8,512})/dg,
    group: 1,
    accept: (value) => isCredentialValue(value) && isRandomToken(value),
  }),
  prefixRule(
    'pypi-token',
    'PyPI API token',
    ['pypi-age'],
    /(?<![A-Za-z0-9_-])pypi-AgE[A-Za-z0-9_-]{50,400}(?![A-Za-z0-9_-])/g,
  ),
  prefixRule(
    'twilio-api-key',
    'Twilio API key',
    ['sk'],
    /(?<![A-Za-z0-9])SK[0-9a-fA-F]{32}(?![A-Za-z0-9])/g,
    hasDigitAndLetter,
  ),
  regexRule({
    id: 'twilio-auth-token',
    description: 'Twilio auth token',
    keywords: ['ac'],
    pattern: /(?<![A-Za-z0-9])AC[0-9a-f]{32}:([0-9a-f]{32})(?![A-Za-z0-9])/dg,
    group: 1,
  }),
  prefixRule(
    'sendgrid-api-key',
    'SendGrid API key',
    ['sg.'],
    /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g,
  ),
  prefixRule(
    'mailgun-api-key',
    'Mailgun API key',
    ['key-'],
    /(?<![A-Za-z0-9_-])key-[0-9a-f]{32}(?![A-Za-z0-9])/g,
    (value, text, start) =>
      /mailgun|api:key-/i.test(lineAround(text, start)) || /mailgun/i.test(text) ? isRandomToken(value) : false,
  ),
  regexRule({
    id: 'mailgun-api-key',
    description: 'Mailgun API key',
    keywords: ['mailgun'],
    pattern: /(?<![A-Za-z0-9-])[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}(?![A-Za-z0-9-])/g,
  }),
  prefixRule(
    'heroku-api-key',
    'Heroku API key',
    ['hrku-'],
    /(?<![A-Za-z0-9_-])HRKU-[A-Za-z0-9_-]{58,64}(?![A-Za-z0-9_-])/g,
  ),
  regexRule({
    id: 'heroku-api-key',
    description: 'Heroku API key',
    keywords: ['heroku'],
    pattern:
      /heroku[A-Za-z0-9_.-]{0,20}(?:key|token)["']?\s{0,3}(?:=|:|=>|:=)\s{0,3}["']?([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?![A-Za-z0-9-])/dgi,
    group: 1,
  }),
  prefixRule(
    'digitalocean-token',
    'DigitalOcean token',
    ['_v1_'],
    /(?<![A-Za-z0-9_])do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9])/g,
  ),
  prefixRule(
    'shopify-token',
    'Shopify token',
    ['shpat_', 'shpss_', 'shpca_', 'shppa_'],
    /(?<![A-Za-z0-9_])shp(?:at|ss|ca|pa)_[A-Za-z0-9]{32,40}(?![A-Za-z0-9])/g,
  ),
  leadRule(
    'discord-bot-token',
    'Discord bot token',
    [],
    /(?:^|[^A-Za-z0-9_.-])([MNO][A-Za-z0-9_-]{23,27})$/,
    29,
    /\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/g,
    isDiscordToken,
  ),
  prefixRule(
    'discord-webhook',
    'Discord webhook URL',
    ['discord'],
    /https:\/\/(?:(?:ptb|canary)\.)?discord(?:app)?\.com\/api\/webhooks\/\d{17,20}\/[A-Za-z0-9_-]{60,80}/g,
  ),
  leadRule(
    'telegram-bot-token',
    'Telegram bot token',
    [':a'],
    /(?:^|[^A-Za-z0-9_:-]|\/bot)(\d{5,16})$/,
    20,
    /:A[A-Za-z0-9_-]{34}(?![A-Za-z0-9_-])/g,
  ),
  prefixRule(
    'vault-token',
    'HashiCorp Vault token',
    ['hvs.', 'hvb.', 'hvr.'],
    /(?<![A-Za-z0-9_.-])hv[sbr]\.[A-Za-z0-9_-]{24,400}(?![A-Za-z0-9_-])/g,
    isShapedToken,
  ),
  regexRule({
    id: 'vault-token',
    description: 'HashiCorp Vault token',
    keywords: ['vault'],
    pattern:
      /(?:vault[_-]?token|x-vault-token)["']?\s{0,3}(?:=|:)\s{0,3}["']?([sbr]\.[A-Za-z0-9]{24,100})(?![A-Za-z0-9])/dgi,
    group: 1,
  }),
  leadRule(
    'terraform-cloud-token',
    'Terraform Cloud token',
    ['.atlasv1.'],
    /(?:^|[^A-Za-z0-9])([A-Za-z0-9]{14})$/,
    15,
    /\.atlasv1\.[A-Za-z0-9_=-]{60,80}(?![A-Za-z0-9_=-])/g,
  ),
  prefixRule(
    'databricks-token',
    'Databricks token',
    ['dapi'],
    /(?<![A-Za-z0-9])dapi[a-f0-9]{32}(?:-\d)?(?![A-Za-z0-9])/g,
    hasDigitAndLetter,
  ),
  prefixRule(
    'doppler-token',
    'Doppler token',
    ['dp.'],
    /(?<![A-Za-z0-9_.])dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{2,35}\.)?[A-Za-z0-9]{40,44}(?![A-Za-z0-9])/g,
  ),
  prefixRule(
    'linear-api-key',
    'Linear API key',
    ['lin_'],
    /(?<![A-Za-z0-9_])lin_(?:api|oauth)_[A-Za-z0-9]{40,64}(?![A-Za-z0-9])/g,
  ),
  prefixRule(
    'notion-token',
    'Notion integration token',
    ['secret_', 'ntn_'],
    /(?<![A-Za-z0-9_])(?:secret_[A-Za-z0-9]{43}|ntn_\d{11}[A-Za-z0-9]{35})(?![A-Za-z0-9])/g,
    hasDigitAndLetter,
  ),
  prefixRule(
    'atlassian-api-token',
    'Atlassian API token',
    ['atatt3', 'atctt3', 'atbb'],
    /(?<![A-Za-z0-9_-])(?:AT[AC]TT3[A-Za-z0-9_=-]{100,300}(?![A-Za-z0-9_=-])|ATBB[A-Za-z0-9]{28,40}(?![A-Za-z0-9_]))/g,
  ),
  prefixRule(
    'sentry-token',
    'Sentry auth token',
    ['sntry'],
    /(?<![A-Za-z0-9_])(?:sntrys_eyJ[A-Za-z0-9+/=]{20,400}_[A-Za-z0-9+/]{43}(?![A-Za-z0-9+/=_-])|sntryu_[a-f0-9]{64}(?![A-Za-z0-9_]))/g,
  ),
  regexRule({
    id: 'sentry-dsn',
    description: 'Sentry DSN key',
    keywords: ['sentry'],
    pattern: /https?:\/\/([a-f0-9]{32})(?::[a-f0-9]{32})?@[A-Za-z0-9.-]{0,80}sentry[A-Za-z0-9.-]{0,80}\/\d+/dg,
    group: 1,
  }),
  prefixRule(
    'grafana-token',
    'Grafana token',
    ['glc_', 'glsa_', 'eyjrijoi'],
    /(?<![A-Za-z0-9_+/])(?:glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|eyJrIjoi[A-Za-z0-9+/]{50,200}={0,2})(?![A-Za-z0-9+/=])/g,
    shapedOr(/^glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}$/),
  ),
  prefixRule(
    'postman-api-key',
    'Postman API key',
    ['pmak-'],
    /(?<![A-Za-z0-9_-])PMAK-[a-f0-9]{24}-[a-f0-9]{34}(?![A-Za-z0-9])/g,
  ),
  prefixRule(
    'age-secret-key',
    'age secret key',
    ['age-secret-key-1'],
    /AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}/g,
    isShapedToken,
  ),
  prefixRule(
    'onepassword-token',
    '1Password service account token',
    ['ops_eyj'],
    /(?<![A-Za-z0-9_])ops_eyJ[A-Za-z0-9+/=_-]{100,4000}/g,
  ),
  prefixRule(
    'figma-token',
    'Figma personal access token',
    ['figd_'],
    /(?<![A-Za-z0-9_])figd_[A-Za-z0-9_-]{40,48}(?![A-Za-z0-9_-])/g,
  ),
  prefixRule('pulumi-token', 'Pulumi access token', ['pul-'], /(?<![A-Za-z0-9_-])pul-[a-f0-9]{40}(?![A-Za-z0-9])/g),
  prefixRule(
    'supabase-token',
    'Supabase token',
    ['sbp_', 'sb_secret_'],
    /(?<![A-Za-z0-9_])(?:sbp_[a-f0-9]{40}(?![A-Za-z0-9_])|sb_secret_[A-Za-z0-9_-]{20,80}(?![A-Za-z0-9_-]))/g,
  ),
  prefixRule(
    'docker-hub-token',
    'Docker Hub access token',
    ['dckr_'],
    /(?<![A-Za-z0-9_])dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/g,
  ),
  prefixRule(
    'new-relic-key',
    'New Relic key',
    ['nrak-', 'nrii-', 'nrjs-', 'nriq-'],
    /(?<![A-Za-z0-9_-])NR(?:AK|II|JS|IQ)-[A-Za-z0-9_-]{19,32}(?![A-Za-z0-9_-])/g,
  ),
  prefixRule(
    'octopus-deploy-key',
    'Octopus Deploy API key',
    ['api-'],
    /(?<![A-Za-z0-9_-])API-[A-Z0-9]{26}(?![A-Za-z0-9])/g,
    hasDigitAndLetter,
  ),
  prefixRule('ubidots-token', 'Ubidots token', ['bbff-'], /(?<![A-Za-z0-9_-])BBFF-[A-Za-z0-9]{30}(?![A-Za-z0-9])/g),
  regexRule({
    id: 'sumologic-access-id',
    description: 'Sumo Logic access id',
    keywords: ['sumo'],
    pattern:
      /sumo(?:logic)?[_.-]?(?:access[_.-]?id|token|key)["']?\s{0,3}(?:=|:|:=|\?=)\s{0,3}["']?(su[A-Za-z0-9]{12})(?![A-Za-z0-9])/dgi,
    group: 1,
    accept: hasDigitAndLetter,
  }),
  prefixRule(
    'planetscale-token',
    'PlanetScale token',
    ['pscale_'],
    /(?<![A-Za-z0-9_])pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}(?![A-Za-z0-9_-])/g,
  ),
  prefixRule(
    'mapbox-secret-token',
    'Mapbox secret token',
    ['sk.eyj'],
    /(?<![A-Za-z0-9_.])sk\.eyJ[A-Za-z0-9_-]{20,200}\.[A-Za-z0-9_-]{20,60}(?![A-Za-z0-9_-])/g,
  ),
  prefixRule(
    'onepassword-secret-key',
    '1Password secret key',
    ['a3-'],
    /(?<![A-Za-z0-9-])A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}(?![A-Za-z0-9-])/g,
  ),
  prefixRule(
    'easypost-api-key',
    'EasyPost API key',
    ['ezak', 'eztk'],
    /(?<![A-Za-z0-9])EZ[AT]K[A-Za-z0-9]{54}(?![A-Za-z0-9])/g,
  ),
  prefixRule(
    'sourcegraph-token',
    'Sourcegraph access token',
    ['sgp_'],
    /(?<![A-Za-z0-9_])sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}(?![A-Za-z0-9_])/g,
  ),
  prefixRule(
    'tailscale-key',
    'Tailscale key',
    ['tskey-'],
    /(?<![A-Za-z])tskey-(?:api|auth|client|scim|webhook|future)-[A-Za-z0-9]{6,20}-[A-Za-z0-9]{16,64}(?![A-Za-z0-9])/g,
    shapedOr(/^tskey-[a-z]+-[A-Za-z0-9]{12}-[A-Za-z0-9]{24,32}$/),
  ),
  prefixRule(
    'vercel-token',
    'Vercel token',
    ['vcp_', 'vci_', 'vca_', 'vcr_', 'vck_'],
    /(?<![A-Za-z0-9_])vc[pikar]_[A-Za-z0-9]{24,80}(?![A-Za-z0-9_])/g,
  ),
  prefixRule(
    'cloudflare-token',
    'Cloudflare API token or key',
    ['cfut_', 'cfk_', 'cfat_'],
    /(?<![A-Za-z0-9_])cf(?:ut|k|at)_[A-Za-z0-9]{40}[a-f0-9]{8}(?![A-Za-z0-9_])/g,
  ),
  prefixRule(
    'cloudflare-origin-ca-key',
    'Cloudflare Origin CA key',
    ['v1.0-'],
    /(?<![A-Za-z0-9.-])v1\.0-[a-f0-9]{24}-[a-f0-9]{146}(?![A-Za-z0-9])/g,
  ),
  prefixRule(
    'flutterwave-key',
    'Flutterwave key',
    ['flwpubk', 'flwseck'],
    /(?<![A-Za-z0-9_])FLW(?:PUBK|SECK)(?:_TEST)?-(?:[a-fA-F0-9]{32}-X|[a-fA-F0-9]{12})(?![A-Za-z0-9-])/g,
  ),
  prefixRule(
    'flyio-token',
    'Fly.io access token',
    ['fo1_', 'fm1', 'fm2_'],
    /(?<![A-Za-z0-9_])(?:fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,4000}={0,3})(?![A-Za-z0-9_+/=-])/g,
    isShapedToken,
  ),
  prefixRule(
    'openshift-token',
    'OpenShift user token',
    ['sha256~'],
    /(?<![A-Za-z0-9_])sha256~[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g,
  ),
  prefixRule(
    'intra42-client-secret',
    '42 Intra client secret',
    ['s-s4t2'],
    /(?<![A-Za-z0-9_-])s-s4t2(?:ud|af)-[a-f0-9]{64}(?![A-Za-z0-9])/g,
  ),
  prefixRule(
    'facebook-page-token',
    'Facebook page access token',
    ['eaam', 'eaac'],
    /(?<![A-Za-z0-9_])EAA[MC][A-Za-z0-9]{100,400}(?![A-Za-z0-9])/g,
  ),
  regexRule({
    id: 'facebook-access-token',
    description: 'Facebook app access token',
    keywords: ['|', '%7c'],
    pattern: /(?<![A-Za-z0-9])\d{15,16}(?:\||%7[Cc])[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/g,
  }),
  prefixRule(
    'shippo-token',
    'Shippo API token',
    ['shippo_'],
    /(?<![A-Za-z0-9_])shippo_(?:live|test)_[a-fA-F0-9]{40}(?![A-Za-z0-9])/g,
    isShapedToken,
  ),
  prefixRule(
    'langsmith-key',
    'LangSmith API key',
    ['lsv2_'],
    /(?<![A-Za-z0-9_])lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}(?![A-Za-z0-9])/g,
  ),
  prefixRule('rootly-key', 'Rootly API key', ['rootly_'], /(?<![A-Za-z0-9_])rootly_[a-f0-9]{64}(?![A-Za-z0-9])/g),
  prefixRule('spectralops-token', 'SpectralOps token', ['spu-'], /(?<![A-Za-z0-9_-])spu-[a-f0-9]{32}(?![A-Za-z0-9])/g),
  prefixRule(
    'bitbucket-dc-token',
    'Bitbucket Data Center token',
    ['bbdc-'],
    /(?<![A-Za-z0-9_-])BBDC-[A-Za-z0-9+/@_-]{40,50}(?![A-Za-z0-9+/@_-])/g,
  ),
  prefixRule(
    'teams-webhook',
    'Microsoft Teams webhook URL',
    ['webhook.office.com/'],
    /https:\/\/[A-Za-z0-9-]{1,60}\.webhook\.office\.com\/webhookb2\/[A-Za-z0-9-]{36}@[A-Za-z0-9-]{36}\/IncomingWebhook\/[A-Za-z0-9]{32}\/[A-Za-z0-9-]{36}/g,
  ),
  regexRule({
    id: 'jwt',
    description: 'Base64-encoded JSON Web Token',
    keywords: ['zxlk'],
    priority: STRUCTURAL,
    pattern: /(?<![A-Za-z0-9+/])ZXlK[A-Za-z0-9+/]{60,8000}={0,2}(?![A-Za-z0-9+/=])/g,
    accept: (value) => {
      const decoded = decodeBase64(value)
      return decoded !== undefined && /^eyJ[A-Za-z0-9_-]{8,}\.eyJ?[A-Za-z0-9_-]{8,}\.?/.test(decoded)
    },
  }),
  regexRule({
    id: 'sidekiq-credentials',
    description: 'Sidekiq Enterprise credentials',
    keywords: ['__contribsys__com'],
    pattern:
      /BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM(?:_[A-Z]{1,12})?["']?\s{0,3}[:=?]{0,4}\s{0,3}["']?([a-f0-9]{8}:[a-f0-9]{8})(?![A-Za-z0-9])/dgi,
    group: 1,
    accept: () => true,
  }),
  regexRule({
    id: 'docker-config-auth',
    description: 'Registry credentials in a Docker config',
    keywords: ['"auth"'],
    priority: STRUCTURAL,
    pattern: /"auth"\s{0,3}:\s{0,3}"([A-Za-z0-9+/]{8,8000}={0,2})"/dg,
    group: 1,
    accept: (value) => {
      const decoded = decodeBase64(value)
      const colon = decoded?.indexOf(':') ?? -1
      return decoded !== undefined && colon > 0 && isCredentialValue(decoded.slice(colon + 1).trim())
    },
  }),
  prefixRule(
    'adobe-client-secret',
    'Adobe client secret',
    ['p8e-'],
    /(?<![A-Za-z0-9_-])p8e-[A-Za-z0-9]{32}(?![A-Za-z0-9])/g,
    hasDigitAndLetter,
  ),
  prefixRule(
    'launchdarkly-key',
    'LaunchDarkly key',
    ['api-', 'sdk-', 'mob-'],
    /(?<![A-Za-z0-9_-])(?:api|sdk|mob)-[a-z0-9]{8}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{12}(?![A-Za-z0-9_-])/g,
    (value) => /[a-z]/.test(value.slice(4).replace(/[a-f]/g, '')) && hasDigitAndLetter(value),
  ),
  prefixRule(
    'aws-appsync-api-key',
    'AWS AppSync API key',
    ['da2-'],
    /(?<![A-Za-z0-9_-])da2-[a-z0-9]{26}(?![A-Za-z0-9_-])/g,
    isShapedToken,
  ),
  prefixRule(
    'contentful-token',
    'Contentful personal access token',
    ['cfpat-'],
    /(?<![A-Za-z0-9_-])CFPAT-[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g,
    isShapedToken,
  ),
  prefixRule(
    'typeform-token',
    'Typeform personal access token',
    ['tfp_'],
    /(?<![A-Za-z0-9_])tfp_[A-Za-z0-9_.=-]{59}(?![A-Za-z0-9_.=-])/g,
    isShapedToken,
  ),
  // An app-only bearer token starts with 21 or 22 `A`s (a zero prefix in base64), then the random part.
  prefixRule(
    'twitter-bearer-token',
    'Twitter/X bearer token',
    ['aaaaaaaaaaaaaaaaaaaaa'],
    /(?<![A-Za-z0-9%])A{21,22}[A-Za-z0-9%]{60,160}(?![A-Za-z0-9%])/g,
    (value) => {
      const rest = value.replace(/^A+/, '')
      return rest.length >= 40 && isRandomToken(rest)
    },
  ),
  prefixRule(
    'square-token',
    'Square token',
    ['sq0'],
    /(?<![A-Za-z0-9_-])sq0(?:atp|csp)-[A-Za-z0-9_-]{22,60}(?![A-Za-z0-9_-])/g,
  ),
]

const KUBERNETES_SECRET_KIND = /^kind:[ \t]*["']?Secret["']?[ \t]*$/gm
const KUBERNETES_DATA_KEY = /^([ \t]*)(?:data|stringData):[ \t]*$/gm
const KUBERNETES_DATA_ENTRY = /^([ \t]+)[A-Za-z0-9_.-]{1,253}:[ \t]*["']?([A-Za-z0-9+/]{8,8000}={0,2})["']?[ \t]*$/gm

/** The base64 values under `data:` in a YAML document of `kind: Secret` (a Kubernetes Secret manifest). */
const kubernetesSecretRule: SecretRule = {
  id: 'kubernetes-secret',
  description: 'Value in a Kubernetes Secret manifest',
  keywords: ['secret'],
  priority: STRUCTURAL,
  find(text, emit) {
    KUBERNETES_SECRET_KIND.lastIndex = 0
    let searchedTo = 0
    for (let kind = KUBERNETES_SECRET_KIND.exec(text); kind !== null; kind = KUBERNETES_SECRET_KIND.exec(text)) {
      // A `kind:` line inside a document already read belongs to it.
      if (kind.index < searchedTo) continue
      // The YAML document around the `kind:` line, bounded by `---` separators and 16 KiB either way; every search
      // stays inside that window, so a text of many documents is read a bounded number of times.
      const windowStart = Math.max(searchedTo, kind.index - 16384)
      const separatorBefore = text.slice(windowStart, kind.index).lastIndexOf('\n---')
      const from = separatorBefore === -1 ? windowStart : windowStart + separatorBefore
      const windowEnd = Math.min(text.length, kind.index + 16384)
      const separatorAfter = text.slice(kind.index, windowEnd).indexOf('\n---')
      const to = separatorAfter === -1 ? windowEnd : kind.index + separatorAfter
      searchedTo = to
      const documentText = text.slice(from, to)
      KUBERNETES_DATA_KEY.lastIndex = 0
      const data = KUBERNETES_DATA_KEY.exec(documentText)
      if (data === null) continue
      const indent = (data[1] ?? '').length
      KUBERNETES_DATA_ENTRY.lastIndex = data.index + data[0].length
      let expected = data.index + data[0].length + 1
      for (
        let entry = KUBERNETES_DATA_ENTRY.exec(documentText);
        entry !== null;
        entry = KUBERNETES_DATA_ENTRY.exec(documentText)
      ) {
        // Only the block right under `data:`: consecutive lines indented deeper than it.
        if (entry.index !== expected || (entry[1] ?? '').length <= indent) break
        expected = entry.index + entry[0].length + 1
        const value = entry[2] ?? ''
        const offset = entry.index + entry[0].indexOf(value, (entry[1] ?? '').length)
        if (!isPlaceholder(value, 12) && !isBase64Filler(value)) emit(from + offset, from + offset + value.length)
      }
    }
  },
}

const STRUCTURAL_RULES: readonly SecretRule[] = [
  kubernetesSecretRule,
  privateKeyRule,
  urlCredentialsRule,
  ...cliPasswordRules,
  regexRule({
    id: 'jwt',
    description: 'JSON Web Token',
    keywords: ['eyj'],
    priority: STRUCTURAL,
    pattern:
      /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,4000}\.eyJ[A-Za-z0-9_-]{8,8000}\.[A-Za-z0-9_-]{16,2000}(?![A-Za-z0-9_-])/g,
    accept: isJwt,
  }),
  regexRule({
    id: 'authorization-header',
    description: 'Credential in an Authorization header',
    keywords: ['authorization', 'bearer'],
    priority: STRUCTURAL,
    pattern:
      /(?:\bauthorization["']?\s{0,3}[:=]\s{0,3}["']?(?:bearer|token|bot|apikey|sso-key)?|(?<![A-Za-z])bearer)\s{1,3}([A-Za-z0-9._~+/:-]{16,4000}=*)/dgi,
    group: 1,
    accept: isHeaderToken,
  }),
  regexRule({
    id: 'basic-auth-header',
    description: 'Credentials in a Basic Authorization header',
    keywords: ['basic'],
    priority: STRUCTURAL,
    pattern: /(?<![A-Za-z])basic\s{1,3}([A-Za-z0-9+/]{8,400}={0,2})(?![A-Za-z0-9+/=])/dgi,
    group: 1,
    accept: isBasicCredentials,
  }),
]

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}'

/**
 * Providers whose keys have no prefix but one known charset and length (gitleaks' semi-generic rules, trufflehog's
 * keyword detectors): the provider's name, an optional `token`/`key` word, a separator, then a value of exactly that
 * shape. [keyword (lower case), value pattern source].
 */
const PROVIDER_KEYWORD_FORMATS: ReadonlyArray<readonly [string, string]> = [
  ['artifactory', '[A-Za-z0-9]{64,73}'],
  ['captaindata', '[a-f0-9]{64}'],
  ['checkvist', '[A-Za-z0-9]{14}'],
  ['cloudflare', '[a-f0-9]{37}'],
  ['cloze', '[a-f0-9]{32}'],
  ['currencycloud', '[a-f0-9]{64}'],
  ['freshworks', '[A-Za-z0-9_-]{22}'],
  ['heroku', UUID],
  ['hubspot', UUID],
  ['invoiceocean', '[A-Za-z0-9]{20}'],
  ['ipinfo', '[a-f0-9]{14}'],
  ['jira', '[A-Za-z0-9]{24}'],
  ['kanban', '[A-Z0-9]{12}'],
  ['messagebird', `[A-Za-z0-9]{25}|${UUID}`],
  ['metaapi', '[a-f0-9]{64}'],
  ['mite', '[a-z0-9]{16}'],
  ['mixpanel', '[A-Za-z0-9]{32}'],
  ['mockaroo', '[a-z0-9]{8}'],
  ['mux', UUID],
  ['myintervals', '[a-z0-9]{11}'],
  ['onesignal', UUID],
  ['parsehub', '[A-Za-z0-9]{12}'],
  ['smartsheet', '[A-Za-z0-9]{37}'],
  ['snyk', UUID],
  ['sonar', 'sq[upa]_[a-f0-9]{40}|[A-Za-z0-9]{40}'],
  ['twitch', '[a-z0-9]{30}'],
]

/** A value of the provider's exact shape that is not an explicit stand-in, with letters and digits or both cases. */
function isProviderKeywordValue(value: string): boolean {
  const classes = charClasses(value)
  return (
    ((classes.digit && (classes.lower || classes.upper)) || (classes.lower && classes.upper)) && isShapedToken(value)
  )
}

const providerKeywordRules: readonly SecretRule[] = PROVIDER_KEYWORD_FORMATS.map(([keyword, format]) =>
  regexRule({
    id: 'provider-keyword-token',
    description: `${keyword} key beside its name`,
    keywords: [keyword],
    priority: STRUCTURAL,
    // `mixpanel_secret = "…"`, `snyk token: …`, `getsmartsheet("…")`, `kanban '…'`: the name, up to 24 more name
    // characters, an optional word, then blanks, quotes and one operator.
    pattern: new RegExp(
      `${keyword.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`)}[A-Za-z0-9_.-]{0,24}` +
        `(?:[ \t]{1,3}(?:token|key|secret|api[ _]?key))?["']?[ \t]{0,3}(?::=|=>|\\?=|[:=,(])?[ \t]{0,3}["'\`(]?` +
        `(?<![A-Za-z0-9_-])(${format})(?![A-Za-z0-9_-])`,
      'dg',
    ),
    group: 1,
    accept: isProviderKeywordValue,
  }),
)

/** Webhook URLs whose secret is in the path: whoever has the URL can post. */
const webhookRules: readonly SecretRule[] = [
  prefixRule(
    'zapier-webhook',
    'Zapier webhook URL',
    ['hooks.zapier.com/'],
    /https?:\/\/hooks\.zapier\.com\/hooks\/catch\/(?:\d{1,12}\/)?[A-Za-z0-9]{6,40}\/?[A-Za-z0-9]{0,40}/g,
    (value) => isShapedToken(value),
  ),
  prefixRule(
    'tines-webhook',
    'Tines webhook URL',
    ['tines.com/webhook/'],
    /https:\/\/[A-Za-z0-9-]{1,63}\.tines\.com\/webhook\/[a-z0-9]{32}\/[a-z0-9]{32}/g,
    (value) => isShapedToken(value),
  ),
  regexRule({
    id: 'power-automate-webhook',
    description: 'Power Automate / Teams workflow webhook URL',
    keywords: ['powerplatform.com', 'logic.azure.com'],
    priority: STRUCTURAL,
    pattern:
      /https:\/\/[A-Za-z0-9.-]{1,120}\.(?:powerplatform\.com|logic\.azure\.com)(?::\d{1,5})?\/[^\s"'`<>]{0,300}?[?&]sig=([A-Za-z0-9_%-]{30,100})/dg,
    group: 1,
  }),
]

/** `<add key="ClearTextPassword" value="…" />` in a NuGet.config: the password itself, unless it is a reference. */
const nugetPasswordRule = regexRule({
  id: 'nuget-config-password',
  description: 'Password in a NuGet.config',
  keywords: ['cleartextpassword'],
  priority: STRUCTURAL,
  pattern: /<add\s{1,4}key\s{0,2}=\s{0,2}"ClearTextPassword"\s{1,4}value\s{0,2}=\s{0,2}"([^"\n]{1,256})"/dgi,
  group: 1,
  accept: (value) => value.length >= 6 && !isReference(value) && isShapedToken(value),
})

/**
 * A bare 256-bit hex key (`0x` and 64 hex digits, an Ethereum/secp256k1 private key) with a key word near it. A
 * transaction hash has the same shape, so the words must say key or wallet.
 */
const hexPrivateKeyRule = regexRule({
  id: 'hex-private-key',
  description: 'Hex private key (secp256k1)',
  keywords: ['0x'],
  priority: STRUCTURAL,
  pattern: /(?<![A-Za-z0-9])0x[a-fA-F0-9]{64}(?![A-Za-z0-9])/g,
  accept: (value, text, start) => {
    const near = text.slice(Math.max(0, start - 160), Math.min(text.length, start + value.length + 160))
    return (
      /private|priv[_ -]?key|secret|wallet|mnemonic|seed/i.test(near) &&
      !/\b(?:tx|transaction|hash|block)\b/i.test(near) &&
      isRandomToken(value.slice(2))
    )
  },
})

/** Words after which an assignment is not the secret itself: `TOKEN_URL`, `password_file`, `secretName`. */
const TRAILING_NOT_SECRET: ReadonlySet<string> = new Set([
  'url',
  'uri',
  'urls',
  'endpoint',
  'host',
  'hostname',
  'port',
  'path',
  'paths',
  'file',
  'filename',
  'files',
  'dir',
  'directory',
  'name',
  'names',
  'id',
  'ids',
  'type',
  'types',
  'length',
  'len',
  'count',
  'expiry',
  'expires',
  'expiration',
  'exp',
  'ttl',
  'timeout',
  'age',
  'max',
  'min',
  'size',
  'header',
  'headers',
  'field',
  'env',
  'var',
  'variable',
  'policy',
  'version',
  'prefix',
  'suffix',
  'format',
  'mode',
  'scope',
  'scopes',
  'limit',
  'provider',
  'method',
  'methods',
  'algorithm',
  'alg',
  'label',
  'hint',
  'enabled',
  'disabled',
  'enable',
  'required',
  'ref',
  'arn',
  'location',
  'store',
  'manager',
  'rotation',
  'kind',
  'source',
  'strategy',
  'helper',
  'command',
  'cmd',
  'class',
  'server',
  'service',
  'user',
  'username',
  'login',
  'email',
  'role',
  'realm',
  'issuer',
  'audience',
  'domain',
  'callback',
  'redirect',
  'flow',
  'grant',
  'response',
  'error',
  'status',
  'pattern',
  'regex',
  'template',
  'description',
  'desc',
  'text',
  'message',
  'msg',
  'title',
  'index',
  'date',
  'time',
  'at',
  'created',
  'updated',
  'valid',
  'validity',
  'bits',
  'usage',
  'lifetime',
  'mask',
  'storage',
  'backend',
  'engine',
  'mount',
  'keyid',
  'question',
  'rules',
  'config',
  'configs',
  'settings',
  'option',
  'options',
  'flag',
  'check',
  'reset',
  'changed',
  'confirm',
  'confirmation',
  'strength',
  'hashing',
  'salt',
  'rounds',
  'cost',
  'dialog',
  'form',
  'input',
  'button',
  'page',
  'link',
  'route',
  'handler',
  'middleware',
  'module',
  'plugin',
  'schema',
  'validator',
])

/** Words that make a name about something other than the secret: hashes, paging, public material, usage counts. */
const NEUTRAL_WORDS: ReadonlySet<string> = new Set([
  'hash',
  'hashed',
  'sha',
  'sha1',
  'sha256',
  'sha384',
  'sha512',
  'md5',
  'checksum',
  'digest',
  'fingerprint',
  'integrity',
  'page',
  'next',
  'continuation',
  'pagination',
  'cursor',
  'idempotency',
  'csrf',
  'xsrf',
  'cancellation',
  'public',
  'pub',
  'publishable',
  'tokenizer',
  'num',
  'max',
  'min',
  'example',
  'sample',
  'dummy',
  'fake',
  'mock',
  'placeholder',
  'prompt',
  'completion',
  'input',
  'output',
  'author',
  'cache',
  'sort',
  'partition',
  'primary',
  'foreign',
  'lookup',
  'unique',
  'shard',
  'routing',
  'dedup',
  'nonce',
  'gpg',
  'pgp',
  'ssh',
  'has',
  'is',
  'authenticity',
  'no',
  'use',
  'uses',
  'allow',
  'require',
  'requires',
  'show',
  'hide',
  'forgot',
  'reset',
  'length',
  // Names that say the value is not a real one: `nonMatchingToken`, `invalidKey`, `wrongSecret`.
  'non',
  'invalid',
  'wrong',
  'bogus',
])

/** A `…key` that names a record, a table row, a UI event or public material, not a credential. */
const NOT_SECRET_KEY_WORDS: ReadonlySet<string> = new Set([
  'schema',
  'bucket',
  'object',
  'map',
  'dict',
  'row',
  'column',
  'composite',
  'hot',
  'short',
  'translation',
  'i18n',
  'group',
  'state',
  'event',
  'press',
  'down',
  'up',
  'keyboard',
  'foreign',
  'sort',
  'partition',
  'primary',
  'cache',
  'x509',
  'cert',
  'certificate',
  'verify',
  'verifying',
  'verification',
  'react',
  'list',
  'item',
  'field',
  'attr',
  'property',
  'prop',
  'query',
  'param',
  'route',
  'local',
  'form',
  'menu',
  'nav',
  'tab',
  'order',
])

const PASSWORD_WORDS: ReadonlySet<string> = new Set([
  'password',
  'passwd',
  'pass',
  'pwd',
  'passphrase',
  'passcode',
  'pw',
])
const TOKEN_WORDS: ReadonlySet<string> = new Set([
  'secret',
  'token',
  'apikey',
  'auth',
  'credential',
  'credentials',
  'creds',
  'pat',
  'accesskey',
  'privatekey',
  'secretkey',
  'authkey',
  'bearer',
  'apitoken',
  'authtoken',
  'accesstoken',
  'clientsecret',
])

/** Words that end in "key" and are no key. */
const NOT_A_KEY: ReadonlySet<string> = new Set([
  'monkey',
  'donkey',
  'turkey',
  'hockey',
  'jockey',
  'whiskey',
  'hotkey',
  'passkey',
])

type SecretNameKind = 'password' | 'token'

/** Splits `DB_PASSWORD`, `apiKey`, `x-api-key`, `spring.datasource.password` into lower-case words. */
export function splitNameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0)
}

/** A password word: `password`, `db_passwd`'s `passwd`, `adminPassword`'s `password`, `pwd`, `passcode`. */
function isPasswordWord(word: string): boolean {
  return PASSWORD_WORDS.has(word) || /^[a-z]*(?:pass(?:word|wd|phrase|code)|pwd)$/.test(word)
}

/**
 * A plural names the same secrets, a list or a map of them (`passwords`, `api_keys`, `accessTokens`): the singular of
 * a secret word; any other word is left as it is. An LLM's token counts (`tokens: 4096`, `max_tokens`) are numbers,
 * which a token's value never is below 16 digits.
 */
function singular(word: string): string {
  if (word.length < 4 || !word.endsWith('s') || word.endsWith('ss')) return word
  const one = word.slice(0, -1)
  return isPasswordWord(one) || TOKEN_WORDS.has(one) || /(?:secret|token|key)$/.test(one) ? one : word
}

/** What a name says it holds; `passwordLast`: its last word is the password itself (`DB_PASSWORD`, `passcode`). */
interface SecretName {
  kind: SecretNameKind
  passwordLast: boolean
}

/** Whether a name (an env var, a YAML key, a flag) holds a password, another kind of secret, or neither. */
export function classifySecretName(name: string): SecretName | undefined {
  const written = splitNameWords(name)
  const words = written.map(singular)
  const last = words[words.length - 1]
  if (last === undefined || TRAILING_NOT_SECRET.has(last)) return undefined
  if (written.some((word) => NEUTRAL_WORDS.has(word))) return undefined
  if (words.some(isPasswordWord)) return { kind: 'password', passwordLast: isPasswordWord(last) }
  if (words.some((word) => TOKEN_WORDS.has(word) || /^[a-z]+(?:secret|token|apikey|accesskey|privatekey)$/.test(word)))
    return { kind: 'token', passwordLast: false }
  // `API_KEY`, `azure_key`, `apiMaticKey`, `Using Key=`: any key that is not a public, cache or table key.
  const isKey = last === 'key' || (/^[a-z]{2,}key$/.test(last) && !NOT_A_KEY.has(last))
  if (isKey && !words.some((word) => NOT_SECRET_KEY_WORDS.has(word))) return { kind: 'token', passwordLast: false }
  return undefined
}

const TRUTHY_WORDS =
  /^(?:true|false|yes|no|on|off|null|nil|none|undefined|required|optional|string|number|boolean|int|str|bool|enabled|disabled|inherit|bearer|basic|token|secret|empty)$/i

/** Values that refer to a secret kept elsewhere: env lookups, templates, vault paths, files, code. */
function isReference(value: string): boolean {
  if (/^[$%{!@&*#[(\\]/.test(value)) return true
  if (value.includes('://') || value.includes('(') || value.includes(')')) return true
  if (
    /^(?:ENC\[|vault:|op:|arn:|ref\+|sm:|secret:|env:|file:|gcp:|aws:|azurekeyvault|keyvault|sha\d{1,3}[:-]|md5:|bcrypt|argon2|pbkdf2|scrypt)/i.test(
      value,
    )
  )
    return true
  if (/^(?:\.{0,2}\/|~\/|[A-Za-z]:\\)/.test(value)) return true
  if (
    /\.(?:json|pem|key|crt|cer|txt|ya?ml|env|p12|pfx|jks|gpg|asc|der|cfg|conf|ini|toml|properties|xml|js|ts|py|sh)$/i.test(
      value,
    )
  )
    return true
  // config.apiKey, var.db_password, secrets.GITHUB_TOKEN, random_password.db.result
  if (/^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)+$/.test(value)) {
    if (value.split('.').every((part) => !/\d/.test(part) || /^[A-Za-z_-]+\d{0,2}$/.test(part))) return true
  }
  // An environment variable's name (`OPENAI_API_KEY`), not a random upper-case token with underscores in it.
  if (
    /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(value) &&
    value.split('_').every((part) => part.length <= 16 && !/\d.*\d.*\d/.test(part))
  )
    return true
  if (/^[a-z]+(?:[A-Z][a-z]+)+$/.test(value) || /^[a-z]+(?:[_-][a-z]+)+$/.test(value)) return true
  if (/^[-+]?\d+(?:\.\d+)*$/.test(value) || /^v?\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?$/.test(value)) return true
  return TRUTHY_WORDS.test(value)
}

/** One part of an identifier: a word (`Vector`, `KeyMeshing`, `DOC`), a short number, or a word and a number (`X509`). */
const IDENTIFIER_PART =
  /^(?:[A-Z]?[a-z]+(?:[A-Z][a-z]+)*|[A-Z]+|[A-Za-z]{1,12}\d{1,6}|\d{1,5}|v\d{1,3}|[A-Za-z][a-z]*(?:[A-Z][a-z]+){0,8}\d{0,6}(?:[A-Z][a-z]+){0,8})$/

/** `DOC_Vector_5_32`, `id-Gost28147-89-None-KeyMeshing`, `X25519.KeyPair`: names and versions joined, nothing random. */
function isIdentifierLike(value: string): boolean {
  const parts = value.split(/[-_.:]+/).filter((part) => part.length > 0)
  return (
    parts.length >= 2 && parts.every((part) => IDENTIFIER_PART.test(part)) && !parts.every((part) => /^\d+$/.test(part))
  )
}

/** `Linux-node-<sha256>`: words in front of a hash name a cache entry or an artifact, not a credential. */
function isLabelledHash(value: string): boolean {
  return /^(?:[A-Za-z]{3,}[-_.]){2,}[a-f0-9]{32,}$/.test(value)
}

/** How often letters and digits alternate inside a word: `sxk5k1nfra8` 4 times, `release-2024-v2` never twice. */
function letterDigitTurns(value: string): number {
  let turns = 0
  for (let i = 1; i < value.length; i++) {
    const a = value.charCodeAt(i - 1)
    const b = value.charCodeAt(i)
    const aDigit = a >= 48 && a <= 57
    const bDigit = b >= 48 && b <= 57
    const aLetter = (a >= 97 && a <= 122) || (a >= 65 && a <= 90)
    const bLetter = (b >= 97 && b <= 122) || (b >= 65 && b <= 90)
    if ((aDigit && bLetter) || (aLetter && bDigit)) turns++
  }
  return turns
}

/** Base64 that decodes to plain words (`ZHVtbXkgdGV4dA==` is "dummy text") or to a JSON header: not key material. */
function isBase64Filler(value: string): boolean {
  if (value.length < 16 || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return false
  const decoded = decodeBase64(value)
  if (decoded === undefined) return false
  // A JWT's header alone (`{"alg":"HS256"}`) is public structure, not key material.
  if (/^\{"[\x20-\x7e]*\}$/.test(decoded)) return true
  return / /.test(decoded) && /^[A-Za-z ,.!?'-]+$/.test(decoded.trim())
}

/**
 * A password of digits, with or without symbols (`84729163`, `8472-9163!`), as detect-secrets' keyword detector takes
 * it (gitleaks' entropy floor of 3.5 passes no number at all): only under a name whose last word is the password
 * (`DB_PASSWORD`, `passcode`, not `password_rotation_seconds`), six digits or more (not a year, a port, a count or a
 * short PIN), four of them different, and no run, sequence or keypad line (`123456`, `112233`, `987654`, `147258`).
 */
function isChosenNumber(value: string): boolean {
  const digits = value.replace(/[^0-9]/g, '')
  if (digits.length < 6 || value.length > 64 || new Set(digits).size < 4) return false
  // A decimal or a version (`3.14159265`, `1.22.3`), a negative or a signed number: not a password field's value.
  if (/^[-+]?\d+(?:\.\d+)*$/.test(value) && !/^\d+$/.test(value)) return false
  if (isPlaceholder(digits, 3)) return false
  // Mostly steps of none or one digit, up or down, or of three (down a keypad's column): `123123`, `112233`, `987654`,
  // `147258`, what a hand types to fill a field (`135791`, in steps of two, is left as chosen).
  let steady = 0
  for (let i = 1; i < digits.length; i++) {
    const step = Math.abs(digits.charCodeAt(i) - digits.charCodeAt(i - 1))
    if (step <= 1 || step === 3) steady++
  }
  return steady / (digits.length - 1) < 0.5
}

/** The entropy test for a value assigned to a secret-looking name; `passwordLast`: the name ends in a password word. */
export function isLikelySecretValue(value: string, kind: SecretNameKind, passwordLast = false): boolean {
  // `discordToken = 33571183374901913848387496409608`: a long random number is an id or a secret.
  if (kind === 'token' && /^\d{16,64}$/.test(value)) return !isPlaceholder(value, 3) && new Set(value).size >= 6
  // Shorter than any value the tests below take: asked first, before the costlier ones.
  if (value.length < (kind === 'token' ? 12 : 6)) return false
  // `password: 84729163`: a number where a password goes (a number is otherwise a count or a port, never a secret).
  if (kind === 'password' && /^[^A-Za-z\s]+$/.test(value) && /^\d/.test(value))
    return passwordLast && isChosenNumber(value)
  if (value.length > 4096 || isPlaceholder(value, 4) || isReference(value)) return false
  const classes = charClasses(value)
  const classCount = Number(classes.lower) + Number(classes.upper) + Number(classes.digit) + Number(classes.other)
  const entropy = shannonEntropy(value)
  if (kind === 'password') {
    if (isDefaultPassword(value)) return false
    return entropy >= 2.2 && (classCount >= 2 || value.length >= 16)
  }
  if (isIdentifierLike(value) || isBase64Filler(value) || isLabelledHash(value)) return false
  if (/^[a-z0-9]+(?:[-_][a-z0-9]+)*$/.test(value) && letterDigitTurns(value) < 2) return false
  if (classes.digit && (classes.lower || classes.upper)) return entropy >= 3
  return value.length >= 20 && classes.lower && classes.upper && entropy >= 3.8
}

const NAME_HINT = /pass|pwd|secret|token|key|auth|credential|creds|pat\b|\bpw\b/gi

/** [A-Za-z0-9_.-] */
function isNameCode(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 46 ||
    code === 45
  )
}

/** Ends an unquoted value: whitespace, quotes, and the punctuation that closes a value in code, URLs and prose. */
function isValueEnd(code: number): boolean {
  switch (code) {
    case 9:
    case 10:
    case 11:
    case 12:
    case 13:
    case 32:
    case 34:
    case 39:
    case 96: // " ' `
    case 44:
    case 59:
    case 41:
    case 93:
    case 125: // , ; ) ] }
    case 60:
    case 62:
    case 124:
    case 38: // < > | &
      return true
    default:
      return false
  }
}

function skipBlanks(text: string, index: number, max: number): number {
  let cursor = index
  while (cursor - index < max) {
    const code = text.charCodeAt(cursor)
    if (code !== 32 && code !== 9) break
    cursor++
  }
  return cursor
}

/**
 * `KEY=value`, `key: value`, `"key": "value"`, `key => 'value'`, `--password value`, `<password>value</password>`:
 * finds names that look secret and reads the value after the assignment by hand (no backtracking involved).
 */
const genericAssignmentRule: SecretRule = {
  id: 'generic-assignment',
  description: 'Secret assigned to a secret-looking name',
  // What every NAME_HINT alternative contains.
  keywords: ['pass', 'pw', 'secret', 'token', 'key', 'auth', 'cred', 'pat'],
  priority: GENERIC,
  find(text, emit) {
    NAME_HINT.lastIndex = 0
    for (let hint = NAME_HINT.exec(text); hint !== null; hint = NAME_HINT.exec(text)) {
      let nameStart = hint.index
      let nameEnd = hint.index + hint[0].length
      while (nameStart > 0 && hint.index - nameStart < 64 && isNameCode(text.charCodeAt(nameStart - 1))) nameStart--
      while (nameEnd - hint.index < 64 && isNameCode(text.charCodeAt(nameEnd))) nameEnd++
      NAME_HINT.lastIndex = nameEnd
      const isFlag = text.charCodeAt(nameStart) === 45
      // The cheap question first: most mentions of "token" in prose assign nothing.
      const value = readAssignedValue(text, nameStart, nameEnd, isFlag)
      if (value === undefined) continue
      // Names inside the value belong to the value (`password=password=…` must not rescan itself).
      NAME_HINT.lastIndex = Math.max(nameEnd, value[1])
      const name = text.slice(nameStart, nameEnd).replace(/^[-.]+|[-.]+$/g, '')
      const named = classifySecretName(name)
      if (named === undefined) continue
      const [start, end] = value
      const secret = text.slice(start, end)
      if (isLikelySecretValue(secret, named.kind, named.passwordLast) && fitsNamedFormat(name, secret)) emit(start, end)
    }
  },
}

/**
 * Providers whose credentials have one exact shape: when a name says it holds one (`TELEGRAM_BOT_TOKEN`,
 * `AWS_SECRET_ACCESS_KEY`), a value of another shape is a near miss or a stand-in, not that credential.
 */
const NAMED_FORMATS: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [/telegram/i, /^\d{5,16}:A[A-Za-z0-9_-]{34}$/],
  [/aws.{0,12}secret|secret.?access.?key/i, /^[A-Za-z0-9/+]{40}$/],
]

function fitsNamedFormat(name: string, value: string): boolean {
  return NAMED_FORMATS.every(([names, format]) => !names.test(name) || format.test(value))
}

/** Reads the value assigned to the name at [nameStart, nameEnd); returns its range or undefined. */
function readAssignedValue(
  text: string,
  nameStart: number,
  nameEnd: number,
  isFlag: boolean,
): [number, number] | undefined {
  const before = text.charCodeAt(nameStart - 1)
  let cursor = nameEnd
  // <password>value</password>
  if (before === 60 && text.charCodeAt(cursor) === 62) {
    const close = text.indexOf('<', cursor + 1)
    if (close === -1 || close - cursor > 512) return undefined
    const start = skipBlanks(text, cursor + 1, 8)
    let end = close
    while (end > start && /\s/.test(text.charAt(end - 1))) end--
    return end > start ? [start, end] : undefined
  }
  const closing = text.charCodeAt(cursor)
  const quotedName = (closing === 34 || closing === 39) && text.charCodeAt(nameStart - 1) === closing
  if (closing === 34 || closing === 39) cursor++
  if (text.charCodeAt(cursor) === 93) cursor++
  cursor = skipBlanks(text, cursor, 8)
  // `setProperty("X_TOKEN", "value")`, `Header.Set("X-Api-Key", "value")`: a quoted name, a comma, a quoted value.
  if (quotedName && text.charCodeAt(cursor) === 44) {
    cursor = skipBlanks(text, cursor + 1, 8)
    const quote = text.charCodeAt(cursor)
    return quote === 34 || quote === 39 || quote === 96 ? readQuoted(text, cursor) : undefined
  }
  const afterOperator = readOperator(text, cursor, isFlag)
  if (afterOperator === -1) {
    // --password value
    if (!(isFlag && cursor > nameEnd)) return undefined
  } else {
    cursor = skipTypeAnnotation(text, skipBlanks(text, afterOperator, 8), text.charCodeAt(afterOperator - 1) === 58)
  }
  cursor = skipBlanks(text, cursor, 8)
  const quote = text.charCodeAt(cursor)
  if (quote === 34 || quote === 39 || quote === 96) return readQuoted(text, cursor)
  const start = cursor
  let end = start
  while (end < text.length && end - start < 1024 && !isValueEnd(text.charCodeAt(end))) end++
  // The sentence goes on after `TOKEN=abc.` or `password: abc:`.
  while (end > start && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 58)) end--
  return end > start ? [start, end] : undefined
}

/** The quoted string that opens at `open` (`"…"`, `'…'`, a backtick string), on one line, escapes skipped. */
function readQuoted(text: string, open: number): [number, number] | undefined {
  const quote = text.charCodeAt(open)
  const start = open + 1
  let end = start
  while (end < text.length && end - start < 4096) {
    const code = text.charCodeAt(end)
    if (code === quote || code === 10) break
    end += code === 92 ? 2 : 1
  }
  return text.charCodeAt(end) === quote && end > start ? [start, end] : undefined
}

/**
 * The assignment operators of the languages notes quote, longest first: `:::=`, `::=`, `:=`, `?=`, `+=`, `.=`, `||=`,
 * `??=`, `=>`, `<-`, `=` (not `==`, `=~`), `:` (not `::`, and not after a flag). Returns the index after it, or -1.
 */
function readOperator(text: string, at: number, isFlag: boolean): number {
  const first = text.charCodeAt(at)
  const second = text.charCodeAt(at + 1)
  if (first === 58) {
    let cursor = at
    while (text.charCodeAt(cursor) === 58 && cursor - at < 3) cursor++
    if (text.charCodeAt(cursor) === 61) return cursor + 1 // :=  ::=  :::=
    return cursor === at + 1 && !isFlag ? at + 1 : -1 // :
  }
  // `key != "literal"`, `token === '…'`: a credential compared with a literal is that literal.
  if ((first === 61 || first === 33) && second === 61)
    return comparedLiteral(text, at + (text.charCodeAt(at + 2) === 61 ? 3 : 2))
  if (first === 61) return second === 126 ? -1 : second === 62 ? at + 2 : at + 1 // = =>
  if ((first === 63 || first === 43 || first === 46) && second === 61) return at + 2 // ?= += .=
  if ((first === 124 || first === 63) && second === first && text.charCodeAt(at + 2) === 61) return at + 3 // ||= ??=
  if (first === 60 && second === 45) return at + 2 // <-
  // Prose: `the staging password is Zx8…`, `our API key was 2afd…`.
  if (!isFlag && (text.startsWith('is ', at) || text.startsWith('was ', at))) return at + (first === 105 ? 3 : 4)
  // `nethunt token - 'value'`: a dash between blanks, then a quoted value (a list item or prose otherwise).
  if ((first === 45 || first === 0x2013) && (second === 32 || second === 9)) {
    const quote = text.charCodeAt(skipBlanks(text, at + 1, 4))
    return quote === 34 || quote === 39 || quote === 96 ? at + 1 : -1
  }
  if (!isFlag) return readTypedDeclaration(text, at)
  return -1
}

function comparedLiteral(text: string, at: number): number {
  const quote = text.charCodeAt(skipBlanks(text, at, 4))
  return quote === 34 || quote === 39 || quote === 96 ? at : -1
}

/** `var discordToken string = "…"`, `token String = …`: a type word between the name and `=`. */
function readTypedDeclaration(text: string, at: number): number {
  let cursor = at
  while (cursor - at < 24 && /[A-Za-z0-9_.<>[\]*]/.test(text.charAt(cursor))) cursor++
  if (cursor === at || !/[A-Za-z]/.test(text.charAt(at))) return -1
  // `monkeylearn token = …`: a secret-looking word is the name being assigned, not a type.
  if (/pass|pwd|secret|token|key|auth|cred/i.test(text.slice(at, cursor))) return -1
  // A type is followed by blanks, then `=` and a blank or a quote: `string = "…"`, never `abc=` inside a value.
  const equals = skipBlanks(text, cursor, 4)
  if (equals === cursor || text.charCodeAt(equals) !== 61) return -1
  return /[\s"'`]/.test(text.charAt(equals + 1)) ? equals + 1 : -1
}

/** After `name:` a type may follow before the value: `token: string = "…"`, `key: &str = "…"`. */
function skipTypeAnnotation(text: string, at: number, afterColon: boolean): number {
  if (!afterColon || !/[A-Za-z&]/.test(text.charAt(at))) return at
  const after = readTypedDeclaration(text, text.charCodeAt(at) === 38 ? at + 1 : at)
  return after === -1 ? at : skipBlanks(text, after, 8)
}

/** Names that say the value next to them is a digest, an id, a location or prose, not a credential. */
const NOT_A_CREDENTIAL_NAME: ReadonlySet<string> = new Set([
  'signature',
  'sig',
  'hash',
  'checksum',
  'digest',
  'integrity',
  'sha',
  'sha1',
  'sha256',
  'sha512',
  'md5',
  'etag',
  'nonce',
  'salt',
  'iv',
  'id',
  'uuid',
  'guid',
  'commit',
  'ref',
  'rev',
  'revision',
  'version',
  'tag',
  'build',
  'data',
  'image',
  'img',
  'src',
  'href',
  'url',
  'uri',
  'path',
  'file',
  'name',
  'title',
  'host',
  'domain',
  'email',
  'user',
  'username',
  'resolution',
  'content',
  'body',
  'text',
  'message',
  'msg',
  'type',
  'class',
  'style',
  'the',
  'a',
  'an',
  'is',
  'was',
  'of',
  'in',
  'on',
  'at',
  'to',
  'from',
  'and',
  'or',
  'with',
  'for',
  'by',
  'as',
  'see',
  'run',
  'printed',
  'found',
  'value',
  'h1',
  'sum',
  'fingerprint',
  'thumbprint',
  'cursor',
  'page',
  'trace',
  'span',
  'request',
  'session',
  'correlation',
  'container',
  'pod',
  'node',
  'branch',
  'sri',
  'hmac',
  'public',
  'pub',
  'cid',
  'ipfs',
  'magnet',
  'accessor',
])

/** How long a run of token characters must be to be a credential. */
const TOKEN_RUN_MIN = 16

/** Characters a token can be made of: base64, URL-safe base64, and the separators of prefixed formats. */
const TOKEN_CODES = new Uint8Array(128)
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/_.~-') TOKEN_CODES[c.charCodeAt(0)] = 1

function isTokenCode(code: number): boolean {
  return code < 128 && TOKEN_CODES[code] === 1
}

/**
 * The gitleaks-style semi-generic rule without a keyword list: a word (a provider's name, `checkvist:`, `mixpanel`)
 * right before a value that is visibly random. Found by scanning runs of token characters once, then reading the
 * name backwards from each run: linear, no regex backtracking.
 */
const namedRandomValueRule: SecretRule = {
  id: 'generic-named-token',
  description: 'Random token next to a name',
  keywords: [],
  priority: GENERIC - 1,
  find(text, emit) {
    // Each maximal run of token characters of TOKEN_RUN_MIN or more, in one pass (what /[A-Za-z0-9+/_.~-]{16,}/g
    // finds; the regex retried every start inside a shorter run, the bulk of a full check's secret scan).
    for (let i = 0; i < text.length;) {
      if (!isTokenCode(text.charCodeAt(i))) {
        i++
        continue
      }
      const at = i
      while (i < text.length && isTokenCode(text.charCodeAt(i))) i++
      if (i - at < TOKEN_RUN_MIN) continue
      let end = i
      // Base64 padding ends a value; an `=` inside a run is an assignment (`NAME=value`), which starts a new run.
      let padded = end
      while (padded - end < 2 && text.charCodeAt(padded) === 61) padded++
      if (padded > end && !isTokenCode(text.charCodeAt(padded)) && text.charCodeAt(padded) !== 61) end = padded
      // The sentence's period or dash is not part of the value.
      let valueEnd = end
      while (valueEnd > at && (text.charCodeAt(valueEnd - 1) === 46 || text.charCodeAt(valueEnd - 1) === 45)) valueEnd--
      const truncated = text.startsWith('..', valueEnd) || text.charCodeAt(valueEnd) === 0x2026
      const length = valueEnd - at
      if (
        !truncated &&
        length >= 16 &&
        length <= 200 &&
        /[A-Za-z0-9]/.test(text.charAt(at)) &&
        isNamedRandomValue(text, at, valueEnd)
      ) {
        emit(at, valueEnd)
      }
    }
  },
}

function isNamedRandomValue(text: string, start: number, end: number): boolean {
  // Backwards: an optional quote, a separator (`: `, `=`, ` - `, blanks), an optional quote, then the name.
  let cursor = start - 1
  const quote = text.charCodeAt(cursor)
  const quoted = quote === 34 || quote === 39 || quote === 96
  if (quoted) {
    if (text.charCodeAt(end) !== quote) return false
    cursor--
  }
  const separatorEnd = cursor
  while (separatorEnd - cursor < 6 && /[\s:=>-]/.test(text.charAt(cursor)) && text.charCodeAt(cursor) !== 10) cursor--
  const separator = text.slice(cursor + 1, separatorEnd + 1)
  if (separator.length === 0 || !/^\s*(?:[:=]|:=|=>|-)?\s*$/.test(separator) || separator.includes('--')) return false
  // `mux 'value'`: a bare blank separates a name only from a quoted value, and prose quotes code in backticks.
  if (/^\s+$/.test(separator) && (!quoted || quote === 96)) return false
  if (text.charCodeAt(cursor) === 34 || text.charCodeAt(cursor) === 39) cursor--
  const nameEnd = cursor + 1
  while (cursor >= 0 && nameEnd - cursor <= 48 && isNameCode(text.charCodeAt(cursor))) cursor--
  const name = text.slice(cursor + 1, nameEnd)
  if (name.length < 3 || !/^[A-Za-z]/.test(name) || /^\d/.test(name)) return false
  const words = splitNameWords(name)
  if (words.length === 0 || words.some((word) => NOT_A_CREDENTIAL_NAME.has(word) || NEUTRAL_WORDS.has(word)))
    return false
  // The value is cut only now: most runs of token characters have no name before them (a path, a long word).
  const value = text.slice(start, end)
  return isStronglyRandom(value) && fitsNamedFormat(name, value)
}

/** A value no one types by hand: long, mixed, high entropy, and neither a hash, a path, a domain nor words. */
function isStronglyRandom(value: string): boolean {
  if (isPlaceholder(value, 4) || isReference(value) || isIdentifierLike(value) || isBase64Filler(value)) return false
  if (isLabelledHash(value) || /^[a-f0-9-]+$/i.test(value) || /\.[a-z]{2,6}$/i.test(value) || value.includes('//'))
    return false
  // `8000/v1/chat/completions`: a path has words between its slashes.
  if (/(?:^|\/)[a-z_]{3,}(?:\/|$)/.test(value)) return false
  const classes = charClasses(value)
  if (!classes.digit || !classes.lower) return false
  const entropy = shannonEntropy(value)
  if (classes.upper) return value.length >= 16 && entropy >= 3.6
  return value.length >= 20 && entropy >= 3.8 && letterDigitTurns(value) >= 4
}

/** All rules, most specific first. */
export const SECRET_RULES: readonly SecretRule[] = [
  ...PROVIDER_RULES,
  ...STRUCTURAL_RULES,
  ...providerKeywordRules,
  ...webhookRules,
  nugetPasswordRule,
  hexPrivateKeyRule,
  genericAssignmentRule,
  namedRandomValueRule,
]
