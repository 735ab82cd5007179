import { describe, expect, test } from 'vitest'
import words from '../../../src/core/data/error-words.json'
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

describe('the phrase scan over word positions', () => {
  // The road before it (to 2026-12): the text's words cut out as strings (wordsOf), each looked up by its first word.
  const vocabulary = words as { equivalents: Record<string, string[]> }
  const wordsOf = (text: string) => text.toLowerCase().match(/[a-z0-9_]+/g) ?? []
  const byFirst = new Map<string, { words: string[]; canonical: string }[]>()
  for (const [canonical, phrases] of Object.entries(vocabulary.equivalents))
    for (const p of [canonical, ...phrases]) {
      const ws = wordsOf(p)
      if (ws[0] === undefined) continue
      byFirst.set(ws[0], [...(byFirst.get(ws[0]) ?? []), { words: ws, canonical }])
    }
  for (const list of byFirst.values()) list.sort((a, b) => b.words.length - a.words.length)
  const byStrings = (text: string) => {
    const ws = wordsOf(text)
    const out: string[] = []
    ws.forEach((w, i) => {
      for (const c of byFirst.get(w) ?? []) if (c.words.every((x, j) => ws[i + j] === x)) out.push(c.canonical)
    })
    return [...new Set(out)]
  }
  // The vocabulary's own words and phrases, cut, joined, cased and punctuated at random, with words of other lengths.
  const phrases = [...byFirst.values()].flat().map((c) => c.words)
  const pool = phrases.flat()
  const extra = ['x', 'conn', 'connections', 'Connection', 'REFUSED', 'a'.repeat(70), 'İ', 'K', '123', '_', '', 'ñ']
  const glue = [' ', '  ', ', ', '-', '_', ': ', '\n', "'", '.', '/', '']
  let seed = 9
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T
  const texts = Array.from({ length: 2000 }, () => {
    let t = ''
    for (let n = 1 + Math.floor(rand() * 30); n > 0; n--) {
      const r = rand()
      const w = r < 0.4 ? pick(phrases).join(pick([' ', ' ', '  ', '-', ', '])) : r < 0.8 ? pick(pool) : pick(extra)
      t += (rand() < 0.2 ? w.toUpperCase() : w) + pick(glue)
    }
    return t
  })
  test('finds what the words cut out as strings find, on generated texts and one of 40,000 words', () => {
    for (const t of texts) expect(equivalentWords(t), JSON.stringify(t)).toEqual(byStrings(t))
    expect(texts.filter((t) => byStrings(t).length > 1).length).toBeGreaterThan(300)
    const long = texts.join(' ')
    expect(equivalentWords(long)).toEqual(byStrings(long))
    expect(equivalentWords(texts[0] as string)).toEqual(byStrings(texts[0] as string))
  })
})
