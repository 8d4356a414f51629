// The thread conditions of the tilus lowering: a thread group is a branch on `threadIdx.x` (tilus's code
// generator compares the thread index with the group's range), an elected lane or `single_thread()` one
// thread; branches on the same condition one after another become one statement list.
import type { Range } from '../../api';
import type { Expr, Stmt } from '../../ir/types';
import { numExpr } from './trace-values';

/** The threads executing: [begin, begin + size) of the block, when known. */
export interface Group {
  begin: number | undefined;
  size: number | undefined;
}

function tidExpr(range: Range): Expr {
  return { kind: 'member', object: { kind: 'var', name: 'threadIdx', text: 'threadIdx', range }, field: 'x', text: 'threadIdx.x', range };
}

export function tidEquals(t: number, range: Range): Expr {
  const e: Expr = { kind: 'binary', op: '==', left: tidExpr(range), right: numExpr(t, range), text: `threadIdx.x == ${t}`, range };
  THREAD_CONDS.add(e);
  return e;
}

/** Conditions the lowering made for thread groups and elected lanes. */
const THREAD_CONDS = new WeakSet<Expr>();

/**
 * Adjacent branches on the same thread condition, one after the other (`with self.single_thread(): arrive…`
 * then an elected-lane TMA copy), become one: what one thread does in a row sits in one statement list, as
 * it would in CUDA (rules compare the bytes armed and copied within one list).
 */
export function mergeThreadBranches(list: Stmt[]): Stmt[] {
  const out: Stmt[] = [];
  for (const s of list) {
    const prev = out.at(-1);
    if (s.kind === 'if' && prev?.kind === 'if' && !s.else.length && !prev.else.length && THREAD_CONDS.has(s.cond) && THREAD_CONDS.has(prev.cond) && s.cond.text === prev.cond.text) {
      out[out.length - 1] = { ...prev, then: [...prev.then, ...s.then], range: { start: prev.range.start, end: s.range.end } };
    } else out.push(s);
  }
  return out;
}

/** Threads [begin, begin + size) of the block. */
export function groupCond(begin: number, size: number, range: Range): Expr {
  if (size === 1) return tidEquals(begin, range);
  const lo: Expr = { kind: 'binary', op: '>=', left: tidExpr(range), right: numExpr(begin, range), text: `threadIdx.x >= ${begin}`, range };
  const hi: Expr = { kind: 'binary', op: '<', left: tidExpr(range), right: numExpr(begin + size, range), text: `threadIdx.x < ${begin + size}`, range };
  const e: Expr = begin === 0 ? hi : { kind: 'binary', op: '&&', left: lo, right: hi, text: `${lo.text} && ${hi.text}`, range };
  THREAD_CONDS.add(e);
  return e;
}

