// Element types the simulator stores in memory (buffers, tensors, npy files) and their exact
// conversions. f16 and bf16 round to nearest even like the hardware's cvt.rn, so values computed in
// simulation match a GPU bit for bit where the operation order is the same.

export type DType =
  | 'f16'
  | 'bf16'
  | 'f32'
  | 'f64'
  | 's8'
  | 's16'
  | 's32'
  | 's64'
  | 'u8'
  | 'u16'
  | 'u32'
  | 'u64'
  | 'bool';

export const DTYPES: readonly DType[] = ['f16', 'bf16', 'f32', 'f64', 's8', 's16', 's32', 's64', 'u8', 'u16', 'u32', 'u64', 'bool'];

export function isDType(s: string): s is DType {
  return (DTYPES as readonly string[]).includes(s);
}

export function sizeOf(t: DType): number {
  switch (t) {
    case 's8':
    case 'u8':
    case 'bool':
      return 1;
    case 'f16':
    case 'bf16':
    case 's16':
    case 'u16':
      return 2;
    case 'f32':
    case 's32':
    case 'u32':
      return 4;
    default:
      return 8;
  }
}

export function isFloat(t: DType): boolean {
  return t === 'f16' || t === 'bf16' || t === 'f32' || t === 'f64';
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Float → IEEE binary16 bits, round to nearest even (NaN stays NaN, overflow becomes ±Inf). */
export function toHalfBits(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a === Infinity) return sign | 0x7c00;
  if (a >= 65520) return sign | 0x7c00; // rounds past the largest finite half (65504)
  if (a < 2 ** -24 * 0.5) return sign; // below half the smallest subnormal: ±0
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  if (e < -14) {
    // subnormal: units of 2^-24
    const m = roundEven(a / 2 ** -24);
    return sign | m; // m may reach 0x400, which is exactly the smallest normal's encoding
  }
  let m = roundEven((a / 2 ** e - 1) * 1024);
  if (m === 1024) {
    m = 0;
    e++;
  }
  if (e > 15) return sign | 0x7c00;
  return sign | ((e + 15) << 10) | m;
}

export function fromHalfBits(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

/** Float → bfloat16 bits (the top half of the f32), round to nearest even. */
export function toBf16Bits(x: number): number {
  if (Number.isNaN(x)) return 0x7fc0;
  f32[0] = x;
  const bits = u32[0];
  const lower = bits & 0xffff;
  let upper = bits >>> 16;
  if (lower > 0x8000 || (lower === 0x8000 && upper & 1)) upper++;
  return upper & 0xffff;
}

export function fromBf16Bits(b: number): number {
  u32[0] = (b & 0xffff) << 16;
  return f32[0];
}

function roundEven(v: number): number {
  const f = Math.floor(v);
  const d = v - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** Rounds a number to what type `t` can hold (wrapping integers, rounding floats). */
export function coerce(t: DType, v: number): number {
  switch (t) {
    case 'f64':
      return v;
    case 'f32':
      return Math.fround(v);
    case 'f16':
      return fromHalfBits(toHalfBits(v));
    case 'bf16':
      return fromBf16Bits(toBf16Bits(v));
    case 's8':
      return (v << 24) >> 24;
    case 'u8':
      return v & 0xff;
    case 's16':
      return (v << 16) >> 16;
    case 'u16':
      return v & 0xffff;
    case 's32':
      return v | 0;
    case 'u32':
      return v >>> 0;
    case 'bool':
      return v ? 1 : 0;
    case 's64':
    case 'u64':
      return Math.trunc(v);
  }
}

/** Reads one element. 64-bit integers beyond 2^53 cannot be held exactly and are reported by the caller. */
export function load(dv: DataView, off: number, t: DType): number {
  switch (t) {
    case 'f16':
      return fromHalfBits(dv.getUint16(off, true));
    case 'bf16':
      return fromBf16Bits(dv.getUint16(off, true));
    case 'f32':
      return dv.getFloat32(off, true);
    case 'f64':
      return dv.getFloat64(off, true);
    case 's8':
      return dv.getInt8(off);
    case 'u8':
    case 'bool':
      return dv.getUint8(off);
    case 's16':
      return dv.getInt16(off, true);
    case 'u16':
      return dv.getUint16(off, true);
    case 's32':
      return dv.getInt32(off, true);
    case 'u32':
      return dv.getUint32(off, true);
    case 's64':
      return Number(dv.getBigInt64(off, true));
    case 'u64':
      return Number(dv.getBigUint64(off, true));
  }
}

export function store(dv: DataView, off: number, t: DType, v: number): void {
  switch (t) {
    case 'f16':
      dv.setUint16(off, toHalfBits(v), true);
      return;
    case 'bf16':
      dv.setUint16(off, toBf16Bits(v), true);
      return;
    case 'f32':
      dv.setFloat32(off, v, true);
      return;
    case 'f64':
      dv.setFloat64(off, v, true);
      return;
    case 's8':
    case 'u8':
    case 'bool':
      dv.setUint8(off, v & 0xff);
      return;
    case 's16':
    case 'u16':
      dv.setUint16(off, v & 0xffff, true);
      return;
    case 's32':
    case 'u32':
      dv.setUint32(off, v >>> 0, true);
      return;
    case 's64':
      dv.setBigInt64(off, BigInt(Math.trunc(v)), true);
      return;
    case 'u64':
      dv.setBigUint64(off, BigInt.asUintN(64, BigInt(Math.trunc(v))), true);
      return;
  }
}
