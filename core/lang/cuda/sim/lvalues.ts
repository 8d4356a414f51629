// Lvalues and conversions for the CUDA compiler: the closures through which compiled code reads and
// writes frame slots and memory (with the race detector's hooks on shared memory), takes addresses,
// and converts values between C types. These closures run per access, so they stay specialised by
// type at compile time.
import type { SyntaxNode } from '../parser';
import type { DType } from '../../../sim/dtypes';
import { SimError } from '../../../sim/machine';
import { Buffer, type Pointer } from '../../../sim/memory';
import type { CompilerContext, Ex, Fn, FnCx, FnDecl, LV } from './context';
import { envOf, type Frame, fromGenericAddress, genericAddress, loader, loadPointer, oob, storePointer, storer } from './runtime';
import { fail, unsupported } from './syntax';
import { laneType, vConvert, vecOf } from './lanes';
import { constantOf } from './type-traits';
import { convFn, type CType, isNum, ptr, S32, sameType, sizeOfType, type StructDef, type StructField, typeName, wide } from './types';

/** Reads a value of type `t` from an lvalue. */
export function loadFn(c: CompilerContext, lv: LV, t: CType): Fn {
  if (lv.k === 'slot') return slotReader(lv.depth, lv.idx, lv.num && t.k === 'num' ? t.dt : undefined);
  if (lv.bits) return bitFieldLoad(lv as BitLV, t);
  const B = lv.buf;
  const O = lv.off;
  switch (t.k) {
    case 'num': {
      const ld = loader(t.dt);
      const size = sizeOfType(t);
      return (f) => {
        const b = B(f);
        const o = O(f);
        const v = ld(b, o);
        if (b.space === 'shared' && f.ts.race) f.ts.m.access(f.ts.t, b, o, size, false);
        if (b.watch) b.watch(f.ts, o, size, false);
        return v;
      };
    }
    case 'ptr':
      return (f) => loadPointer(B(f), O(f));
    case 'arr':
    case 'struct':
    case 'barrier':
      return (f) => ({ buf: B(f), offset: O(f) });
    default:
      unsupported(`a ${typeName(t)} stored in memory`, undefined as unknown as SyntaxNode);
  }
}

/** Writes a value of type `t` into an lvalue. */
export function storeFn(c: CompilerContext, lv: LV, t: CType): (f: Frame, v: any) => void {
  if (lv.k === 'slot') {
    const { depth, idx } = lv;
    if (lv.num) {
      if (depth === 0) return (f, v) => (f.d[idx] = v);
      return (f, v) => (envOf(f, depth).d[idx] = v);
    }
    if (depth === 0) return (f, v) => (f.v[idx] = v);
    return (f, v) => (envOf(f, depth).v[idx] = v);
  }
  if (lv.bits) return bitFieldStore(lv as BitLV, t);
  const B = lv.buf;
  const O = lv.off;
  switch (t.k) {
    case 'num': {
      const st = storer(t.dt);
      const size = sizeOfType(t);
      return (f, v) => {
        const b = B(f);
        const o = O(f);
        st(b, o, v);
        if (b.space === 'shared' && f.ts.race) f.ts.m.access(f.ts.t, b, o, size, true);
        if (b.watch) b.watch(f.ts, o, size, true);
      };
    }
    case 'ptr':
      return (f, v) => storePointer(B(f), O(f), v);
    case 'arr':
    case 'struct':
    case 'barrier': {
      const size = sizeOfType(t);
      return (f, v: Pointer) => {
        const b = B(f);
        const o = O(f);
        if (!v) throw new SimError('copy from a null pointer');
        if (o < 0 || o + size > b.size) throw new SimError(`struct copy out of bounds of '${b.name}'`, undefined, 'oob');
        b.bytes.set(v.buf.bytes.subarray(v.offset, v.offset + size), o);
        if (b.space === 'shared' && f.ts.race) f.ts.m.access(f.ts.t, b, o, size, true);
        if (b.watch) b.watch(f.ts, o, size, true);
      };
    }
    default:
      return () => {
        throw new SimError(`cannot store a ${typeName(t)} in memory`, undefined, 'unsupported');
      };
  }
}

/** Pointer to an lvalue (`&x`, reference binding). */
export function addressOf(c: CompilerContext, e: Ex, n: SyntaxNode): Fn {
  if (!e.lv) {
    if (e.t.k === 'struct' || e.t.k === 'arr' || e.t.k === 'barrier') return e.ev; // rvalue aggregate: its storage
    // A reference to a temporary: materialise it in a fresh local buffer.
    if (isNum(e.t)) {
      const t = e.t;
      const st = storer(t.dt);
      const ev = e.ev;
      return (f) => {
        const b = new Buffer(f.ts.ex.nextBufferId(), 'temporary', 'local', sizeOfType(t));
        st(b, 0, ev(f));
        return { buf: b, offset: 0 };
      };
    }
    fail(`cannot take the address of '${n.text}'`, n);
  }
  const lv = e.lv;
  if (lv.k === 'slot') unsupported(`taking the address of '${n.text}' (a register variable)`, n);
  if (lv.bits) return addressOf(c, { t: e.t, ev: e.ev }, n); // a const reference to a bit-field binds to a copy
  const B = lv.buf;
  const O = lv.off;
  return (f) => ({ buf: B(f), offset: O(f) });
}

// -------------------------------------------------------------- bit-fields

type BitLV = { k: 'mem'; buf: Fn; off: Fn; bits: { pos: number; width: number; signed?: boolean } };

/**
 * A field of a struct stored at `buf`/`off`. A bit-field reads as its declared type, promoted to
 * int when narrower than int ([conv.prom]: `uint32_t x : 14` is an int in arithmetic).
 */
export function fieldEx(c: CompilerContext, buf: Fn, off: Fn, fld: StructField): Ex {
  const fo = fld.offset;
  const o: Fn = fo ? (f) => off(f) + fo : off;
  if (!fld.bits) {
    const lv: LV = { k: 'mem', buf, off: o };
    return { t: fld.type, ev: loadFn(c, lv, fld.type), lv };
  }
  const dt = fld.type.k === 'num' ? fld.type.dt : 'u32';
  const signed = /^s/.test(dt);
  const t = dt !== 'bool' && fld.bits.width < 32 && sizeOfType(fld.type) >= 4 ? S32 : fld.type;
  const lv: LV = { k: 'mem', buf, off: o, bits: { ...fld.bits, signed } as BitLV['bits'] };
  return { t, ev: loadFn(c, lv, t), lv };
}

/** The raw little-endian bits of `n` bytes at `o`, as a bigint. */
function readBytes(b: Buffer, o: number, n: number): bigint {
  if (o < 0 || o + n > b.bytes.length) oob(b, o, n);
  let raw = 0n;
  for (let i = n - 1; i >= 0; i--) raw = (raw << 8n) | BigInt(b.bytes[o + i]);
  return raw;
}

/** A bit-field's value in memory (the debugger's view). */
export function bitFieldValue(b: Buffer, o: number, fld: StructField): bigint {
  const { pos, width } = fld.bits!;
  const bits = (readBytes(b, o, Math.ceil((pos + width) / 8)) >> BigInt(pos)) & ((1n << BigInt(width)) - 1n);
  return fld.type.k === 'num' && /^s/.test(fld.type.dt) ? BigInt.asIntN(width, bits) : bits;
}

function bitFieldLoad(lv: BitLV, t: CType): Fn {
  const { pos, width, signed } = lv.bits;
  const n = Math.ceil((pos + width) / 8);
  const P = BigInt(pos);
  const W = BigInt(width);
  const is64 = t.k === 'num' && (t.dt === 's64' || t.dt === 'u64');
  const tSigned = t.k === 'num' && /^s/.test(t.dt);
  const B = lv.buf;
  const O = lv.off;
  return (f) => {
    const b = B(f) as Buffer;
    const o = O(f) as number;
    const raw = readBytes(b, o, n);
    if (b.space === 'shared' && f.ts.race) f.ts.m.access(f.ts.t, b, o, n, false);
    if (b.watch) b.watch(f.ts, o, n, false);
    const bits = (raw >> P) & ((1n << W) - 1n);
    const v = signed ? BigInt.asIntN(width, bits) : bits;
    return is64 ? wide(v, tSigned) : Number(v);
  };
}

/** Stores the low `width` bits of the value (already of the field's type), leaving the other bits of the bytes as they were. */
function bitFieldStore(lv: BitLV, _t: CType): (f: Frame, v: any) => void {
  const { pos, width } = lv.bits;
  const n = Math.ceil((pos + width) / 8);
  const P = BigInt(pos);
  const mask = ((1n << BigInt(width)) - 1n) << P;
  const B = lv.buf;
  const O = lv.off;
  return (f, v) => {
    const b = B(f) as Buffer;
    const o = O(f) as number;
    let raw = readBytes(b, o, n);
    raw = (raw & ~mask) | ((BigInt(v) << P) & mask);
    for (let i = 0; i < n; i++, raw >>= 8n) b.bytes[o + i] = Number(raw & 0xffn);
    if (b.space === 'shared' && f.ts.race) f.ts.m.access(f.ts.t, b, o, n, true);
    if (b.watch) b.watch(f.ts, o, n, true);
  };
}

// -------------------------------------------------------------- conversions

export function convertTo(c: CompilerContext, e: Ex, t: CType, n: SyntaxNode, cx?: FnCx): Ex {
  if (t.k === 'num' || t.k === 'ptr') e = constantOf(e);
  if (cx && e.t.k === 'struct' && e.t.def.conversions && (t.k === 'num' || t.k === 'ptr')) e = userConversion(c, cx, e, t, n);
  const from = e.t;
  if (t.k === 'void') return e;
  if (isNum(t)) {
    if (isNum(from)) {
      const conv = convFn(from.dt, t.dt);
      if (!conv) return { ...e, t, lv: undefined, vec: laneType(t.dt) && laneType(from.dt) ? e.vec : undefined };
      const ev = e.ev;
      const out: Ex = { t, ev: (f) => conv(ev(f)) };
      const ve = laneType(t.dt) ? vecOf(e) : undefined;
      if (ve) out.vec = vConvert(conv, ve);
      if (e.cv !== undefined) out.cv = conv(e.cv);
      if (out.cv !== undefined) {
        const k = out.cv;
        out.ev = () => k;
      }
      return out;
    }
    if (from.k === 'ptr' || from.k === 'arr') {
      const ev = from.k === 'arr' ? c.decayFn(e) : e.ev;
      if (t.dt === 'bool') return { t, ev: (f) => (ev(f) ? 1 : 0) };
      return { t, ev: (f) => genericAddress(f.ts.ex, ev(f)) };
    }
    if (from.k === 'obj' && from.obj === 'nullptr') return { t, ev: () => 0, cv: 0 };
    unsupported(`conversion from ${typeName(from)} to ${typeName(t)}`, n);
  }
  if (t.k === 'ptr') {
    if (from.k === 'ptr') return { t, ev: e.ev };
    if (from.k === 'arr') return { t, ev: c.decayFn(e) };
    if (from.k === 'obj' && from.obj === 'nullptr') return { t, ev: () => null };
    if (from.k === 'obj' && from.obj === 'string') return { t, ev: stringPointer(c, e.ev) };
    if (isNum(from)) {
      if (e.cv === 0) return { t, ev: () => null };
      const ev = e.ev;
      return { t, ev: (f) => fromGenericAddress(f.ts.ex, ev(f)) };
    }
    unsupported(`conversion from ${typeName(from)} to ${typeName(t)}`, n);
  }
  if (t.k === 'struct' || t.k === 'barrier' || t.k === 'arr') {
    if (from.k === t.k && (t.k !== 'struct' || (from as typeof t).def === t.def)) return e;
    if (t.k === 'struct' && from.k === 'struct' && from.def.size === t.def.size) return e;
    unsupported(`conversion from ${typeName(from)} to ${typeName(t)}`, n);
  }
  return e;
}

/**
 * A struct converted by its conversion operator (`operator uint64_t() const`, CUTLASS's GmmaDescriptor
 * decaying to its 64 bits): the one to `t` exactly if there is one, else the first to a number (for a
 * number) or pointer (for a pointer); the result is then converted as usual.
 */
export function userConversion(c: CompilerContext, cx: FnCx, e: Ex, t: CType, n: SyntaxNode): Ex {
  const convs = (e.t as { def: StructDef }).def.conversions ?? [];
  const conv = convs.find((x) => sameType(x.to, t)) ?? convs.find((x) => x.to.k === t.k);
  if (!conv) return e;
  return c.callUser(cx, [conv.fn as FnDecl], [], n, undefined, addressOf(c, e, n));
}

export function decayFn(c: CompilerContext, e: Ex): Fn {
  if (e.lv?.k === 'mem') {
    const B = e.lv.buf;
    const O = e.lv.off;
    return (f) => ({ buf: B(f), offset: O(f) });
  }
  return e.ev;
}

/** Rvalue with arrays decayed to pointers. */
export function rv(c: CompilerContext, e: Ex): Ex {
  if (e.t.k === 'arr') return { t: ptr(e.t.of), ev: c.decayFn(e) };
  return e;
}

/**
 * Reads slot `idx` of the frame `depth` steps up the environment chain; `num`: a typed slot of that
 * type (Frame.d). An integer is read back as a 32-bit integer (it was stored as one, and a declared
 * local is stored before it is read), so V8 computes with it as an integer, not a double.
 */
export function slotReader(depth: number, idx: number, num?: DType): Fn {
  if (num === 'u32') {
    if (depth === 0) return (f) => f.d[idx] >>> 0;
    return (f) => envOf(f, depth).d[idx] >>> 0;
  }
  if (num === 'f32' || num === 'f64') {
    if (depth === 0) return (f) => f.d[idx];
    return (f) => envOf(f, depth).d[idx];
  }
  if (num) {
    if (depth === 0) return (f) => f.d[idx] | 0;
    return (f) => envOf(f, depth).d[idx] | 0;
  }
  if (depth === 0) return (f) => f.v[idx];
  if (depth === 1) return (f) => (f.env as Frame).v[idx];
  return (f) => envOf(f, depth).v[idx];
}

/** A string literal as a `const char*`: its bytes and a NUL in a read-only buffer, one per distinct text. */
function stringPointer(c: CompilerContext, ev: Fn): Fn {
  // One table per run (RunStorage): the buffers are the run's, numbered from its buffer ids.
  const key = {};
  return (f) => {
    const s = String(ev(f));
    const made = f.ts.ex.storage.value(key, () => new Map<string, Pointer>());
    let p = made.get(s);
    if (!p) {
      const bytes = new TextEncoder().encode(s);
      const buf = new Buffer(f.ts.ex.nextBufferId(), JSON.stringify(s), 'const', bytes.length + 1, undefined, 's8', [bytes.length + 1]);
      buf.bytes.set(bytes);
      p = { buf, offset: 0 };
      made.set(s, p);
    }
    return p;
  };
}
