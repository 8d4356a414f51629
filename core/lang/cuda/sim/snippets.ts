// A few words of C++ from outside the file's syntax tree, parsed with the file's own grammar and
// evaluated in its file scope: a `--kernel 'k<float, 4>'` template argument, a `#define`'s value.
import { Parser, type SyntaxNode } from '../parser';
import { SimError } from '../../../sim/machine';
import { type CompilerContext, FnCx } from './context';
import { named } from './syntax';
import type { CType } from './types';

/** Parses `code` with the grammar of `at`'s tree, runs `use` on its root, and frees the tree. */
export function withSnippet<T>(at: SyntaxNode, code: string, use: (root: SyntaxNode) => T): T {
  const parser = new Parser();
  parser.setLanguage(at.tree.language);
  const tree = parser.parse(code);
  try {
    if (!tree || tree.rootNode.hasError) throw new SimError(`cannot read '${code}'`);
    return use(tree.rootNode);
  } finally {
    tree?.delete();
    parser.delete();
  }
}

/**
 * Parses `code` with the grammar of `at`'s tree and keeps the tree alive (closures compiled from it
 * keep its nodes for their locations): for rewrites of a declaration the grammar read the other way.
 */
export function keptSnippet(at: SyntaxNode, code: string): SyntaxNode | undefined {
  const parser = new Parser();
  parser.setLanguage(at.tree.language);
  const tree = parser.parse(code);
  parser.delete();
  if (!tree || tree.rootNode.hasError) {
    tree?.delete();
    return undefined;
  }
  return tree.rootNode;
}

/** A file-scope evaluation context. */
export function fileContext(c: CompilerContext): FnCx {
  c.prepareFileScope();
  const cx = new FnCx('<file>', null, new Map(), undefined, { line: 0 });
  cx.scopes = [new Map()];
  return cx;
}

/** The value and type of the constant expression `text` in the file's scope, or undefined if it is not one. */
export function snippetConstant(c: CompilerContext, at: SyntaxNode, text: string): { type: CType; value: number } | undefined {
  try {
    return withSnippet(at, `int __phaseflip_value = (${text});`, (root) => {
      const init = named(named(root)[0]).find((x) => x.type === 'init_declarator')?.childForFieldName('value');
      if (!init) return undefined;
      const e = c.expr(fileContext(c), init);
      return e.cv !== undefined && e.t.k === 'num' ? { type: e.t, value: e.cv } : undefined;
    });
  } catch {
    return undefined;
  }
}
