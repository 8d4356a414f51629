// How finding messages name things: a barrier as the user wrote it, a one-based line, an expression on one line.
import type { Range } from '../api';
import type { BarrierOp, Expr } from '../ir/types';

/** `full[stage]` as the user spelled the operand, without a leading `&`. */
export function barrierName(op: BarrierOp): string {
  const t = op.barrier?.text ?? op.barrier?.base ?? 'the barrier';
  return t.replace(/^&\s*/, '').replace(/\s+/g, ' ');
}

/** The one-based line a range starts on, as messages print it. */
export function line1(r: Range): number {
  return r.start.line + 1;
}

export function exprText(e: Expr | undefined): string {
  return e ? e.text.replace(/\s+/g, ' ') : '?';
}
