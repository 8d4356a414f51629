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
  const bounded = boundedDepth(tops);
  syntaxProblems.push(...bounded.problems);
  let module: KernelModule;
  try {
    module = lowerCuda(bounded.tops, text, unit);
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

/** At most this many syntax problems are reported per document. */
const MAX_SYNTAX_PROBLEMS = 20;

/** Syntax errors and missing nodes, outermost first. Iterative: a deeply nested tree cannot overflow the stack. */
export function syntaxProblemsOf(tops: SyntaxNode[]): SyntaxProblem[] {
  const out: SyntaxProblem[] = [];
  // Children are pushed in reverse so that nodes come off the stack in document order.
  const stack: SyntaxNode[] = [...tops].reverse();
  while (stack.length > 0 && out.length < MAX_SYNTAX_PROBLEMS) {
    const n = stack.pop()!;
    if (!(n.hasError || n.isMissing)) continue;
    if (n.isError || n.isMissing) {
      out.push({ message: n.isMissing ? `missing ${n.type}` : 'syntax error', range: rangeOf(n) });
      continue;
    }
    const children = n.children;
    for (let i = children.length - 1; i >= 0; i--) {
      const c = children[i];
      if (c) stack.push(c);
    }
  }
  return out;
}

/**
 * How deep a syntax tree the front end walks. The lowering, the scans and the constant folder recurse over
 * trees; real code stays far below this (a few dozen levels), while generated or fuzzed input can nest
 * thousands deep. Deeper top-level declarations are left out with a syntax problem, never a stack overflow.
 */
export const MAX_SYNTAX_DEPTH = 500;

/** The top-level nodes no deeper than MAX_SYNTAX_DEPTH, and a problem for each one left out. */
export function boundedDepth(tops: SyntaxNode[], maxDepth = MAX_SYNTAX_DEPTH): { tops: SyntaxNode[]; problems: SyntaxProblem[] } {
  const kept: SyntaxNode[] = [];
  const problems: SyntaxProblem[] = [];
  for (const n of tops) {
    const deepest = cachedDeeperThan(n, maxDepth);
    if (!deepest) kept.push(n);
    else problems.push({ message: `too deeply nested (more than ${maxDepth} levels): this declaration is not analysed`, range: rangeOf(deepest) });
  }
  return { tops: kept, problems };
}

/**
 * Depth checks already made, per syntax tree and top-level node (its id names the same subtree while the
 * tree lives): the document's chunks that an edit leaves alone keep their trees, so an analysis per keystroke
 * walks only the re-parsed chunks (the walk visits every node: 3.4 s of a 10 MB file).
 */
const depthChecked = new WeakMap<object, Map<string, SyntaxNode | null>>();
function cachedDeeperThan(root: SyntaxNode, maxDepth: number): SyntaxNode | undefined {
  let checked = depthChecked.get(root.tree);
  if (!checked) {
    checked = new Map();
    depthChecked.set(root.tree, checked);
  }
  // Size and type too: an edited tree copies the subtrees on the edit's path, and a freed id may be reused.
  const key = `${root.id}:${root.endIndex - root.startIndex}:${root.type}:${maxDepth}`;
  let found = checked.get(key);
  if (found === undefined) {
    // A declaration whose text was already found shallow is shallow again (a re-parsed chunk's other
    // declarations, an undo): hashing its text is far cheaper than walking its nodes.
    const textKey = `${root.type}:${maxDepth}:${textDigest(root.text)}`;
    if (shallowTexts.has(textKey)) found = null;
    else {
      found = deeperThan(root, maxDepth) ?? null;
      if (found === null) {
        if (shallowTexts.size >= 20_000) shallowTexts.clear();
        shallowTexts.add(textKey);
      }
    }
    checked.set(key, found);
  }
  return found ?? undefined;
}

/** Declarations (by type, limit and text digest) already walked and found within the depth limit. */
const shallowTexts = new Set<string>();

/** Two 32-bit hashes (FNV-1a and djb2) and the length: 64 bits, so distinct texts do not meet in practice. */
function textDigest(text: string): string {
  let a = 0x811c9dc5;
  let b = 5381;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = (Math.imul(b, 33) + c) | 0;
  }
  return `${text.length}:${(a >>> 0).toString(36)}:${(b >>> 0).toString(36)}`;
}

/** The first node deeper than `maxDepth` levels under `root` (a cursor walk: no recursion, no node objects). */
function deeperThan(root: SyntaxNode, maxDepth: number): SyntaxNode | undefined {
  const cursor = root.walk();
  try {
    let depth = 0;
    for (;;) {
      if (cursor.gotoFirstChild()) {
        if (++depth > maxDepth) return cursor.currentNode;
        continue;
      }
      while (!cursor.gotoNextSibling()) {
        if (depth === 0 || !cursor.gotoParent()) return undefined;
        depth--;
      }
      if (depth === 0) return undefined;
    }
  } finally {
    cursor.delete();
  }
}
