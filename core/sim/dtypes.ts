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

/**
 * NaN as the GPU's float→half / float→bfloat16 conversion writes it (cvt.rn from f32 gives the
 * canonical NaN 0x7fff for both, whatever the sign; measured on an H100).
 */
const CANONICAL_NAN16 = 0x7fff;

const f64 = new Float64Array(1);
const w32 = new Uint32Array(f64.buffer);
/** The double's high and low 32-bit words in `w32` (the host's byte order). */
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const LO = 1 - HI;

/**
 * A float rounded to nearest even into a 16-bit format with `expBits` exponent bits (IEEE half:
 * 5, bfloat16: 8), straight from the double so there is no double rounding through f32.
 */
function toFloat16Bits(x: number, expBits: number): number {
  const manBits = 15 - expBits;
  const bias = (1 << (expBits - 1)) - 1;
  const expMask = ((1 << expBits) - 1) << manBits;
  if (Number.isNaN(x)) return CANONICAL_NAN16;
  // A normal result straight from the double's bits (kernels store halves by the million): the exponent,
  // the kept mantissa bits, and round to nearest even on the bits below them.
  f64[0] = x;
  const hi = w32[HI];
  const e = ((hi >>> 20) & 0x7ff) - 1023;
  if (e >= 1 - bias && e <= bias) {
    const shift = 20 - manBits;
    const halfway = 1 << (shift - 1);
    const rest = hi & ((1 << shift) - 1);
    let m = (hi & 0xfffff) >>> shift;
    let be = e + bias;
    if (rest > halfway || (rest === halfway && (w32[LO] !== 0 || (m & 1) === 1))) {
      m++;
      if (m === 1 << manBits) {
        m = 0;
        be++;
      }
    }
    const sign = (hi >>> 16) & 0x8000;
    return be > 2 * bias ? sign | expMask : sign | (be << manBits) | m;
  }
  return toFloat16BitsSlow(x, expBits);
}

/** The general conversion: zero, subnormal results, overflow and infinities. */
function toFloat16BitsSlow(x: number, expBits: number): number {
  const manBits = 15 - expBits;
  const bias = (1 << (expBits - 1)) - 1;
  const expMask = ((1 << expBits) - 1) << manBits;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a === 0) return sign;
  if (a === Infinity) return sign | expMask;
  let e = Math.floor(Math.log2(a));
  // log2 can be off by one near powers of two; fix e so that 2^e <= a < 2^(e+1).
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  const emin = 1 - bias;
  if (e < emin) {
    // Subnormal: units of 2^(emin - manBits). A result of 1 << manBits is exactly the smallest normal.
    return sign | roundEven(a / 2 ** (emin - manBits));
  }
  let m = roundEven((a / 2 ** e - 1) * (1 << manBits));
  if (m === 1 << manBits) {
    m = 0;
    e++;
  }
  if (e > bias) return sign | expMask; // past the largest finite value: ±Inf
  return sign | ((e + bias) << manBits) | m;
}

/** Float → IEEE binary16 bits, round to nearest even (NaN → 0x7fff, overflow → ±Inf, subnormals kept). */
export function toHalfBits(x: number): number {
  return toFloat16Bits(x, 5);
}

export function fromHalfBits(h: number): number {
  return halfValueTable()[h & 0xffff];
}

/** Every f16 bit pattern's value (512 KiB, made on first use): WGMMA, TMA and Croqtile MMAs read f16 operands by the million. */
let halfValues: Float64Array | undefined;

export function halfValueTable(): Float64Array {
  return (halfValues ??= makeHalfTable());
}

function makeHalfTable(): Float64Array {
  const t = new Float64Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const e = (h >> 10) & 0x1f;
    const m = h & 0x3ff;
    t[h] = e === 0 ? sign * m * 2 ** -24 : e === 31 ? (m ? NaN : sign * Infinity) : sign * (1 + m / 1024) * 2 ** (e - 15);
  }
  return t;
}

/** Float → bfloat16 bits (the top half of an f32), round to nearest even (NaN → 0x7fff). */
export function toBf16Bits(x: number): number {
  return toFloat16Bits(x, 8);
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
      // C: any non-zero value (NaN included) is true.
      return v === 0 ? 0 : 1;
    case 's64': {
      // A safe integer is its own 64-bit value (`+ 0`: -0 is 0); only larger ones wrap through BigInt.
      const i = Math.trunc(v);
      return Number.isSafeInteger(i) ? i + 0 : Number(BigInt.asIntN(64, toBigInt(v)));
    }
    case 'u64': {
      const i = Math.trunc(v);
      return Number.isSafeInteger(i) && i >= 0 ? i + 0 : Number(BigInt.asUintN(64, toBigInt(v)));
    }
  }
}

/**
 * Stores a safe integer as 64-bit two's complement through two 32-bit halves (exact: |i| < 2^53), so
 * the common case of 64-bit stores needs no BigInt.
 */
function setInt64(dv: DataView, off: number, i: number): void {
  const hi = Math.floor(i / 4294967296);
  dv.setUint32(off, i - hi * 4294967296, true);
  dv.setInt32(off + 4, hi, true);
}

/** Truncates toward zero; NaN and ±Inf (undefined in C) become 0 rather than a BigInt exception. */
function toBigInt(v: number): bigint {
  return Number.isFinite(v) ? BigInt(Math.trunc(v)) : 0n;
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
      dv.setUint8(off, v & 0xff);
      return;
    case 'bool':
      dv.setUint8(off, v === 0 ? 0 : 1);
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
    case 'u64': {
      const i = Math.trunc(v);
      if (Number.isSafeInteger(i)) setInt64(dv, off, i);
      else if (t === 's64') dv.setBigInt64(off, BigInt.asIntN(64, toBigInt(v)), true);
      else dv.setBigUint64(off, BigInt.asUintN(64, toBigInt(v)), true);
      return;
    }
  }
}
