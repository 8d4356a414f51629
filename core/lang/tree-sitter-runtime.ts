// The one web-tree-sitter runtime every tree-sitter grammar (CUDA, Python) loads into. `Parser.init`
// instantiates the runtime's WASM module: a second call would start another module, and grammars loaded
// into the first would not work with parsers of the second, so it runs once per process, here.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { Language, Parser } from 'web-tree-sitter';

let runtime: Promise<void> | undefined;

/**
 * Where a wasm file lives: in `wasmDir` or next to the bundle (dist/), else in node_modules when running
 * from sources (tests): `tree-sitter.wasm` in web-tree-sitter, a grammar in its package `npmPackage`.
 */
export function locateWasm(file: string, wasmDir?: string, npmPackage?: string): string {
  const candidates: string[] = [];
  if (wasmDir) candidates.push(path.join(wasmDir, file));
  if (typeof __dirname !== 'undefined') candidates.push(path.join(__dirname, file));
  for (const c of candidates) if (existsSync(c)) return c;
  const req = createRequire(typeof __filename !== 'undefined' ? __filename : path.join(process.cwd(), 'x.js'));
  if (file === 'tree-sitter.wasm') return path.join(path.dirname(req.resolve('web-tree-sitter')), file);
  return req.resolve(`${npmPackage ?? path.basename(file, '.wasm')}/${file}`);
}

/** Starts the runtime once per process; later calls share the same promise. */
export function initTreeSitter(wasmDir?: string): Promise<void> {
  runtime ??= Parser.init({ locateFile: (name: string) => locateWasm(name, wasmDir) });
  return runtime;
}

/** Loads a grammar's wasm (`tree-sitter-python.wasm`, from package `tree-sitter-python`) into the runtime. */
export async function loadGrammar(file: string, wasmDir?: string): Promise<Language> {
  await initTreeSitter(wasmDir);
  // Hand over the bytes rather than the path: web-tree-sitter would otherwise read the file through a
  // dynamic import(), which a bundle run from a V8 code cache (vm.Script) cannot serve.
  return Language.load(readFileSync(locateWasm(file, wasmDir)));
}
