// Builtins that touch memory directly: atomics (every atomicOp and its _block/_system scopes),
// address-space conversions and tests (__cvta_*, __isShared, __isGlobal), the cache-hinted loads
// (__ldg …), and placement new (of a number, or of a cuda::barrier with its expected count).
import type { SyntaxNode } from '../parser';
import { SimError } from '../../../sim/machine';
import type { Pointer } from '../../../sim/memory';
import { args, asNum, asPtr, type BuiltinCx, cases, type FreeBuiltin, V } from './builtin-operands';
import { barrierAt, completionRunner } from './barrier-runtime';
import type { Ex } from './context';
import { type Closure, fromSharedAddress, loader, sharedAddress, storer } from './runtime';
import { fail, named, unsupported, requiredField } from './syntax';
import { convFn, isFloatDt, isNum, ptr, sizeOfType, typeName, U32, U64, VOID } from './types';

const ATOMIC_OPS = ['Add', 'Sub', 'Exch', 'Min', 'Max', 'Inc', 'Dec', 'And', 'Or', 'Xor', 'CAS'];

/** Atomics, address spaces and cache-hinted loads. */
export const MEMORY_BUILTINS: Record<string, FreeBuiltin> = {
  ...cases(
    ATOMIC_OPS.flatMap((op) => ['', '_block', '_system'].map((scope) => `atomic${op}${scope}`)),
    (k, name, _ns, a) => atomic(k, name.replace(/_(block|system)$/, '').slice(6), a),
  ),
  ...cases(['__cvta_generic_to_shared'], (k, _name, _ns, a) => {
    const p = asPtr(k, args(k, a)[0]);
    return V((f) => sharedAddress(f.ts.blk, p(f)), U64);
  }),
  ...cases(['__cvta_shared_to_generic'], (k, _name, _ns, a) => {
    const x = asNum(k, args(k, a)[0], 'u64');
    return V((f) => fromSharedAddress(f.ts.blk, x(f)), ptr(VOID));
  }),
  ...cases(['__isShared', '__isGlobal'], (k, name, _ns, a) => {
    const p = asPtr(k, args(k, a)[0]);
    const space = name === '__isShared' ? 'shared' : 'global';
    return V((f) => (p(f)?.buf.space === space ? 1 : 0), U32);
  }),
  ...cases(['__ldg', '__ldca', '__ldcg', '__ldcs', '__ldlu', '__ldcv'], (k, name, _ns, a) => {
    const { n } = k;
    const e = args(k, a)[0];
    if (e.t.k !== 'ptr' || !isNum(e.t.to)) unsupported(`${name} of a ${typeName(e.t)}`, n);
    const ld = loader(e.t.to.dt);
    const p = e.ev;
    return V((f) => {
      const q = p(f) as Pointer;
      if (!q) throw new SimError(`${name}: null pointer`);
      return ld(q.buf, q.offset);
    }, e.t.to);
  }),
};

// ------------------------------------------------------------------ atomics

/** atomicOp(p, v) (CAS: atomicCAS(p, compare, v)): returns the old value. */
function atomic(k: BuiltinCx, op: string, a: SyntaxNode[]): Ex {
  const { n } = k;
  const xs = args(k, a);
  const p = xs[0];
  if (p.t.k !== 'ptr' || !isNum(p.t.to)) fail(`atomic${op} needs a pointer to a number, got ${typeName(p.t)}`, n);
  const et = p.t.to;
  const dt = et.dt;
  const ld = loader(dt);
  const st = storer(dt);
  const P = p.ev;
  const val = k.c.convertTo(xs[op === 'CAS' ? 2 : 1], et, n).ev;
  const cmpv = op === 'CAS' ? k.c.convertTo(xs[1], et, n).ev : undefined;
  const wrap = convFn(dt === 'f32' || dt === 'f64' ? 'f64' : 'f64', dt) ?? ((x: number) => x);
  const isF = isFloatDt(dt);
  const size = sizeOfType(et);
  return V((f) => {
    const q = P(f) as Pointer;
    if (!q) throw new SimError(`atomic${op}: null pointer`);
    const old = ld(q.buf, q.offset);
    const v = val(f);
    let nv: number;
    switch (op) {
      case 'Add':
        nv = wrap(old + v);
        break;
      case 'Sub':
        nv = wrap(old - v);
        break;
      case 'Exch':
        nv = v;
        break;
      case 'Min':
        nv = Math.min(old, v);
        break;
      case 'Max':
        nv = Math.max(old, v);
        break;
      case 'Inc':
        nv = old >= v ? 0 : old + 1;
        break;
      case 'Dec':
        nv = old === 0 || old > v ? v : old - 1;
        break;
      case 'And':
        nv = wrap(old & v);
        break;
      case 'Or':
        nv = wrap(old | v);
        break;
      case 'Xor':
        nv = wrap(old ^ v);
        break;
      case 'CAS':
        nv = old === cmpv!(f) ? v : old;
        break;
      default:
        nv = old;
    }
    if (isF && (op === 'And' || op === 'Or' || op === 'Xor')) throw new SimError(`atomic${op} on ${dt}`);
    st(q.buf, q.offset, nv);
    void size;
    return old;
  }, et);
}

// ------------------------------------------------------------------ placement new

/** `new (where) T(args)`: a number stored in place, or a cuda::barrier initialised in place. */
export function placementNew(k: BuiltinCx): Ex {
  const { c, cx, n } = k;
  const placement = n.childForFieldName('placement');
  if (!placement) unsupported('new without placement (no device heap)', n);
  const where = named(placement)[0];
  const tn = requiredField(n, 'type');
  const t = c.baseType(cx, tn);
  const init = n.childForFieldName('arguments');
  const initArgs = init ? named(init) : [];
  const p = asPtr(k, c.rv(c.expr(cx, where)));
  if (t.k === 'barrier') {
    if (!initArgs.length) unsupported('a cuda::barrier constructed without an expected count', n);
    const cnt = asNum(k, c.rv(c.expr(cx, initArgs[0])));
    const fn = initArgs[1] ? c.expr(cx, initArgs[1]) : undefined;
    if (fn && fn.t.k !== 'lambda') unsupported('a completion function that is not a lambda', initArgs[1]);
    const fnv = fn?.ev;
    return V((f) => {
      const q = p(f);
      const b = barrierAt(f.ts.m, q, 'cuda::barrier constructor');
      f.ts.m.mbInit(f.ts.t, b, cnt(f));
      b.onComplete = fnv ? completionRunner(f.ts, fnv(f) as Closure) : undefined;
      return q;
    }, ptr(t));
  }
  if (isNum(t)) {
    const v = initArgs[0] ? c.convertTo(c.rv(c.expr(cx, initArgs[0])), t, n).ev : () => 0;
    const st = storer(t.dt);
    return V((f) => {
      const q = p(f);
      st(q.buf, q.offset, v(f));
      return q;
    }, ptr(t));
  }
  unsupported(`placement new of ${typeName(t)}`, n);
}
