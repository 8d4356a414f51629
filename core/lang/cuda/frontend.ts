// CUDA front end entry: syntax tree -> kernel IR plus syntax problems. Never throws on bad input.
import type { SyntaxProblem } from '../../api';
import type { KernelModule } from '../../ir/types';
import { lowerCuda, rangeOf } from './lower';
import type { SyntaxNode, Tree } from './parser';

export interface CudaFrontEndResult {
  module: KernelModule;
  syntaxProblems: SyntaxProblem[];
}

export function lowerCudaTree(tree: Tree): CudaFrontEndResult {
  const syntaxProblems: SyntaxProblem[] = [];
  collectErrors(tree.rootNode, syntaxProblems);
  let module: KernelModule;
  try {
    module = lowerCuda(tree.rootNode, new Map());
  } catch (err) {
    // A front-end bug must not take the language server down: report it and lint nothing.
    syntaxProblems.push({ message: `internal front-end error: ${(err as Error).message}`, range: rangeOf(tree.rootNode) });
    module = { language: 'cuda', kernels: [], constants: new Map() };
  }
  return { module, syntaxProblems };
}

function collectErrors(n: SyntaxNode, out: SyntaxProblem[]): void {
  if (out.length >= 20 || !n.hasError) return;
  if (n.isError || n.isMissing) {
    out.push({ message: n.isMissing ? `missing ${n.type}` : 'syntax error', range: rangeOf(n) });
    return;
  }
  for (let i = 0; i < n.childCount; i++) {
    const c = n.child(i);
    if (c) collectErrors(c, out);
  }
}
