// Loads tree-sitter-cuda (WASM) through web-tree-sitter. The only place that knows where the .wasm
// files live: next to the bundle in dist/, or in node_modules when running from sources (tests).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { Language, Parser, type Tree } from 'web-tree-sitter';

export type { Node as SyntaxNode, Tree } from 'web-tree-sitter';
export { Parser };

let loaded: Promise<Language> | undefined;

function locate(file: string, wasmDir?: string): string {
  const candidates: string[] = [];
  if (wasmDir) candidates.push(path.join(wasmDir, file));
  if (typeof __dirname !== 'undefined') candidates.push(path.join(__dirname, file));
  for (const c of candidates) if (existsSync(c)) return c;
  const req = createRequire(typeof __filename !== 'undefined' ? __filename : path.join(process.cwd(), 'x.js'));
  if (file === 'tree-sitter.wasm') return path.join(path.dirname(req.resolve('web-tree-sitter')), file);
  return req.resolve(`tree-sitter-cuda/${file}`);
}

/** Loads the CUDA grammar once per process; later calls share the same promise. */
export function loadCudaLanguage(wasmDir?: string): Promise<Language> {
  loaded ??= (async () => {
    await Parser.init({ locateFile: (name: string) => locate(name, wasmDir) });
    // Hand over the bytes rather than the path: web-tree-sitter would otherwise read the file through a
    // dynamic import(), which a bundle run from a V8 code cache (vm.Script) cannot serve.
    return Language.load(readFileSync(locate('tree-sitter-cuda.wasm', wasmDir)));
  })();
  return loaded;
}

/** Parses a whole text, read in slices (one string handed over at once is copied into WASM memory whole). */
export function parseWhole(parser: Parser, text: string): Tree | null {
  return parser.parse((index: number) => text.slice(index, index + 8192));
}
