// The secret scanner side by side with secretlint's recommended preset (bench/secrets.mjs does the work in its own
// process, so secretlint's long-lived profiler does not slow the other benchmarks), and a whole `git learn check`
// over a repository of notes that quote the labelled corpus, against `node -e 0`.
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BIN, interleaved, makeStoreRepo, timeCommand } from './lib.mjs'

/** 1,000 pending notes, each quoting one text of test/fixtures/secrets (positives and negatives in turn). */
function corpusRepo() {
  const load = (name) =>
    readFileSync(new URL(`../test/fixtures/secrets/${name}`, import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line).text)
  const texts = [...load('positives.jsonl'), ...load('negatives.jsonl')]
  const { root, git } = makeStoreRepo(0, { prefix: 'gl-bench-secrets-' })
  for (let i = 0; i < 1000; i++) {
    const name = `scan-note-${String(i).padStart(4, '0')}`
    const body = `## Problem\nThe deploy failed.\n\n## Solution\n${texts[i % texts.length]}\n`
    writeFileSync(
      join(root, '.learnings', 'pending', `${name}.md`),
      `---\nname: ${name}\ndescription: "A scan note."\ntype: decision\ncreated: "2026-01-01"\n---\n${body}`,
    )
  }
  git('add', '-A')
  git('commit', '-q', '-m', 'notes')
  return root
}

export async function bench({ log }) {
  log('secrets: 1,000 notes through git-learn and secretlint')
  const r = spawnSync(process.execPath, [fileURLToPath(new URL('secrets.mjs', import.meta.url)), '--json'], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  })
  if (r.status !== 0) throw new Error(`bench/secrets.mjs failed: ${r.stderr}`)
  const j = JSON.parse(r.stdout)
  const rows = j.results.map((x) => ({
    what: `secret scan, ${j.notes} notes (${j.averageNoteBytes} B avg): ${x.scanner}`,
    ms: x.msPerNote * j.notes,
    ratio: undefined,
    target: x.scanner === 'git-learn' ? 'recall ≥ 0.97, FP rate ≤ 0.03' : '',
    note: `${Math.round(x.notesPerSecond).toLocaleString('en')} notes/s · recall ${x.recall.toFixed(3)} · FP rate ${x.falsePositiveRate.toFixed(3)}`,
  }))
  log('secrets: git learn check --json over 1,000 notes quoting the corpus')
  const root = corpusRepo()
  const ms = timeCommand(process.execPath, [BIN, 'check', '--json'], { cwd: root, runs: 9 })
  rows.push({
    what: 'check --json, 1,000 pending notes quoting the secret corpus (whole process)',
    ms,
    ratio: ms / (interleaved.base ?? ms),
    target: '',
    note: 'every note scanned; findings in about half',
  })
  return rows
}
