// Tensor maps (CUtensorMap): the descriptor a tensor TMA copy reads to turn box coordinates into global
// addresses. They come from the launch configuration (`tmap=tensormap(…)`) or from host code calling
// cuTensorMapEncodeTiled, and travel to the kernel as 128 bytes (a `const __grid_constant__ CUtensorMap`
// parameter, a copy in shared or global memory), so the simulator keeps the whole description inside
// those 128 bytes: a copy of the struct is a copy of the map. The hardware's own encoding is not
// public; this one is the simulator's, marked by a magic word so a zeroed or garbage map is recognised.
// Validation follows the CUDA driver's documented rules for cuTensorMapEncodeTiled and names the field.
import type { DType } from './dtypes';
import { type Buffer, check } from './memory';

/** `CUtensorMapDataType`, in the driver's enum order. */
export const TENSOR_MAP_DTYPES = ['u8', 'u16', 'u32', 's32', 'u64', 's64', 'f16', 'f32', 'f64', 'bf16', 'f32-ftz', 'tf32', 'tf32-ftz'] as const;
export type TensorMapDType = (typeof TENSOR_MAP_DTYPES)[number];
/** `CUtensorMapSwizzle`: none, 32B, 64B, 128B (bytes of the swizzle span). */
export const TENSOR_MAP_SWIZZLES = [0, 32, 64, 128] as const;
export type TensorMapSwizzle = (typeof TENSOR_MAP_SWIZZLES)[number];
/** `CUtensorMapInterleave`: none, 16B, 32B. */
export const TENSOR_MAP_INTERLEAVES = [0, 16, 32] as const;
export type TensorMapInterleave = (typeof TENSOR_MAP_INTERLEAVES)[number];
/** `CUtensorMapL2promotion`: none, 64B, 128B, 256B (no effect on values). */
export const TENSOR_MAP_L2 = [0, 64, 128, 256] as const;
/** `CUtensorMapFloatOOBfill`: zeros, or NaN (`CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA`). */
export type TensorMapOobFill = 'zero' | 'nan';

export interface TensorMapSpec {
  dtype: TensorMapDType;
  /** The tensor's base: a global buffer and a byte offset into it. */
  global: { buf: Buffer; offset: number };
  /** Elements per dimension, innermost first (`globalDim`; with interleave, dimension 0 counts 16/32-byte slices). */
  dims: number[];
  /** Byte strides of dimensions 1..rank-1 (`globalStrides`; dimension 0 is dense). */
  strides: number[];
  /** Box extent per dimension, in elements (`boxDim`; with interleave, dimension 0 counts slices). */
  box: number[];
  /** Element strides per dimension (`elementStrides`, 1 = every element). */
  elementStrides: number[];
  interleave: TensorMapInterleave;
  swizzle: TensorMapSwizzle;
  l2Promotion: number;
  oobFill: TensorMapOobFill;
}

/**
 * A `tensormap(A, …)` argument as written: the buffer argument it views and the fields given; what is
 * left out defaults when the map is built (core/sim/args.ts `tensorMapOf`): dtype from A, dims from A's shape innermost
 * first, dense strides, elementStrides 1, no interleave, swizzle or L2 promotion, zero OOB fill.
 */
export interface TensorMapArg {
  tensor: string;
  dtype?: TensorMapDType;
  dims?: number[];
  strides?: number[];
  box: number[];
  elementStrides?: number[];
  swizzle: TensorMapSwizzle;
  interleave: TensorMapInterleave;
  l2Promotion: number;
  oobFill: TensorMapOobFill;
}

export const TENSOR_MAP_BYTES = 128;
const MAGIC = 0x5046_544d; // "PFTM"

/** Bytes per element of a tensor-map data type. */
export function tensorMapElementSize(d: TensorMapDType): number {
  switch (d) {
    case 'u8':
      return 1;
    case 'u16':
    case 'f16':
    case 'bf16':
      return 2;
    case 'u64':
    case 's64':
    case 'f64':
      return 8;
    default:
      return 4;
  }
}

/** The simulator's element type for a tensor-map data type (how OOB fill and dumps read it). */
export function tensorMapDType(d: TensorMapDType): DType {
  switch (d) {
    case 'f32-ftz':
    case 'tf32':
    case 'tf32-ftz':
      return 'f32';
    default:
      return d;
  }
}

const isFloatType = (d: TensorMapDType): boolean => d === 'f16' || d === 'bf16' || d === 'f32' || d === 'f64' || d.startsWith('f32-') || d.startsWith('tf32');

/**
 * The driver's checks of cuTensorMapEncodeTiled, in its terms: undefined when valid, else what is
 * wrong, naming the field (`boxDim[1] = 300: at most 256`).
 */
export function validateTensorMap(s: TensorMapSpec): string | undefined {
  const rank = s.dims.length;
  const es = tensorMapElementSize(s.dtype);
  if (rank < 1 || rank > 5) return `tensorRank = ${rank}: must be 1 to 5`;
  if (s.interleave !== 0 && rank < 3) return `tensorRank = ${rank}: an interleaved layout needs rank 3 or more`;
  if (s.box.length !== rank) return `boxDim has ${s.box.length} entries for rank ${rank}`;
  if (s.elementStrides.length !== rank) return `elementStrides has ${s.elementStrides.length} entries for rank ${rank}`;
  if (s.strides.length !== rank - 1) return `globalStrides has ${s.strides.length} entries for rank ${rank} (rank - 1 expected)`;
  const align = s.interleave === 32 ? 32 : 16;
  if (s.global.buf.space !== 'global') return `globalAddress is not global memory ('${s.global.buf.name}' is ${s.global.buf.space})`;
  if (s.global.offset % align !== 0) return `globalAddress is not ${align}-byte aligned (offset ${s.global.offset} into '${s.global.buf.name}')`;
  for (let i = 0; i < rank; i++) {
    const d = s.dims[i];
    if (!Number.isInteger(d) || d < 1 || d > 2 ** 32) return `globalDim[${i}] = ${d}: must be 1 to 2^32`;
    const b = s.box[i];
    if (!Number.isInteger(b) || b < 1 || b > 256) return `boxDim[${i}] = ${b}: must be 1 to 256`;
    const e = s.elementStrides[i];
    if (!Number.isInteger(e) || e < 1 || e > 8) return `elementStrides[${i}] = ${e}: must be 1 to 8`;
  }
  for (let i = 0; i < rank - 1; i++) {
    const st = s.strides[i];
    if (!Number.isInteger(st) || st < 0 || st >= 2 ** 40) return `globalStrides[${i}] = ${st}: must be below 2^40`;
    if (st % align !== 0) return `globalStrides[${i}] = ${st}: must be a multiple of ${align} bytes`;
  }
  // The driver documents this rule for non-interleaved maps; the H200's driver applies it to interleaved
  // maps too (test/fixtures/sim/gpu/interleave/encode-probe: u8 x8, u16 x4 and x12, f32 x2, u64 x1 refused).
  if ((s.box[0] * es) % 16 !== 0) return `boxDim[0] = ${s.box[0]}: the inner box extent (${s.box[0] * es} bytes) must be a multiple of 16 bytes`;
  if (s.interleave === 0 && s.swizzle !== 0 && s.box[0] * es > s.swizzle)
    return `boxDim[0] = ${s.box[0]}: the inner box extent (${s.box[0] * es} bytes) exceeds the ${s.swizzle}B swizzle span`;
  if (s.oobFill === 'nan' && !isFloatType(s.dtype)) return `oobFill = nan: only floating-point data types can request NaN`;
  return undefined;
}

/**
 * Bytes of one dimension-0 element in global memory: the element, or with an interleaved layout a whole
 * 16- or 32-byte slice of channels, whatever the data type (the H200 steps dimension 0 by the slice:
 * test/fixtures/sim/gpu/interleave).
 */
export function tensorMapUnitBytes(s: Pick<TensorMapSpec, 'dtype' | 'interleave'>): number {
  return s.interleave || tensorMapElementSize(s.dtype);
}

/** The largest interleaved box the H200's driver was seen to accept (encode-probe: boxDim[0] 256 of 16B slices). */
const INTERLEAVED_BOX_RECORDED = 4096;

/**
 * Why the simulator does not model this interleaved map, or undefined. The H200's driver accepted
 * interleaved boxes of up to 4096 bytes (boxDim[0] slices times every other boxDim) and refused one of
 * 8 MiB (8x256x256 u16 slices), for no documented reason; where it stops accepting them was not recorded.
 */
export function interleavedMapUnmodelled(s: TensorMapSpec): string | undefined {
  if (s.interleave === 0) return undefined;
  const bytes = s.box.reduce((a, b) => a * b, s.interleave);
  if (bytes > INTERLEAVED_BOX_RECORDED)
    return `an interleaved tensor map whose box spans ${bytes} bytes (boxDim[0] = ${s.box[0]} slices of ${s.interleave} bytes times the other boxDims): the H200's driver accepted interleaved boxes of up to ${INTERLEAVED_BOX_RECORDED} bytes and refused a larger one, and where it stops accepting them was not recorded`;
  return undefined;
}

/**
 * Writes the map's 128 bytes at `buf[offset]` (the simulator's encoding: magic, enums, the global
 * buffer's id and offset, dimensions, strides, box and element strides).
 */
export function writeTensorMap(buf: Buffer, offset: number, s: TensorMapSpec): void {
  check(buf, offset, TENSOR_MAP_BYTES);
  const v = buf.view;
  buf.bytes.fill(0, offset, offset + TENSOR_MAP_BYTES);
  v.setUint32(offset, MAGIC, true);
  v.setUint8(offset + 4, s.dims.length);
  v.setUint8(offset + 5, TENSOR_MAP_DTYPES.indexOf(s.dtype));
  v.setUint8(offset + 6, TENSOR_MAP_SWIZZLES.indexOf(s.swizzle));
  v.setUint8(offset + 7, TENSOR_MAP_INTERLEAVES.indexOf(s.interleave));
  v.setUint8(offset + 8, s.oobFill === 'nan' ? 1 : 0);
  v.setUint16(offset + 10, s.l2Promotion, true);
  v.setUint32(offset + 12, s.global.buf.id, true);
  v.setFloat64(offset + 16, s.global.offset, true);
  for (let i = 0; i < 5; i++) {
    v.setFloat64(offset + 24 + 8 * i, s.dims[i] ?? 0, true);
    if (i < 4) v.setFloat64(offset + 64 + 8 * i, s.strides[i] ?? 0, true);
    v.setUint16(offset + 96 + 2 * i, s.box[i] ?? 0, true);
    v.setUint8(offset + 106 + i, s.elementStrides[i] ?? 0);
  }
}

/**
 * Reads a map written by `writeTensorMap`; `buffers` resolves the global buffer's id. Returns a
 * string saying what is wrong when the bytes are not a tensor map (never initialised, overwritten).
 */
export function readTensorMap(buf: Buffer, offset: number, buffers: (id: number) => Buffer | undefined): TensorMapSpec | string {
  check(buf, offset, TENSOR_MAP_BYTES);
  const v = buf.view;
  if (v.getUint32(offset, true) !== MAGIC) return `the 128 bytes at offset ${offset} of '${buf.name}' are not a tensor map (never encoded, or overwritten)`;
  const rank = v.getUint8(offset + 4);
  const global = buffers(v.getUint32(offset + 12, true));
  if (!global) return `the tensor map at offset ${offset} of '${buf.name}' names a global buffer that no longer exists`;
  const dims: number[] = [];
  const strides: number[] = [];
  const box: number[] = [];
  const elementStrides: number[] = [];
  for (let i = 0; i < rank; i++) {
    dims.push(v.getFloat64(offset + 24 + 8 * i, true));
    if (i < rank - 1) strides.push(v.getFloat64(offset + 64 + 8 * i, true));
    box.push(v.getUint16(offset + 96 + 2 * i, true));
    elementStrides.push(v.getUint8(offset + 106 + i));
  }
  return {
    dtype: TENSOR_MAP_DTYPES[v.getUint8(offset + 5)] ?? 'u8',
    global: { buf: global, offset: v.getFloat64(offset + 16, true) },
    dims,
    strides,
    box,
    elementStrides,
    swizzle: TENSOR_MAP_SWIZZLES[v.getUint8(offset + 6)] ?? 0,
    interleave: TENSOR_MAP_INTERLEAVES[v.getUint8(offset + 7)] ?? 0,
    l2Promotion: v.getUint16(offset + 10, true),
    oobFill: v.getUint8(offset + 8) === 1 ? 'nan' : 'zero',
  };
}
