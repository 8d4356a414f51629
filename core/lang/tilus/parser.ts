// Loads tree-sitter-python (WASM) into the shared web-tree-sitter runtime (../tree-sitter-runtime.ts) and
// parses Python sources. The only file of the tilus front end that touches web-tree-sitter.
import type { Range } from '../../api';
import { type Language, Parser, type Node, type Tree } from 'web-tree-sitter';
import { loadGrammar } from '../tree-sitter-runtime';

export type { Node as PyNode, Tree as PyTree } from 'web-tree-sitter';

let loaded: Promise<Language> | undefined;
let parser: Parser | undefined;

/** Loads the Python grammar once per process; later calls share the same promise. */
export async function loadPythonLanguage(wasmDir?: string): Promise<void> {
  loaded ??= loadGrammar('tree-sitter-python.wasm', wasmDir);
  const language = await loaded;
  if (!parser) {
    parser = new Parser();
    parser.setLanguage(language);
  }
}

/** Parses a whole Python text; the grammar must have been loaded (`loadPythonLanguage`). */
export function parsePython(text: string): Tree {
  if (!parser) throw new Error('the Python grammar is not loaded (loadPythonLanguage was not awaited)');
  // Read in slices: one string handed over at once is copied into WASM memory whole.
  const tree = parser.parse((index: number) => text.slice(index, index + 8192));
  if (!tree) throw new Error('tree-sitter-python returned no tree');
  return tree;
}

export function rangeOf(n: Node): Range {
  return {
    start: { line: n.startPosition.row, character: n.startPosition.column },
    end: { line: n.endPosition.row, character: n.endPosition.column },
  };
}

/** Named children, without comments. */
export function namedChildren(n: Node | null | undefined): Node[] {
  if (!n) return [];
  return n.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment');
}

/** Syntax errors of a tree: ERROR and missing nodes, at most `limit`. */
export function syntaxErrors(tree: Tree, limit = 20): { message: string; range: Range }[] {
  const out: { message: string; range: Range }[] = [];
  const visit = (n: Node): void => {
    if (out.length >= limit) return;
    if (n.isMissing) out.push({ message: `syntax error: missing ${n.type}`, range: rangeOf(n) });
    else if (n.type === 'ERROR') out.push({ message: `syntax error near '${n.text.slice(0, 30).split('\n')[0]}'`, range: rangeOf(n) });
    if (!n.hasError && !n.isMissing) return;
    for (const c of n.children) if (c) visit(c);
  };
  if (tree.rootNode.hasError) visit(tree.rootNode);
  return out;
}
