import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import {
  MAX_QUERY_TOKENS,
  MAX_MEMO_CHARS,
  boundQuery,
  matchableError,
  normalizeError,
  normalizeErrorToken,
} from '../../../src/core/normalize-error.js'
import { MEMO_TOKEN_CHARS, owned } from '../../../src/core/owned.js'

describe('normalizeError', () => {
  test.each([
    ['numbers', 'expected 14 to be 15', 'expected to be'],
    ['line:column', 'at foo (index:12:34)', 'at foo (index )'],
    ['absolute path and position', 'Error at /home/ada/proj/src/api.ts:42:7', 'Error at'],
    ['relative test path', 'FAIL test/api.test.ts > api', 'FAIL > api'],
    ['windows path', 'at C:\\Users\\ada\\proj\\index.js:3:1', 'at'],
    ['node_modules keeps the package', 'at /p/node_modules/vitest/dist/index.js:1:2', 'at vitest'],
    ['scoped package', 'in node_modules/@babel/core/lib/x.js', 'in @babel core'],
    [
      'a package in a system directory is a global install',
      "EACCES, unlink '/usr/local/lib/node_modules/resume-cli/index.js'",
      'EACCES, unlink node_modules resume-cli',
    ],
    [
      "a project's node_modules is no global install, even under /usr (a container's workdir)",
      'npm ERR! syscall mkdir npm ERR! path /usr/src/app/node_modules',
      'npm ERR! syscall mkdir npm ERR! path',
    ],
    [
      "a global prefix's lib/node_modules, without a package",
      "EACCES: permission denied, access '/usr/local/lib/node_modules'",
      'EACCES: permission denied, access node_modules',
    ],
    [
      "nvm's prefix is a global install",
      "EACCES: permission denied, mkdir '/home/me/.nvm/versions/node/v18.17.0/lib/node_modules/pnpm'",
      'EACCES: permission denied, mkdir node_modules pnpm',
    ],
    [
      "a monorepo package named lib is a project's, not a global prefix",
      "EACCES: permission denied, mkdir '/home/me/app/packages/lib/node_modules/left-pad'",
      'EACCES: permission denied, mkdir left-pad',
    ],
    ['quotes', `Cannot access '__vi_import_0__' before "init" \`x\``, 'Cannot access __vi_import_0__ before init x'],
    ['commit ids', 'commit 3f2c1e9a is bad', 'commit is bad'],
    ['hex address', 'segfault at 0x7ffd1234', 'segfault at'],
    ['uuid', 'session 8c1f0d2e-1a2b-4c3d-9e8f-0123456789ab ended', 'session ended'],
    ['timestamps', '2026-11-20T12:00:00Z [12:01:02] started', '[ ] started'],
    ['ANSI colours', '\u001b[31mFAIL\u001b[39m \u001b[1mtests\u001b[22m', 'FAIL tests'],
    ['durations', 'Duration 1.23s (transform 12ms)', 'Duration (transform )'],
    ['addresses keep their port', 'connect ECONNREFUSED 127.0.0.1:5432', 'connect ECONNREFUSED 127.0.0.1:5432'],
    ['an IPv6 loopback and its port', 'connect ECONNREFUSED ::1:27017', 'connect ECONNREFUSED [::1]:27017'],
    ['urls keep their host', 'see https://user@example.com:8443/a/b?c=1 for details', 'see example.com for details'],
    [
      'the missing file keeps its basename',
      "ENOENT: no such file or directory, open '/home/ada/proj/config/app.json'",
      'ENOENT: no such file or directory, open app.json',
    ],
    [
      'a system binary keeps its name',
      '/usr/bin/env: python: No such file or directory',
      'env : python: No such file or directory',
    ],
    ['a directory goes', 'cd /home/ada/projects/thing failed', 'cd failed'],
    [
      'a port named in words is kept',
      'Is the server running on host "127.0.0.1" and accepting TCP/IP connections on port 5432?',
      'Is the server running on host 127.0.0.1 and accepting connections on port:5432',
    ],
    [
      'an escaped quote is not a path separator',
      'Query engine binary for current platform \\"linux-musl\\" could not be found',
      'Query engine binary for current platform linux-musl could not be found',
    ],
    ['keeps words', 'TypeError: undefined is not a function', 'TypeError: undefined is not a function'],
  ])('%s', (_what, input, expected) => {
    expect(normalizeError(input)).toBe(expected)
  })

  test('the same failure in two runs normalizes to the same text', () => {
    const a = "ReferenceError: Cannot access '__vi_import_0__' before initialization\n ❯ /home/a/p/test/api.test.ts:5:1"
    const b =
      "ReferenceError: Cannot access '__vi_import_0__' before initialization\n ❯ /tmp/ci-7731/test/users.test.ts:19:3"
    expect(normalizeError(a)).toBe(normalizeError(b))
  })
})

describe('matchableError', () => {
  test.each([
    [
      'a loopback port names its service',
      'connect ECONNREFUSED 127.0.0.1:6379',
      'connect ECONNREFUSED localhost port6379 redis\neconnrefused',
    ],
    [
      'IPv6 is a word',
      'connect ECONNREFUSED ::1:27017',
      'connect ECONNREFUSED localhost ipv6 port27017 mongodb\neconnrefused',
    ],
    [
      "Node's process id before a warning is no host and port",
      '(node:10576) UnhandledPromiseRejectionWarning: Error: connect ECONNREFUSED 127.0.0.1:27017',
      '(node ) UnhandledPromiseRejectionWarning: Error: connect ECONNREFUSED localhost port27017 mongodb\neconnrefused',
    ],
    [
      "the unspecified address :: (Node's listen on every address) is of no one family and names only its port",
      'Error: listen EADDRINUSE: address already in use :::3000',
      'Error: listen EADDRINUSE: address already in use port3000\neaddrinuse',
    ],
    [
      '0.0.0.0 is this machine: bound on every address of it',
      'Bind for 0.0.0.0:5432 failed: port is already allocated',
      'Bind for localhost port5432 postgres failed: port is already allocated\neaddrinuse',
    ],
    [
      '0.0.0.0 is this machine: reached as a client, its loopback',
      'Error: connect ECONNREFUSED 0.0.0.0:5432',
      'Error: connect ECONNREFUSED localhost port5432 postgres\neconnrefused',
    ],
    [
      '::ffff:0.0.0.0 is 0.0.0.0 mapped into IPv6, read as 0.0.0.0 is',
      'Error: connect ECONNREFUSED ::ffff:0.0.0.0:5432',
      'Error: connect ECONNREFUSED localhost port5432 postgres\neconnrefused',
    ],
    [
      'equivalent phrases add their canonical word',
      '[Errno 111] Connection refused',
      '[Errno ] Connection refused\neconnrefused',
    ],
    [
      'a port named in words names its service',
      'could not connect to server: Connection refused ... on port 5432?',
      'could not connect to server: Connection refused ... on port5432 postgres\neconnrefused',
    ],
    [
      "git's two line-ending warnings say the same",
      'warning: CRLF will be replaced by LF in a.txt.\nwarning: in the working copy of b.txt, LF will be replaced by CRLF',
      'warning: CRLF will be replaced by LF in a.txt.\nwarning: in the working copy of b.txt, LF will be replaced by CRLF\neolconversion',
    ],
    [
      "a postgres driver's error names postgres",
      'psycopg2.OperationalError: could not connect to server',
      'psycopg2.OperationalError: could not connect to server\npostgres',
    ],
    ['a phrase across blanks', 'No such  file or\tdirectory', 'No such file or directory\nenoent'],
    ['nothing to add', 'TypeError: x is not a function', 'TypeError: x is not a function'],
    [
      'IPv6 is no word when the same port is refused at an IPv4 address too',
      'connect ECONNREFUSED 127.0.0.1:27017, connect ECONNREFUSED ::1:27017',
      'connect ECONNREFUSED localhost port27017 mongodb connect ECONNREFUSED localhost port27017 mongodb\neconnrefused',
    ],
    [
      "IPv6 is no word when another machine's IPv6 address is refused at a port refused at an IPv4 address too",
      'connect ECONNREFUSED 10.0.0.5:5432, connect ECONNREFUSED [fe80::1]:5432',
      'connect ECONNREFUSED remotehost port5432 postgres connect ECONNREFUSED remotehost port5432 postgres\neconnrefused',
    ],
    [
      "a host name with the port (a driver's topology) names no family: IPv6 stays a word",
      "connect ECONNREFUSED ::1:27017 servers: Map { 'localhost:27017' }",
      'connect ECONNREFUSED localhost ipv6 port27017 mongodb servers: Map { localhost port27017 mongodb }\neconnrefused',
    ],
    [
      'a module path without its extension is a word; the importing file is dropped',
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/app/dist/routes/users' imported from /app/dist/index.js",
      'Error [ERR_MODULE_NOT_FOUND]: Cannot find module imported from\nmodulenotfound extensionless',
    ],
    [
      "a Windows path's last segment with no extension a loader reads",
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find module 'D:\\a\\node_modules\\kyber\\dist\\kyber512.service'",
      'Error [ERR_MODULE_NOT_FOUND]: Cannot find module kyber512.service\nmodulenotfound extensionless',
    ],
    [
      'a module path with its extension is no such word',
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/app/dist/lib/execute.mjs'",
      'Error [ERR_MODULE_NOT_FOUND]: Cannot find module execute.mjs\nmodulenotfound',
    ],
    [
      'a URL without a host is a path: its file is kept',
      'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?',
      'Cannot connect to the Docker daemon at docker.sock Is the docker daemon running?',
    ],
    ['a file URL at a line is a location', 'at file:///app/src/server.js:3:7', 'at'],
    [
      "Go's dialer ends an address with a colon",
      'dial tcp 172.24.0.2:5432: connect: connection refused',
      'dial tcp remotehost port5432 postgres connect: connection refused\neconnrefused',
    ],
    [
      "an ssh remote's account is the user's; its host is kept without the top-level domain",
      'git@github.com: Permission denied (publickey).',
      'github Permission denied (publickey).\neacces',
    ],
    [
      "a URL's host without the top-level domain",
      "fatal: unable to access 'https://github.com/owner/repo.git/': The requested URL returned error: 403",
      'fatal: unable to access github The requested URL returned error:',
    ],
    [
      "another machine's address is a word; this one's is localhost",
      'connection to server at "postgres" (172.18.0.2), port 5432 failed',
      'connection to server at postgres remotehost port5432 postgres failed\npostgres',
    ],
    [
      'a compose service with its port is another machine',
      'connect redis:6379',
      'connect redis remotehost port6379 redis',
    ],
    [
      "Prisma's quoted host and port are an address",
      "Can't reach database server at `localhost`:`5432`",
      'Cant reach database server at localhost port5432 postgres',
    ],
    [
      'a name without a domain that did not resolve is a word',
      'Error: getaddrinfo ENOTFOUND redis',
      'Error: getaddrinfo ENOTFOUND redis\nenotfound unqualifiedhost',
    ],
    [
      "Node's error object names the host too",
      "code: 'ENOTFOUND',\n  syscall: 'getaddrinfo',\n  hostname: 'postgres'",
      'code: ENOTFOUND,\nsyscall: getaddrinfo,\nhostname: postgres\nenotfound postgres unqualifiedhost',
    ],
    [
      'a host on the internet that did not resolve is no such word',
      'npm ERR! request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org',
      'npm ERR! request to registry.npmjs failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org\nenotfound',
    ],
    [
      "a package's own path is a package name, not a missing extension",
      "Error: Cannot find module 'webpack-cli/bin/config-yargs'",
      'Error: Cannot find module\nmodulenotfound',
    ],
  ])('%s', (_what, input, expected) => {
    expect(matchableError(input)).toBe(expected)
  })
})

// normalizeToken remembers what it made of each token: per address style, so the people's form and the matching form
// of one token stay apart whichever comes first, and again on the second time.
describe('the token memo', () => {
  test('a token normalized for people and for matching keeps each form, in either order and on repeat', () => {
    // 12 characters: a token the memo keeps (MEMO_TOKEN_CHARS).
    const text = 'connect 127.0.0.1:80'
    expect('127.0.0.1:80'.length).toBeLessThanOrEqual(MEMO_TOKEN_CHARS)
    expect(normalizeError(text)).toBe('connect 127.0.0.1:80')
    expect(matchableError(text)).toBe('connect localhost port80')
    expect(normalizeError(text)).toBe('connect 127.0.0.1:80')
    expect(matchableError(text)).toBe('connect localhost port80')
  })
  test('a longer token is remembered as well, in each form, and one past MAX_MEMO_CHARS is normalized each time', () => {
    const text = 'connect 127.0.0.1:27017'
    expect('127.0.0.1:27017'.length).toBeGreaterThan(MEMO_TOKEN_CHARS)
    for (let i = 0; i < 2; i++) {
      expect(matchableError(text)).toBe('connect localhost port27017 mongodb')
      expect(normalizeError(text)).toBe('connect 127.0.0.1:27017')
    }
    const long = `/home/me/${'x'.repeat(MAX_MEMO_CHARS)}/app.js`
    for (let i = 0; i < 2; i++) expect(matchableError(`open ${long} failed`)).toBe('open app.js failed')
  })
})

describe('owned', () => {
  test('gives the same characters, whatever their length', () => {
    for (const s of ['', 'abc', 'x'.repeat(MEMO_TOKEN_CHARS + 1), 'connect ECONNREFUSED 127.0.0.1:5432'.slice(8)])
      expect(owned(s)).toBe(s)
  })
})

describe('boundQuery', () => {
  test("an error phrase's canonical word survives the words said before it", () => {
    const q = boundQuery('connection to server at "db", port 5432 failed: Connection refused')
    expect(q.split(' ')).toContain('econnrefused')
  })
  test('a 1 MB log keeps the error lines and a bounded number of words', () => {
    const noise = Array.from({ length: 20000 }, (_, i) => `info line ${i} all good here ok`).join('\n')
    const log = `${noise}\nTypeError: foo is not a function\n${noise}`
    expect(log.length).toBeGreaterThan(1_000_000)
    const q = boundQuery(log.slice(0, 30000) + '\nError: Cannot find module vitest\n' + log)
    expect(q).toContain('Cannot find module vitest')
    expect(q.split(' ').length).toBeLessThanOrEqual(MAX_QUERY_TOKENS * 4)
  })
  test("the runtime's own stack frames go, the user's and their tools' stay", () => {
    const trace = [
      'Error: Cannot find module @rollup/rollup-linux-arm64-gnu.',
      '    at requireWithFriendlyError (/app/node_modules/rollup/dist/native.js:87:9)',
      '    at Module._compile (node:internal/modules/cjs/loader:1376:14)',
      '    at async ModuleLoader.import (node:internal/modules/esm/loader:329:24)',
      '    at node:internal/main/run_main_module:28:49',
      '    at Runtime._execModule (node_modules/jest-runtime/build/index.js:1439:24)',
      '  File "<frozen importlib._bootstrap>", line 1050, in _gcd_import',
      '  File "/home/u/app/main.py", line 3, in <module>',
    ].join('\n')
    const words = boundQuery(trace).split(' ')
    expect(words).toEqual(expect.arrayContaining(['requireWithFriendlyError', 'Runtime._execModule', '<module>']))
    for (const gone of ['Module._compile', 'ModuleLoader.import', 'async', '_gcd_import'])
      expect(words).not.toContain(gone)
    expect(words.join(' ')).not.toMatch(/node:internal|<frozen/)
    // Nothing but runtime frames: kept, there is nothing else to match on.
    const only = '    at Module._compile (node:internal/modules/cjs/loader:1376:14)'
    expect(boundQuery(only)).toContain('Module._compile')
  })
  // Node ends the last frame of an error that has properties of its own (`code`, `requireStack`: most of Node's) with
  // ` {`, and with colours on (a TTY, FORCE_COLOR) greys out each of its own frames: both kept the frame's words.
  test("the runtime's frames go also as Node prints them before an error's properties and in colour", () => {
    const trace = [
      "Error: Cannot find module 'nonexistent-zz'",
      '\u001b[90m    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)\u001b[39m',
      '\u001b[90m    at node:internal/process/execution:118:14\u001b[39m',
      '    at [eval]-wrapper:6:24',
      '    at evalScript (node:internal/process/execution:133:3) {',
      "  code: 'MODULE_NOT_FOUND',",
      '}',
    ].join('\n')
    const words = boundQuery(trace).split(' ')
    for (const gone of ['Module._resolveFilename', 'evalScript']) expect(words).not.toContain(gone)
    expect(words.join(' ')).not.toMatch(/node:internal/)
    expect(words).toEqual(expect.arrayContaining(['[eval]-wrapper:6:24', "'MODULE_NOT_FOUND',"]))
  })
  test('a runtime-frame check stays linear on a long line of parentheses', () => {
    const line = `at ${'f('.repeat(400_000)}`
    expect(boundQuery(line).length).toBeGreaterThan(0)
  })
  test('short text is kept whole', () => {
    expect(boundQuery('vitest esm mock')).toBe('vitest esm mock')
  })
  test("a paste from a console that wraps at 80 columns has its words whole again (Windows' cmd)", () => {
    const wrapped = [
      '(node:10576) UnhandledPromiseRejectionWarning: MongoNetworkError: failed to conn',
      'ect to server [localhost:27017] on first connect [MongoNetworkError: connect ECO',
      'NNREFUSED 127.0.0.1:27017]',
    ].join('\n')
    const words = boundQuery(wrapped).split(' ')
    expect(words).toEqual(
      expect.arrayContaining(['econnrefused', 'connect', 'ECONNREFUSED', 'ECO'.concat('NNREFUSED')]),
    )
    expect(words).not.toContain('ECO')
  })
  test('two log lines of one length under one prefix are lines of their own, not a wrap', () => {
    const npm = [
      'npm ERR! 404 Not Found - GET https://registry.npmjs.org/@acme%2fwidgets - Not found',
      'npm ERR! 404 Not Found - GET https://registry.npmjs.org/@acme%2fgadgets - Not found',
      'npm ERR! 404 You should bug the author to publish it',
    ].join('\n')
    const words = boundQuery(npm).split(' ')
    expect(words.some((w) => /foundnpm/i.test(w))).toBe(false)
    expect(words).toContain('https://registry.npmjs.org/@acme%2fgadgets')
  })
  test('lines of one length that are not the longest, or one line alone at the longest, are not a wrap', () => {
    const [a, b] = ['a'.repeat(70), 'b'.repeat(70)]
    expect(boundQuery(`${a}\n${b}\n${'c'.repeat(75)}`).split(' ')).toEqual(expect.arrayContaining([a, b]))
    expect(boundQuery(`${'a'.repeat(80)}\nnext line`).split(' ')).toContain('next')
  })
})

describe('normalizeError over the whole text at once', () => {
  // The road before it (to 2026-12): the text split into lines first, each token of each line normalized, each
  // line's spaces and tabs collapsed and trimmed. The same patterns; the whole-text road must give the same bytes.
  const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g
  const ISO_TIME = /\b\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g
  const CLOCK = /\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\b/g
  const PORT_PHRASE = /\bport:? ?(\d{2,5})\b/gi
  const lineByLine = (text: string) =>
    text
      .replace(ANSI, '')
      .replace(ISO_TIME, ' ')
      .replace(CLOCK, ' ')
      .split(/\r?\n/)
      .map((l) =>
        l
          .replace(PORT_PHRASE, 'port:$1')
          .replace(/\S+/g, (t) => normalizeErrorToken(t))
          .replace(/[ \t]+/g, ' ')
          .trim(),
      )
      .filter(Boolean)
      .join('\n')
  // Pieces that a pattern changes, that a plain word is (or is almost), and every kind of white space and line end.
  const PIECES = [
    'word',
    'Error:',
    'fails,',
    'fails,,',
    ',x',
    'x-y_z',
    '-',
    '_',
    '?',
    'a;',
    ' ',
    '  ',
    '\t',
    ' \t ',
    '\n',
    '\r\n',
    '\r',
    '\n\n',
    '\u00a0',
    '\u2028',
    '\ufeff',
    '\u001b[31m',
    '\u001b[0m',
    '\u001b]8;;http://a\u0007',
    '12:34:56.7',
    '2026-11-20T10:00Z',
    'port 5432',
    'Port: 6379',
    'port',
    '5432',
    '127.0.0.1:80',
    '::1:27017',
    '[::1]:80',
    '/home/u/app/x.js:3:4',
    'a.test.ts',
    'index.js:1',
    '"quoted"',
    "'",
    '``',
    '\\"',
    '0xdeadbeef',
    'abc1234def',
    '550e8400-e29b-41d4-a716-446655440000',
    '(',
    ')',
    '( )',
    'https://github.com/a/b',
    'git@github.com:o/r.git',
    'node_modules/@scope/pkg/x.js',
    'localhost:3000',
    '`db`:`5432`',
    '42ms',
    '1,5',
    'ECONNREFUSED',
    'é',
    '日本',
  ]
  let seed = 5
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  const texts = Array.from({ length: 3000 }, () => {
    let t = ''
    for (let n = 1 + Math.floor(rand() * 24); n > 0; n--)
      t += `${PIECES[Math.floor(rand() * PIECES.length)] as string}${rand() < 0.5 ? ' ' : ''}`
    return t
  })
  test('gives what the line-by-line road gives, on generated texts', () => {
    for (const t of texts) expect(normalizeError(t), JSON.stringify(t)).toBe(lineByLine(t))
  })
  test('and on every learning of the real-world set, with CRLF line ends too', () => {
    const dir = 'test/fixtures/eval/real-world/learnings'
    for (const f of readdirSync(dir)) {
      const t = readFileSync(join(dir, f), 'utf8')
      expect(normalizeError(t), f).toBe(lineByLine(t))
      expect(normalizeError(t.replace(/\n/g, '\r\n')), f).toBe(lineByLine(t.replace(/\n/g, '\r\n')))
    }
  })
})
