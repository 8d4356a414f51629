// Declaring a scalar local that lives in a frame slot (not in frame memory): a plain number in the
// frame's typed slots (runtime.ts Frame.d: unboxed, and what warp-lockstep rows read as lane vectors,
// lanes.ts), a pointer or a 64-bit value in its value slots; the initialiser, or zero, as its first
// instruction.
import type { SyntaxNode } from '../parser';
import type { CompilerContext, Ex, FnCx, Sym } from './context';
import { laneType, rowIntoSlot, vConst, vecOf, vStoreSlot } from './lanes';
import { fail, named } from './syntax';
import type { CType } from './types';

export function declareSlotLocal(c: CompilerContext, cx: FnCx, n: SyntaxNode, name: string, type: CType, init: Ex | undefined, initNode: SyntaxNode | undefined, scope: Map<string, Sym>): void {
  const idx = cx.slot();
  if (initNode?.type === 'initializer_list' || initNode?.type === 'argument_list') {
    const items = named(initNode);
    if (items.length > 1) fail(`too many initialisers for '${name}'`, initNode);
    init = items.length ? c.expr(cx, items[0]) : { t: type, ev: () => (type.k === 'ptr' ? null : 0), cv: 0 };
  }
  const typed = type.k === 'num' && laneType(type.dt);
  if (typed) cx.fn.typedSlots = true;
  if (init) {
    const ve = c.convertTo(init, type, initNode!, cx);
    const v = ve.ev;
    const vv = typed ? vecOf(ve) : undefined;
    if (typed) c.emitExec(cx, n, (f) => (f.d[idx] = v(f)), vv && vStoreSlot(idx, vv));
    else c.emitExec(cx, n, (f) => (f.v[idx] = v(f)), undefined, ve.row && rowIntoSlot(ve.row, idx));
  } else if (typed) c.emitExec(cx, n, (f) => (f.d[idx] = 0), vStoreSlot(idx, vConst(0)));
  else {
    const zero = type.k === 'ptr' ? null : 0;
    c.emitExec(cx, n, (f) => (f.v[idx] = zero));
  }
  const where = typed ? 'num' : 'slot';
  scope.set(name, { k: 'var', type, where, idx, cx });
  cx.locals.push({ name, type, where, index: idx, from: cx.code.length, to: Infinity });
}
