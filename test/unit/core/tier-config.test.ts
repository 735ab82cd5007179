// core/tier-config.ts: `tier add|update|remove` change the lines of the tier and no other byte of config.yaml (the
// husky pre-commit line matches the default `system: [...]` line byte for byte; docs/scale.md promises the rest of the
// file as it was).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import YAML from 'yaml'
import { removeTierFromConfig, setTierInConfig } from '../../../src/core/tier-config.js'
import { ConfigError } from '../../../src/core/errors.js'

const P = '.learnings/config.yaml'
const A = 'a'.repeat(40)
const B = 'b'.repeat(40)
const org = { name: 'org', url: 'https://git.example.com/org/learnings.git', ref: 'main', commit: A }
const orgLines = [
  '  - name: org',
  '    url: https://git.example.com/org/learnings.git',
  '    ref: main',
  `    commit: ${A}`,
]
const fw = { name: 'fw', url: '../fw.git', ref: 'main', commit: B, weight: 0.8 }
const fwLines = ['  - name: fw', '    url: ../fw.git', '    ref: main', `    commit: ${B}`, '    weight: 0.8']

/** The config `git learn init` writes. */
const template = readFileSync(join(__dirname, '../../../templates/config.yaml'), 'utf8')

describe('tier edits of config.yaml', () => {
  test('on the config init writes: only the tiers line changes, and add then remove gives back every byte', () => {
    expect(template).toContain('tiers: []\n')
    const [head, tail] = template.split('tiers: []\n') as [string, string]
    const added = setTierInConfig(template, org, P)
    expect(added).toBe(`${head}tiers:\n${orgLines.join('\n')}\n${tail}`)
    expect(added).toContain('  system: [".claude/skills/**", ".claude/commands/**", ".claude/agents/**"]\n')
    expect(added).toContain('  min_discovery_depth: 2    # 1 any, 2 moderate, 3 significant investigation\n')

    const two = setTierInConfig(added, fw, P)
    expect(two).toBe(`${head}tiers:\n${[...orgLines, ...fwLines].join('\n')}\n${tail}`)

    // update: the commit line alone.
    const moved = setTierInConfig(two, { ...org, commit: B }, P)
    expect(moved).toBe(two.replace(`commit: ${A}`, `commit: ${B}`))
    // Nothing to change: the same bytes.
    expect(setTierInConfig(moved, { ...org, commit: B }, P)).toBe(moved)

    expect(removeTierFromConfig(two, 'org', P)).toBe(`${head}tiers:\n${fwLines.join('\n')}\n${tail}`)
    expect(removeTierFromConfig(two, 'fw', P)).toBe(added)
    expect(removeTierFromConfig(added, 'org', P)).toBe(template)
  })

  // A file written by hand: aligned comments, flow lists without padding, comments between and inside tier entries,
  // the list indented at column 0, a key the tier gains.
  const hand = [
    '# ours',
    'zones:',
    '  system: [".claude/skills/**", docs/agents/**]   # agents read these',
    'tiers:        # pinned, reviewed',
    '# the org',
    '- name: org',
    '  url: https://git.example.com/org/learnings.git   # mirror',
    `  commit: "${A}"`,
    '# the framework',
    '- name: fw',
    '  url: ../fw.git',
    'render:',
    '  targets: [claude,  codex]  # both',
    '',
  ].join('\n')

  test('on a hand-written config: the entry concerned changes, in its own indentation and quoting, nothing else', () => {
    expect(setTierInConfig(hand, { name: 'org', url: org.url, commit: B }, P)).toBe(hand.replace(`"${A}"`, B))
    expect(setTierInConfig(hand, { name: 'fw', url: '../fw.git', commit: B, weight: 0.5 }, P)).toBe(
      hand.replace('  url: ../fw.git\n', `  url: ../fw.git\n  commit: ${B}\n  weight: 0.5\n`),
    )
    expect(setTierInConfig(hand, { name: 'new', url: '../new.git' }, P)).toBe(
      hand.replace('  url: ../fw.git\n', '  url: ../fw.git\n- name: new\n  url: ../new.git\n'),
    )
    expect(removeTierFromConfig(hand, 'fw', P)).toBe(hand.replace('- name: fw\n  url: ../fw.git\n', ''))
    expect(removeTierFromConfig(hand, 'org', P)).toBe(
      hand.replace(`- name: org\n  url: https://git.example.com/org/learnings.git   # mirror\n  commit: "${A}"\n`, ''),
    )
    const one = removeTierFromConfig(hand, 'org', P)
    expect(removeTierFromConfig(one, 'fw', P)).toBe(
      hand.replace(/tiers: {8}# pinned, reviewed\n[\s\S]*render:/, 'tiers: []        # pinned, reviewed\nrender:'),
    )
  })

  test.each([
    ['no tiers key', 'a: 1  # x\n', `a: 1  # x\ntiers:\n${orgLines.join('\n')}\n`],
    ['no final newline', 'a: [x]', `a: [x]\ntiers:\n${orgLines.join('\n')}\n`.slice(0, -1)],
    ['no file', undefined, `tiers:\n${orgLines.join('\n')}\n`],
    ['only a comment', '# nothing yet\n', `# nothing yet\ntiers:\n${orgLines.join('\n')}\n`],
    ['an empty value', 'tiers:\nb: [y]\n', `tiers:\n${orgLines.join('\n')}\nb: [y]\n`],
    ['a flow list', 'tiers: []   # c\nb: [y]\n', `tiers:   # c\n${orgLines.join('\n')}\nb: [y]\n`],
    [
      'a flow list with an entry',
      'tiers: [{name: fw, url: ../fw.git}]\nb: [y]\n',
      `tiers:\n  - name: fw\n    url: ../fw.git\n${orgLines.join('\n')}\nb: [y]\n`,
    ],
    [
      'CRLF line endings',
      'a: [x]   # c\r\ntiers: []\r\nb: 1\r\n',
      `a: [x]   # c\r\ntiers:\r\n${orgLines.join('\r\n')}\r\nb: 1\r\n`,
    ],
  ])('tier add on %s', (_, before, after) => {
    const got = setTierInConfig(before, org, P)
    expect(got).toBe(after)
    expect(YAML.parse(got).tiers).toEqual([...(before?.includes('fw') ? [{ name: 'fw', url: '../fw.git' }] : []), org])
  })

  test('a config that is not YAML, or has a key twice, is refused', () => {
    expect(() => setTierInConfig('a: [\n', org, P)).toThrow(ConfigError)
    expect(() => setTierInConfig('a: 1\na: 2\n', org, P)).toThrow(ConfigError)
  })
})
