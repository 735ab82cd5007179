// The secret scanner side by side with secretlint's recommended preset (bench/secrets.mjs does the work in its own
// process, so secretlint's long-lived profiler does not slow the other benchmarks).
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export async function bench({ log }) {
  log('secrets: 1,000 notes through git-learn and secretlint')
  const r = spawnSync(process.execPath, [fileURLToPath(new URL('secrets.mjs', import.meta.url)), '--json'], { encoding: 'utf8', maxBuffer: 1 << 26 })
  if (r.status !== 0) throw new Error(`bench/secrets.mjs failed: ${r.stderr}`)
  const j = JSON.parse(r.stdout)
  return j.results.map((x) => ({
    what: `secret scan, ${j.notes} notes (${j.averageNoteBytes} B avg): ${x.scanner}`,
    ms: x.msPerNote * j.notes,
    ratio: undefined,
    target: x.scanner === 'git-learn' ? 'recall ≥ 0.97, FP rate ≤ 0.03' : '',
    note: `${Math.round(x.notesPerSecond).toLocaleString('en')} notes/s · recall ${x.recall.toFixed(3)} · FP rate ${x.falsePositiveRate.toFixed(3)}`,
  }))
}
