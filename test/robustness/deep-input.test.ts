// Regression tests for issue 14's stack overflows and exponential analysis: deeply nested or very long
// generated input gets a "too deeply nested" problem (never a RangeError), and nested loops cost linear time.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Engine, loadEngine } from '../../core/index';
import { exprKey, evaluate, walkExpr } from '../../core/ir/expr';
import type { Expr, Stmt } from '../../core/ir/types';
import { visitStmts } from '../../core/ir/visit';

let engine: Engine;
beforeAll(async () => {
  engine = await loadEngine({});
});

function analyse(text: string, language: 'cuda' | 'croqtile', file: string) {
  const t0 = performance.now();
  const result = engine.analyze(text, language, {}, file);
  return { result, ms: performance.now() - t0, messages: result.syntaxProblems.map((p) => p.message) };
}

const noInternalError = (messages: string[]): void => {
  for (const m of messages) expect(m).not.toMatch(/internal|Maximum call stack/);
};

describe('CUDA: deep nesting', () => {
  it('3,000 nested blocks with a syntax error inside: syntax problems, no stack overflow', () => {
    const n = 3000;
    const { messages } = analyse(`__global__ void k(){\n${'if(1){'.repeat(n)}int x = ;${'}'.repeat(n)}\n}\n`, 'cuda', 'deep.cu');
    noInternalError(messages);
    expect(messages).toContain('syntax error');
    expect(messages.some((m) => /too deeply nested/.test(m))).toBe(true);
  });

  it('a 20,000-term expression and 3,000 parentheses: too deeply nested, no stack overflow', () => {
    const terms = analyse(`__global__ void k(int* o){ o[0] = ${Array(20000).fill('1').join('+')}; }\n`, 'cuda', 'terms.cu');
    const parens = analyse(`__global__ void k(int* o){ o[0] = ${'('.repeat(3000)}1${')'.repeat(3000)}; }\n`, 'cuda', 'parens.cu');
    for (const { messages } of [terms, parens]) {
      noInternalError(messages);
      expect(messages.some((m) => /too deeply nested/.test(m))).toBe(true);
    }
  });

  it('a deep declaration does not hide the file’s other kernels', () => {
    const deep = `__global__ void deep(int* o){ o[0] = ${Array(5000).fill('1').join('+')}; }\n`;
    const good = '__global__ void good(){ __shared__ unsigned long long bar; __syncthreads(); }\n';
    const { result } = analyse(deep + good, 'cuda', 'mixed.cu');
    expect(result.kernels?.map((k) => k.name)).toEqual(['good']);
  });
});

function croqtile(body: string): string {
  return `__co__ void matmul(global f16 [M, K] lhs) {\n  parallel {block_m} by [4] : block {\n    shared event full[2];\n${body}\n  }\n}\n`;
}

describe('Croqtile: deep and long input', () => {
  it('a 20,000-term expression: a nesting error, no stack overflow', () => {
    const { messages } = analyse(croqtile(`    x = ${Array(20000).fill('1').join(' + ')};\n    wait full[0];`), 'croqtile', 'long.co');
    noInternalError(messages);
    expect(messages).toContain('nesting too deep');
  });

  it('a 20,000-link postfix chain: a nesting error, no stack overflow', () => {
    const { messages } = analyse(croqtile(`    x = lhs${'.at(0)'.repeat(20000)};`), 'croqtile', 'chain.co');
    noInternalError(messages);
    expect(messages).toContain('nesting too deep');
  });

  it('nested foreach loops cost time linear in their depth, not exponential', () => {
    // The consumer's inner loop of MMAs nested `depth` deep (issue 14: 8 levels 2.6 s, 12 levels > 25 s).
    const nest = (depth: number): string => {
      const open = Array.from({ length: depth }, (_, i) => `foreach {i${i}} in [cdiv(K, 16)] {`).join('\n');
      return croqtile(`    foreach {k} in [cdiv(K, 64)] {\n      wait full[k % 2];\n${open}\n        mma.row.row mc, ma, mb;\n${'}\n'.repeat(depth)}      trigger full[k % 2];\n    }`);
    };
    const { result } = analyse(nest(12), 'croqtile', 'nest12.co');
    noInternalError(result.syntaxProblems.map((p) => p.message));
    const shallow = analyse(nest(2), 'croqtile', 'nest2.co').ms;
    const deep = analyse(nest(12), 'croqtile', 'nest12b.co').ms;
    expect(deep).toBeLessThan(Math.max(1000, shallow * 20));
  });

  it('loops that never reach their barrier operation stay bounded too (the replay step budget)', () => {
    const open = Array.from({ length: 12 }, (_, i) => `foreach {i${i}} in [8] {`).join('\n');
    const { ms, messages } = analyse(croqtile(`${open}\n  if (i0 == 99) { wait full[0]; }\n${'}\n'.repeat(12)}`), 'croqtile', 'never.co');
    noInternalError(messages);
    expect(ms).toBeLessThan(5000);
  });
});

describe('IR walks', () => {
  const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  it('walkExpr, exprKey and evaluate survive a 100,000-deep expression; visitStmts a 100,000-deep nest', () => {
    let e: Expr = { kind: 'num', value: 1, text: '1', range };
    for (let i = 0; i < 100_000; i++) e = { kind: 'binary', op: '+', left: e, right: { kind: 'num', value: 1, text: '1', range }, text: '', range };
    let count = 0;
    walkExpr(e, () => count++);
    expect(count).toBe(200_001);
    expect(() => exprKey(e)).not.toThrow();
    expect(evaluate(e, () => undefined)).toBeUndefined();
    let body: Stmt[] = [{ kind: 'return', range }];
    for (let i = 0; i < 100_000; i++) body = [{ kind: 'loop', body, range, bodyRange: range }];
    let stmts = 0;
    visitStmts(body, () => stmts++);
    expect(stmts).toBe(100_001);
  });

  it('walkExpr and visitStmts keep pre-order, left to right', () => {
    const v = (name: string): Expr => ({ kind: 'var', name, text: name, range });
    const e: Expr = { kind: 'cond', test: v('a'), then: { kind: 'binary', op: '+', left: v('b'), right: v('c'), text: '', range }, else: { kind: 'call', callee: 'f', args: [v('d'), v('e')], text: '', range }, text: '', range };
    const seen: string[] = [];
    walkExpr(e, (x) => seen.push(x.kind === 'var' ? x.name : x.kind));
    expect(seen).toEqual(['cond', 'a', 'binary', 'b', 'c', 'call', 'd', 'e']);
    const s = (target: string): Stmt => ({ kind: 'assign', target, op: '=', declared: false, range });
    const tree: Stmt[] = [{ kind: 'if', cond: v('x'), then: [s('t')], else: [s('e')], range }, { kind: 'loop', body: [s('b')], step: [s('s')], range, bodyRange: range }, s('z')];
    const order: string[] = [];
    visitStmts(tree, (st) => order.push(st.kind === 'assign' ? st.target : st.kind));
    expect(order).toEqual(['if', 't', 'e', 'loop', 'b', 's', 'z']);
  });
});
