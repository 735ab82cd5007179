import { expect, test } from 'vitest'
import { learningText, makeRepo } from '../../helpers/repo.js'

// Learnings folded into a team's hand-written skills, and suggest-skill for those that name none.

const DEPLOY =
  '---\nname: deploy\ndescription: Deploy the app to production with the release script and roll back when health checks fail.\n---\n# Deploy\n\nRun ./release.sh.\n'
const DB =
  '---\nname: database-migrations\ndescription: Write and run postgres schema migrations with knex, and recover a failed migration.\n---\n# Migrations\n\nUse knex.\n'

test('render folds a learning into its skill: references/learnings.md and one marked line; the rest byte for byte', async () => {
  const repo = makeRepo()
  repo.write('.claude/skills/deploy/SKILL.md', DEPLOY)
  repo.write('.claude/skills/database-migrations/SKILL.md', DB)
  repo.write(
    '.learnings/active/rollback-health-timeout.md',
    learningText('rollback-health-timeout', { skill: 'deploy' }),
  )
  repo.write('.learnings/active/plain-one.md', learningText('plain-one'))
  repo.write('.learnings/archived/.gitkeep', '')
  repo.git('add', '-A')
  repo.git('commit', '-qm', 'skills and learnings')
  const r = await repo.cli(['render', '--json'])
  expect(r.code, r.stderr).toBe(0)
  expect(r.json().written.sort()).toEqual([
    '.claude/skills/deploy/SKILL.md',
    '.claude/skills/deploy/references/learnings.md',
    '.claude/skills/plain-one/SKILL.md',
  ])
  const skill = repo.read('.claude/skills/deploy/SKILL.md')
  expect(skill.startsWith(DEPLOY)).toBe(true)
  expect(skill.slice(DEPLOY.length)).toBe(
    "\n<!-- git-learn:learnings --> The team's 1 reviewed learning for this skill: [references/learnings.md](references/learnings.md)\n",
  )
  expect(repo.read('.claude/skills/deploy/references/learnings.md')).toMatch(
    /^# Reviewed learnings for deploy\n[\s\S]*## rollback-health-timeout\n/,
  )
  expect(repo.exists('.claude/skills/rollback-health-timeout')).toBe(false)
  expect(repo.read('.claude/skills/database-migrations/SKILL.md')).toBe(DB)
  const again = (await repo.cli(['render', '--json'])).json()
  expect(again.written).toEqual([])

  // The learning leaves active/: the references file and our line go; the hand-written skill is as it was.
  repo.git('mv', '.learnings/active/rollback-health-timeout.md', '.learnings/archived/rollback-health-timeout.md')
  const gone = (await repo.cli(['render', '--json'])).json()
  expect(gone.removed.sort()).toEqual([
    '.claude/skills/deploy/SKILL.md',
    '.claude/skills/deploy/references/learnings.md',
  ])
  expect(repo.read('.claude/skills/deploy/SKILL.md')).toBe(DEPLOY)
  expect(repo.exists('.claude/skills/deploy/references')).toBe(false)
})

test('suggest-skill names the best skill with a score, or says there is no clear match', async () => {
  const repo = makeRepo()
  repo.write('.claude/skills/deploy/SKILL.md', DEPLOY)
  repo.write('.claude/skills/database-migrations/SKILL.md', DB)
  repo.write(
    '.learnings/active/knex-migration-lock.md',
    learningText('knex-migration-lock', {
      description: 'Fix a knex migration stuck on the migration lock. Use when postgres migrations hang.',
      trigger: 'Error: Migration table is already locked',
      tags: '[knex, postgres]',
    }),
  )
  repo.write(
    '.learnings/active/css-grid-gap.md',
    learningText('css-grid-gap', {
      description: 'Fix grid gaps collapsing in Safari. Use when the layout of cards breaks.',
      trigger: 'cards overlap in Safari 15',
      tags: '[css, safari]',
    }),
  )
  const hit = await repo.cli(['suggest-skill', 'knex-migration-lock', '--json'])
  expect(hit.code, hit.stderr).toBe(0)
  expect(hit.json().best).toMatchObject({ skill: 'database-migrations' })
  expect(hit.json().best.score).toBeGreaterThan(hit.json().ranked[1].score)
  const text = await repo.cli(['suggest-skill', 'knex-migration-lock'])
  expect(text.stdout).toMatch(/fits the skill database-migrations \(score \d\.\d\d\): set `skill: database-migrations`/)
  const none = await repo.cli(['suggest-skill', 'css-grid-gap', '--json'])
  expect(none.json().best).toBeNull()
  expect((await repo.cli(['suggest-skill', 'css-grid-gap'])).stdout).toMatch(/no clear match/)
})
