/**
 * Error text normalized for matching: what varies between two runs of the same failure (numbers, user paths, hex ids,
 * line:column, quotes, ANSI colour codes, timestamps) is removed, and what tells one failure from its near-twin is
 * kept: the file a path names (its basename, unless the path is a stack-frame location or a test file), network
 * addresses with their port (`127.0.0.1:6379`, `::1:27017`), package names under node_modules, URL hosts. The file a
 * module was `imported from` is the user's, dropped like a stack frame's. Applied to the indexed trigger and body and
 * to every query; `matchableError` adds the words search and recall match on (equivalent error words, MARKER_WORDS).
 *
 * Every pattern here is applied to one whitespace-delimited token at a time or is a plain character scan, so the
 * work is linear in the text (a test feeds it a 1 MB log).
 */
import { equivalentWords, serviceOfPort } from './error-words.js'
import { owned } from './owned.js'

// ESC [ … final byte (SGR colours, cursor moves) and OSC hyperlinks.
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g
const CLOCK = /\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\b/g
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi
const HEX_ADDR = /\b0x[0-9a-f]+\b/gi
// A hex run of 7+ characters with at least one digit and one letter (commit ids, hashes, object ids).
const HEX_ID = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi
const URL_RE = /^[a-z][a-z0-9+.-]*:\/\/([^/\s?#]*)\S*$/i
// A run of path characters holding a slash or backslash (with a Windows drive before it), starting where such a run
// starts: the lookbehind keeps the scan linear (a run that holds no slash is tried once, not from each character).
const PATHISH = /(?<![\w.@~+-])(?:[A-Za-z]:)?[\w.@~+-]*[/\\][\w.@~+/\\-]*/g
// A bare file name at a position (`index.js:12:5`, tsc's `a.ts(4,2)`), and a test file named alone: both are the user's, not the error's.
const BARE_FILE_AT = /(?<![\w.@~+-])[\w@~+-][\w.@~+-]*\.[A-Za-z][A-Za-z0-9]{0,9}(?=:\d|\(\d+,\d+\))/g
const BARE_TEST_FILE = /(?<![\w.@~+-])[\w@~+-][\w.@~+-]*\.(?:test|spec)\.[cm]?[jt]sx?(?![\w.])/g
const LINE_COL = /:\d+(?::\d+)?\b/g
const NUMBER = /\b\d+(?:[.,]\d+)*(?:ms|s|m|h|kb|mb|gb|b|%)?\b/gi
const QUOTES = /[`'"‘’“”«»]/g
const DURATION_PAREN = /\(\s*\)/g
// A port named in words ("accepting TCP/IP connections on port 5432?", "port: 6379"): written as host:port, so it is
// kept and names its service like the port of an address.
const PORT_PHRASE = /\bport:? ?(\d{2,5})\b/gi
// A backslash before a quote is an escape (JSON or a shell printed the text), not a Windows path separator. Begun only
// where a run of backslashes begins: tried from each backslash of a long run, it took time in the square of its length
// (100,000 backslashes: 13 s).
const ESCAPED_QUOTE = /(?<!\\)\\+(?=["'])/g

// An address with an optional port, the whole token once wrapping punctuation is off: IPv4, the IPv6 forms Node and
// Python print (`::1`, `::`, `[::1]`, `::ffff:127.0.0.1`; "::1:27017" is address ::1, port 27017), localhost, or a
// dotless host name with a port (`redis:6379`, a compose service).
const IPV4 = /^(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{2,5}))?$/
const IPV6_ADDRESS = /^\[?(::1|::|::ffff:[\d.]+|fe80::[0-9a-f:%\w]{0,40})\]?(?::(\d{2,5}))?$/i
const HOST_PORT = /^(localhost|[a-z][\w-]{0,40}):(\d{2,5})$/i
// Go's dialer ends an address with a colon: "dial tcp 172.24.0.2:5432: connect: connection refused".
const WRAP = /^[\s([{<'"`‘“]*(.*?)[\s)\]}>'"`’”,;:.!?]*$/s

/** The words matchableError adds to a text (without ANSI codes): its equivalent phrases' canonical words, its markers. */
function addedWords(plain: string): string[] {
  const words = equivalentWords(plain)
  if (EXTENSIONLESS_MODULE.test(plain)) words.push(EXTENSIONLESS)
  if (unresolvedUnqualified(plain)) words.push(UNQUALIFIED_HOST)
  return words
}

/**
 * The words matchableError adds that tell a failure from its near-twin by what it says, not by its wording: a trigger
 * holding one is recalled only by a failure that holds it too (src/core/recall-rank.ts ruledOut).
 * - `ipv6`: the address refused is IPv6 only (`::1:27017`), not every address of the host;
 * - `extensionless`: a module path given without its file extension (`Cannot find module '/app/dist/routes/users'`),
 *   which Node's ES module loader does not add, unlike a missing package or a file named in full;
 * - `remotehost`: an address of another machine or container (`172.18.0.2`, `postgres:5432`), not this one's
 *   (`localhost`, `127.0.0.1`, `::1`): a server down next door is not a server that listens elsewhere;
 * - `unqualifiedhost`: a name that did not resolve has no domain (`getaddrinfo ENOTFOUND redis`), as a compose service
 *   or a container is named, unlike a host on the internet (`getaddrinfo EAI_AGAIN registry.npmjs.org`).
 */
export const IPV6_WORD = 'ipv6'
export const EXTENSIONLESS = 'extensionless'
export const REMOTE_WORD = 'remotehost'
export const UNQUALIFIED_HOST = 'unqualifiedhost'
export const MARKER_WORDS: readonly string[] = [IPV6_WORD, EXTENSIONLESS, REMOTE_WORD, UNQUALIFIED_HOST]

interface Address {
  host: string
  port: string | undefined
  /** The `ipv6` marker: an IPv6 address of one family (not `::`, not an IPv4-mapped unspecified address). */
  ipv6: boolean
  /** A loopback address (`127.0.0.1`, `::1`, `::ffff:127.0.0.1`, `localhost`): this machine, reached as a client. */
  loopback: boolean
  /** The unspecified address (`::`, `0.0.0.0`, `::ffff:0.0.0.0`): no one address; neither loopback nor another machine's. */
  unspecified: boolean
}

function parseAddress(core: string): Address | undefined {
  if (core.length > 64) return undefined
  let m = IPV6_ADDRESS.exec(core)
  if (m) {
    const host = m[1] as string
    // `::ffff:0.0.0.0` is 0.0.0.0 mapped into IPv6, and is read as 0.0.0.0 is.
    const mappedAny = /^::ffff:0\.0\.0\.0$/i.test(host)
    return {
      host,
      port: m[2],
      // `::` is the unspecified address (a server listening on every address, `listen EADDRINUSE :::3000`), like
      // 0.0.0.0: of no one family, so not the `ipv6` marker, which says the refused address is IPv6 only.
      ipv6: host !== '::' && !mappedAny,
      loopback: host === '::1' || /^::ffff:127\./i.test(host),
      unspecified: host === '::' || mappedAny,
    }
  }
  m = IPV4.exec(core)
  if (m) {
    const host = m[1] as string
    return { host, port: m[2], ipv6: false, loopback: /^127\./.test(host), unspecified: host === '0.0.0.0' }
  }
  m = HOST_PORT.exec(core)
  // Node prefixes its warnings with its process id, `(node:10576) UnhandledPromiseRejectionWarning`: no host, no port.
  if (m && (m[1] as string).toLowerCase() !== 'node') {
    const host = m[1] as string
    return { host, port: m[2], ipv6: false, loopback: host.toLowerCase() === 'localhost', unspecified: false }
  }
  return undefined
}

/** The words an address stands for in the index: localhost, ipv6, the port, the service of a well-known port. */
function addressWords(a: Address): string {
  // "port 5432" in words reads as host `port`, port 5432: no host at all.
  const named = a.host.toLowerCase() !== 'port'
  const literal = a.ipv6 || /^\d/.test(a.host)
  // `0.0.0.0` is this machine: bound, every IPv4 address of it; reached as a client (`connect ECONNREFUSED
  // 0.0.0.0:5432`, `http://0.0.0.0:8000`), its loopback. `::` is this machine too, but printed it is almost always
  // where a server bound (Node's default, `listen EADDRINUSE :::3000`), a failure older Node prints with no address
  // at all: a `localhost` there is a word the same failure often lacks, so `::` gives only its port.
  const thisMachine = a.loopback || (a.unspecified && a.host !== '::')
  const host = thisMachine ? 'localhost' : a.unspecified || literal || !named ? '' : a.host
  const words = [host, a.ipv6 ? IPV6_WORD : '']
  if (!a.loopback && !a.unspecified && named && (literal || a.port)) words.push(REMOTE_WORD)
  if (a.port) words.push(`port${a.port}`, serviceOfPort(a.port) ?? '')
  return words.filter(Boolean).join(' ')
}

// Files whose name is the same on every machine and says what failed even without an extension.
const NAMED_FILE =
  /^(?:Dockerfile|Makefile|Gemfile|Procfile|Jenkinsfile|Vagrantfile|Rakefile|Pipfile|CODEOWNERS|\.[\w.-]+)$/
const SYSTEM_DIR = /^\/(?:usr|bin|sbin|etc|opt|lib|lib64|var)\//
// The `lib/node_modules` of an install prefix: the system's (`/usr`, `/usr/local`, Homebrew's `/opt/homebrew`), nvm's
// and volta's per version, npm's `~/.npm-global` or `~/.local`. A package named `lib` in a monorepo
// (`/home/me/app/packages/lib/node_modules`) is a project's.
const GLOBAL_MODULES =
  /^(?:\/usr(?:\/local)?|\/opt\/[\w.-]+|\S*\/\.nvm\/versions\/node\/[^/]+|\S*\/\.volta\/tools\/image\/node\/[^/]+|\S*\/\.npm-global|\S*\/\.local)\/lib\/node_modules(?:\/|$)/
const TEST_FILE = /(?:\.(?:test|spec)\.[cm]?[jt]sx?|_test\.(?:go|py)|^test_[\w-]+\.py)$/

/**
 * What a path leaves behind: nothing for a stack-frame location (followed by :line or tsc's (line,col)) or a test file
 * (the user's own
 * test names); otherwise its basename when that names a file (an extension, a well-known name, or a system binary:
 * `/usr/bin/env`). Directories and the user's machine (home, checkout) go.
 */
function keepOfPath(path: string, followedByLine: boolean): string {
  // node_modules/<pkg> and node_modules/@scope/<pkg>: the package name is the informative part of such a path (of a
  // path that ends at node_modules, nothing but whether it is global).
  const nm = path.endsWith('/node_modules') ? path.length - 12 : path.lastIndexOf('node_modules/')
  if (nm >= 0) {
    const [scope = '', name = ''] = path.slice(nm + 13).split('/')
    // Under a prefix's `lib` (`/usr/local/lib/node_modules/…`, `/usr/lib/node_modules`, nvm's `…/lib/node_modules`) it is
    // a global install, and says so; a project's own (`/usr/src/app/node_modules`, a container's workdir) does not.
    const global = GLOBAL_MODULES.test(path) ? 'node_modules ' : ''
    return ` ${global}${scope.startsWith('@') ? `${scope} ${name}` : scope} `
  }
  if (followedByLine) return ' '
  const base = path.split(/[\\/]/).filter(Boolean).pop() ?? ''
  if (!base || TEST_FILE.test(base)) return ' '
  const named = /\.[A-Za-z0-9]{1,10}$/.test(base) || NAMED_FILE.test(base) || SYSTEM_DIR.test(path)
  return named ? ` ${base} ` : ' '
}

// A token of ASCII letters, `_` and `-`, with at most a trailing `,`, `;`, `!` or `?`: nothing below can change it (no
// digit, colon, slash, dot, quote or bracket for a pattern to hold on to). Most words of a body are such tokens, and
// skipping the patterns for them halves the normalization of a store.
const PLAIN_WORD = /^[A-Za-z_-]+[,;!?]?$/

// What normalizeToken made of each token, per address style: a store's bodies say the same tokens again and again
// (`npm`, "fails.", `(see`, `/var/run/docker.sock`), and a token's fourteen patterns cost far more than a lookup. A
// long token is a slice that would keep its whole text alive in the memo (a 100,000-learning rebuild would hold every
// body), so it is kept as a copy of its own (core/owned.ts), up to MAX_MEMO_CHARS. Bounded like terms.ts stems.
const tokenMemo = new Map<(a: Address) => string, Map<string, string>>()
const MAX_MEMO = 16_384
/** Tokens longer than this are normalized each time: a URL or a minified line is rarely said twice. */
export const MAX_MEMO_CHARS = 128

function normalizeToken(token: string, address: (a: Address) => string): string {
  if (PLAIN_WORD.test(token)) return token
  if (token.length > MAX_MEMO_CHARS) return normalizeOnce(token, address)
  let memo = tokenMemo.get(address)
  if (!memo) tokenMemo.set(address, (memo = new Map()))
  let out = memo.get(token)
  if (out === undefined) {
    out = normalizeOnce(token, address)
    if (memo.size >= MAX_MEMO) memo.clear()
    memo.set(owned(token), (out = owned(out)))
  }
  return out
}

// An ssh remote or a mail address, `git@github.com:owner/repo.git`: the account is the user's, the host tells (for
// matching; people read the text as it was).
const SCP_REMOTE = /^[\w.+-]{1,64}@((?:[a-z0-9-]{1,63}\.){1,10}[a-z]{2,63})(?::\S*)?$/i

/** A host as words: its name without the top-level domain (`github.com` → github, `registry.npmjs.org` → registry.npmjs). */
function hostName(host: string): string {
  const dot = host.lastIndexOf('.')
  return dot > 0 && /^[a-z]{2,63}$/i.test(host.slice(dot + 1)) ? host.slice(0, dot) : host
}

// Prisma quotes an address's host and port apart: "Can't reach database server at `localhost`:`5432`".
const QUOTED_HOST_PORT = /`([\w.-]{1,64})`:`(\d{2,5})`/g

function normalizeOnce(token: string, address: (a: Address) => string): string {
  // Only short tokens can be an address or a URL worth a host (WRAP's lazy middle is quadratic on a long token).
  if (token.includes('`:`')) token = token.replace(QUOTED_HOST_PORT, '$1:$2')
  const { 1: core = '' } = token.length <= 256 ? (WRAP.exec(token) ?? []) : []
  const a = core ? parseAddress(core) : undefined
  if (a) return ` ${address(a)} `
  const url = URL_RE.exec(core)
  // A URL without a host (`unix:///var/run/docker.sock`, `file:///app/x.js:3:7`) names a file: what a path leaves.
  if (url && !url[1]) {
    const path = core.slice(core.indexOf('://') + 3)
    const at = /(?::\d+)+$/.exec(path)
    return keepOfPath(at ? path.slice(0, at.index) : path, !!at)
  }
  if (url) {
    const host = url[1] ?? ''
    const at = host.lastIndexOf('@')
    const bare = at >= 0 ? host.slice(at + 1) : host
    const hostAddress = parseAddress(bare)
    const name = bare.replace(/:\d+$/, '')
    return ` ${hostAddress ? address(hostAddress) : address === addressWords ? hostName(name) : name} `
  }
  const remote = address === addressWords ? SCP_REMOTE.exec(core) : null
  if (remote) return ` ${hostName(remote[1] as string)} `
  return token
    .replace(ESCAPED_QUOTE, '')
    .replace(UUID, ' ')
    .replace(HEX_ADDR, ' ')
    .replace(PATHISH, (m: string, offset: number, whole: string) =>
      keepOfPath(m, /^(?::\d|\(\d)/.test(whole.slice(offset + m.length, offset + m.length + 2))),
    )
    .replace(BARE_FILE_AT, ' ')
    .replace(BARE_TEST_FILE, ' ')
    .replace(LINE_COL, ' ')
    .replace(HEX_ID, ' ')
    .replace(NUMBER, ' ')
    .replace(QUOTES, '')
    .replace(DURATION_PAREN, ' ')
}

/** One whitespace-free token as normalizeError leaves it (the unit both roads of normalizeWith apply; for tests). */
export function normalizeErrorToken(token: string): string {
  return normalizeToken(token, verbatim)
}

// A token (a run of non-white space) that is not a PLAIN_WORD: the only ones normalizeToken can change.
const CHANGEABLE_TOKEN = /(?<!\S)(?![A-Za-z_-]+[,;!?]?(?!\S))\S+/g
// What `/[ \t]+/g → ' '` changes: a run of two or more, or a tab. Most lines have neither, and are left as they are.
const WIDE_SPACE = /[ \t]{2,}|\t/g
const LINE_BREAK = /\r?\n/

/**
 * The text normalized line by line: each line's tokens normalized, runs of spaces and tabs made one space, trimmed,
 * blank lines dropped. The patterns run once over the whole text, not once per line (no pattern, token or replacement
 * holds a line break, so the lines come out the same): on a store's bodies the per-line calls and the strings they made
 * were the largest part of a rebuild's normalization.
 */
function normalizeWith(text: string, address: (a: Address) => string): string {
  const lines = (text.includes('\u001b') ? text.replace(ANSI, '') : text)
    .replace(ISO_TIME, ' ')
    .replace(CLOCK, ' ')
    .replace(PORT_PHRASE, 'port:$1')
    .replace(CHANGEABLE_TOKEN, (t) => normalizeToken(t, address))
    .replace(WIDE_SPACE, ' ')
    .split(LINE_BREAK)
  let out = ''
  for (const l of lines) {
    const t = l.trim()
    if (t) out = out ? `${out}\n${t}` : t
  }
  return out
}

const verbatim = (a: Address) => (a.ipv6 && a.port ? `[${a.host}]:${a.port}` : a.port ? `${a.host}:${a.port}` : a.host)

/** The error text with run-specific details removed and whitespace collapsed (one line per input line), for people. */
export function normalizeError(text: string): string {
  return normalizeWith(text, verbatim)
}

/**
 * The error text as search and recall match it: normalized, addresses as words (`localhost ipv6 port27017
 * mongodb`), and the canonical word of every equivalent phrase it contains (src/core/data/error-words.json: "Errno
 * 111" and "Connection refused" both add `econnrefused`) on a last line.
 */
export function matchableError(text: string): string {
  const plain = text.includes('\u001b') ? text.replace(ANSI, '') : text
  const canonical = addedWords(plain)
  const norm = singleFamilyIpv6(plain, normalizeWith(text.replace(IMPORTED_FROM, '$1'), addressWords))
  return canonical.length ? `${norm}\n${canonical.join(' ')}` : norm
}

// "Cannot find module '<path>'" with an absolute or relative path (not a package name, not a package's subpath) whose
// last segment has no extension a module loader reads.
const EXTENSIONLESS_MODULE =
  /\bcannot find module ['"`](?:[a-z]:[\\/]|file:\/\/|\.{0,2}[\\/])(?:[^'"`\s]{0,400}[\\/])?[^'"`\s\\/]*?(?<!\.(?:[cm]?[jt]sx?|json|node|wasm))['"`]/i
// The host a name lookup failed for: Node's getaddrinfo (its message, or its error object's `hostname` beside `syscall:
// 'getaddrinfo'`), Go's resolver, libpq, curl and git.
const UNRESOLVED_HOST =
  /\b(?:getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|lookup|could not translate host name|could not resolve host:?|hostname:) ["'`]?([a-z0-9][\w.-]{0,252})/gi
function unresolvedUnqualified(text: string): boolean {
  if (!/getaddrinfo|lookup|resolve host|translate host/i.test(text)) return false
  for (const m of text.matchAll(UNRESOLVED_HOST)) {
    const host = (m[1] as string).replace(/\.+$/, '')
    if (!host.includes('.') && host.toLowerCase() !== 'localhost') return true
  }
  return false
}
// The file a module was imported from is the user's (Node: "Cannot find module '…' imported from /app/src/index.js"),
// a location like a stack frame's.
const IMPORTED_FROM = /\b(imported from) \S{1,1000}/gi

// An IPv6 address names a failure apart only when the same port is not named at an IPv4 address too ("connect
// ECONNREFUSED 127.0.0.1:27017, connect ECONNREFUSED ::1:27017": every address of localhost refused, not only the IPv6
// one). A host name with the port (`localhost:27017` in a driver's topology) names no family.
const IPV4_PORT = /(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}:(\d{2,5})\b/g
// addressWords puts `remotehost` between the marker and the port of an address not this machine's (`[fe80::1]:5432`).
const IPV6_PORT = /\bipv6 ((?:remotehost )?)port(\d{2,5})\b/g
function singleFamilyIpv6(text: string, norm: string): string {
  if (!norm.includes('ipv6 ')) return norm
  const ipv4 = new Set<string>()
  for (const m of text.matchAll(IPV4_PORT)) ipv4.add(m[1] as string)
  return ipv4.size
    ? norm.replace(IPV6_PORT, (m, remote: string, port: string) => (ipv4.has(port) ? `${remote}port${port}` : m))
    : norm
}

/** The narrowest width a console that wraps its lines is taken to have (Windows' cmd: 80 or 120 columns). */
const MIN_WRAP_WIDTH = 60

/** A log line's prefix: its first word and the space after it (`npm ERR! `, `[INFO] `, `remote: `). */
const LEAD = /^(\S{2,}) /

/**
 * A paste from a console that wraps at its width cuts words in two where a line reaches it (`connect ECO` / `NNREFUSED
 * 127.0.0.1:27017`): when the longest lines all have one length, at least two of them and none longer, each line of
 * that length is joined to the next as it was printed. A paste that was not wrapped has lines of every length. A next
 * line that starts with the same prefix as the line it would continue is a line of its own (two `npm ERR!` lines of one
 * length are formulaic output, not a wrap: joined, they made `foundnpm`).
 */
function unwrapped(lines: string[]): string[] {
  let width = 0
  let atWidth = 0
  for (const l of lines)
    if (l.length > width) [width, atWidth] = [l.length, 1]
    else if (l.length === width) atWidth++
  if (width < MIN_WRAP_WIDTH || atWidth < 2) return lines
  const out: string[] = []
  let pending = ''
  let lead: string | undefined
  for (const l of lines) {
    if (pending && lead !== undefined && l.startsWith(lead)) {
      out.push(pending)
      pending = ''
    }
    if (!pending) lead = LEAD.exec(l)?.[0]
    pending += l
    if (l.length === width) continue
    out.push(pending)
    pending = ''
  }
  if (pending) out.push(pending)
  return out
}

/** Lines that usually carry the error in a log: error names, failures, assertions, panics. */
const INFORMATIVE =
  /\b(?:error|errors|exception|failed|failure|fail|fatal|panic|cannot|can't|unable|not found|undefined|expected|received|assertion|refused|denied|invalid|unexpected|missing|timed? ?out|warning|traceback|ERR_[A-Z_]+|E[A-Z]{3,})\b|✗|×|✕|FAIL/i

/**
 * A stack frame of the runtime's own code: Node's (`at Module._load (node:internal/modules/cjs/loader:1023:12)`, `at
 * async ModuleLoader.import (node:internal/…)`, `at node:internal/main/run_main_module:28:49`) and Python's frozen
 * import machinery (`File "<frozen importlib._bootstrap>", line 1050, in _gcd_import`). The same frames stand under
 * every failure of their kind, so they identify none; their function names (`Module.load`, `ModuleLoader.import`)
 * only gave a failure words of a learning about modules that it does not share (docs/matching.md, "The second
 * tuning split, and runtime frames").
 */
const FRAME_AT = /^\s*at\s+(?:async\s+)?/
const FROZEN_FRAME = /^\s*File "<frozen [^>"]*>", line \d+/
const isRuntimeLocation = (loc: string) => loc.startsWith('node:') || loc.startsWith('internal/')

/**
 * Whether a line is a stack frame of the runtime's own code (string scans only: linear in the line). As Node prints
 * them too: in colour (a TTY or FORCE_COLOR greys out its own frames) and, on the last frame of an error that has
 * properties of its own (`code: 'MODULE_NOT_FOUND'`), with ` {` after it.
 */
function isRuntimeFrame(raw: string): boolean {
  const line = raw.includes('\u001b') ? raw.replace(ANSI, '') : raw
  if (FROZEN_FRAME.test(line)) return true
  const at = FRAME_AT.exec(line)
  if (!at) return false
  let rest = line.slice(at[0].length).trimEnd()
  if (rest.endsWith(' {')) rest = rest.slice(0, -2).trimEnd()
  if (!rest.endsWith(')')) return !/\s/.test(rest) && isRuntimeLocation(rest)
  return isRuntimeLocation(rest.slice(rest.lastIndexOf('(') + 1))
}

/** The lines of a query without the runtime's own stack frames (isRuntimeFrame), unless nothing else is left. */
function withoutRuntimeFrames(lines: string[]): string[] {
  const kept = lines.filter((l) => !isRuntimeFrame(l))
  return kept.some((l) => l.trim()) ? kept : lines
}

/** Text beyond this is not read at all (stdin is already capped at 8 MB). */
export const MAX_QUERY_CHARS = 4 * 1024 * 1024
export const MAX_QUERY_LINES = 40
export const MAX_LINE_CHARS = 500
export const MAX_QUERY_TOKENS = 64

/**
 * A bounded query out of any text (a 1 MB pasted log included): the runtime's own stack frames go (isRuntimeFrame); when
 * the text then has more than MAX_QUERY_LINES lines,
 * only the distinct lines that look like errors are kept (first occurrences, in order, at most MAX_QUERY_LINES),
 * falling back to the first lines; each line is cut to MAX_LINE_CHARS, and the result to MAX_QUERY_TOKENS × 4 words
 * (search then keeps MAX_QUERY_TOKENS distinct index terms).
 */
export function boundQuery(text: string): string {
  const head = text.length > MAX_QUERY_CHARS ? text.slice(0, MAX_QUERY_CHARS) : text
  let lines = withoutRuntimeFrames(unwrapped(head.split(/\r?\n/)))
  if (lines.length > MAX_QUERY_LINES) {
    const seen = new Set<string>()
    const picked: string[] = []
    for (const raw of lines) {
      const l = raw.slice(0, MAX_LINE_CHARS).replace(ANSI, '').trim()
      if (!l || seen.has(l) || !INFORMATIVE.test(l)) continue
      seen.add(l)
      picked.push(l)
      if (picked.length >= MAX_QUERY_LINES) break
    }
    lines = picked.length ? picked : lines.slice(0, MAX_QUERY_LINES)
  }
  const seen = new Set<string>()
  // The words matchableError adds (error phrases' canonical words, markers), found before repeated words go:
  // "connection to server … failed: Connection refused" keeps "refused" alone once "connection" has been seen.
  const words = addedWords(lines.map((l) => l.slice(0, MAX_LINE_CHARS).replace(ANSI, '')).join('\n'))
  for (const line of lines)
    for (const w of line.slice(0, MAX_LINE_CHARS).split(/\s+/)) {
      const k = w.toLowerCase()
      if (!w || seen.has(k)) continue
      seen.add(k)
      words.push(w)
      if (words.length >= MAX_QUERY_TOKENS * 4) return words.join(' ')
    }
  return words.join(' ')
}
