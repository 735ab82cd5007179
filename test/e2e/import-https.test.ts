import { execFile, execFileSync } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { PROJECT_ROOT, learningText, makeRepo, tempDir } from '../helpers/repo.js'

// `git learn import https://…` against a real TLS server on 127.0.0.1 with a certificate made for the test; the
// built binary trusts it through NODE_EXTRA_CA_CERTS. Run asynchronously: the server lives in this process.
const dir = tempDir('gl-tls-')
const cert = join(dir, 'cert.pem')
const key = join(dir, 'key.pem')
let base = ''
let bundle = ''
const server = createServer({}, (req, res) => {
  if (req.url === '/bundle.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(bundle)
  if (req.url === '/moved') return void res.writeHead(301, { location: '/bundle.json' }).end()
  if (req.url === '/to-http') return void res.writeHead(302, { location: 'http://127.0.0.1:1/bundle.json' }).end()
  if (req.url === '/huge') {
    res.writeHead(200, { 'content-type': 'application/json' })
    const chunk = Buffer.alloc(1024 * 1024, 0x20)
    let sent = 0
    const more = () => {
      while (sent < 66 && res.write(chunk)) sent++
      if (sent >= 66) res.end()
      else res.once('drain', more)
    }
    res.on('error', () => undefined)
    return more()
  }
  res.writeHead(404).end()
})

beforeAll(async () => {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  )
  server.setSecureContext({ key: readFileSync(key), cert: readFileSync(cert) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
  // The bundle: exported from another repository with one active learning.
  const origin = makeRepo()
  await origin.cli(['init'])
  origin.write('d.md', learningText('tls-import-example'))
  expect((await origin.cli(['add', '--file', 'd.md'])).code).toBe(0)
  const out = join(tempDir(), 'bundle.json')
  expect((await origin.cli(['export', '--state', 'pending', '--out', out])).code).toBe(0)
  bundle = readFileSync(out, 'utf8')
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const importUrl = (cwd: string, url: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(PROJECT_ROOT, 'dist', 'bin.js'), 'import', url],
      { cwd, env: { ...process.env, NODE_EXTRA_CA_CERTS: cert } },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    )
  })

test('an https bundle lands in pending in one commit, through an https redirect too; a redirect to http and a body over 64 MB are refused, nothing written', async () => {
  const repo = makeRepo()
  await repo.cli(['init'])
  const ok = await importUrl(repo.root, `${base}/bundle.json`)
  expect(ok.code, ok.stderr).toBe(0)
  expect(readdirSync(join(repo.root, '.learnings', 'pending'))).toContain('tls-import-example.md')
  expect(repo.git('log', '-1', '--format=%B')).toMatch(/Learning-Origin: https:\/\/127\.0\.0\.1:\d+\/bundle\.json/)

  // An https redirect is followed (into a second repository).
  const other = makeRepo()
  await other.cli(['init'])
  expect((await importUrl(other.root, `${base}/moved`)).code).toBe(0)
  expect(readdirSync(join(other.root, '.learnings', 'pending'))).toContain('tls-import-example.md')

  const snap = repo.snapshot()
  const http = await importUrl(repo.root, `${base}/to-http`)
  expect(http.code).not.toBe(0)
  expect(http.stderr).toMatch(/not https/)
  const huge = await importUrl(repo.root, `${base}/huge`)
  expect(huge.code).not.toBe(0)
  expect(huge.stderr).toMatch(/64 MB|larger than/i)
  expect(repo.snapshot()).toBe(snap)
})
