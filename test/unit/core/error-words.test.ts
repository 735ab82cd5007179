import { describe, expect, test } from 'vitest'
import { equivalentWords, restatedWords, rewordings, serviceOfPort } from '../../../src/core/error-words.js'

describe('equivalentWords', () => {
  test.each([
    ['a code and its message', 'ENOENT: no such file or directory', ['enoent']],
    ["Python's errno", '[Errno 111] Connection refused', ['econnrefused']],
    ['nothing equivalent', 'TypeError: x is not a function', []],
    // Expired is not untrusted: an intercepting proxy's self-signed chain and a certificate past its date are two causes.
    ['an expired certificate is no verification error', 'npm ERR! code CERT_HAS_EXPIRED', []],
    ['a self-signed chain is', 'npm ERR! code DEPTH_ZERO_SELF_SIGNED_CERT', ['certerror']],
    // Go's exec.LookPath error, not the kernel's ENOENT (`exec /docker-entrypoint.sh: no such file or directory`).
    ['a command not on $PATH is no missing file', 'exec: "--": executable file not found in $PATH: unknown', []],
    [
      "libpq's words for a name that does not resolve",
      'could not translate host name "db" to address: Name does not resolve',
      ['enotfound'],
    ],
    [
      "Python's exception for a refused connection",
      'ConnectionRefusedError: could not reach the broker',
      ['econnrefused'],
    ],
    ["Go's dial timeout", 'dial tcp 10.0.0.3:5432: i/o timeout', ['etimedout']],
    [
      "Node's ES module loader's missing package",
      "Cannot find package 'express' imported from /app/x.js",
      ['modulenotfound'],
    ],
    [
      "Windows' words for a port in use",
      'listen tcp 0.0.0.0:5432: bind: Only one usage of each socket address (protocol/network address/port) is normally permitted.',
      ['eaddrinuse'],
    ],
  ])('%s', (_what, text, expected) => {
    expect(equivalentWords(text)).toEqual(expected)
  })
})

describe('restatedWords', () => {
  test.each([
    [
      'the message of a code the text names',
      "npm ERR! enoent ENOENT: no such file or directory, open '/root/package.json'",
      ['no', 'such', 'file', 'or', 'directory'],
    ],
    ['a code said once, with the verb Node puts before it', 'Error: connect ECONNREFUSED 127.0.0.1:6379', []],
    [
      'two phrases of one error',
      "Module not found: Can't resolve 'fs'",
      ['module', 'not', 'found', 'can', 't', 'cant', 'resolve'],
    ],
    [
      'an exception name and its message',
      "ModuleNotFoundError: No module named 'src'",
      ['modulenotfounderror', 'no', 'module', 'named'],
    ],
    ['a message without its code is not a restatement', 'git@github.com: Permission denied (publickey).', []],
    ['a code alone restates nothing', 'Error: spawn python ENOENT', []],
  ])('%s', (_what, text, expected) => {
    expect(restatedWords(text).sort()).toEqual([...expected].sort())
  })
})

describe('rewordings', () => {
  test.each([
    [
      'the words of a phrase that says an error',
      'git@github.com: Permission denied (publickey).',
      ['permission', 'denied'],
      'git github com publickey',
    ],
    ['a code with its verb is not reworded', 'Error: connect ECONNREFUSED 127.0.0.1:6379', [], ''],
    ['a one-word phrase is a name, not a rewording', 'psycopg2.OperationalError: could not connect', [], ''],
    [
      // `bind` is the call that failed (docker's userland proxy, Go), not a word of the message.
      'the call before a port-in-use message is not reworded with it',
      'listen tcp 0.0.0.0:443: bind: address already in use',
      ['address', 'already', 'in', 'use'],
      'listen tcp 0 0 0 0 443 bind',
    ],
    [
      "an apostrophe's halves joined as the index joins them",
      "Module not found: Can't resolve 'fs'",
      ['module', 'not', 'found', 'can', 't', 'cant', 'resolve'],
      'fs',
    ],
  ])('%s', (_what, text, phrases, rest) => {
    expect(rewordings(text)).toEqual({ phrases, rest })
  })
})

describe('serviceOfPort', () => {
  test('a well-known port names its service, another port none', () => {
    expect(serviceOfPort('5432')).toBe('postgres')
    expect(serviceOfPort('3000')).toBeUndefined()
  })
})

describe('the phrases of the last text, kept', () => {
  test('each function gives the same answer whatever was asked before it', () => {
    const texts = [
      "npm ERR! enoent ENOENT: no such file or directory, open '/root/package.json'",
      'Module not found: Error: Can\'t resolve "fs"',
      'connect ECONNREFUSED 127.0.0.1:5432 connection refused',
      'Permission denied (publickey).',
      '',
    ]
    const fresh = texts.map((t) => [equivalentWords(t), restatedWords(t), rewordings(t)])
    for (let round = 0; round < 3; round++)
      texts.forEach((t, i) => {
        // A copy of the text (another string of the same characters) and the text itself, in another order.
        const copy = ` ${t}`.slice(1)
        expect([rewordings(copy), equivalentWords(t), restatedWords(copy)]).toEqual([
          fresh[i]?.[2],
          fresh[i]?.[0],
          fresh[i]?.[1],
        ])
      })
  })
})
