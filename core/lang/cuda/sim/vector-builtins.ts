// CUDA's vector constructors and the half2 / bfloat162 arithmetic the headers define: make_float4 and
// the other make_<type><n> of vector_functions.h, make_half2 / __halves2half2 / __floats2half2_rn /
// __float2half2_rn and their bfloat162 twins (cuda_fp16.h, cuda_bf16.h), the lane accessors
// (__low2half, __high2float, __half22float2 …), the paired intrinsics (__hadd2, __hsub2, __hmul2,
// __hfma2, __hneg2 …) and the operators cuda_fp16.hpp / cuda_bf16.hpp define on __half2 and
// __nv_bfloat162 (+ - * / and ==, !=, which compare both lanes). The built-in float4, int2 … have no
// operators (as with nvcc, `a + b` on them is an error unless the program defines its own operator,
// which is then an ordinary function). Each lane is rounded to its type once per operation, as the
// hardware's HADD2/HMUL2/HFMA2 do.
import type { SyntaxNode } from '../parser';
import { coerce, type DType } from '../../../sim/dtypes';
import { Buffer, type Pointer } from '../../../sim/memory';
import { args, asNum, type BuiltinCx, cases, type FreeBuiltin, V } from './builtin-operands';
import type { CompilerContext, Ex, Fn } from './context';
import { type Frame, loader, storer } from './runtime';
import { fail } from './syntax';
import { type CType, num, type StructDef, vectorType } from './types';

/** The vector type a `make_<name>` builds (`make_float4` → float4), or undefined. */
function madeType(name: string): StructDef | undefined {
  const m = /^make_(\w+)$/.exec(name);
  if (!m) return undefined;
  if (m[1] === 'half2') return vectorType('__half2');
  if (m[1] === 'bfloat162') return vectorType('__nv_bfloat162');
  return vectorType(m[1]);
}

const MAKE_NAMES = ['char', 'uchar', 'short', 'ushort', 'int', 'uint', 'long', 'ulong', 'longlong', 'ulonglong', 'float', 'double'].flatMap((e) => [1, 2, 3, 4].map((n) => `make_${e}${n}`));

const HALF2 = (): StructDef => vectorType('__half2')!;
const BF162 = (): StructDef => vectorType('__nv_bfloat162')!;

/** The lanes' element type of a half2 / bfloat162 struct, or undefined for any other type. */
function pairDt(t: CType): 'f16' | 'bf16' | undefined {
  if (t.k !== 'struct') return undefined;
  if (t.def === HALF2()) return 'f16';
  if (t.def === BF162()) return 'bf16';
  return undefined;
}

/** __half2 or __nv_bfloat162 (whose operators the CUDA headers define). */
export function isPairType(t: CType): boolean {
  return pairDt(t) !== undefined;
}

/** A fresh vector value (a temporary, like a call's struct result) with lanes `vals`, each stored as its field's type. */
function build(def: StructDef, vals: Fn[]): Ex {
  const stores = def.fields.map((fl) => ({ off: fl.offset, st: storer((fl.type as { dt: DType }).dt) }));
  return V((f) => {
    const p: Pointer = { buf: new Buffer(f.ts.ex.nextBufferId(), def.name, 'local', def.size), offset: 0 };
    for (let i = 0; i < stores.length; i++) stores[i].st(p.buf, stores[i].off, vals[i](f));
    return p;
  }, { k: 'struct', def });
}

/** Reads lane `i` of a vector-valued expression (a pointer to its storage), recording shared reads for races. */
function lane(e: Ex, i: number): Fn {
  const t = e.t as { k: 'struct'; def: StructDef };
  const fl = t.def.fields[i];
  const dt = (fl.type as { dt: DType }).dt;
  const ld = loader(dt);
  const size = dt === 'f16' || dt === 'bf16' ? 2 : 4;
  const ev = e.ev;
  return (f: Frame) => {
    const p = ev(f) as Pointer;
    const o = p.offset + fl.offset;
    if (p.buf.space === 'shared' && f.ts.race) f.ts.m.access(f.ts.t, p.buf, o, size, false);
    return ld(p.buf, o);
  };
}

/** An argument that must be a half2 (or bfloat162) value. */
function pairArg(k: BuiltinCx, e: Ex, what: string): 'f16' | 'bf16' {
  const dt = pairDt(e.t);
  if (!dt) fail(`${what} takes a __half2 or __nv_bfloat162, not '${k.n.text}'`, k.n);
  return dt;
}

const round = (dt: DType, fn: (...xs: number[]) => number) => (...xs: number[]) => coerce(dt, fn(...xs));

/** Lane-wise operation of `xs` (all pairs of one type) with each result rounded to that type. */
function lanewise(xs: Ex[], dt: 'f16' | 'bf16', fn: (...v: number[]) => number): Ex {
  const r = round(dt, fn);
  const def = dt === 'f16' ? HALF2() : BF162();
  const lo = xs.map((x) => lane(x, 0));
  const hi = xs.map((x) => lane(x, 1));
  return build(def, [(f) => r(...lo.map((l) => l(f))), (f) => r(...hi.map((h) => h(f)))]);
}

const PAIR_OPS: Record<string, (...v: number[]) => number> = {
  __hadd2: (a, b) => a + b,
  __hsub2: (a, b) => a - b,
  __hmul2: (a, b) => a * b,
  __h2div: (a, b) => a / b,
  __hfma2: (a, b, c) => a * b + c,
  __hneg2: (a) => -a,
  __habs2: (a) => Math.abs(a),
  __hmax2: (a, b) => Math.max(a, b),
  __hmin2: (a, b) => Math.min(a, b),
};

/** Vector constructors, conversions to and from pairs, lane accessors and paired arithmetic. */
export const VECTOR_BUILTINS: Record<string, FreeBuiltin> = {
  ...cases(MAKE_NAMES, (k, name, _ns, a) => {
    const def = madeType(name)!;
    if (a.length !== def.fields.length) fail(`${name} takes ${def.fields.length} arguments`, k.n);
    const xs = args(k, a);
    return build(def, def.fields.map((fl, i) => asNum(k, xs[i], (fl.type as { dt: DType }).dt)));
  }),
  ...cases(['make_half2', '__halves2half2', '__floats2half2_rn', 'make_bfloat162', '__halves2bfloat162', '__floats2bfloat162_rn'], (k, name, _ns, a) => {
    const dt = /half/.test(name) && !/bfloat/.test(name) ? 'f16' : 'bf16';
    const xs = args(k, a);
    if (xs.length !== 2) fail(`${name} takes 2 arguments`, k.n);
    return build(dt === 'f16' ? HALF2() : BF162(), xs.map((x) => asNum(k, x, dt)));
  }),
  ...cases(['__float2half2_rn', '__half2half2', '__float2bfloat162_rn', '__bfloat162bfloat162'], (k, name, _ns, a) => {
    const dt = /bfloat/.test(name) ? 'bf16' : 'f16';
    const x = asNum(k, args(k, a)[0], dt);
    return build(dt === 'f16' ? HALF2() : BF162(), [x, x]);
  }),
  ...cases(['__low2half', '__high2half', '__low2bfloat16', '__high2bfloat16', '__low2float', '__high2float'], (k, name, _ns, a) => {
    const x = args(k, a)[0];
    const dt = pairDt(x.t);
    const low = name.startsWith('__low');
    if (!dt) {
      // __low2float(__half) in older code: the value itself.
      if (name === '__low2float') return V(asNum(k, x, 'f32'), num('f32'));
      pairArg(k, x, name);
    }
    const l = lane(x, low ? 0 : 1);
    return V(l, num(name.endsWith('float') ? 'f32' : dt!));
  }),
  ...cases(['__half22float2', '__bfloat1622float2'], (k, name, _ns, a) => {
    const x = args(k, a)[0];
    pairArg(k, x, name);
    return build(vectorType('float2')!, [lane(x, 0), lane(x, 1)]);
  }),
  ...cases(['__float22half2_rn', '__float22bfloat162_rn'], (k, name, _ns, a) => {
    const x = args(k, a)[0];
    if (x.t.k !== 'struct' || x.t.def !== vectorType('float2')) fail(`${name} takes a float2`, k.n);
    const dt = name.includes('bfloat') ? 'bf16' : 'f16';
    return build(dt === 'f16' ? HALF2() : BF162(), [(f) => coerce(dt, lane(x, 0)(f)), (f) => coerce(dt, lane(x, 1)(f))]);
  }),
  ...cases(Object.keys(PAIR_OPS), (k, name, _ns, a) => {
    const xs = args(k, a);
    const fn = PAIR_OPS[name];
    if (xs.length !== fn.length) fail(`${name} takes ${fn.length} arguments`, k.n);
    const dt = pairArg(k, xs[0], name);
    for (const x of xs) if (pairArg(k, x, name) !== dt) fail(`${name}: mixed __half2 and __nv_bfloat162 arguments`, k.n);
    return lanewise(xs, dt, fn);
  }),
};

/**
 * `l op r` where an operand is a struct: the operators cuda_fp16.hpp and cuda_bf16.hpp define on
 * __half2 / __nv_bfloat162, else undefined (the caller reports the operator as undefined, as nvcc
 * does for float4 and the other built-in vectors).
 */
export function pairBinop(c: CompilerContext, op: string, l: Ex, r: Ex, n: SyntaxNode): Ex | undefined {
  void c;
  const dt = pairDt(l.t);
  if (!dt || pairDt(r.t) !== dt) return undefined;
  switch (op) {
    case '+':
      return lanewise([l, r], dt, PAIR_OPS.__hadd2);
    case '-':
      return lanewise([l, r], dt, PAIR_OPS.__hsub2);
    case '*':
      return lanewise([l, r], dt, PAIR_OPS.__hmul2);
    case '/':
      return lanewise([l, r], dt, PAIR_OPS.__h2div);
    case '==':
    case '!=': {
      const [l0, l1, r0, r1] = [lane(l, 0), lane(l, 1), lane(r, 0), lane(r, 1)];
      const eq = op === '==';
      return V((f) => ((l0(f) === r0(f) && l1(f) === r1(f)) === eq ? 1 : 0), num('bool'));
    }
  }
  fail(`operator ${op} on ${dt === 'f16' ? '__half2' : '__nv_bfloat162'}`, n);
}
