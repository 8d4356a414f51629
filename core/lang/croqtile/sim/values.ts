// Runtime values of the Croqtile executor: typed scalars (with the upper bound of bounded
// variables), i-tuples, tensor views over simulated buffers (chunkat / subspan / view.from give
// strided windows, never copies), futures and event references — plus the scalar arithmetic with
// Croqtile's types and the number formatting of co-mock's `println` (C++ ostream defaults).
import { type DType, coerce as coerceAny, halfValueTable, isFloat, load, sizeOf, store } from '../../../sim/dtypes';
import { SimError, type AsyncOp, type SimBarrier } from '../../../sim/machine';
import type { Buffer } from '../../../sim/memory';

// ---------------------------------------------------------------- fast f16 (hot in MMA and copies)

const f64Scratch = new Float64Array(1);
const f64Words = new Uint32Array(f64Scratch.buffer);
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0; // little-endian: high word is [1]

/**
 * Double → IEEE half bits, round to nearest even straight from the double (no double rounding),
 * NaN → 0x7fff: the same results as dtypes' toHalfBits (checked exhaustively-ish in the tests), read
 * from the double's bits instead of log2/pow.
 */
export function halfBits(x: number): number {
  if (x !== x) return 0x7fff;
  f64Scratch[0] = x;
  const hi = f64Words[HI];
  const lo = f64Words[1 - HI];
  const sign = (hi >>> 16) & 0x8000;
  const e = (hi >>> 20) & 0x7ff;
  if (e >= 1023 + 16) return sign | 0x7c00; // |x| >= 65536 (and ±Inf)
  if (e < 1023 - 14) {
    // Subnormal half (or zero): units of 2^-24; the scaling is exact.
    const v = Math.abs(x) * 16777216;
    const f = Math.floor(v);
    const d = v - f;
    return sign | (d > 0.5 || (d === 0.5 && (f & 1) === 1) ? f + 1 : f);
  }
  const mhi = hi & 0xfffff;
  const keep = mhi >>> 10;
  const rest = mhi & 0x3ff;
  const up = rest > 0x200 || (rest === 0x200 && (lo !== 0 || (keep & 1) === 1)) ? 1 : 0;
  // A mantissa carry runs into the exponent, and past 65504 into 0x7c00 (Inf), as it should.
  return sign | (((e - 1023 + 15) << 10) + keep + up);
}

export function halfRound(x: number): number {
  return halfValueTable()[halfBits(x)];
}

function coerce(t: DType, v: number): number {
  return t === 'f16' ? halfValueTable()[halfBits(v)] : coerceAny(t, v);
}

/** A typed scalar. `ub` is set for bounded variables (parallel / foreach / with indices): `#x`. */
export class Sc {
  constructor(
    readonly v: number,
    readonly t: DType,
    readonly ub?: number,
  ) {}
}

/** `{a, b}` i-tuples and `x.span` shapes; items are scalars (possibly bounded). */
export class Tuple {
  constructor(readonly items: Sc[]) {}
}

/** A strided window of a buffer: element offset, shape and element strides. */
export class View {
  constructor(
    readonly buf: Buffer,
    readonly dtype: DType,
    readonly off: number,
    readonly shape: number[],
    readonly strides: number[],
    /** Declared element type when storage stands in for one the simulator cannot compute with (f8). */
    readonly declared?: string,
  ) {}
  get size(): number {
    let n = 1;
    for (const d of this.shape) n *= d;
    return n;
  }
  get contiguous(): boolean {
    let s = 1;
    for (let i = this.shape.length - 1; i >= 0; i--) {
      if (this.shape[i] !== 1 && this.strides[i] !== s) return false;
      s *= this.shape[i];
    }
    return true;
  }
}

/** `shared f16 [64, 64] lhs_s[STAGES]`: several equal buffers indexed with `lhs_s[stage]`. */
export class ViewArray {
  constructor(
    readonly name: string,
    readonly items: View[],
  ) {}
}

/** `x.subspan(e…)`, `x.chunk(n…)`, `x.view(e…)`: waiting for their `.at(…)` / `.step(…)` / `.from(…)`. */
export class PendingView {
  constructor(
    readonly kind: 'subspan' | 'chunk' | 'window',
    readonly base: View,
    readonly ext: number[],
    public step?: number[],
    readonly elemStrides?: number[],
  ) {}
}

/** A DMA/TMA/MMA future. `op` is absent for synchronous copies and `dma.any` placeholders. */
export class Future {
  waited = false;
  /** Zero-based line of the copy or MMA that made it (the debugger's Futures view). */
  line?: number;
  constructor(
    readonly label: string,
    readonly op: AsyncOp | undefined,
    readonly data: View | undefined,
    readonly bytes: number,
    readonly placeholder = false,
    /** Host-level async copies complete when waited (co-mock runs them on std::async). */
    public run?: () => void,
    /** Barriers whose tx-count this copy completes (trigger … after f; era A `tma.copy.async<e>`); shared by the handles of one copy. */
    readonly bound: SimBarrier[] = [],
  ) {}
}

/** One event declaration instance (per block). */
export interface EventObj {
  name: string;
  slots: SimBarrier[];
  /** Array extent; 0 for a scalar event. */
  length: number;
  ready: boolean;
  count: number;
  storage: 'shared' | 'local' | 'global';
  /** Boolean events (local/global): SET flags. */
  flags?: boolean[];
}

/** `full` (all slots), `full[i]` (physical slot), `full.at(order)` (slot and generation). */
export class EventRef {
  constructor(
    readonly ev: EventObj,
    readonly slot?: number,
    readonly order?: number,
  ) {}
}

export type Value = Sc | Tuple | View | ViewArray | PendingView | Future | EventRef | string;

export const INT = 's32';

// Scalars are immutable, so the common s32 values are shared instead of allocated per operation
// (loop arithmetic and index values dominate a compute-heavy program's allocations).
const SMALL_MIN = -1024;
const SMALL_END = 16384;
const SMALL_INTS: (Sc | undefined)[] = new Array(SMALL_END - SMALL_MIN);
/** Bounded s32 values (`#x` = ub) per bound, indexed by value, for bounds up to SMALL_END. */
const BOUNDED_INTS = new Map<number, (Sc | undefined)[]>();

/** The s32 scalar `v` (unbounded): shared for small integers (never for -0, which formats as such once cast to a float). */
export function s32(v: number): Sc {
  if (v >= SMALL_MIN && v < SMALL_END && (v | 0) === v && (v !== 0 || 1 / v > 0)) {
    const i = v - SMALL_MIN;
    const hit = SMALL_INTS[i];
    return hit !== undefined ? hit : (SMALL_INTS[i] = new Sc(v, 's32'));
  }
  return new Sc(v, 's32');
}

/** The shared values of a bounded variable with bound `ub` (index = value), or undefined when the bound is large. */
export function boundedInts(ub: number): (Sc | undefined)[] | undefined {
  if (!(ub > 0 && ub <= SMALL_END && (ub | 0) === ub)) return undefined;
  let a = BOUNDED_INTS.get(ub);
  if (a === undefined) BOUNDED_INTS.set(ub, (a = new Array(ub)));
  return a;
}

/** `int(v, ub)` through a table from boundedInts (undefined: allocate). */
export function boundedInt(table: (Sc | undefined)[] | undefined, v: number, ub: number): Sc {
  if (table !== undefined && v >= 0 && v < table.length && (v | 0) === v && (v !== 0 || 1 / v > 0)) {
    const hit = table[v];
    return hit !== undefined ? hit : (table[v] = new Sc(v, 's32', ub));
  }
  return new Sc(v, 's32', ub);
}

export function int(v: number, ub?: number): Sc {
  if (ub === undefined) return s32(v);
  return boundedInt(boundedInts(ub), v, ub);
}

// Scalars are immutable, so the two booleans are shared.
const TRUE = new Sc(1, 'bool');
const FALSE = new Sc(0, 'bool');

export function bool(b: boolean): Sc {
  return b ? TRUE : FALSE;
}

/** Croqtile type words → simulator element types; 8/6/4-bit floats are stored as raw bytes. */
export function dtypeOf(word: string): { dtype: DType; declared?: string } | undefined {
  switch (word) {
    case 'int':
    case 's32':
      return { dtype: 's32' };
    case 'float':
    case 'f32':
    case 'tf32':
      return { dtype: 'f32' };
    case 'double':
    case 'f64':
      return { dtype: 'f64' };
    case 'half':
    case 'f16':
      return { dtype: 'f16' };
    case 'bfp16':
    case 'bf16':
      return { dtype: 'bf16' };
    case 'bool':
      return { dtype: 'bool' };
    case 'u8':
    case 's8':
    case 'u16':
    case 's16':
    case 'u32':
    case 's64':
    case 'u64':
      return { dtype: word };
  }
  if (/^f8|^f6|^f4/.test(word)) return { dtype: 'u8', declared: word };
  return undefined;
}

export function describeValue(v: Value): string {
  if (typeof v === 'string') return 'a string';
  if (v instanceof Sc) return `the ${v.t} value ${formatScalar(v)}`;
  if (v instanceof Tuple) return 'an i-tuple';
  if (v instanceof View) return `a ${v.dtype} tensor [${v.shape.join(', ')}]`;
  if (v instanceof ViewArray) return `a buffer array (${v.name})`;
  if (v instanceof PendingView) return `an unfinished .${v.kind}(…) view`;
  if (v instanceof Future) return 'a future';
  return `the event ${v.ev.name}`;
}

// ---------------------------------------------------------------- formatting

/** C++ `ostream << double` with the default precision 6 (printf `%g`). */
export function formatG(v: number): string {
  if (Number.isNaN(v)) return v < 0 ? '-nan' : 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const ex = v.toExponential(5); // d.ddddde±X, rounded to 6 significant digits
  const e = Number(ex.slice(ex.indexOf('e') + 1));
  if (e < -4 || e >= 6) {
    let mant = ex.slice(0, ex.indexOf('e'));
    if (mant.includes('.')) mant = mant.replace(/0+$/, '').replace(/\.$/, '');
    const sign = e < 0 ? '-' : '+';
    const digits = String(Math.abs(e)).padStart(2, '0');
    return `${mant}e${sign}${digits}`;
  }
  let s = v.toFixed(Math.max(0, 5 - e));
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s;
}

export function formatScalar(s: Sc): string {
  if (s.t === 'bool') return s.v ? 'true' : 'false';
  if (isFloat(s.t)) return formatG(s.v);
  return String(s.v);
}

// ---------------------------------------------------------------- scalar arithmetic

const FLOAT_RANK: Partial<Record<DType, number>> = { f16: 1, bf16: 1, f32: 2, f64: 3 };

function floatResult(a: DType, b: DType): DType {
  const fa = isFloat(a);
  const fb = isFloat(b);
  if (fa && !fb) return a;
  if (fb && !fa) return b;
  if (a === b) return a;
  const ra = FLOAT_RANK[a]!;
  const rb = FLOAT_RANK[b]!;
  if (ra === rb) return 'f32'; // f16 with bf16
  return ra > rb ? a : b;
}

function intResult(a: DType, b: DType): DType {
  if (a === 's64' || a === 'u64' || b === 's64' || b === 'u64') return a === 'u64' || b === 'u64' ? 'u64' : 's64';
  if (a === 'u32' || b === 'u32') return 'u32';
  return 's32';
}

export function truthy(v: Value): boolean {
  if (v instanceof Sc) return v.v !== 0 && !Number.isNaN(v.v);
  throw new SimError(`expected a condition but found ${describeValue(v)}`);
}

/** `what` names the operand for the error message (a function: only computed on error). */
export function scalarOf(v: Value, what: string | (() => string)): Sc {
  if (v instanceof Sc) return v;
  if (v instanceof Tuple && v.items.length === 1) return v.items[0];
  throw new SimError(`${typeof what === 'string' ? what : what()}: expected a number but found ${describeValue(v)}`);
}

export function binaryOp(op: string, a: Sc, b: Sc): Sc {
  switch (op) {
    case '==':
      return bool(a.v === b.v);
    case '!=':
      return bool(a.v !== b.v);
    case '<':
      return bool(a.v < b.v);
    case '>':
      return bool(a.v > b.v);
    case '<=':
      return bool(a.v <= b.v);
    case '>=':
      return bool(a.v >= b.v);
    case '&&':
      return bool(a.v !== 0 && b.v !== 0);
    case '||':
      return bool(a.v !== 0 || b.v !== 0);
  }
  if (isFloat(a.t) || isFloat(b.t)) {
    const t = floatResult(a.t, b.t);
    let r: number;
    switch (op) {
      case '+':
        r = a.v + b.v;
        break;
      case '-':
        r = a.v - b.v;
        break;
      case '*':
        r = a.v * b.v;
        break;
      case '/':
        r = a.v / b.v;
        break;
      case '%':
        r = a.v % b.v;
        break;
      default:
        throw new SimError(`operator '${op}' needs integer operands, not ${a.t} and ${b.t}`);
    }
    return new Sc(coerce(t, r), t);
  }
  const t = intResult(a.t, b.t);
  const x = a.v;
  const y = b.v;
  let r: number;
  switch (op) {
    case '+':
      r = x + y;
      break;
    case '-':
      r = x - y;
      break;
    case '*':
      r = t === 's32' || t === 'u32' ? Math.imul(x, y) : x * y;
      break;
    case '/':
      if (y === 0) throw new SimError('integer division by zero');
      r = Math.trunc(x / y);
      break;
    case '%':
      if (y === 0) throw new SimError('integer modulo by zero');
      r = x % y;
      break;
    case '&':
      r = t === 's32' || t === 'u32' ? x & y : Number(BigInt(Math.trunc(x)) & BigInt(Math.trunc(y)));
      break;
    case '|':
      r = t === 's32' || t === 'u32' ? x | y : Number(BigInt(Math.trunc(x)) | BigInt(Math.trunc(y)));
      break;
    case '^':
      r = t === 's32' || t === 'u32' ? x ^ y : Number(BigInt(Math.trunc(x)) ^ BigInt(Math.trunc(y)));
      break;
    case '<<':
      r = t === 's32' || t === 'u32' ? x << y : x * 2 ** y;
      break;
    case '>>':
      r = t === 'u32' ? x >>> y : t === 's32' ? x >> y : Math.floor(x / 2 ** y);
      break;
    default:
      throw new SimError(`unknown operator '${op}'`);
  }
  return t === 's32' ? s32(r | 0) : new Sc(coerce(t, r), t);
}

export function castTo(t: DType, v: Sc): Sc {
  if (t === 's32') return s32(Math.trunc(v.v) | 0);
  const x = isFloat(t) ? v.v : Math.trunc(v.v);
  return new Sc(coerce(t, x), t);
}

// ---------------------------------------------------------------- tensors

export function contiguousStrides(shape: number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

/** Element offset (in elements) of `idx` in `v`, bounds-checked against the view's shape. */
export function elementOffset(v: View, idx: number[]): number {
  if (idx.length > v.shape.length) throw new SimError(`${idx.length} indices for the ${v.shape.length}-dimensional tensor '${v.buf.name}' [${v.shape.join(', ')}]`, undefined, 'oob');
  let off = v.off;
  for (let i = 0; i < idx.length; i++) {
    const k = idx[i];
    if (!Number.isInteger(k) || k < 0 || k >= v.shape[i]) {
      throw new SimError(`index ${k} is out of bounds for dimension ${i} (extent ${v.shape[i]}) of '${v.buf.name}' [${v.shape.join(', ')}]`, undefined, 'oob');
    }
    off += k * v.strides[i];
  }
  return off;
}

export function readElement(v: View, off: number): number {
  const t = v.dtype;
  if (t === 'f16') return halfValueTable()[v.buf.view.getUint16(off * 2, true)];
  if (t === 'f32') return v.buf.view.getFloat32(off * 4, true);
  if (t === 's32') return v.buf.view.getInt32(off * 4, true);
  return load(v.buf.view, off * sizeOf(t), t);
}

export function writeElement(v: View, off: number, x: number): void {
  const t = v.dtype;
  if (t === 'f16') v.buf.view.setUint16(off * 2, halfBits(x), true);
  else if (t === 'f32') v.buf.view.setFloat32(off * 4, x, true);
  else if (t === 's32') v.buf.view.setInt32(off * 4, x | 0, true);
  else store(v.buf.view, off * sizeOf(t), t, coerceAny(t, x));
}

/** Calls `fn(elementOffset, linearIndex)` for every element of `v` in row-major order. */
export function forEachElement(v: View, fn: (off: number, i: number) => void): void {
  const n = v.shape.length;
  if (n === 0) {
    fn(v.off, 0);
    return;
  }
  const idx = new Array<number>(n).fill(0);
  const total = v.size;
  let off = v.off;
  for (let i = 0; i < total; i++) {
    fn(off, i);
    for (let d = n - 1; d >= 0; d--) {
      idx[d]++;
      off += v.strides[d];
      if (idx[d] < v.shape[d]) break;
      off -= v.strides[d] * v.shape[d];
      idx[d] = 0;
    }
  }
}

/** Contiguous runs of `v` (in bytes): [byteOffset, byteLength] pairs, for copies and race checks. */
export function runsOf(v: View): [number, number][] {
  const es = sizeOf(v.dtype);
  const n = v.shape.length;
  if (n === 0) return [[v.off * es, es]];
  if (v.contiguous) return [[v.off * es, v.size * es]];
  const inner = v.strides[n - 1] === 1 ? v.shape[n - 1] : 1;
  const out: [number, number][] = [];
  const outer = new View(v.buf, v.dtype, v.off, inner > 1 ? v.shape.slice(0, -1) : v.shape, inner > 1 ? v.strides.slice(0, -1) : v.strides);
  forEachElement(outer, (off) => out.push([off * es, inner * es]));
  return out;
}

/** Element-wise copy (with conversion when the element types differ). Counts must agree. */
export function copyView(src: View, dst: View): void {
  if (src.size !== dst.size) throw new SimError(`copy of ${src.size} elements [${src.shape.join(', ')}] into ${dst.size} elements [${dst.shape.join(', ')}] ('${src.buf.name}' => '${dst.buf.name}')`);
  if (src.dtype === dst.dtype && src.contiguous && dst.contiguous) {
    const es = sizeOf(src.dtype);
    dst.buf.bytes.set(src.buf.bytes.subarray(src.off * es, (src.off + src.size) * es), dst.off * es);
    return;
  }
  if (src.dtype === dst.dtype && sameShape(src.shape, dst.shape)) {
    const a = runsOf(src);
    const b = runsOf(dst);
    if (a.length === b.length && a.every((r, i) => r[1] === b[i][1])) {
      for (let i = 0; i < a.length; i++) dst.buf.bytes.set(src.buf.bytes.subarray(a[i][0], a[i][0] + a[i][1]), b[i][0]);
      return;
    }
  }
  writeAll(dst, readAll(src));
}

function sameShape(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Reads a whole view into a row-major Float64Array. */
export function readAll(v: View): Float64Array {
  const out = new Float64Array(v.size);
  const dv = v.buf.view;
  if (v.dtype === 'f16') {
    const table = halfValueTable();
    stridedOffsets(v, (off, i, n) => {
      for (let k = 0; k < n; k++) out[i + k] = table[dv.getUint16((off + k) * 2, true)];
    });
  } else if (v.dtype === 'f32') {
    stridedOffsets(v, (off, i, n) => {
      for (let k = 0; k < n; k++) out[i + k] = dv.getFloat32((off + k) * 4, true);
    });
  } else forEachElement(v, (off, i) => (out[i] = readElement(v, off)));
  return out;
}

/** Writes row-major `data` into `v` (rounded to its element type); the inverse of readAll. */
export function writeAll(v: View, data: ArrayLike<number>): void {
  const dv = v.buf.view;
  if (v.dtype === 'f16') {
    stridedOffsets(v, (off, i, n) => {
      for (let k = 0; k < n; k++) dv.setUint16((off + k) * 2, halfBits(data[i + k]), true);
    });
  } else if (v.dtype === 'f32') {
    stridedOffsets(v, (off, i, n) => {
      for (let k = 0; k < n; k++) dv.setFloat32((off + k) * 4, data[i + k], true);
    });
  } else forEachElement(v, (off, i) => writeElement(v, off, data[i]));
}

/** Calls `fn(elementOffset, linearIndex, count)` per row of `v`: `count` elements at unit stride. */
function stridedOffsets(v: View, fn: (off: number, i: number, n: number) => void): void {
  const nd = v.shape.length;
  if (nd === 0) return fn(v.off, 0, 1);
  if (v.contiguous) return fn(v.off, 0, v.size);
  const last = nd - 1;
  const inner = v.shape[last];
  if (v.strides[last] !== 1 || inner === 0) {
    forEachElement(v, (off, i) => fn(off, i, 1));
    return;
  }
  const outer = new View(v.buf, v.dtype, v.off, v.shape.slice(0, last), v.strides.slice(0, last));
  forEachElement(outer, (off, i) => fn(off, i * inner, inner));
}

export function byteSize(v: View): number {
  return v.size * sizeOf(v.dtype);
}
