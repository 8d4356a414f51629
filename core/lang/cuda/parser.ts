// Loads tree-sitter-cuda (WASM) into the shared web-tree-sitter runtime (../tree-sitter-runtime.ts).
import { Parser, type Language, type Tree } from 'web-tree-sitter';
import { loadGrammar } from '../tree-sitter-runtime';

export type { Node as SyntaxNode, Tree } from 'web-tree-sitter';
export { Parser };

let loaded: Promise<Language> | undefined;

/** Loads the CUDA grammar once per process; later calls share the same promise. */
export function loadCudaLanguage(wasmDir?: string): Promise<Language> {
  loaded ??= loadGrammar('tree-sitter-cuda.wasm', wasmDir);
  return loaded;
}

/** Parses a whole text, read in slices (one string handed over at once is copied into WASM memory whole). */
export function parseWhole(parser: Parser, text: string): Tree | null {
  return parser.parse((index: number) => text.slice(index, index + 8192));
}
