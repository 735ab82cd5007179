import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { parseLearning } from '../../../src/core/learning.js'
import { buildCatalogEntry, buildQueryTerms, buildSearchDoc, indexOptions, termsOf } from '../../../src/core/search.js'
import { countDoc } from '../../../src/core/search-parts.js'
import {
  RECALL_FEATURES,
  RECALL_MODEL,
  RECALL_RULES,
  buildRecallIndex,
  entryRecallTerms,
  evidenceOf,
  extensionTerms,
  invertRecall,
  isRecallable,
  rankRecall,
  recallEvidence,
  recallQueryTerms,
  recallTermsOf,
  termWeight,
} from '../../../src/core/recall-rank.js'
import type { RecallIndex, RecallModel, RecallRule } from '../../../src/core/recall-rank.js'

// Forty learnings of words no failure here says: a store of the size the model was fitted on, where a term one
// trigger holds weighs what it weighs in a real store (a store of two triggers weighs every term about alike).
const FILLER: [string, string][] = Array.from({ length: 40 }, (_v, i) => [
  `filler-${i}`,
  `Zq${i}Error: xylo${i} quorb${i} vant${i} plim${i}`,
])

/** A model that names every learning whose trigger the failure holds in full (evidence = coverage − 0.99). */
const NAME_ALL_MET: RecallModel = { intercept: -0.99, weights: { coverage: 1 }, threshold: 0.5 }

describe('rankRecall', () => {
  const index = {
    names: ['pg-refused', 'vitest-hoist', 'one-word', 'pg-refused-tier'],
    weights: [1, 1, 1, 0.9],
    triggers: [
      [...termsOf('ECONNREFUSED postgres')],
      [...termsOf("ReferenceError: Cannot access '__vi_import_0__' before initialization")],
      [...termsOf('ENOSPC')],
      [...termsOf('ECONNREFUSED postgres')],
    ],
  }
  test('only triggers the error holds pass; the project beats an equal tier copy', () => {
    const got = rankRecall(index, new Set(buildQueryTerms('Error: connect ECONNREFUSED 127.0.0.1:5432 (postgres)')))
    expect(got.map((c) => index.names[c.doc])).toEqual(['pg-refused', 'pg-refused-tier'])
    expect(got[0]!.coverage).toBe(1)
    expect(got[1]!.score).toBeLessThan(got[0]!.score)
  })
  test('a tier of weight 0 is never named, not even where its trigger is met as fully as the project one', () => {
    const zero = { ...index, weights: [1, 1, 1, 0] }
    const terms = new Set(buildQueryTerms('Error: connect ECONNREFUSED 127.0.0.1:5432 (postgres)'))
    expect(rankRecall(zero, terms, Infinity, NAME_ALL_MET).map((c) => index.names[c.doc])).toEqual(['pg-refused'])
    expect(rankRecall({ ...zero, weights: [1, 1, 1, 0.001] }, terms, Infinity, NAME_ALL_MET).length).toBe(1)
  })
  test('with a limit, the first candidates of the whole ranking, whatever order they come in', () => {
    // Twelve learnings one trigger passes equally: the order is by name, and the first few are the same as without a
    // limit (the triggers are given in reverse name order, so keeping the first ones seen would be wrong).
    const many = Array.from({ length: 12 }, (_v, i) => `pg-refused-${String.fromCharCode(108 - i)}`)
    const same = {
      names: many,
      weights: many.map(() => 1),
      triggers: many.map(() => [...termsOf('ECONNREFUSED postgres')]),
    }
    const terms = new Set(buildQueryTerms('Error: connect ECONNREFUSED (postgres)'))
    // A model that names every trigger met in full (the fitted one names none of twelve alike: their words are in all).
    const all = rankRecall(same, terms, Infinity, NAME_ALL_MET)
    expect(all).toHaveLength(12)
    for (const limit of [0, 1, 2, 5, 12, 20])
      expect(rankRecall(same, terms, limit, NAME_ALL_MET)).toEqual(all.slice(0, limit))
  })
  test('a trigger the failure holds a small part of is not recalled', () => {
    expect(rankRecall(index, new Set(buildQueryTerms('ReferenceError: something else')))).toEqual([])
  })
  test('a one-term trigger is enough when it is there', () => {
    expect(
      rankRecall(index, new Set(buildQueryTerms('write failed: ENOSPC no space left'))).map((c) => index.names[c.doc]),
    ).toEqual(['one-word'])
  })
  test('only the common words of a trigger are not enough', () => {
    const twins = {
      names: ['redis-refused', 'mongo-ipv6'],
      weights: [1, 1],
      triggers: [
        [...termsOf('Error: connect ECONNREFUSED 127.0.0.1:6379')],
        [...termsOf('MongooseServerSelectionError: connect ECONNREFUSED ::1:27017')],
      ],
    }
    expect(rankRecall(twins, new Set(buildQueryTerms('Error: connect ETIMEDOUT 10.0.0.3:443')))).toEqual([])
    const python = 'redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379. Connection refused.'
    expect(rankRecall(twins, new Set(buildQueryTerms(python))).map((c) => twins.names[c.doc])).toEqual([
      'redis-refused',
    ])
    expect(
      rankRecall(twins, new Set(buildQueryTerms('MongooseServerSelectionError: connect ECONNREFUSED ::1:27017'))).map(
        (c) => twins.names[c.doc],
      ),
    ).toEqual(['mongo-ipv6'])
  })
  test('the learning the failure holds more of comes before a generic trigger it meets in full', () => {
    const ix = buildRecallIndex(
      [
        ['spawn-enoent', 'Error: spawn prisma ENOENT'],
        [
          'prisma-engine-targets',
          'PrismaClientInitializationError: Query engine library for current platform "debian-openssl-1.1.x" could not be found.',
        ],
        ...FILLER,
      ].map(([name, trigger]) => ({
        name: name!,
        state: 'active',
        type: 'error-solution',
        weight: 1,
        triggers: [trigger!],
      })),
    ).index
    const failure =
      'Error: spawn prisma ENOENT\nQuery engine library for current platform "linux-musl" could not be found (Prisma Client)'
    expect(rankRecall(ix, new Set(buildQueryTerms(failure))).map((c) => ix.names[c.doc])[0]).toBe(
      'prisma-engine-targets',
    )
  })
  test('a long trigger that shares a few words of the failure does not outweigh one met in full', () => {
    const ix = buildRecallIndex(
      [
        ['ssh-host-key', 'Host key verification failed.'],
        [
          'k8s-pull-denied',
          'Failed to pull image "local/dummy": rpc error: code = Unknown desc = Error response from daemon: pull access denied for local/dummy, repository does not exist or may require \'docker login\'',
        ],
      ].map(([name, trigger]) => ({
        name: name!,
        state: 'active',
        type: 'error-solution',
        weight: 1,
        triggers: [trigger!],
      })),
    ).index
    const failure =
      '$ git pull --ff-only\nHost key verification failed.\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.'
    expect(rankRecall(ix, new Set(buildQueryTerms(failure))).map((c) => ix.names[c.doc])).toEqual(['ssh-host-key'])
  })
  test('a learning with several triggers is recalled once, by its best trigger', () => {
    const ix = {
      names: ['pg', 'pg', 'other'],
      weights: [1, 1, 1],
      triggers: [
        [...termsOf('ECONNREFUSED 127.0.0.1:5432')],
        [...termsOf('psql: could not connect to server: Connection refused')],
        [...termsOf('ENOSPC')],
      ],
    }
    const got = rankRecall(
      ix,
      new Set(
        buildQueryTerms('psql: could not connect to server: Connection refused. Is the server running on port 5432?'),
      ),
    )
    expect(got.map((c) => ix.names[c.doc])).toEqual(['pg'])
  })

  const indexOf = (entries: [string, string][]) =>
    buildRecallIndex(
      [...entries, ...FILLER].map(([name, trigger]) => ({
        name,
        state: 'active',
        type: 'error-solution',
        weight: 1,
        triggers: [trigger],
      })),
    ).index
  /** Every learning a failure reaches and does not rule out, by its best trigger's evidence, most first. */
  const byEvidence = (ix: RecallIndex, failure: string) => {
    const { docs, features } = recallEvidence(ix, recallQueryTerms(failure))
    const best = new Map<string, number>()
    docs.forEach((doc, i) => {
      const name = ix.names[doc] as string
      best.set(name, Math.max(best.get(name) ?? -Infinity, evidenceOf(features, i, 1)))
    })
    return [...best].sort((a, b) => b[1] - a[1]).map(([name]) => name)
  }
  const recalled = (ix: RecallIndex, failure: string) =>
    rankRecall(ix, new Set(buildQueryTerms(failure))).map((c) => ix.names[c.doc])

  test("a trigger naming a service's port is recalled only by a failure that names that port", () => {
    const ix = indexOf([
      ['redis-down', 'Error: connect ECONNREFUSED 127.0.0.1:6379'],
      ['port-taken', 'Error: listen EADDRINUSE: address already in use :::3000'],
    ])
    // Redis's words, but no port: the client never says where it connected.
    const noPort =
      'File "/usr/local/bin/zabbix_check_redis.py", line 9\nConnectionRefusedError: [Errno 111] Connection refused (localhost)'
    expect(recalled(ix, noPort)).toEqual([])
    expect(
      recalled(ix, 'redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379. Connection refused.'),
    ).toEqual(['redis-down'])
    // A port without a service is the user's choice: the same error on another port is the same failure.
    expect(recalled(ix, 'Error: listen EADDRINUSE: address already in use :::8080')).toEqual(['port-taken'])
  })
  test('words that restate an error code the trigger names count once', () => {
    expect(
      recallTermsOf("npm ERR! enoent ENOENT: no such file or directory, open '/root/package.json'").sort(),
    ).toEqual(['enoent', 'err', 'json', 'npm', 'open', 'packag'])
    const ix = indexOf([
      ['npm-no-package-json', "npm ERR! enoent ENOENT: no such file or directory, open '/root/package.json'"],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    const libssl =
      'Error: Unable to require(`libquery_engine.so.node`)\nlibssl.so.1.1: cannot open shared object file: No such file or directory (ENOENT)'
    expect(recalled(ix, libssl)).toEqual([])
    expect(recalled(ix, "npm ERR! enoent ENOENT: no such file or directory, open '/home/ada/package.json'")).toEqual([
      'npm-no-package-json',
    ])
  })
  test("an HTTP status said in words is its code: '413 Request Entity Too Large' is no file too large", () => {
    expect(recallTermsOf('413 Request Entity Too Large')).toEqual(['toolarge413'])
    const ix = indexOf([
      ['nginx-413-body-size', '413 Request Entity Too Large'],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    expect(recalled(ix, 'Error: EFBIG: file too large, write')).toEqual([])
    expect(recalled(ix, 'RangeError: Array buffer allocation failed: too large')).toEqual([])
    expect(recalled(ix, 'AxiosError: Request failed with status code 413')).toEqual(['nginx-413-body-size'])
  })
  test("the shell's name is no common word: dash's `sh: 1:` is what tells its errors from bash's", () => {
    expect(termWeight('sh', 1, 100)).toBeGreaterThan(termWeight('error', 1, 100))
    const ix = indexOf([
      ['crlf-entrypoint', 'exec /docker-entrypoint.sh: no such file or directory'],
      ['crlf-entrypoint', '/bin/sh: /entrypoint.sh: not found'],
      ['dash-double-bracket', 'sh: 1: [[: not found'],
      ['dash-subshell-syntax', 'sh: 1: Syntax error: "(" unexpected'],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    // A bashism run by dash: its own text names its learning (with `sh` a fifth of its weight, `found` alone was left).
    expect(recalled(ix, 'sh: 1: [[: not found')).toEqual(['dash-double-bracket'])
    // bash's own syntax error is not dash's: what they share is `syntax`, `error` and `unexpected`.
    expect(recalled(ix, "bash: line 1: syntax error near unexpected token '('")).toEqual([])
    // A program's own message that a file is missing is not the shell's missing entrypoint: not even a coin's toss
    // (with `sh` common, the entrypoint's name and `found` were most of the trigger's weight).
    const { docs, features } = recallEvidence(ix, recallQueryTerms('Error: entrypoint not found'))
    const crlf = docs.flatMap((doc, i) => (ix.names[doc] === 'crlf-entrypoint' ? [evidenceOf(features, i, 1)] : []))
    expect(Math.max(...crlf)).toBeLessThan(0)
  })
  test("a file's extension is its kind, not which file: another script's `.sh` is no shell's error", () => {
    expect(extensionTerms('exec: "/entrypoint.sh": permission denied')).toEqual(['sh'])
    // Said as a word too (the shell), or a common word already: kept.
    expect(extensionTerms('/bin/sh: /entrypoint.sh: not found')).toEqual([])
    expect(extensionTerms("ENOENT: no such file or directory, open '/app/package.json'")).toEqual([])
    // Said as a word wherever the tokenizer finds one: a piece of a hyphenated or underscored name is one.
    expect(extensionTerms("Module build failed (from ./node_modules/vue-loader/index.js): './App.vue'")).toEqual([])
    expect(extensionTerms('sh-4.2$ ./run.sh: Permission denied')).toEqual([])
    expect(extensionTerms('./deploy.sh: Permission denied')).toEqual(['sh'])
    // A dotted name that is no file keeps its words (`safe.directory`, a host).
    expect(extensionTerms("config value 'safe.directory' was not found; request to registry.npmjs.org")).toEqual([])
    expect(recallTermsOf('/bin/sh: /entrypoint.sh: not found')).toContain('sh')
    // A trigger's extension counts nothing either (recallTermsOf), not only a failure's.
    expect(recallTermsOf('exec: "/entrypoint.sh": permission denied')).not.toContain('sh')
    const ix = indexOf([
      ['crlf-entrypoint', 'exec /docker-entrypoint.sh: no such file or directory'],
      ['crlf-entrypoint', '/bin/sh: /entrypoint.sh: not found'],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    const byRecall = (failure: string) => rankRecall(ix, recallQueryTerms(failure)).map((c) => ix.names[c.doc])
    // runc refusing a script without its executable bit shares the script's name, not the shell's error.
    expect(
      byRecall(
        'docker: Error response from daemon: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/entrypoint.sh": permission denied: unknown.',
      ),
    ).toEqual([])
    expect(byRecall('/entrypoint.sh: line 7: 1: unbound variable')).toEqual([])
    // The shell's own error, and the kernel's missing interpreter, still name it.
    expect(byRecall('sh: /docker-entrypoint.sh: not found')).toEqual(['crlf-entrypoint'])
    expect(byRecall('exec /usr/local/bin/docker-entrypoint.sh: no such file or directory')).toEqual(['crlf-entrypoint'])
  })
  test("npm's words around every failed request (registry, request, reason) do not make an expired certificate a proxy's", () => {
    const ix = indexOf([
      [
        'tls-intercepting-proxy',
        'npm ERR! request to https://registry.npmjs.org/express failed, reason: self signed certificate in certificate chain',
      ],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    const expired = [
      'npm ERR! code CERT_HAS_EXPIRED',
      'npm ERR! errno CERT_HAS_EXPIRED',
      'npm ERR! request to https://registry.npmjs.org/react failed, reason: certificate has expired',
    ].join('\n')
    expect(recalled(ix, expired)).toEqual([])
    const selfSigned =
      'npm ERR! request to https://registry.npmjs.org/lodash failed, reason: self signed certificate in certificate chain'
    expect(recalled(ix, selfSigned)).toEqual(['tls-intercepting-proxy'])
  })
  test('"config" is a common word: a trigger of only common words speaks for no config failure', () => {
    const ix = indexOf([['eslint-flat-config', 'Error: Could not find config file.']])
    const webpack =
      "[webpack-cli] Failed to load '/home/ada/app/webpack.config.prod.js' config\n[webpack-cli] Error: Cannot find module 'x'"
    expect(recalled(ix, webpack)).toEqual([])
  })
  test('a trigger that says its error twice is met by what it names beside it, not by the error alone', () => {
    const ix = indexOf([
      ['nextjs-fs-in-client', "Module not found: Can't resolve 'fs'"],
      ['pytest-src-layout', "ModuleNotFoundError: No module named 'src'"],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    expect(recalled(ix, "Module not found: Error: Can't resolve './components/Header' in '/app/src'")).toEqual([])
    expect(recalled(ix, "ModuleNotFoundError: No module named 'requests'")).toEqual([])
    expect(recalled(ix, "Module not found: Can't resolve 'fs'")).toEqual(['nextjs-fs-in-client'])
    expect(recalled(ix, "E   ModuleNotFoundError: No module named 'src'")).toEqual(['pytest-src-layout'])
  })
  test('recallEvidence leaves out what the rules asked for contradict, and only that (bench/recall-fit.mjs drops each)', () => {
    const ix = indexOf([['redis-down', 'Error: connect ECONNREFUSED 127.0.0.1:6379']])
    const terms = recallQueryTerms('Error: connect ECONNREFUSED 127.0.0.1:5432')
    const reached = (rules: readonly RecallRule[]) => recallEvidence(ix, terms, rules).docs.map((d) => ix.names[d])
    expect(reached(RECALL_RULES)).toEqual([])
    expect(reached(RECALL_RULES.filter((r) => r !== 'port'))).toEqual(['redis-down'])
  })
  test('a trigger naming a system error code is recalled only by a failure that names it', () => {
    const ix = indexOf([
      ['postgres-refused', 'Error: connect ECONNREFUSED 127.0.0.1:5432'],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    // The address holds most of the trigger, but the code says the port was taken, not refused.
    expect(recalled(ix, 'Error: listen EADDRINUSE: address already in use 127.0.0.1:5432')).toEqual([])
    // Nor is a server's log that names the address and no error code: a refusal is what the trigger is about.
    const serverLog =
      'LOG:  listening on IPv4 address "127.0.0.1", port 5432\nLOG:  database system is ready to accept connections\nFATAL:  role "postgres" does not exist'
    expect(recalled(ix, serverLog)).toEqual([])
    expect(recalled(ix, 'Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect')).toEqual([
      'postgres-refused',
    ])
  })
  test('`exec format error` is ENOEXEC: a process the kernel could not execute is not one it was denied', () => {
    // runc says `exec user process caused` before whatever the exec failed with: the error is what tells them apart.
    expect(recallTermsOf('exec user process caused: exec format error')).toContain('enoexec')
    const ix = indexOf([
      ['image-for-other-arch', 'standard_init_linux.go:228: exec user process caused: exec format error'],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    expect(recalled(ix, 'standard_init_linux.go:190: exec user process caused "permission denied"')).toEqual([])
    expect(recalled(ix, 'standard_init_linux.go:211: exec user process caused "exec format error"')).toEqual([
      'image-for-other-arch',
    ])
  })
  test("Python's `[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed` is one fact: what failed the check tells certificate errors apart", () => {
    const ix = indexOf([
      [
        'python-no-local-issuer',
        'urllib.error.URLError: <urlopen error [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1129)>',
      ],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    // The server's certificate expired: the same code and words, not a missing local CA store.
    const expired =
      '<urlopen error [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate has expired (_ssl.c:1056)>'
    expect(recalled(ix, expired)).toEqual([])
    const noIssuer =
      'urllib.error.URLError: <urlopen error [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:997)>'
    expect(recalled(ix, noIssuer)).toEqual(['python-no-local-issuer'])
  })
  test("a failure naming a tool's error code is not a trigger's naming another code of that tool", () => {
    const ix = indexOf([
      [
        'node17-openssl',
        "Error: error:0308010C:digital envelope routines::unsupported\n  library: 'digital envelope routines',\n  reason: 'unsupported',\n  code: 'ERR_OSSL_EVP_UNSUPPORTED'",
      ],
      [
        'ts-no-declaration',
        "error TS7016: Could not find a declaration file for module 'jodit'. implicitly has an 'any' type.",
      ],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    const decoder =
      "Error: error:1E08010C:DECODER routines::unsupported\n  library: 'DECODER routines',\n  reason: 'unsupported',\n  code: 'ERR_OSSL_UNSUPPORTED'"
    const implicitAny = "src/a.ts(3,14): error TS7006: Parameter 'x' implicitly has an 'any' type."
    const without = RECALL_RULES.filter((r) => r !== 'toolcode')
    const reached = (failure: string, rules: readonly RecallRule[]) =>
      recallEvidence(ix, recallQueryTerms(failure), rules).docs.map((d) => ix.names[d])
    expect(reached(decoder, without)).toContain('node17-openssl')
    expect(reached(decoder, RECALL_RULES)).not.toContain('node17-openssl')
    expect(reached(implicitAny, without)).toContain('ts-no-declaration')
    expect(reached(implicitAny, RECALL_RULES)).not.toContain('ts-no-declaration')
    // The trigger's own code, or no code at all (the message without its code line), contradicts nothing.
    expect(
      recalled(ix, "Error: error:0308010C:digital envelope routines::unsupported\n  code: 'ERR_OSSL_EVP_UNSUPPORTED'"),
    ).toEqual(['node17-openssl'])
    expect(reached('Error: error:0308010C:digital envelope routines::unsupported', RECALL_RULES)).toContain(
      'node17-openssl',
    )
    expect(
      recalled(ix, "error TS7016: Could not find a declaration file for module 'pako'. implicitly has an 'any' type."),
    ).toEqual(['ts-no-declaration'])
    // pnpm's code around a failed script is not one of Node's: the message without its code line still reaches.
    const viaPnpm =
      'Error: error:0308010C:digital envelope routines::unsupported\n ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  app@1.0.0 start: `node index.js`'
    expect(reached(viaPnpm, RECALL_RULES)).toContain('node17-openssl')
  })
  test("a port no service is known by is one user's choice: the trigger's `:::3000` does not keep a port taken at another port silent", () => {
    const ix = indexOf([
      ['port-taken', 'Error: listen EADDRINUSE: address already in use :::3000'],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    expect(termWeight('port3000', 1, 100)).toBeCloseTo(termWeight('error', 1, 100))
    expect(termWeight('port6379', 1, 100)).toBeGreaterThan(termWeight('port3000', 1, 100))
    // Older Node says no address at all; another app's port is the same failure.
    expect(
      recalled(
        ix,
        "events.js:72\n        throw er; // Unhandled 'error' event\nError: listen EADDRINUSE\n    at errnoException (net.js:904:11)",
      ),
    ).toEqual(['port-taken'])
    expect(recalled(ix, 'Error: listen EADDRINUSE: address already in use :::8080')).toEqual(['port-taken'])
  })
  test('a port taken is taken on every address: a trigger bound at `:::3000` says no `localhost` that another failure lacks', () => {
    const trigger = 'Error: listen EADDRINUSE: address already in use :::3000'
    expect(recallTermsOf(trigger)).not.toContain('localhost')
    const ix = indexOf([['port-taken', trigger]])
    // Older Node names no address: all the trigger says but its port, one user's choice, is in it.
    const { features } = recallEvidence(
      ix,
      recallQueryTerms("throw er; // Unhandled 'error' event\nError: listen EADDRINUSE"),
    )
    expect(features[RECALL_FEATURES.indexOf('coverage')]).toBeGreaterThan(0.9)
  })
  const mongo = (): [string, string][] => [
    ['mongod-down', 'MongooseServerSelectionError: connect ECONNREFUSED 127.0.0.1:27017'],
    ['mongo-ipv6-only', 'MongooseServerSelectionError: connect ECONNREFUSED ::1:27017'],
    ['other', 'MISCONF Redis is configured to save RDB snapshots'],
  ]
  test("the same refusal at a service's port is that service's failure, in any client's words", () => {
    // mongosh says neither Mongoose's error name nor its words: the code and the port say which server refused.
    expect(recalled(indexOf(mongo()), 'MongoNetworkError: connect ECONNREFUSED 127.0.0.1:27017')).toEqual([
      'mongod-down',
    ])
    // A code at another port, or the port with another code, is not enough.
    expect(recalled(indexOf(mongo()), 'Unable to connect: connect ECONNREFUSED 127.0.0.1:27018')).toEqual([])
    expect(recalled(indexOf(mongo()), 'Unable to connect: connect ETIMEDOUT 127.0.0.1:27017')).toEqual([])
  })
  test('a trigger naming an IPv6 address is recalled only by a failure refused at IPv6 alone', () => {
    const ix = indexOf(mongo())
    expect(recalled(ix, 'MongooseServerSelectionError: connect ECONNREFUSED ::1:27017')[0]).toBe('mongo-ipv6-only')
    // Both families refused: the server is down, not listening on IPv4 alone.
    expect(
      recalled(ix, 'Unable to connect: connect ECONNREFUSED 127.0.0.1:27017, connect ECONNREFUSED ::1:27017'),
    ).toEqual(['mongod-down'])
  })
  test("a failure that holds a marker a reached trigger holds too is that twin's: the others it reaches are ruled out", () => {
    // The driver's longer message under an IPv6-only refusal: every word of the server-down trigger, and the `ipv6` it
    // lacks, which only the IPv6 twin's trigger holds.
    const ix = indexOf([
      [
        'mongod-down',
        'MongoNetworkError: failed to connect to server [localhost:27017] on first connect [Error: connect ECONNREFUSED 127.0.0.1:27017',
      ],
      ['mongo-ipv6-only', 'MongooseServerSelectionError: connect ECONNREFUSED ::1:27017'],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    const ipv6 =
      "Error while connecting to localhost:27017: undefined failed to connect to server [localhost:27017] on first connect [Error: connect ECONNREFUSED ::1:27017\n  name: 'MongoNetworkError'"
    const reached = (rules: readonly RecallRule[]) =>
      recallEvidence(ix, recallQueryTerms(ipv6), rules).docs.map((d) => ix.names[d])
    expect(reached(RECALL_RULES.filter((r) => r !== 'prefer'))).toEqual(['mongod-down', 'mongo-ipv6-only'])
    expect(reached(RECALL_RULES)).toEqual(['mongo-ipv6-only'])
    expect(rankRecall(ix, recallQueryTerms(ipv6)).map((c) => ix.names[c.doc])).toEqual(['mongo-ipv6-only'])
    // Both families refused: no `ipv6`, nothing preferred, the server is down.
    const both =
      'failed to connect to server [localhost:27017] on first connect [Error: connect ECONNREFUSED 127.0.0.1:27017, connect ECONNREFUSED ::1:27017'
    expect(rankRecall(ix, recallQueryTerms(both)).map((c) => ix.names[c.doc])).toEqual(['mongod-down'])
  })
  test("a marker only rules out the marked trigger's twins (the same endpoint): a trigger that names no address is none", () => {
    // The failure's address is another machine's (`remotehost`), and a trigger reached by a few of its words holds that
    // marker too; npm's trigger, met almost in full, names no address and so says nothing of which machine.
    const npm = 'npm ERR! network request to https://registry.npmjs.org/express failed, reason: connect ETIMEDOUT'
    const failure = `${npm} 104.16.22.35:443`
    for (const other of [
      'ssh: connect to host 203.0.113.7 port 2222: Connection timed out',
      'Error: unable to reach 10.1.2.3',
    ]) {
      const ix = indexOf([
        ['npm-timeout', npm],
        ['other-remote', other],
      ])
      expect(recallEvidence(ix, recallQueryTerms(failure)).docs.map((d) => ix.names[d])).toContain('npm-timeout')
      expect(rankRecall(ix, recallQueryTerms(failure)).map((c) => ix.names[c.doc])[0]).toBe('npm-timeout')
    }
  })
  test('a server listening on every address (`:::3000`) is not refused at IPv6 alone: its port taken at 127.0.0.1 is its failure', () => {
    const ix = indexOf([['port-taken', 'Error: listen EADDRINUSE: address already in use :::3000']])
    expect(recalled(ix, 'Error: listen EADDRINUSE: address already in use 127.0.0.1:3000')).toEqual(['port-taken'])
  })
  test("npm's words around every failed request (`request to … failed, reason: …`) weigh as common words", () => {
    // They are in every network failure npm prints, whatever its cause (a self-signed proxy, no network, an expired
    // certificate), and once made a self-signed-proxy learning speak for a failure to resolve the registry.
    for (const word of ['request', 'reason']) expect(termWeight(word, 1, 100)).toBe(termWeight('error', 1, 100))
  })
  test('a trigger naming a module path without its extension is recalled only by such a failure', () => {
    const ix = indexOf([
      [
        'esm-extension',
        "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/server/dist/utils/errors' imported from /server/dist/modules/trails/trail.controller.js",
      ],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    const failure = (path: string) =>
      `node:internal/errors:490\n    ErrorCaptureStackTrace(err);\n\nError [ERR_MODULE_NOT_FOUND]: Cannot find module '${path}' imported from /home/ada/app/dist/index.js`
    // The importing file is the user's: another one, with another name, is the same failure.
    expect(recalled(ix, failure('/home/ada/app/node_modules/@acme/iap/dist/ExpirationIntent'))).toEqual([
      'esm-extension',
    ])
    // The file named in full is missing for another reason (a build that did not run, a wrong path).
    expect(recalled(ix, failure('/home/ada/app/node_modules/build.sh/dist/lib/execute.mjs'))).toEqual([])
  })
  test('an error said in words weighs once, as its code, in a trigger and in a failure', () => {
    expect(recallTermsOf('git@github.com: Permission denied (publickey).').sort()).toEqual([
      'eacc',
      'github',
      'publickey',
    ])
    expect([
      ...recallQueryTerms('Permission denied (publickey).\nfatal: Could not read from remote repository.'),
    ]).not.toContain('deni')
    // A word the failure also says outside the phrase stays.
    expect([...recallQueryTerms('Permission denied, and denied again')]).toContain('deni')
    const ix = indexOf([
      ['ssh-key-too-open', '@         WARNING: UNPROTECTED PRIVATE KEY FILE!          @'],
      ['ssh-publickey', 'git@github.com: Permission denied (publickey).'],
      ['push-no-write', 'remote: Permission to owner/repo.git denied to user.'],
      ['npm-global', "npm ERR! Error: EACCES: permission denied, mkdir '/usr/local/lib/node_modules'"],
    ])
    const rank = (failure: string) => rankRecall(ix, recallQueryTerms(failure)).map((c) => ix.names[c.doc])
    // The warning that says why comes with the denial it causes: the denial's three words of one fact do not outweigh it.
    const tooOpen =
      "$ ssh -T git@github.com\n@         WARNING: UNPROTECTED PRIVATE KEY FILE!          @\nPermissions 0644 for '/home/ada/.ssh/id_rsa' are too open.\nThis private key will be ignored.\nPermission denied (publickey)."
    expect(rank(tooOpen)[0]).toBe('ssh-key-too-open')
    // A denied ssh key is not a push refused for want of rights, whose words for "permission" and "denied" it shares.
    const denied = '$ git push\nPermission denied (publickey).\nfatal: Could not read from remote repository.'
    expect(rank(denied)).not.toContain('push-no-write')
    expect(byEvidence(ix, denied).slice(0, 1)).toEqual(['ssh-publickey'])
  })
  test("a trigger at this machine's address is not another machine's failure, and the other way round", () => {
    const ix = indexOf([
      ['pg-localhost-in-container', 'Error: connect ECONNREFUSED 127.0.0.1:5432'],
      ['pg-not-ready-yet', 'level=fatal msg="dial tcp 172.24.0.2:5432: connect: connection refused"'],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    expect(
      recalled(
        ix,
        'psycopg2.OperationalError: connection to server at "postgres" (172.18.0.2), port 5432 failed: Connection refused',
      )[0],
    ).toBe('pg-not-ready-yet')
    expect(recalled(ix, 'Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect')).toEqual([
      'pg-localhost-in-container',
    ])
  })
  test("a failure at a service's port is not a trigger's at another port", () => {
    const ix = indexOf([
      [
        'kubectl-no-kubeconfig',
        'The connection to the server localhost:8080 was refused - did you specify the right host or port?',
      ],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    // 6443 is the Kubernetes API server's: that server is down, kubectl found its configuration.
    expect(
      recalled(ix, 'The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?'),
    ).toEqual([])
    expect(
      recalled(ix, 'The connection to the server localhost:8080 was refused - did you specify the right host or port?'),
    ).toEqual(['kubectl-no-kubeconfig'])
  })
  test('a port already in use is whichever port was published: it rules out no in-use trigger', () => {
    const ix = indexOf([
      [
        'docker-port-already-allocated',
        'Error response from daemon: driver failed programming external connectivity on endpoint web-1: Bind for 0.0.0.0:8080 failed: port is already allocated',
      ],
      ['pg-localhost-in-container', 'Error: connect ECONNREFUSED 127.0.0.1:5432'],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    // 3306 is MySQL's port, yet the failure is the trigger's: another container already holds the published port.
    expect(
      recalled(
        ix,
        'ERROR: for db  Cannot start service db: driver failed programming external connectivity on endpoint app_db_1 (fe78d194): Bind for 127.0.0.1:3306 failed: port is already allocated',
      ),
    ).toEqual(['docker-port-already-allocated'])
    // A connection refused at a service's port still rules out a trigger at another service's.
    expect(recalled(ix, 'Error: connect ECONNREFUSED 127.0.0.1:3306')).toEqual([])
  })
  test("a trigger for a service's name that did not resolve is not recalled by an internet host's", () => {
    const ix = indexOf([
      ['compose-service-name', 'Error: getaddrinfo ENOTFOUND redis'],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    expect(
      recalled(
        ix,
        'npm ERR! code EAI_AGAIN\nnpm ERR! request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org',
      ),
    ).toEqual([])
    expect(recalled(ix, 'SequelizeHostNotFoundError: getaddrinfo ENOTFOUND db db:5432')).toEqual([
      'compose-service-name',
    ])
  })
  test("a denial after a host key was added is the publickey learning's failure, not the host key's", () => {
    const ix = indexOf([
      ['git-ssh-publickey-denied', 'git@github.com: Permission denied (publickey).'],
      ['git-ssh-publickey-denied', 'Permission denied (publickey).'],
      ['ssh-host-key-verification-failed', 'Host key verification failed.'],
      ['push-no-write', 'remote: Permission to owner/repo.git denied to user.'],
      ['other', 'MISCONF Redis is configured to save RDB snapshots'],
    ])
    // The host key was added, not refused: the denial is what failed, and recall names its learning first.
    const failure =
      "Cloning into 'lcmap'...\nWarning: Permanently added the RSA host key for IP address '192.30.252.123' to the list of known hosts.\nPermission denied (publickey).\nfatal: Could not read from remote repository."
    expect(recalled(ix, failure)[0]).toBe('git-ssh-publickey-denied')
  })
  test("the model's coefficients are data over the features recall computes, and a probability threshold", () => {
    expect(Object.keys(RECALL_MODEL.weights).every((f) => (RECALL_FEATURES as readonly string[]).includes(f))).toBe(
      true,
    )
    expect(RECALL_MODEL.threshold).toBeGreaterThan(0)
    expect(RECALL_MODEL.threshold).toBeLessThan(1)
    // docs/matching.md's reading of it: a trigger met in full by two rare terms speaks; by a fraction of one, not.
    const evidence = (x: Record<string, number>) =>
      evidenceOf(Float64Array.from(RECALL_FEATURES.map((f) => x[f] ?? 0)), 0, 1)
    expect(evidence({ coverage: 1, matched: 2 })).toBeGreaterThan(0)
    expect(evidence({ coverage: 1, matched: 0.3 })).toBeLessThan(0)
    expect(evidence({ coverage: 0.3, matched: 2, missing: 4.7 })).toBeLessThan(0)
  })
  test('a pattern is recallable by an error or a warning trigger, not by advice', () => {
    expect(isRecallable('pattern', ["warning: in the working copy of 'a.txt', LF will be replaced by CRLF"])).toBe(true)
    expect(isRecallable('pattern', ['keep line endings consistent across machines'])).toBe(false)
    expect(isRecallable('error-solution', ['keep line endings consistent across machines'])).toBe(true)
  })

  // The hook ranks from the inverted form read from the cache; this is the scan over every trigger it replaced, with
  // the model's features computed from their definitions (no rule fires: the words are no ports, codes or markers).
  const scanEveryTrigger = (ix: RecallIndex, q: ReadonlySet<string>, model: RecallModel) => {
    const n = ix.triggers.length
    const df = (x: string) => ix.triggers.filter((t) => t.includes(x)).length
    const unit = Math.log(1 + (n - 0.5) / 1.5) || 1
    const best = new Map<string, { doc: number; coverage: number; score: number; evidence: number }>()
    ix.triggers.forEach((t, doc) => {
      const terms = [...new Set(t)].sort()
      const hit = terms.filter((x) => q.has(x))
      if (!hit.length) return
      const total = Math.round(terms.reduce((s, x) => s + termWeight(x, df(x), n), 0) * 1000) / 1000
      const sum = hit.reduce((s, x) => s + termWeight(x, df(x), n), 0)
      const x = { coverage: Math.min(1, sum / total), matched: sum / unit, missing: Math.max(0, total - sum) / unit }
      const evidence =
        model.intercept +
        Math.log(ix.weights[doc] ?? 1) +
        (model.weights.coverage ?? 0) * x.coverage +
        (model.weights.matched ?? 0) * x.matched +
        (model.weights.missing ?? 0) * x.missing
      const p = 1 / (1 + Math.exp(-evidence))
      if (p < model.threshold) return
      const c = {
        doc,
        coverage: Math.round(x.coverage * 1000) / 1000,
        score: Math.round(p * 1000) / 1000,
        evidence,
      }
      const prev = best.get(ix.names[doc] as string)
      if (!prev || evidence > prev.evidence || (evidence === prev.evidence && c.coverage > prev.coverage))
        best.set(ix.names[doc] as string, c)
    })
    return [...best.values()]
      .sort(
        (a, b) =>
          b.evidence - a.evidence ||
          b.coverage - a.coverage ||
          ((ix.names[a.doc] as string) < (ix.names[b.doc] as string) ? -1 : 1),
      )
      .map(({ doc, coverage, score }) => ({ doc, coverage, score }))
  }

  test('ranking from the inverted triggers (what the cache holds) equals a scan of every trigger, on 300 random stores', () => {
    let seed = 5
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    const vocab = Array.from({ length: 40 }, (_, i) => `term${i}`)
    for (let round = 0; round < 300; round++) {
      const n = 1 + Math.floor(rand() * 60)
      const ix: RecallIndex = {
        names: Array.from(
          { length: n },
          (_, i) => `${vocab[Math.floor(rand() * 14)]}-${vocab[Math.floor(rand() * 14)]}-${i}`,
        ),
        weights: Array.from({ length: n }, () => (rand() < 0.3 ? 0.9 : 1)),
        triggers: Array.from({ length: n }, () => [
          ...new Set(
            Array.from({ length: 1 + Math.floor(rand() * 6) }, () => vocab[Math.floor(rand() * 12)] as string),
          ),
        ]),
      }
      const q = new Set(Array.from({ length: Math.floor(rand() * 10) }, () => vocab[Math.floor(rand() * 14)] as string))
      const inverted = invertRecall(ix)
      for (const model of [RECALL_MODEL, NAME_ALL_MET])
        expect(rankRecall(inverted, q, Infinity, model)).toEqual(scanEveryTrigger(ix, q, model))
    }
  })
})

describe('entryRecallTerms from the counted trigger field', () => {
  // The rebuild hands entryRecallTerms the trigger terms its index document counted (parse-file.ts): for a single
  // trigger they must be what recall would have made of the trigger itself.
  const dir = 'test/fixtures/eval/real-world/learnings'
  const learnings = readdirSync(dir).map((f) =>
    parseLearning(readFileSync(join(dir, f), 'utf8'), `.learnings/active/${f}`),
  )
  const TRIGGER = indexOptions().fields.indexOf('trigger')
  test.each(['real-world', 'generated'])('gives what the triggers alone give (%s)', (kind) => {
    let seed = 3
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    const pieces = [
      'Error:',
      'ECONNREFUSED',
      '::1:27017',
      '127.0.0.1:5432',
      'ENOENT: no such file or directory',
      'x-y_z',
    ]
    const cases =
      kind === 'real-world'
        ? learnings
        : learnings.map((l) => {
            const words = (l.data.description as string).split(' ')
            const trigger = words.map((w) =>
              rand() < 0.3 ? (pieces[Math.floor(rand() * pieces.length)] as string) : w,
            )
            return { ...l, data: { ...l.data, trigger: trigger.join(' ') } }
          })
    let single = 0
    for (const l of cases) {
      const entry = buildCatalogEntry(l, 'project', 1)
      const { id: _id, ...doc } = buildSearchDoc(0, l)
      const counted = countDoc(doc)[TRIGGER]?.terms
      if (entry.triggers.length === 1 && entryRecallTerms(entry)) single++
      expect(entryRecallTerms(entry, counted), l.name).toEqual(entryRecallTerms(entry))
    }
    expect(single).toBeGreaterThan(10)
  })
})
