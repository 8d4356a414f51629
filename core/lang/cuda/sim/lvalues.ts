// Lvalues and conversions for the CUDA compiler: the closures through which compiled code reads and
// writes frame slots and memory (with the race detector's hooks on shared memory), takes addresses,
// and converts values between C types. These closures run per access, so they stay specialised by
// type at compile time.
import type { SyntaxNode } from '../parser';
import { SimError } from '../../../sim/machine';
import { Buffer, type Pointer } from '../../../sim/memory';
import type { CompilerContext, Ex, Fn, LV } from './context';
import { envOf, type Frame, fromGenericAddress, genericAddress, loader, loadPointer, storePointer, storer } from './runtime';
import { fail, unsupported } from './syntax';
import { convFn, type CType, isNum, ptr, sizeOfType, typeName } from './types';

/** Reads a value of type `t` from an lvalue. */
export function loadFn(c: CompilerContext, lv: LV, t: CType): Fn {
  if (lv.k === 'slot') return slotReader(lv.depth, lv.idx);
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
    if (depth === 0) return (f, v) => (f.v[idx] = v);
    return (f, v) => (envOf(f, depth).v[idx] = v);
  }
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
  const B = lv.buf;
  const O = lv.off;
  return (f) => ({ buf: B(f), offset: O(f) });
}

// -------------------------------------------------------------- conversions

export function convertTo(c: CompilerContext, e: Ex, t: CType, n: SyntaxNode): Ex {
  const from = e.t;
  if (t.k === 'void') return e;
  if (isNum(t)) {
    if (isNum(from)) {
      const conv = convFn(from.dt, t.dt);
      if (!conv) return { ...e, t, lv: undefined };
      const ev = e.ev;
      const out: Ex = { t, ev: (f) => conv(ev(f)) };
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

/** Reads slot `idx` of the frame `depth` steps up the environment chain. */
export function slotReader(depth: number, idx: number): Fn {
  if (depth === 0) return (f) => f.v[idx];
  if (depth === 1) return (f) => (f.env as Frame).v[idx];
  return (f) => envOf(f, depth).v[idx];
}

/** A string literal as a `const char*`: its bytes and a NUL in a read-only buffer, one per distinct text. */
function stringPointer(c: CompilerContext, ev: Fn): Fn {
  const made = new Map<string, Pointer>();
  return (f) => {
    const s = String(ev(f));
    let p = made.get(s);
    if (!p) {
      const bytes = new TextEncoder().encode(s);
      const buf = new Buffer(c.newGlobalId(), JSON.stringify(s), 'const', bytes.length + 1, undefined, 's8', [bytes.length + 1]);
      buf.bytes.set(bytes);
      p = { buf, offset: 0 };
      made.set(s, p);
    }
    return p;
  };
}
