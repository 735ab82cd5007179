import { describe, expect, test } from 'vitest'
import {
  buildCommitMessage,
  committedMessage,
  foldValue,
  parseAuditTrail,
  parseLearningTrailers,
  parseRawLog,
} from '../../../src/core/trailers.js'

describe('buildCommitMessage', () => {
  test('subject, one trailer block, by and reason', () => {
    const msg = buildCommitMessage({
      action: 'reject',
      names: ['flaky-retry'],
      from: 'pending',
      to: 'archived',
      by: { token: 'Rejected-by', value: 'Jane Doe <jane@example.com>' },
      reason: 'one-off\nnot reusable   at all',
    })
    expect(msg).toBe(
      'learn: reject flaky-retry\n\nLearning: flaky-retry\nLearning-Action: reject\nLearning-From: pending\nLearning-To: archived\nRejected-by: Jane Doe <jane@example.com>\nLearning-Reason: one-off not reusable at all\n',
    )
  })
  test('an add has no Learning-From', () => {
    const msg = buildCommitMessage({ action: 'add', names: ['x'], from: null, to: 'pending' })
    expect(msg).not.toContain('Learning-From')
    expect(msg).toContain('Learning-To: pending')
  })
  test('foldValue makes one line', () => {
    expect(foldValue(' a\r\n b\tc ')).toBe('a b c')
  })
})

describe('parsing the audit trail', () => {
  test('round trip through a message', () => {
    const msg = buildCommitMessage({
      action: 'approve',
      names: ['x'],
      from: 'pending',
      to: 'active',
      by: { token: 'Approved-by', value: 'Bob <b@x>' },
    })
    const [event] = parseAuditTrail([
      { commit: 'abc', date: '2026-11-20T10:00:00Z', author: 'Ann <a@x>', message: msg },
    ])
    expect(event).toMatchObject({
      name: 'x',
      action: 'approve',
      from: 'pending',
      to: 'active',
      by: 'Bob <b@x>',
      byRole: 'Approved-by',
      reason: null,
    })
  })
  test('a squash-merge body with several folded messages yields every event', () => {
    const body = [
      'Add learnings (#42)',
      '',
      '* learn: add a-thing',
      '',
      'Learning: a-thing',
      'Learning-Action: add',
      'Learning-To: pending',
      'Proposed-by: Ann <a@x>',
      '',
      '* learn: reject b-thing',
      '',
      'Learning: b-thing',
      'Learning-Action: reject',
      'Learning-From: pending',
      'Learning-To: archived',
      'Rejected-by: Bob <b@x>',
      'Learning-Reason: duplicate of a-thing',
    ].join('\n')
    const events = parseAuditTrail([{ commit: 'c1', date: 'd', author: 'Forge <f@x>', message: body }])
    expect(events.map((e) => [e.name, e.action, e.by, e.reason])).toEqual([
      ['a-thing', 'add', 'Ann <a@x>', null],
      ['b-thing', 'reject', 'Bob <b@x>', 'duplicate of a-thing'],
    ])
  })
  test('filter by name; commits without trailers give nothing', () => {
    expect(parseLearningTrailers('fix: typo\n\nSigned-off-by: A <a@x>')).toEqual([])
    const events = parseAuditTrail(
      [
        {
          commit: 'c',
          date: 'd',
          author: 'a',
          message: 'Learning: a\nLearning-Action: add\n\nLearning: b\nLearning-Action: add',
        },
      ],
      'b',
    )
    expect(events.map((e) => e.name)).toEqual(['b'])
  })
  test('parseRawLog splits git log records', () => {
    const raw =
      'abc\x1f2026-11-20T10:00:00+01:00\x1fJane <j@x>\x1flearn: approve x\n\nLearning: x\n\x1e\ndef\x1f2026-11-19T10:00:00+01:00\x1fBob <b@x>\x1finitial\n\x1e\n'
    expect(parseRawLog(raw)).toEqual([
      {
        commit: 'abc',
        date: '2026-11-20T10:00:00+01:00',
        author: 'Jane <j@x>',
        message: 'learn: approve x\n\nLearning: x\n',
      },
      { commit: 'def', date: '2026-11-19T10:00:00+01:00', author: 'Bob <b@x>', message: 'initial\n' },
    ])
  })
})

describe('parseAuditTrail with reverts', () => {
  const A = 'a'.repeat(40)
  const B = 'b'.repeat(40)
  const approve = (commit: string, name: string) => ({
    commit,
    date: 'd',
    author: 'Rita <r@x>',
    message: `learn: approve ${name}\n\nLearning: ${name}\nLearning-Action: approve\nLearning-From: pending\nLearning-To: active\nApproved-by: Rita <r@x>\n`,
  })
  const revertsOf = (message: string) =>
    parseAuditTrail(
      [{ commit: 's', date: 'd', author: 'Sam <s@x>', message }, approve(B, 'b'), approve(A, 'a')],
      '',
      true,
    )
      .filter((e) => e.action === 'revert')
      .map((e) => [e.name, e.from, e.to, e.reverts?.commit])

  test('a squash of two reverts by `git merge --squash` (its lines indented) is two revert events', () => {
    const message =
      'Squashed commit of the following:\n\n' +
      `commit ${'1'.repeat(40)}\nAuthor: Sam <s@x>\nDate:   Mon Dec 7 12:00:00 2026 +0000\n\n` +
      `    Revert "learn: approve b"\n    \n    This reverts commit ${B}.\n\n` +
      `commit ${'2'.repeat(40)}\nAuthor: Sam <s@x>\nDate:   Mon Dec 7 11:00:00 2026 +0000\n\n` +
      `    Revert "learn: approve a"\n    \n    This reverts commit ${A}.\n`
    expect(revertsOf(message)).toEqual([
      ['b', 'active', 'pending', B],
      ['a', 'active', 'pending', A],
    ])
  })
  test("a forge's squash of two reverts is two revert events", () => {
    const message =
      `Undo two approvals (#12)\n\n* Revert "learn: approve a"\n\nThis reverts commit ${A}.\n\n` +
      `* Revert "learn: approve b"\n\nThis reverts commit ${B}.\n`
    expect(revertsOf(message)).toEqual([
      ['a', 'active', 'pending', A],
      ['b', 'active', 'pending', B],
    ])
  })
  test('a line quoting it after other words is no revert', () => {
    expect(
      revertsOf(`docs: explain\n\nThe line "This reverts commit ${A}." is git's.\n> This reverts commit ${B}.\n`),
    ).toEqual([])
  })
})

describe('committedMessage (the commit-msg hook reads what git will record)', () => {
  const CUT = '------------------------ >8 ------------------------'
  const diff = ' Learning: x\n Approved-by: Bob <bob@example.com>\n'

  test('cut at the scissors line of the configured prefix only, as git cuts', () => {
    expect(committedMessage(`wip\n\n; comment\n; ${CUT}\n; below\n${diff}`, ';')).toBe('wip\n\n')
    // Another prefix's scissors line is text git keeps (a message given with -m); its comment lines are kept too.
    expect(committedMessage(`wip\n# ${CUT}\n${diff}`, ';')).toBe(`wip\n# ${CUT}\n${diff}`)
    expect(committedMessage(`wip\n# ${CUT}\n${diff}`, '#')).toBe('wip\n')
    expect(committedMessage(`# ${CUT}\n${diff}`, '#')).toBe('')
    // Not git's line: fewer dashes, or more after it on the line.
    expect(committedMessage(`wip\n# ---- >8 ----\n${diff}`, '#')).toBe(`wip\n${diff}`)
    expect(committedMessage(`wip\n; ${CUT} x\n${diff}`, ';')).toBe(`wip\n${diff}`)
  })

  test('auto: the scissors line of any character git may pick; that one starts the comment lines', () => {
    expect(committedMessage(`#12 fix\n\n; hint\n; ${CUT}\n${diff}`, 'auto')).toBe('#12 fix\n\n')
    expect(committedMessage(`fix\n# hint\n# ${CUT}\n${diff}`, 'auto')).toBe('fix\n')
    expect(committedMessage(`fix\n# hint\n`, 'auto')).toBe('fix\n')
  })

  test('a multi-character core.commentString; an empty one is #', () => {
    expect(committedMessage(`fix\n// hint\n// ${CUT}\n${diff}`, '//')).toBe('fix\n')
    expect(committedMessage(`fix\n# hint\n`, '')).toBe('fix\n')
  })
})
