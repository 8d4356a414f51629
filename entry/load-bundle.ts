// Starts a bundle (dist/cli.js, dist/server-main.js) the way Node's require would, but through a V8 code cache
// kept beside it, and with the V8 flags Phaseflip runs best under: what makes a cold start cheap.
import { isAscii } from 'node:buffer';
import { readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';

/**
 * Compile WebAssembly with the baseline compiler (Liftoff) only. By default V8 also recompiles the hot functions
 * of the 4 MB tree-sitter-cuda grammar with its optimising compiler in background threads; on a machine with few
 * cores that work competes with the first lint and doubles the time to the first diagnostics, while the
 * optimised parser buys little on the small regions that edits re-parse (docs/benchmarks.md has the figures).
 * Set here, before anything compiles WebAssembly, and before the code cache is read (V8 checks the flags it was
 * made under).
 */
export const V8_FLAGS = ['--liftoff-only'];

/** `PHASEFLIP_CODE_CACHE=off` runs without the code cache (benchmarks of a first start use it). */
const CACHE_ENV = 'PHASEFLIP_CODE_CACHE';
/** When the code cache is written: long enough after start that the first requests' functions are compiled. */
const WRITE_AFTER_MS = 3_000;

/**
 * Runs `file` as a CommonJS module of its own (it becomes `require.main`'s child, like a required bundle).
 * `face` names the code cache when one bundle serves several commands (`sim`, `dap`, ...): V8 caches only the
 * functions compiled before the cache is written, so each command keeps the cache its own first run made
 * instead of sharing whichever command ran first.
 */
export function runBundle(file: string, face?: string): void {
  for (const flag of V8_FLAGS) v8.setFlagsFromString(flag);
  const source = readSource(file);
  const useCache = process.env[CACHE_ENV] !== 'off';
  const cacheFile = face && /^[a-z]+$/.test(face) ? `${file}.${face}.v8cache` : `${file}.v8cache`;
  // The cache is valid for this exact bundle (V8 itself checks only the source's length) and this Node.
  const stat = statSync(file);
  const key = `${stat.size}:${stat.mtimeMs}:${process.version}:${process.arch}:${V8_FLAGS.join(' ')}`;
  const cachedData = useCache ? readCache(cacheFile, key) : undefined;
  const script = new vm.Script(Module.wrap(source), {
    filename: file,
    cachedData,
    // The bundles import nothing dynamically on the paths they use; where Node can, serve import() as usual.
    ...(vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER ? { importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER } : {}),
  });
  if (useCache && (!cachedData || script.cachedDataRejected)) {
    let written = false;
    const write = (): void => {
      if (written) return;
      written = true;
      writeCache(cacheFile, key, script.createCachedData());
    };
    setTimeout(write, WRITE_AFTER_MS).unref();
    process.once('exit', write);
  }
  const bundle = new Module(file, module);
  bundle.filename = file;
  bundle.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(path.dirname(file));
  const wrapper = script.runInThisContext() as (exports: unknown, require: NodeRequire, module: Module, filename: string, dirname: string) => void;
  wrapper.call(bundle.exports, bundle.exports, Module.createRequire(file), bundle, file, path.dirname(file));
  bundle.loaded = true;
}

/**
 * The bundle's text. scripts/build.mjs makes the bundles ASCII, which reads as Latin-1 several times faster than
 * UTF-8 is decoded (and gives V8 a one-byte string); anything else is decoded as UTF-8.
 */
function readSource(file: string): string {
  const bytes = readFileSync(file);
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}

/** The cache file: one line with its key, then V8's data. Anything unreadable or stale counts as no cache. */
function readCache(cacheFile: string, key: string): Buffer | undefined {
  try {
    const data = readFileSync(cacheFile);
    const newline = data.indexOf(10);
    if (newline < 0 || data.subarray(0, newline).toString('utf8') !== key) return undefined;
    return data.subarray(newline + 1);
  } catch {
    return undefined;
  }
}

/** Writes through a temporary file and a rename, so that a concurrent start never reads half a cache. */
function writeCache(cacheFile: string, key: string, data: Buffer): void {
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, Buffer.concat([Buffer.from(`${key}\n`, 'utf8'), data]));
    renameSync(temporary, cacheFile);
  } catch {
    // A read-only installation runs without a cache.
    try {
      unlinkSync(temporary);
    } catch {
      // nothing was written
    }
  }
}
