import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { RENDER_MARKER } from '../../../src/core/check-zones.js'
import { PROJECT_ROOT, cliAt, makeRepo, sh, tempDir, tierRemote } from '../../helpers/repo.js'
import { seedStore } from '../../helpers/feed-store.js'
import { learningText } from '../../helpers/repo.js'

// render owns only the files its manifest lists, by the hash of what it wrote, never by marker text, and never reaches
// through a symbolic link; the refresh after a merge renders the targets the user chose, quietly.

const SKILL = (name: string) => `.claude/skills/${name}/SKILL.md`

describe('render ownership', () => {
  test('a .claude/skills symlink to another project: nothing there is written or deleted', async () => {
    const repo = makeRepo()
    seedStore(repo)
    const other = tempDir('gl-other-project-')
    mkdirSync(join(other, 'their-skill'))
    const theirs = `---\nname: their-skill\ndescription: theirs\n---\n${RENDER_MARKER}\nanother project's rendered skill\n`
    writeFileSync(join(other, 'their-skill', 'SKILL.md'), theirs)
    mkdirSync(join(repo.root, '.claude'))
    symlinkSync(other, join(repo.root, '.claude', 'skills'))
    const r = await repo.cli(['render', '--json'])
    expect(r.code).toBe(0)
    expect(r.json().written).toEqual([])
    expect(r.json().removed).toEqual([])
    expect(r.json().skipped).toContain(SKILL('vitest-esm-mock-hoisting'))
    expect(readdirSync(other)).toEqual(['their-skill'])
    expect(readFileSync(join(other, 'their-skill', 'SKILL.md'), 'utf8')).toBe(theirs)
  })

  test('the marker does not make a file ours: a hand-written file carrying it is neither overwritten nor removed', async () => {
    const repo = makeRepo()
    seedStore(repo)
    const atTarget = `# mine\n${RENDER_MARKER}\nI copied the marker.\n`
    const elsewhere = `# a skill of ours\n${RENDER_MARKER}\n`
    repo.write(SKILL('react-hooks-order'), atTarget)
    repo.write(SKILL('hand-made'), elsewhere)
    const r = (await repo.cli(['render', '--json'])).json()
    expect(r.skipped).toEqual([SKILL('react-hooks-order')])
    expect(r.removed).toEqual([])
    expect(repo.read(SKILL('react-hooks-order'))).toBe(atTarget)
    expect(repo.read(SKILL('hand-made'))).toBe(elsewhere)
  })

  test('a rendered file edited by hand is left alone; one it wrote and nobody touched is removed when its learning leaves', async () => {
    const repo = makeRepo()
    seedStore(repo)
    await repo.cli(['render'])
    const edited = `${repo.read(SKILL('docker-enospc'))}\nmy note\n`
    repo.write(SKILL('docker-enospc'), edited)
    repo.git('mv', '.learnings/active/docker-enospc.md', '.learnings/archived/docker-enospc.md')
    repo.git('mv', '.learnings/active/react-hooks-order.md', '.learnings/archived/react-hooks-order.md')
    const r = (await repo.cli(['render', '--json'])).json()
    expect(r.removed).toEqual([SKILL('react-hooks-order')])
    expect(repo.exists('.claude/skills/react-hooks-order')).toBe(false)
    expect(repo.read(SKILL('docker-enospc'))).toBe(edited)
  })

  test('dropping the agents target removes the AGENTS.md section and keeps the rest byte for byte', async () => {
    const repo = makeRepo()
    seedStore(repo)
    const mine = '# Agents\n\nOur own rules.\n'
    repo.write('AGENTS.md', mine)
    await repo.cli(['render', '--target', 'claude,agents'])
    expect(repo.read('AGENTS.md')).toContain('<!-- git-learn:begin -->')
    const r = (await repo.cli(['render', '--target', 'claude', '--json'])).json()
    expect(r.removed).toEqual(['AGENTS.md'])
    expect(repo.read('AGENTS.md')).toBe(mine)
    expect(repo.exists(SKILL('docker-enospc'))).toBe(true)
  })
})

describe('what agents see follows the store', () => {
  test.each(['githooks', 'husky'])(
    'post-merge re-renders the targets the user rendered (not the config default), quietly: %s',
    (kind) => {
      const repo = makeRepo()
      seedStore(repo)
      if (kind === 'husky')
        expect(sh(repo.root, process.execPath, [join(PROJECT_ROOT, 'node_modules', 'husky', 'bin.js')]).code).toBe(0)
      expect(sh(repo.root, 'git', ['learn', 'hook', 'install']).code).toBe(0)
      if (kind === 'husky') expect(repo.read('.husky/post-merge')).toContain('git-learn hook post-merge')
      repo.write('.gitignore', '.cursor/\n.claude/\n')
      repo.git('add', '-A')
      repo.git('commit', '-qm', 'ignore renders')
      expect(sh(repo.root, 'git', ['learn', 'render', '--target', 'cursor']).code).toBe(0)
      expect(repo.exists('.cursor/rules/docker-enospc.mdc')).toBe(true)

      repo.git('checkout', '-qb', 'archive')
      repo.git('mv', '.learnings/active/docker-enospc.md', '.learnings/archived/docker-enospc.md')
      const by =
        'Learning: docker-enospc\nLearning-Action: prune\nLearning-From: active\nLearning-To: archived\nPruned-by: Ada Author <ada@example.com>\nLearning-Reason: unused'
      expect(sh(repo.root, 'git', ['commit', '-qm', `learn: prune docker-enospc\n\n${by}`]).code).toBe(0)
      repo.git('checkout', '-q', 'main')
      expect(repo.exists('.cursor/rules/docker-enospc.mdc')).toBe(true)
      const merged = sh(repo.root, 'git', ['merge', '-q', '--ff-only', 'archive'])
      expect(merged.code).toBe(0)
      expect(merged.stdout).toBe('')
      expect(merged.stderr).toBe('')
      expect(repo.exists('.cursor/rules/docker-enospc.mdc')).toBe(false)
      expect(repo.exists('.cursor/rules/react-hooks-order.mdc')).toBe(true)
      expect(repo.exists('.claude/skills')).toBe(false)
      // A checkout back brings it back.
      const back = sh(repo.root, 'git', ['checkout', '-q', 'HEAD~1'])
      expect(back.stdout + back.stderr).toBe('')
      expect(repo.exists('.cursor/rules/docker-enospc.mdc')).toBe(true)
    },
  )

  test('prune and approve refresh what render wrote', async () => {
    const repo = makeRepo()
    seedStore(repo)
    repo.write('.gitignore', '.claude/\n')
    repo.git('add', '.gitignore')
    repo.git('commit', '-qm', 'ignore renders')
    await repo.cli(['render'])
    const pruned = await repo.cli([
      'prune',
      'react-hooks-order',
      '--reason',
      'we moved off class components',
      '--yes',
      '--json',
    ])
    expect(pruned.code, pruned.stderr).toBe(0)
    expect(() => pruned.json()).not.toThrow()
    expect(repo.exists(SKILL('react-hooks-order'))).toBe(false)
    repo.setIdentity('Bob Reviewer', 'bob@example.com')
    const restored = await repo.cli(['restore', 'react-hooks-order'])
    expect(restored.code, restored.stderr).toBe(0)
    repo.setIdentity('Cleo Reviewer', 'cleo@example.com')
    const approved = await repo.cli(['approve', 'react-hooks-order'])
    expect(approved.code, approved.stderr).toBe(0)
    expect(existsSync(join(repo.root, SKILL('react-hooks-order')))).toBe(true)
    expect(repo.git('status', '--porcelain')).toBe('')
  })
})

describe('check reports rendered files that no longer say what the store says', () => {
  test('a changed learning and an archived one: warnings with the fix; render and commit clear them', async () => {
    const repo = makeRepo()
    seedStore(repo)
    await repo.cli(['render'])
    repo.git('add', '-A')
    repo.git('commit', '-qm', 'rendered skills')
    expect(
      (await repo.cli(['check', '--json'])).json().findings.filter((f: { rule: string }) => f.rule === 'rendered'),
    ).toEqual([])
    repo.write(
      '.learnings/active/docker-enospc.md',
      repo
        .read('.learnings/active/docker-enospc.md')
        .replace('## Solution\n', '## Solution\nFirst prune the builder cache.\n'),
    )
    repo.git('mv', '.learnings/active/react-hooks-order.md', '.learnings/archived/react-hooks-order.md')
    const r = await repo.cli(['check', '--json'])
    expect(r.code).toBe(0)
    const rendered = r.json().findings.filter((f: { rule: string }) => f.rule === 'rendered')
    expect(rendered.map((f: { path: string; severity: string }) => `${f.severity} ${f.path}`).sort()).toEqual([
      `warning ${SKILL('docker-enospc')}`,
      `warning ${SKILL('react-hooks-order')}`,
    ])
    expect(rendered.find((f: { path: string }) => f.path === SKILL('docker-enospc')).message).toMatch(
      /out of date.*run `git learn render` and commit/,
    )
    expect(rendered.find((f: { path: string }) => f.path === SKILL('react-hooks-order')).message).toMatch(
      /no longer active/,
    )
    await repo.cli(['render'])
    expect(
      (await repo.cli(['check', '--json'])).json().findings.filter((f: { rule: string }) => f.rule === 'rendered'),
    ).toEqual([])
  })
})

describe('render --target claude-md: an index CLAUDE.md imports', () => {
  test('one marked section importing .learnings/INDEX.md, replaced never duplicated, removed with the target', async () => {
    const repo = makeRepo()
    seedStore(repo)
    const mine = '# Project rules\n\nUse pnpm.\n'
    repo.write('CLAUDE.md', mine)
    const first = (await repo.cli(['render', '--target', 'claude-md', '--json'])).json()
    expect(first.written.sort()).toEqual(['.learnings/INDEX.md', 'CLAUDE.md'])
    const claude = repo.read('CLAUDE.md')
    expect(claude).toBe(
      `${mine}\n<!-- git-learn:begin -->\n## Team learnings\n\n@.learnings/INDEX.md\n<!-- git-learn:end -->\n`,
    )
    const index = repo.read('.learnings/INDEX.md')
    expect(index).toMatch(/^- \*\*docker-enospc\*\* — .+ Trigger: `.+`$/m)
    expect(index).not.toContain('pending-example')
    const again = (await repo.cli(['render', '--target', 'claude-md', '--json'])).json()
    expect(again.written).toEqual([])
    expect(repo.read('CLAUDE.md').match(/git-learn:begin/g)).toHaveLength(1)
    // check accepts the index inside .learnings/.
    repo.git('add', '-A')
    expect((await repo.cli(['check', '--staged'])).code).toBe(0)

    const dropped = (await repo.cli(['render', '--target', 'claude', '--json'])).json()
    expect(dropped.removed.sort()).toEqual(['.learnings/INDEX.md', 'CLAUDE.md'])
    expect(repo.read('CLAUDE.md')).toBe(mine)
    expect(repo.exists('.learnings/INDEX.md')).toBe(false)
  })

  test('the index stays within context.max_tokens and says how many it left out', async () => {
    const repo = makeRepo()
    seedStore(repo)
    repo.write('.learnings/config.yaml', 'context:\n  max_tokens: 120\n')
    await repo.cli(['render', '--target', 'claude-md'])
    const index = repo.read('.learnings/INDEX.md')
    expect(index.length).toBeLessThanOrEqual(120 * 4 + 80)
    expect(index).toMatch(/^- … \d+ more: `git learn search <words>`$/m)
  })
})

describe('render never builds a path from an invalid learning', () => {
  test('a file named "..md" in active/ is skipped with a warning; nothing is written outside the skill directories', async () => {
    const repo = makeRepo()
    repo.write('.learnings/active/..md', learningText('.'))
    repo.write('.learnings/active/good-one.md', learningText('good-one'))
    repo.write('.learnings/active/no-description.md', learningText('no-description', { description: '' }))
    repo.git('add', '-A')
    repo.git('commit', '-q', '-m', 'seed')
    const r = await repo.cli(['render', '--json'])
    expect(r.code).toBe(0)
    expect(r.json().written).toEqual(['.claude/skills/good-one/SKILL.md'])
    expect(repo.exists('.claude/SKILL.md')).toBe(false)
    expect(repo.exists('.claude/skills/SKILL.md')).toBe(false)
    expect(repo.exists('.claude/skills/no-description/SKILL.md')).toBe(false)
    expect(
      r.stderr.match(/^warning: .learnings\/active\/\.\.md was not rendered: its name is not valid/gm),
    ).toHaveLength(1)
    expect(r.stderr.match(/^warning: .learnings\/active\/no-description\.md was not rendered: /gm)).toHaveLength(1)
  })
})

describe('render --dry-run writes nothing at all', () => {
  /** Every file and folder under `root` (.git included, but git's own index): type, size, mtime and content hash. */
  function tree(root: string): string[] {
    const out: string[] = []
    const walk = (rel: string) => {
      for (const name of readdirSync(join(root, rel)).sort()) {
        const path = rel ? `${rel}/${name}` : name
        if (path === '.git/index') continue // git's own stat refresh, not ours
        const st = lstatSync(join(root, path))
        if (st.isDirectory()) {
          out.push(`${path}/`)
          walk(path)
        } else
          out.push(
            `${path} ${st.size} ${st.mtimeMs} ${createHash('sha256')
              .update(readFileSync(join(root, path)))
              .digest('hex')}`,
          )
      }
    }
    walk('')
    return out
  }

  /** Set every file under .git/learn to an old mtime, so that a touch (a cache marked used) shows. */
  function age(root: string): void {
    const old = new Date('2026-01-01T00:00:00Z')
    const walk = (dir: string) => {
      if (!existsSync(dir)) return
      for (const name of readdirSync(dir)) {
        const p = join(dir, name)
        if (lstatSync(p).isDirectory()) walk(p)
        else utimesSync(p, old, old)
      }
    }
    walk(join(root, '.git', 'learn'))
  }

  test('no rendered file, manifest, cache (scans, config, tier) or fetch: cold, warm and with a learning changed', async () => {
    // A tier pinned in config.yaml, as a fresh clone has it: the pin without the tier's objects.
    const { bare } = tierRemote({ 'org-wide-note': learningText('org-wide-note') })
    const origin = makeRepo()
    seedStore(origin)
    expect((await origin.cli(['tier', 'add', 'org', bare])).code).toBe(0)
    const clone = join(tempDir('gl-clone-'), 'clone')
    execFileSync('git', ['clone', '-q', '--no-local', origin.root, clone])
    const at = (argv: string[]) => cliAt(clone, argv)

    const before = tree(clone)
    const cold = await at(['render', '--dry-run', '--json'])
    expect(cold.code, cold.stderr).toBe(0)
    expect(cold.json()).toMatchObject({ dryRun: true, written: expect.arrayContaining([SKILL('docker-enospc')]) })
    expect(cold.stderr).toMatch(
      /refs\/learn\/tiers\/org: the pinned commit \w+ is not in this repository yet, and a dry run fetches nothing/,
    )
    expect(tree(clone)).toEqual(before)

    // Rendered for real (the tier fetched, every cache written), then a learning changed: the dry run still writes nothing.
    const real = await at(['render'])
    expect(real.code, real.stderr).toBe(0)
    expect(existsSync(join(clone, SKILL('org-wide-note')))).toBe(true)
    writeFileSync(
      join(clone, '.learnings/active/docker-enospc.md'),
      readFileSync(join(clone, '.learnings/active/docker-enospc.md'), 'utf8').replace(
        '## Solution',
        '## Solution\nAlso this.',
      ),
    )
    writeFileSync(
      join(clone, '.learnings/config.yaml'),
      `${readFileSync(join(clone, '.learnings/config.yaml'), 'utf8')}\n# edited\n`,
    )
    age(clone)
    const warm = tree(clone)
    const dry = await at(['render', '--dry-run', '--json'])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.json().written).toEqual([SKILL('docker-enospc')])
    expect(tree(clone)).toEqual(warm)
  })
})

describe('render and check read a rendered file as git does (issue: CRLF checkouts, fresh clones)', () => {
  /** A repository whose rendered skills are committed, cloned with `git -c core.autocrlf=<crlf> clone`. */
  async function cloneOfRendered(autocrlf: boolean) {
    const origin = makeRepo()
    seedStore(origin)
    expect((await origin.cli(['render'])).code).toBe(0)
    origin.git('add', '.claude')
    origin.git('commit', '-qm', 'rendered skills')
    const root = join(tempDir('gl-clone-'), 'clone')
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' })
    execFileSync('git', ['-c', `core.autocrlf=${autocrlf}`, 'clone', '-q', origin.root, root])
    git('config', 'core.autocrlf', String(autocrlf))
    git('config', 'user.name', 'Ada Author')
    git('config', 'user.email', 'ada@example.com')
    const rendered = (json: { findings: { rule: string; path: string }[] }) =>
      json.findings.filter((f) => f.rule === 'rendered').map((f) => f.path)
    const check = async () => rendered((await cliAt(root, ['check', '--json'])).json())
    /** An edit of an active learning, committed (as a teammate's pull would bring it). */
    const edit = (name: string) => {
      const path = `.learnings/active/${name}.md`
      const text = readFileSync(join(root, path), 'utf8')
      writeFileSync(join(root, path), text.replace('## Solution', '## Solution\nFirst check the obvious.'))
      git('commit', '-qam', 'edit', '-m', `Learning: ${name}`, '-m', 'Learning-Action: edit')
    }
    return { root, git, check, edit }
  }

  test('core.autocrlf=true: the CRLF checkout is what render wrote, and an edited learning is rendered again', async () => {
    const { root, check, edit } = await cloneOfRendered(true)
    expect(readFileSync(join(root, SKILL('docker-enospc')), 'utf8')).toContain('\r\n')
    expect(await check()).toEqual([])
    const first = (await cliAt(root, ['render', '--json'])).json()
    expect(first.skipped).toEqual([])
    expect(first.written).toEqual([])
    edit('docker-enospc')
    expect(await check()).toEqual([SKILL('docker-enospc')])
    const r = await cliAt(root, ['render', '--json'])
    expect(r.stderr).toBe('')
    expect(r.json()).toMatchObject({ written: [SKILL('docker-enospc')], skipped: [] })
    expect(await check()).toEqual([])
  })

  test('a fresh clone (no manifest yet): render rewrites a committed rendered file, never one edited here', async () => {
    const { root, check, edit } = await cloneOfRendered(true)
    edit('docker-enospc')
    edit('vitest-esm-mock-hoisting')
    expect(await check()).toEqual([SKILL('docker-enospc'), SKILL('vitest-esm-mock-hoisting')])
    const mine = `${readFileSync(join(root, SKILL('docker-enospc')), 'utf8')}my note\r\n`
    writeFileSync(join(root, SKILL('docker-enospc')), mine)
    const r = await cliAt(root, ['render', '--json'])
    expect(r.json()).toMatchObject({ written: [SKILL('vitest-esm-mock-hoisting')], skipped: [SKILL('docker-enospc')] })
    expect(r.stderr).toMatch(/docker-enospc\/SKILL\.md was not written by git learn here \(or was edited since\)/)
    expect(readFileSync(join(root, SKILL('docker-enospc')), 'utf8')).toBe(mine)
    expect(await check()).toEqual([SKILL('docker-enospc')])
  })

  test('core.autocrlf=false with a CRLF file committed: check and render agree it is not what render writes', async () => {
    const { root, git, check } = await cloneOfRendered(false)
    const path = join(root, SKILL('docker-enospc'))
    writeFileSync(path, readFileSync(path, 'utf8').replace(/\n/g, '\r\n'))
    git('commit', '-qam', 'CRLF by hand')
    expect(await check()).toEqual([SKILL('docker-enospc')])
    const r = (await cliAt(root, ['render', '--json'])).json()
    expect(r).toMatchObject({ written: [SKILL('docker-enospc')], skipped: [] })
    expect(await check()).toEqual([])
  })
})
