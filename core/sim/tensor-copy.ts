// Tensor TMA copies (cp.async.bulk.tensor, cp.reduce.async.bulk.tensor) in tile mode, language-free: the
// walk over a tensor map's box, the out-of-bounds fill, the shared-memory swizzle and the byte count
// the mbarrier is told. What the hardware does was recorded on an H200 (test/fixtures/sim/gpu/tma):
//  - the box lands in shared memory packed, dimension 0 innermost, ceil(boxDim[i] / elementStrides[i])
//    elements per dimension; the mbarrier's transaction count is all of those bytes, out-of-bounds
//    elements included (a box wholly outside the tensor still counts in full);
//  - swizzling XORs the 16-byte chunk index (address bits 4..6) with address bits 7..9 of the
//    SHARED-MEMORY ADDRESS (CUTLASS Swizzle<1|2|3,4,3>), so a destination that is not aligned to the
//    pattern's repeat (256/512/1024 bytes) starts mid-pattern; that is not a fault;
//  - out-of-bounds elements read as zeros, or with the NaN request as the 16-bit pattern 0x7FF7
//    repeated (0x7FF77FF7 for f32); a store or reduction skips them;
//  - faults: a shared address not 128-byte aligned ("misaligned address", as the PTX ISA requires), a box whose innermost
//    start coordinate is not a multiple of 16 bytes ("illegal instruction"), and a store or reduction
//    with a negative coordinate ("illegal instruction").
// Interleaved maps (CU_TENSOR_MAP_INTERLEAVE_16B/_32B, NC/8HWC8-style layouts), recorded on an H200 too
// (test/fixtures/sim/gpu/interleave):
//  - a dimension-0 element is a whole 16- or 32-byte slice, whatever the data type: element x0 of a row
//    is at x0 * slice bytes, globalDim[0] and boxDim[0] count slices, and every slice of the box is
//    checked against the bounds as a unit (filled, or skipped by a store, as a whole);
//  - the box spans ceil(boxDim[i] / elementStrides[i]) in every dimension but dimension rank-2, where it
//    is the coordinate's one row whatever boxDim says (the traversal stride of dimension 0 applies too);
//  - it lands packed in the same order and is swizzled by shared-memory address like any box (a
//    32-byte slice as two 16-byte chunks); the mbarrier is told all of its bytes;
//  - no coordinate faults a load (any c0, negative ones read as out of bounds), nor a store at c0 > 0.
//    A store or reduction at a negative coordinate was not recorded, nor a box past 4096 bytes
//    (core/sim/tensor-map.ts interleavedMapUnmodelled): the simulator refuses those.
import { BULK_REDUCE_OPS, type BulkReduceOp, type BulkReduceType, bulkReduceTypeError, elementReducer } from './bulk-reduce';
import type { Buffer, Pointer } from './memory';
import { interleavedMapUnmodelled, type TensorMapSpec, type TensorMapSwizzle, tensorMapDType, tensorMapElementSize, tensorMapUnitBytes } from './tensor-map';

/** The reduction of `cp.reduce.async.bulk.tensor` (core/sim/bulk-reduce.ts). */
export const TENSOR_REDUCE_OPS = BULK_REDUCE_OPS;
export type TensorReduceOp = BulkReduceOp;

/** Byte ranges `[offset, length]` of one buffer. */
export type ByteRanges = [number, number][];

/**
 * The shared-memory address a byte at `addr` lands at under `swizzle`: the 16-byte chunk index
 * (bits 4..6) XORed with bits 7..9 of the address, 1, 2 or 3 bits of it for 32B, 64B, 128B.
 */
export function swizzleAddress(addr: number, swizzle: TensorMapSwizzle): number {
  if (swizzle === 0) return addr;
  const mask = swizzle === 32 ? 1 : swizzle === 64 ? 3 : 7;
  return addr ^ (((addr >>> 7) & mask) << 4);
}

/**
 * Elements per dimension of the box as it lands in shared memory: ceil(boxDim / elementStrides); with an
 * interleaved layout one in dimension rank-2 (the H200 loads only the coordinate's row there).
 */
export function boxExtent(map: TensorMapSpec): number[] {
  const single = map.interleave !== 0 ? map.dims.length - 2 : -1;
  return map.box.map((b, i) => (i === single ? 1 : Math.ceil(b / map.elementStrides[i])));
}

/** Bytes of the box in shared memory: what a load completes on its mbarrier, out-of-bounds elements included. */
export function tensorBoxBytes(map: TensorMapSpec): number {
  return boxExtent(map).reduce((a, b) => a * b, 1) * tensorMapUnitBytes(map);
}

/**
 * Why the GPU faults on this copy, or undefined: `sharedAddr` is the shared-memory window address of
 * the box in shared memory, `coords` the box's start (signed elements, innermost first).
 */
export function tensorCopyFault(map: TensorMapSpec, coords: readonly number[], sharedAddr: number, direction: 'load' | 'store' | 'reduce'): string | undefined {
  const rank = map.dims.length;
  if (coords.length !== rank) return `${coords.length} coordinate(s) for a rank-${rank} tensor map`;
  if (sharedAddr % 128 !== 0) return `misaligned address: the shared-memory address ${sharedAddr} is not 128-byte aligned`;
  // An interleaved dimension-0 element is a whole slice, so every c0 starts on a 16-byte boundary.
  if (map.interleave !== 0) return undefined;
  const es = tensorMapElementSize(map.dtype);
  if ((coords[0] * es) % 16 !== 0)
    return `illegal instruction: the box's innermost start coordinate ${coords[0]} is ${coords[0] * es} bytes into the row, not a multiple of 16 bytes`;
  if (direction !== 'load' && coords.some((c) => c < 0)) return `illegal instruction: a ${direction} at negative coordinates {${coords.join(', ')}}`;
  return undefined;
}

/** Why the simulator does not model this copy (what the GPU does was not recorded), or undefined. */
export function tensorCopyUnmodelled(map: TensorMapSpec, coords: readonly number[], direction: 'load' | 'store' | 'reduce'): string | undefined {
  if (map.interleave === 0) return undefined;
  const big = interleavedMapUnmodelled(map);
  if (big) return big;
  if (direction !== 'load' && coords.some((c) => c < 0))
    return `a ${direction === 'reduce' ? 'reduction' : direction} through an interleaved tensor map at negative coordinates {${coords.join(', ')}} (not recorded on the GPU; it faults without interleave)`;
  return undefined;
}

/**
 * Visits every dimension-0 element of the box (an element, or an interleaved slice): its byte offset in
 * shared memory (unswizzled) and its global byte offset, or -1 when out of bounds.
 */
function walkBox(map: TensorMapSpec, coords: readonly number[], visit: (smemOffset: number, globalOffset: number) => void): void {
  const rank = map.dims.length;
  const n = boxExtent(map);
  const es = tensorMapUnitBytes(map);
  const strides = [es, ...map.strides];
  const k = new Array<number>(rank).fill(0);
  const total = n.reduce((a, b) => a * b, 1);
  for (let lin = 0; lin < total; lin++) {
    let g = map.global.offset;
    let inside = true;
    for (let i = 0; i < rank; i++) {
      const c = coords[i] + k[i] * map.elementStrides[i];
      if (c < 0 || c >= map.dims[i]) inside = false;
      g += c * strides[i];
    }
    visit(lin * es, inside ? g : -1);
    for (let i = 0; i < rank; i++) {
      if (++k[i] < n[i]) break;
      k[i] = 0;
    }
  }
}

/** Shared-memory byte ranges of the box (swizzled), merged. */
function sharedRanges(map: TensorMapSpec, base: number, sharedAddr: number): ByteRanges {
  const es = tensorMapElementSize(map.dtype);
  const bytes = tensorBoxBytes(map);
  // The swizzle permutes 16-byte chunks within 128-byte rows: whole rows map onto themselves.
  if (map.swizzle === 0 || (sharedAddr % 128 === 0 && bytes % 128 === 0)) return [[base, bytes]];
  const offsets: number[] = [];
  for (let o = 0; o < bytes; o += es) offsets.push(swizzleAddress(sharedAddr + o, map.swizzle) - sharedAddr + base);
  offsets.sort((a, b) => a - b);
  const out: ByteRanges = [];
  for (const o of offsets) {
    const last = out[out.length - 1];
    if (last && last[0] + last[1] === o) last[1] += es;
    else out.push([o, es]);
  }
  return out;
}

/** Out-of-bounds bytes for `oobFill = nan`: the 16-bit pattern 0x7FF7, little-endian (0x7FF77FF7 as f32). */
const NAN_FILL = [0xf7, 0x7f];

/**
 * A tile-mode load: the box at `coords` into shared memory at `dst` (window address `sharedAddr`),
 * swizzled. Returns the shared ranges written and the global ranges read.
 */
export function loadTensorBox(map: TensorMapSpec, coords: readonly number[], dst: Pointer, sharedAddr: number): { written: ByteRanges; read: ByteRanges } {
  const [unit, piece] = units(map);
  const src = map.global.buf;
  const nan = map.oobFill === 'nan';
  const read: ByteRanges = [];
  checkShared(dst, sharedAddr, map);
  walkBox(map, coords, (s, g) => {
    for (let p = 0; p < unit; p += piece) {
      const at = swizzleAddress(sharedAddr + s + p, map.swizzle) - sharedAddr + dst.offset;
      if (g >= 0) {
        checkGlobal(src, g + p, piece);
        dst.buf.bytes.set(src.bytes.subarray(g + p, g + p + piece), at);
        addRange(read, g + p, piece);
      } else for (let b = 0; b < piece; b++) dst.buf.bytes[at + b] = nan ? NAN_FILL[b & 1] : 0;
    }
  });
  return { written: sharedRanges(map, dst.offset, sharedAddr), read };
}

/**
 * Bytes of a walked unit (an element, or an interleaved slice) and of the pieces it moves in: the
 * swizzle permutes 16-byte chunks, so a 32-byte slice lands as two.
 */
function units(map: TensorMapSpec): [number, number] {
  const unit = tensorMapUnitBytes(map);
  return [unit, Math.min(unit, 16)];
}

/**
 * A tile-mode store (`op` undefined) or reduction from shared memory at `src` (window address
 * `sharedAddr`) to the box at `coords`; elements outside the tensor are skipped. Returns the shared
 * ranges read and the global ranges written.
 */
export function storeTensorBox(map: TensorMapSpec, coords: readonly number[], src: Pointer, sharedAddr: number, op?: TensorReduceOp): { read: ByteRanges; written: ByteRanges } {
  const es = tensorMapElementSize(map.dtype);
  const [unit, piece] = units(map);
  const dst = map.global.buf;
  const written: ByteRanges = [];
  checkShared(src, sharedAddr, map);
  const combine = op ? reducer(map, op) : undefined;
  walkBox(map, coords, (s, g) => {
    if (g < 0) return;
    for (let p = 0; p < unit; p += piece) {
      checkGlobal(dst, g + p, piece);
      const at = swizzleAddress(sharedAddr + s + p, map.swizzle) - sharedAddr + src.offset;
      if (combine) for (let e = 0; e < piece; e += es) combine(dst, g + p + e, src.buf, at + e);
      else dst.bytes.set(src.buf.bytes.subarray(at, at + piece), g + p);
      addRange(written, g + p, piece);
    }
  });
  return { read: sharedRanges(map, src.offset, sharedAddr), written };
}

/** Why `op` cannot reduce elements of the map's type (the ISA's table), or undefined. */
export function reduceTypeError(map: TensorMapSpec, op: TensorReduceOp): string | undefined {
  return bulkReduceTypeError('tensor', op, tensorMapDType(map.dtype) as BulkReduceType);
}

/** `global[g] = global[g] op shared[s]` for one element. */
function reducer(map: TensorMapSpec, op: TensorReduceOp): (g: Buffer, go: number, s: Buffer, so: number) => void {
  const bad = reduceTypeError(map, op);
  if (bad) throw new Error(bad);
  return elementReducer(op, tensorMapDType(map.dtype));
}

function addRange(r: ByteRanges, off: number, len: number): void {
  const last = r[r.length - 1];
  if (last && last[0] + last[1] === off) last[1] += len;
  else r.push([off, len]);
}

function checkShared(p: Pointer, sharedAddr: number, map: TensorMapSpec): void {
  for (const [o, n] of sharedRanges(map, p.offset, sharedAddr))
    if (o < 0 || o + n > p.buf.size) throw new RangeError(`the box's ${tensorBoxBytes(map)} bytes at byte ${p.offset} of '${p.buf.name}' run past its end (${p.buf.size} bytes)`);
}

function checkGlobal(b: Buffer, off: number, n: number): void {
  if (off < 0 || off + n > b.size) throw new RangeError(`the tensor map reaches byte ${off}..${off + n - 1} of '${b.name}', outside its ${b.size} bytes (globalDim/globalStrides larger than the buffer)`);
}
