// CUDA front end entry: top-level syntax nodes -> kernel IR plus syntax problems. Never throws.
import type { Range, SyntaxProblem } from '../../api';
import type { KernelModule } from '../../ir/types';
import { lowerCuda } from './lower';
import type { CudaUnit } from './unit';
import { rangeOf } from './syntax-nodes';
import type { SyntaxNode } from './parser';

export interface CudaFrontEndResult {
  module: KernelModule;
  syntaxProblems: SyntaxProblem[];
}

export function lowerCudaNodes(tops: SyntaxNode[], text: string, unit?: CudaUnit): CudaFrontEndResult {
  const syntaxProblems = syntaxProblemsOf(tops);
  let module: KernelModule;
  try {
    module = lowerCuda(tops, text, unit);
  } catch (err) {
    // A front-end bug must not take the language server down: report it and lint nothing.
    syntaxProblems.push(internalProblem(err));
    module = { language: 'cuda', kernels: [], constants: new Map() };
  }
  return { module, syntaxProblems };
}

const FILE_START: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

export function internalProblem(err: unknown): SyntaxProblem {
  return { message: `internal front-end error: ${(err as Error)?.message ?? String(err)}`, range: FILE_START };
}

export function syntaxProblemsOf(tops: SyntaxNode[]): SyntaxProblem[] {
  const out: SyntaxProblem[] = [];
  for (const n of tops) collectErrors(n, out);
  return out;
}

function collectErrors(n: SyntaxNode, out: SyntaxProblem[]): void {
  if (out.length >= 20 || !(n.hasError || n.isMissing)) return;
  if (n.isError || n.isMissing) {
    out.push({ message: n.isMissing ? `missing ${n.type}` : 'syntax error', range: rangeOf(n) });
    return;
  }
  for (const c of n.children) if (c) collectErrors(c, out);
}
