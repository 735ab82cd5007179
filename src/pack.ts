// The hooks' module packs. Node's CommonJS loader resolves, stats, reads and compiles each of our modules apart, about
// 0.2 ms a module on the bench machine, and a hook loads 12 to 53 of them on every agent turn or commit. The build
// (scripts/pack-hot.mjs) writes, for each hook path, one file holding those modules' compiled code, each in the
// function Node itself would wrap it in (dist/packs/<name>.js). A pack is used through `require`: a module it holds
// is made from it, once, under its own file name in Node's module cache, so a module is never loaded twice (a class
// is the same class to every `instanceof`, a module's state is one), and a module it lacks is loaded from its file as
// before. Nothing depends on a pack being there or complete: without it (running from src/, a build without packs),
// every module comes from its file.
import Module from 'node:module'
import { dirname, isAbsolute, resolve } from 'node:path'

type Wrapped = (
  exports: unknown,
  require: NodeJS.Require,
  module: NodeJS.Module,
  __filename: string,
  __dirname: string,
) => void

/** What the loader needs of Node's Module beyond its public type. */
interface Loader {
  _cache: Record<string, NodeJS.Module | undefined>
  _nodeModulePaths(dir: string): string[]
  new (id: string, parent?: NodeJS.Module): NodeJS.Module
  prototype: { require(this: NodeJS.Module, id: string): unknown }
}

/** The modules of the packs in use, by file name. */
const packed = new Map<string, Wrapped>()
let installed = false

/**
 * Use the pack `name` (dist/packs/<name>.js) for the rest of the process; false when there is none (running from
 * source, or a build without it): then nothing changes.
 */
export function usePack(name: string): boolean {
  if (__filename.endsWith('.ts')) return false
  let defs: Record<string, Wrapped>
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a file the build may not have written
    defs = require(`./packs/${name}.js`) as Record<string, Wrapped>
  } catch {
    return false
  }
  for (const [rel, fn] of Object.entries(defs)) packed.set(resolve(__dirname, ...rel.split('/')), fn)
  if (!installed) install()
  installed = true
  return true
}

function install(): void {
  const M = Module as unknown as Loader
  const plain = M.prototype.require
  M.prototype.require = function packedRequire(this: NodeJS.Module, id: string): unknown {
    const relative = id.startsWith('./') || id.startsWith('../')
    if ((relative && this.filename) || isAbsolute(id)) {
      const file = relative ? resolve(dirname(this.filename), id) : id
      const cached = M._cache[file]
      if (cached) return cached.exports
      const fn = packed.get(file)
      if (fn) return load(M, file, fn, this)
    }
    return plain.call(this, id)
  }
}

/** Makes module `file` from its pack, as Node's loader makes one from its file. */
function load(M: Loader, file: string, fn: Wrapped, parent: NodeJS.Module): unknown {
  const m = new M(file, parent)
  m.filename = file
  const dir = dirname(file)
  m.paths = M._nodeModulePaths(dir)
  M._cache[file] = m
  const req = ((id: string) => m.require(id)) as NodeJS.Require
  req.resolve = ((id: string, options?: { paths?: string[] }) =>
    Module.createRequire(file).resolve(id, options)) as NodeJS.RequireResolve
  req.cache = M._cache as NodeJS.Require['cache']
  req.main = require.main
  try {
    fn.call(m.exports, m.exports, req, m, file, dir)
  } catch (err) {
    delete M._cache[file]
    throw err
  }
  m.loaded = true
  return m.exports
}
