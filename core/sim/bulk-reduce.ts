// The element operations of the asynchronous bulk reductions (cp.reduce.async.bulk and
// cp.reduce.async.bulk.tensor), language-free: which element types each reduction takes in each form
// (the PTX ISA's tables) and `dst = dst op src` for one element, rounded once to the element type.
// Recorded on an H200 (test/fixtures/sim/gpu/tma, tma2): f32/f64/f16/bf16 adds round to nearest even
// (2^24 + 1 stays 2^24 in f32, 2048 + 1 stays 2048 in f16), integer adds wrap, .inc/.dec wrap at the source value.
import type { DType } from './dtypes';
import { load, store } from './dtypes';
import type { Buffer } from './memory';

/** The reductions of `cp.reduce.async.bulk(.tensor)`. */
export const BULK_REDUCE_OPS = ['add', 'min', 'max', 'inc', 'dec', 'and', 'or', 'xor'] as const;
export type BulkReduceOp = (typeof BULK_REDUCE_OPS)[number];

/** Element types as the PTX instruction names them (`.b32`/`.b64` for the bitwise operations). */
export type BulkReduceType = 'b32' | 'b64' | 'u32' | 's32' | 'u64' | 's64' | 'f16' | 'bf16' | 'f32' | 'f64';

/**
 * The types each reduction takes, per form (PTX ISA, cp.reduce.async.bulk and
 * cp.reduce.async.bulk.tensor): into global memory, into shared::cluster memory, and the tensor form
 * (whose type is the tensor map's). `.add` of f16/bf16 into global memory is written `.add.noftz`.
 */
export const BULK_REDUCE_TYPES: Record<'global' | 'cluster' | 'tensor', Record<BulkReduceOp, readonly BulkReduceType[]>> = {
  global: {
    add: ['u32', 's32', 'u64', 'f32', 'f64', 'f16', 'bf16'],
    min: ['u32', 's32', 'u64', 's64', 'f16', 'bf16'],
    max: ['u32', 's32', 'u64', 's64', 'f16', 'bf16'],
    inc: ['u32'],
    dec: ['u32'],
    and: ['b32', 'b64'],
    or: ['b32', 'b64'],
    xor: ['b32', 'b64'],
  },
  // ptxas (CUDA 13.0) rejects the 64-bit bitwise forms into shared::cluster ("Illegal reduction operation").
  cluster: {
    add: ['u32', 's32', 'u64'],
    min: ['u32', 's32'],
    max: ['u32', 's32'],
    inc: ['u32'],
    dec: ['u32'],
    and: ['b32'],
    or: ['b32'],
    xor: ['b32'],
  },
  tensor: {
    add: ['u32', 's32', 'u64', 'f32', 'f16', 'bf16'],
    min: ['u32', 's32', 'u64', 's64', 'f16', 'bf16'],
    max: ['u32', 's32', 'u64', 's64', 'f16', 'bf16'],
    inc: ['u32'],
    dec: ['u32'],
    and: ['u32', 's32', 'u64', 's64'],
    or: ['u32', 's32', 'u64', 's64'],
    xor: ['u32', 's32', 'u64', 's64'],
  },
};

/** The simulator's element type of a reduction type (`.b32` as u32, `.b64` as u64). */
export function reduceDType(t: BulkReduceType): DType {
  return t === 'b32' ? 'u32' : t === 'b64' ? 'u64' : t;
}

/** Bytes per element of a reduction type. */
export function reduceElementSize(t: BulkReduceType): number {
  return t === 'f16' || t === 'bf16' ? 2 : t === 'b64' || t === 'u64' || t === 's64' || t === 'f64' ? 8 : 4;
}

/** Why `op` cannot reduce `type` elements in `form` (the ISA's table), or undefined. */
export function bulkReduceTypeError(form: keyof typeof BULK_REDUCE_TYPES, op: BulkReduceOp, type: BulkReduceType): string | undefined {
  const ok = BULK_REDUCE_TYPES[form][op];
  return ok.includes(type) ? undefined : `.${op} does not reduce ${type} elements${form === 'tensor' ? '' : ` into ${form === 'global' ? 'global' : 'shared::cluster'} memory`} (it takes ${ok.join(', ')})`;
}

/** PTX min/max of floating-point values: a NaN operand yields the other one. */
const fmin = (a: number, b: number) => (Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.min(a, b));
const fmax = (a: number, b: number) => (Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.max(a, b));

/** `dst[do] = dst[do] op src[so]` for one element of type `dt`; the caller checked the type against the ISA's table. */
export function elementReducer(op: BulkReduceOp, dt: DType): (dst: Buffer, dOff: number, src: Buffer, sOff: number) => void {
  if (dt === 'u64' || dt === 's64') {
    const get = (v: DataView, o: number) => (dt === 'u64' ? v.getBigUint64(o, true) : v.getBigInt64(o, true));
    const set = (v: DataView, o: number, x: bigint) => (dt === 'u64' ? v.setBigUint64(o, BigInt.asUintN(64, x), true) : v.setBigInt64(o, BigInt.asIntN(64, x), true));
    const fn: (a: bigint, b: bigint) => bigint =
      op === 'add' ? (a, b) => a + b : op === 'min' ? (a, b) => (a < b ? a : b) : op === 'max' ? (a, b) => (a > b ? a : b) : op === 'and' ? (a, b) => a & b : op === 'or' ? (a, b) => a | b : (a, b) => a ^ b;
    return (d, dOff, s, sOff) => set(d.view, dOff, fn(get(d.view, dOff), get(s.view, sOff)));
  }
  const float = dt === 'f16' || dt === 'bf16' || dt === 'f32' || dt === 'f64';
  const fn: (a: number, b: number) => number =
    op === 'add'
      ? (a, b) => a + b
      : op === 'min'
        ? float
          ? fmin
          : (a, b) => Math.min(a, b)
        : op === 'max'
          ? float
            ? fmax
            : (a, b) => Math.max(a, b)
          : op === 'inc'
            ? (a, b) => (a >= b ? 0 : a + 1)
            : op === 'dec'
              ? (a, b) => (a === 0 || a > b ? b : a - 1)
              : op === 'and'
                ? (a, b) => a & b
                : op === 'or'
                  ? (a, b) => a | b
                  : (a, b) => a ^ b;
  const wrap = dt === 'u32' ? (x: number) => x >>> 0 : dt === 's32' ? (x: number) => x | 0 : (x: number) => x;
  // Computed in a double and rounded once to the element type by store (nearest even): for f32, f16 and
  // bf16 that is the correctly rounded result, a double having more than 2p + 2 bits of their precision p.
  return (d, dOff, s, sOff) => store(d.view, dOff, dt, wrap(fn(load(d.view, dOff, dt), load(s.view, sOff, dt))));
}

/** Reduces `bytes` bytes of `src` (from `sOff`) into `dst` (from `dOff`), element by element. */
export function reduceBytes(op: BulkReduceOp, type: BulkReduceType, dst: Buffer, dOff: number, src: Buffer, sOff: number, bytes: number): void {
  const es = reduceElementSize(type);
  const combine = elementReducer(op, reduceDType(type));
  for (let o = 0; o < bytes; o += es) combine(dst, dOff + o, src, sOff + o);
}
