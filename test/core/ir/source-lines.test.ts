// placeOnLines: every statement and operation learns its indentation, whole first/last lines, the text
// around it on those lines and (operations) its own source text, measured on `\n`-separated lines.
import { describe, expect, it } from 'vitest';
import type { Range } from '../../../core/api';
import { placeOnLines } from '../../../core/ir/source-lines';
import type { BarrierOp, Kernel, Stmt } from '../../../core/ir/types';

const r = (sl: number, sc: number, el: number, ec: number): Range => ({ start: { line: sl, character: sc }, end: { line: el, character: ec } });

function kernel(body: Stmt[]): Kernel {
  return { name: 'k', range: r(0, 0, 9, 0), nameRange: r(0, 0, 0, 1), params: [], body, decls: new Map() };
}

describe('placeOnLines', () => {
  const text = ['__global__ void k() {', '  for (;;) {', '\t\t(void)probe(&bar,', '\t\t      tok);  ', '  }', '}'].join('\n');

  it('places an operation spanning two lines: indentation, whole lines, text around it, its own text', () => {
    const op: BarrierOp = { kind: 'wait-token', api: 'probe', range: r(2, 8, 3, 12), via: [] };
    const loop: Stmt = { kind: 'loop', body: [{ kind: 'op', op, range: op.range }], range: r(1, 2, 4, 3), bodyRange: r(1, 11, 4, 3) };
    placeOnLines(kernel([loop]), text);
    expect(op.text).toBe('probe(&bar,\n\t\t      tok)');
    expect(op.lines).toEqual({ indent: '\t\t', first: r(2, 0, 2, 19), last: r(3, 0, 3, 15), before: '(void)', after: ';  ' });
    expect(loop.lines).toEqual({ indent: '  ', first: r(1, 0, 1, 12), last: r(4, 0, 4, 3), before: '', after: '' });
  });

  it('keeps a carriage return as part of its line, as the edits it feeds always have', () => {
    const op: BarrierOp = { kind: 'arrive', api: 'a', range: r(1, 2, 1, 6), via: [] };
    placeOnLines(kernel([{ kind: 'op', op, range: op.range }]), 'x\r\n  a(b);\r\n');
    expect(op.lines).toMatchObject({ indent: '  ', first: r(1, 0, 1, 8), after: ';\r' });
    expect(op.text).toBe('a(b)');
  });

  it('places the statements of loop steps and both branches of an if', () => {
    const ret: Stmt = { kind: 'return', range: r(1, 4, 1, 11) };
    const step: Stmt = { kind: 'assign', target: 'i', op: '++', declared: false, range: r(2, 0, 2, 3) };
    const body: Stmt[] = [{ kind: 'if', cond: { kind: 'opaque', text: 'c', range: r(0, 0, 0, 1) }, then: [], else: [ret], range: r(0, 0, 1, 11) }, { kind: 'loop', body: [], step: [step], range: r(0, 0, 2, 3), bodyRange: r(0, 0, 2, 3) }];
    placeOnLines(kernel(body), 'if (c) {} else\n    return;\ni++');
    expect(ret.lines?.indent).toBe('    ');
    expect(step.lines?.last).toEqual(r(2, 0, 2, 3));
  });
});
