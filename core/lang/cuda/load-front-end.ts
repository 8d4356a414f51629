// CUDA's front end: the tree-sitter grammar, a parser and the caches its documents share. The language's
// registry entry (index.ts) imports it on first use, so that a process that never lints a CUDA file
// (`phaseflip sim x.co`) never initialises the grammar runtime, the analysis or the API catalogue.
import type { FrontEnd, FrontEndOptions } from '../language';
import { CudaDocument, type DocumentsShared } from './document';
import { TreeBudget } from './tree-budget';
import { HeaderCache } from './unit';
import { foldConstant } from './constants';
import { loadCudaLanguage, Parser } from './parser';

export async function loadCudaFrontEnd({ wasmDir }: FrontEndOptions): Promise<FrontEnd> {
  const grammar = await loadCudaLanguage(wasmDir);
  const parser = new Parser();
  parser.setLanguage(grammar);
  // Headers are parsed once per front end and shared by every document that includes them.
  const shared: DocumentsShared = { headers: new HeaderCache(parser), trees: new TreeBudget() };
  return {
    openDocument: (text, context) => new CudaDocument(parser, text, context, shared),
    cacheSizes: () => ({ documents: shared.open ?? 0, headers: shared.headers?.size ?? 0, trees: shared.trees?.size ?? 0 }),
    evaluateConstant: (expression, constants = new Map()) => evaluateConstant(parser, expression, constants),
  };
}

/**
 * Folds `expression` with the front end's constant folder (the one that sizes barrier arrays and
 * launch bounds), parsed as the initialiser of a declaration so that tree-sitter reads it as C++.
 */
function evaluateConstant(parser: Parser, expression: string, constants: ReadonlyMap<string, number>): number | undefined {
  try {
    // The newline keeps a trailing `//` comment in the expression from swallowing the parenthesis.
    const tree = parser.parse(`long long phaseflip_constant = (${expression}\n);`);
    if (!tree) return undefined;
    try {
      const root = tree.rootNode;
      const decl = root.namedChild(0);
      if (root.hasError || root.namedChildCount !== 1 || decl?.type !== 'declaration') return undefined;
      const value = decl.namedChildren.find((n) => n?.type === 'init_declarator')?.childForFieldName('value');
      return value ? foldConstant(value, constants) : undefined;
    } finally {
      tree.delete();
    }
  } catch {
    return undefined;
  }
}
