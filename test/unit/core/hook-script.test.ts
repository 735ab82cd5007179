import { describe, expect, test } from 'vitest'
import { planHookLine } from '../../../src/core/hook-script.js'

const OURS = 'git-learn check --staged # git-learn'
const isOurs = (l: string) => l.endsWith('# git-learn')

describe('planHookLine', () => {
  test.each([
    ['empty', '', `${OURS}\n`, 1],
    ['appended at the end', 'npx lint-staged\n', `npx lint-staged\n${OURS}\n`, 2],
    [
      'before a final exit 0',
      'npx commitlint --edit "$1"\nexit 0\n',
      `npx commitlint --edit "$1"\n${OURS}\nexit 0\n`,
      2,
    ],
    ['before an exec of a command', 'exec npx lint-staged\n', `${OURS}\nexec npx lint-staged\n`, 1],
    ['before the first of two exits', 'a\nexit 0\nb\nexit 1\n', `a\n${OURS}\nexit 0\nb\nexit 1\n`, 2],
    ['before `x; exit 0`', 'a; exit 0\n', `${OURS}\na; exit 0\n`, 1],
    [
      'after `exec < /dev/tty` (a redirection only)',
      'exec < /dev/tty\nnpx cz\n',
      `exec < /dev/tty\nnpx cz\n${OURS}\n`,
      3,
    ],
    [
      'after an exit inside if … fi',
      'if [ -n "$CI" ]; then\nexit 0\nfi\nnpx lint-staged\n',
      `if [ -n "$CI" ]; then\nexit 0\nfi\nnpx lint-staged\n${OURS}\n`,
      5,
    ],
    ['after `|| exit 1`', 'npx lint-staged || exit 1\n', `npx lint-staged || exit 1\n${OURS}\n`, 2],
    ['a comment saying exit 0 is no exit', '# exit 0\nnpx x\n', `# exit 0\nnpx x\n${OURS}\n`, 3],
    ['exit in a here-document is data', 'cat <<EOF\nexit 0\nEOF\n', `cat <<EOF\nexit 0\nEOF\n${OURS}\n`, 4],
  ])('%s', (_, text, want, line) => {
    const plan = planHookLine(text, OURS, isOurs)
    expect(plan.text).toBe(want)
    expect(plan.line).toBe(line)
    expect(plan.existed).toBe(false)
  })

  test('a line of ours after a final exit moves in front of it; one before it stays', () => {
    const moved = planHookLine(`npx commitlint\nexit 0\n${OURS}\n`, OURS, isOurs)
    expect(moved.text).toBe(`npx commitlint\n${OURS}\nexit 0\n`)
    expect(moved).toMatchObject({ line: 2, movedFrom: 3, before: { line: 3, text: 'exit 0' }, existed: true })
    const stays = planHookLine(`${OURS}\nnpx commitlint\n`, OURS, isOurs)
    expect(stays.text).toBe(`${OURS}\nnpx commitlint\n`)
    expect(stays.movedFrom).toBeUndefined()
    const older = planHookLine(`a\nold git-learn check # git-learn\nb\n`, OURS, isOurs)
    expect(older.text).toBe(`a\n${OURS}\nb\n`)
  })

  test.each([
    ['[ -n "$CI" ] && exit 0\nnpx lint-staged\n', 1],
    ['if [ -n "$CI" ]; then exit 0; fi\n', 1],
    ['case "$1" in\n  *) exit 0 ;;\nesac\n', 2],
    ['npx lint-staged || exit 0\n', 1],
    ['{ if [ -n "$CI" ]; then exit 0; fi; }\nnpx x\n', 1],
    ['if true; then\n  exec npx other\nfi\n', 2],
  ])('an exit or exec that may end the script first is reported: %j', (text, line) => {
    const plan = planHookLine(text, OURS, isOurs)
    expect(plan.concerns).toEqual([{ kind: 'may-exit', line, text: text.split('\n')[line - 1]?.trim() }])
  })

  test.each(['npx lint-staged || exit 1\n', 'npx lint-staged || exit\n', 'x || exit $?\n', 'exit 0\n'])(
    'no concern: %j',
    (text) => expect(planHookLine(text, OURS, isOurs).concerns).toEqual([]),
  )

  test('a hook saved with CRLF is read the same', () => {
    const plan = planHookLine('if [ -n "$CI" ]; then\r\n  exit 0\r\nfi\r\nnpx x\r\nexit 0\r\n', OURS, isOurs)
    expect(plan.line).toBe(5)
    expect(plan.concerns).toEqual([{ kind: 'may-exit', line: 2, text: 'exit 0' }])
  })

  test('nesting that does not add up is reported, with our line', () => {
    const plan = planHookLine('if true; then\nnpx x\n', OURS, isOurs)
    expect(plan.concerns).toEqual([{ kind: 'unparsed', line: 3, text: OURS }])
  })
})
