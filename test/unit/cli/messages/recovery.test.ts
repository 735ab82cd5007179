import { expect, test } from 'vitest'
import { describeHalfDone, transitionIncomplete } from '../../../../src/cli/messages/recovery.js'

// An import of 2,000 learnings that a full disk stopped after its commit landed named every one of the 2,000 paths
// in one sentence (about 100 KB on stderr, twice: the command's error and every later command's note).
const many = Array.from({ length: 2000 }, (_, i) => `.learnings/pending/bulk-note-${i}.md`)

test('a half-done transition of many paths names the first few and how many more', () => {
  const note = describeHalfDone({
    kind: 'unfinished',
    subject: 'learn: import 2000 learnings',
    commit: 'a'.repeat(40),
    paths: many,
  })
  expect(note).toMatch(
    /brought in line for \.learnings\/pending\/bulk-note-0\.md, [^:]*bulk-note-4\.md and 1,995 more\./,
  )
  expect(note.length).toBeLessThan(600)
  const err = transitionIncomplete(
    'learn: import 2000 learnings',
    'b'.repeat(40),
    many,
    'no space is left on the device',
  )
  expect(err).toMatch(/bulk-note-4\.md and 1,995 more: no space is left on the device\n/)
  expect(err.length).toBeLessThan(600)
})

test('a few paths are all named', () => {
  const paths = many.slice(0, 6)
  const note = describeHalfDone({
    kind: 'unfinished',
    subject: 'learn: import 6 learnings',
    commit: 'c'.repeat(40),
    paths,
  })
  expect(note).toContain(paths.join(', '))
})
