// Hopper's warpgroup MMA (`wgmma.mma_async`, sm_90a) as the PTX ISA defines it, without any source
// language: the shapes and type combinations the ISA allows, the 64-bit shared-memory matrix
// descriptor, the canonical K-major and MN-major layouts with their swizzles (the address the
// hardware reads element (mn, k) from), the register fragments of A and of the accumulator for each
// of the 128 threads of a warpgroup, operand decoding (f16, bf16, tf32, e4m3, e5m2, s8, u8) and the
// accumulation, including how an H200 rounds f32 sums (measured: see `accumulateF32`).
// Checked against an H200: test/fixtures/sim/gpu/wgmma/.
import { fromBf16Bits, fromHalfBits } from './dtypes';

export type WgmmaInput = 'f16' | 'bf16' | 'tf32' | 'e4m3' | 'e5m2' | 's8' | 'u8';
export type WgmmaAccumulator = 'f32' | 'f16' | 's32';
export type Swizzle = 'none' | '128B' | '64B' | '32B';

/** `m64nNkK.dtype.atype.btype` of one wgmma.mma_async. */
export interface WgmmaShape {
  n: number;
  k: number;
  d: WgmmaAccumulator;
  a: WgmmaInput;
  b: WgmmaInput;
}

/** Bytes per element of an input type. */
export const INPUT_BYTES: Readonly<Record<WgmmaInput, number>> = { f16: 2, bf16: 2, tf32: 4, e4m3: 1, e5m2: 1, s8: 1, u8: 1 };

/** K of one instruction: 32 bytes of each row of A and B. */
export const K_OF: Readonly<Record<WgmmaInput, number>> = { f16: 16, bf16: 16, tf32: 8, e4m3: 32, e5m2: 32, s8: 32, u8: 32 };

const isFp8 = (t: WgmmaInput) => t === 'e4m3' || t === 'e5m2';
const isInt8 = (t: WgmmaInput) => t === 's8' || t === 'u8';

/**
 * Why the ISA rejects `shape`, or undefined when it is valid: the type combinations of the wgmma
 * table (f16 with f16/f32 accumulators, bf16 and tf32 with f32, e4m3/e5m2 in any pairing with f16/f32,
 * s8/u8 in any pairing with s32), K per type, N a multiple of 8 in 8..256 (for integer types 8, 16,
 * 24 and multiples of 16 up to 256).
 */
export function shapeError(s: WgmmaShape): string | undefined {
  const { a, b, d, n, k } = s;
  const ok =
    (a === 'f16' && b === 'f16' && (d === 'f16' || d === 'f32')) ||
    (a === 'bf16' && b === 'bf16' && d === 'f32') ||
    (a === 'tf32' && b === 'tf32' && d === 'f32') ||
    (isFp8(a) && isFp8(b) && (d === 'f16' || d === 'f32')) ||
    (isInt8(a) && isInt8(b) && d === 's32');
  if (!ok) return `.${d}.${a}.${b} is not a wgmma type combination`;
  if (k !== K_OF[a]) return `K must be ${K_OF[a]} for .${a} (m64n${n}k${k})`;
  if (!Number.isInteger(n) || n < 8 || n > 256 || n % 8 !== 0) return `N = ${n} is not a multiple of 8 in 8..256`;
  if (isInt8(a) && n > 24 && n % 16 !== 0) return `N = ${n}: integer wgmma takes N = 8, 16, 24 or a multiple of 16`;
  return undefined;
}

/** Whether the ISA lets this input type be transposed (imm-trans-a/b: f16 and bf16 only). */
export const canTranspose = (t: WgmmaInput): boolean => t === 'f16' || t === 'bf16';

// ------------------------------------------------------------------ the matrix descriptor

/** The 64-bit shared-memory matrix descriptor, decoded (byte values). */
export interface MatrixDescriptor {
  /** Bits 0-13: start address >> 4. */
  start: number;
  /** Bits 16-29: leading dimension byte offset >> 4. */
  lbo: number;
  /** Bits 32-45: stride dimension byte offset >> 4. */
  sbo: number;
  /** Bits 49-51: matrix base offset. */
  baseOffset: number;
  /** Bits 62-63: 0 none, 1 128B, 2 64B, 3 32B. */
  swizzle: Swizzle;
}

const SWIZZLES: readonly Swizzle[] = ['none', '128B', '64B', '32B'];

export function decodeDescriptor(desc: number | bigint): MatrixDescriptor {
  const d = BigInt.asUintN(64, typeof desc === 'bigint' ? desc : BigInt(desc));
  const lo = Number(d & 0xffffffffn);
  const hi = Number(d >> 32n);
  return { start: (lo & 0x3fff) << 4, lbo: ((lo >>> 16) & 0x3fff) << 4, sbo: (hi & 0x3fff) << 4, baseOffset: (hi >>> 17) & 7, swizzle: SWIZZLES[(hi >>> 30) & 3] };
}

/**
 * The sm_100 (tcgen05, UMMA) shared-memory descriptor: the same start/LBO/SBO fields and canonical
 * layouts as wgmma's, a version in bits 46-47, base offset 49-51, the LBO mode in bit 52 and a 3-bit
 * layout in 61-63 (0 none, 2 128B, 4 64B, 6 32B; 1 is 128B with 32-byte atoms). Refuses what it does
 * not model, saying which field.
 */
export function decodeUmmaDescriptor(desc: number | bigint): MatrixDescriptor {
  const d = BigInt.asUintN(64, typeof desc === 'bigint' ? desc : BigInt(desc));
  const lo = Number(d & 0xffffffffn);
  const hi = Number(d >> 32n);
  const layout = (hi >>> 29) & 7;
  const swizzle = UMMA_SWIZZLES[layout];
  if (!swizzle) throw new Error(`layout type ${layout}${layout === 1 ? ' (128B swizzle with 32-byte atoms)' : ''} is not modelled`);
  if ((hi >>> 20) & 1) throw new Error('the leading-byte-offset mode bit (52) is not modelled');
  return { start: (lo & 0x3fff) << 4, lbo: ((lo >>> 16) & 0x3fff) << 4, sbo: (hi & 0x3fff) << 4, baseOffset: (hi >>> 17) & 7, swizzle };
}

const UMMA_SWIZZLES: Readonly<Record<number, Swizzle>> = { 0: 'none', 2: '128B', 4: '64B', 6: '32B' };

/** Swizzle width in 16-byte units (1 for none). */
const widthOf = (s: Swizzle): number => (s === '128B' ? 8 : s === '64B' ? 4 : s === '32B' ? 2 : 1);

/**
 * The swizzle applied to a shared-memory byte address: bits [4, 4 + log2 W) XOR bits [7, 7 + log2 W)
 * (CUTLASS's Swizzle<1..3, 4, 3>), on the address itself, so a tile's pattern follows its alignment.
 */
export function swizzleAddress(addr: number, s: Swizzle): number {
  const w = widthOf(s);
  return w === 1 ? addr : addr ^ (((addr >>> 7) & (w - 1)) << 4);
}

/**
 * The shared-memory byte address of element (mn, k) of an operand (mn: row of A or column of B; k:
 * within the instruction's K), in the ISA's canonical layouts (CUTLASS make_gmma_desc), for T = 16
 * bytes of elements:
 *   K-major, no swizzle:  ((8, m), (T, 2k)) : ((1T, SBO), (1, LBO))
 *   K-major, swizzled W:  ((8, m), (T, 2k)) : ((W T, SBO), (1, T))
 *   MN-major, no swizzle: ((T, 1, m), (8, k)) : ((1, T, SBO), (1T, LBO))
 *   MN-major, swizzled W: ((T, W, m), (8, k)) : ((1, T, LBO), (W T, SBO))
 */
export function elementAddress(d: MatrixDescriptor, kMajor: boolean, bytes: number, mn: number, k: number): number {
  const w = widthOf(d.swizzle);
  let off: number;
  if (kMajor) {
    const kb = k * bytes;
    off = w === 1 ? (mn & 7) * 16 + (mn >> 3) * d.sbo + (kb >> 4) * d.lbo + (kb & 15) : (mn & 7) * 16 * w + (mn >> 3) * d.sbo + kb;
  } else {
    const mb = mn * bytes;
    const chunk = mb >> 4;
    off = w === 1 ? chunk * d.sbo + (k & 7) * 16 + (k >> 3) * d.lbo + (mb & 15) : (chunk % w) * 16 + Math.floor(chunk / w) * d.lbo + (k & 7) * 16 * w + (k >> 3) * d.sbo + (mb & 15);
  }
  return swizzleAddress(d.start + off, d.swizzle);
}

// ------------------------------------------------------------------ register fragments

/**
 * Row and column of element `i` (0 .. N/2 - 1) of the accumulator fragment of thread `tid` (0..127)
 * of the warpgroup: warp w owns rows 16w..16w+15; lane 4g + t holds row 16w + g + 8 ((i >> 1) & 1),
 * column 8 (i >> 2) + 2t + (i & 1). f32/s32 accumulators hold element i in register i, f16 ones two
 * per register (element 2j in the low half of register j).
 */
export function accumulatorCell(tid: number, i: number): [number, number] {
  const g = (tid & 31) >> 2;
  return [16 * (tid >> 5) + g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * (tid & 3) + (i & 1)];
}

/** Elements of A per register: 2 for 16-bit types, 1 for tf32, 4 for 8-bit types. */
export const perRegister = (t: WgmmaInput): number => 4 / INPUT_BYTES[t];

/**
 * Row and k of element `e` of thread `tid`'s A fragment in registers (4 registers; element e is in
 * register e / perRegister, at byte/half (e % perRegister) from the low end): lane 4g + t, register r
 * covers row 16w + g + 8 (r & 1) and k from (r >> 1) * K/2 + t * perRegister.
 */
export function aFragmentCell(t: WgmmaInput, tid: number, e: number): [number, number] {
  const per = perRegister(t);
  const r = Math.floor(e / per);
  const g = (tid & 31) >> 2;
  return [16 * (tid >> 5) + g + 8 * (r & 1), (r >> 1) * (K_OF[t] / 2) + (tid & 3) * per + (e % per)];
}

// ------------------------------------------------------------------ values

const f32View = new DataView(new ArrayBuffer(4));

function fp8(bits: number, expBits: number, bias: number, ieee: boolean): number {
  const manBits = 7 - expBits;
  const sign = bits & 0x80 ? -1 : 1;
  const e = (bits >> manBits) & ((1 << expBits) - 1);
  const m = bits & ((1 << manBits) - 1);
  if (ieee && e === (1 << expBits) - 1) return m ? NaN : sign * Infinity;
  if (!ieee && e === (1 << expBits) - 1 && m === (1 << manBits) - 1) return NaN; // e4m3 has no infinity
  return e === 0 ? sign * m * 2 ** (1 - bias - manBits) : sign * (1 + m / (1 << manBits)) * 2 ** (e - bias);
}

/** The value an operand element's bits (the low 8/16/32 bits of `bits`) stand for. */
export function decodeInput(t: WgmmaInput, bits: number): number {
  switch (t) {
    case 'f16':
      return fromHalfBits(bits & 0xffff);
    case 'bf16':
      return fromBf16Bits(bits & 0xffff);
    case 'tf32':
      // tf32 keeps 10 mantissa bits: the low 13 bits of the f32 pattern are ignored.
      f32View.setUint32(0, (bits & 0xffffe000) >>> 0);
      return f32View.getFloat32(0);
    case 'e4m3':
      return fp8(bits & 0xff, 4, 7, false);
    case 'e5m2':
      return fp8(bits & 0xff, 5, 15, true);
    case 's8':
      return ((bits & 0xff) << 24) >> 24;
    case 'u8':
      return bits & 0xff;
  }
}

const f64 = new Float64Array(1);
const f64Words = new Uint32Array(f64.buffer);

/**
 * Exponent of a finite non-zero value (2^e <= |x| < 2^(e+1)), from its double's exponent field: every
 * operand value (f16 subnormals included) and product is a normal double.
 */
export function exponentOf(x: number): number {
  f64[0] = x;
  return ((f64Words[1] >>> 20) & 0x7ff) - 1023;
}

/** Rounds toward zero to f32. */
function f32TowardZero(x: number): number {
  const r = Math.fround(x);
  if (Math.abs(r) <= Math.abs(x) || !Number.isFinite(x)) return r;
  f32View.setFloat32(0, r);
  f32View.setUint32(0, f32View.getUint32(0) - 1);
  return f32View.getFloat32(0);
}

/** Bits of alignment the adder keeps below the largest term's exponent (measured: see accumulateF32). */
const ALIGN_BITS = 25;

/**
 * One instruction's f32 accumulation, as an H200 does it for f16 inputs (fitted bit-exactly to 4,096
 * random m64n64k16 results chained over four k-steps, wgmma_f16_random_n64): the accumulator and the
 * K products (each exact) are aligned to the largest exponent among them, a product's exponent being
 * the sum of its factors' exponents (its significand may be in [2, 4)); every term is truncated toward
 * zero to a multiple of 2^(emax - 25); the truncated terms are summed exactly and the sum is rounded
 * toward zero to f32. Other input types use the same adder (their GPU fixtures use exact integers, so
 * they do not distinguish it). Infinities and NaNs propagate as IEEE sums. `aExp`/`bExp`: the
 * factors' exponents (exponentOf), when the caller has them already.
 */
export function accumulateF32(acc: number | undefined, a: ArrayLike<number>, b: ArrayLike<number>, aExp?: ArrayLike<number>, bExp?: ArrayLike<number>): number {
  let emax = -Infinity;
  let special = acc !== undefined && !Number.isFinite(acc);
  if (acc !== undefined && acc !== 0 && Number.isFinite(acc)) emax = exponentOf(acc);
  for (let k = 0; k < a.length; k++) {
    const x = a[k];
    const y = b[k];
    if (!Number.isFinite(x) || !Number.isFinite(y)) special = true;
    else if (x !== 0 && y !== 0) {
      const e = (aExp ? aExp[k] : exponentOf(x)) + (bExp ? bExp[k] : exponentOf(y));
      if (e > emax) emax = e;
    }
  }
  if (special) {
    let s = acc ?? 0;
    for (let k = 0; k < a.length; k++) s += a[k] * b[k];
    return Math.fround(s);
  }
  if (emax === -Infinity) return acc ?? 0;
  const q = 2 ** (emax - ALIGN_BITS);
  const cut = (v: number) => (v < 0 ? -Math.floor(-v / q) * q : Math.floor(v / q) * q);
  let s = acc !== undefined ? cut(acc) : 0;
  for (let k = 0; k < a.length; k++) s += cut(a[k] * b[k]);
  return f32TowardZero(s);
}

/** s32 accumulation: exact, wrapping to 32 bits (`.satfinite` clamps instead). */
export function accumulateS32(acc: number | undefined, a: ArrayLike<number>, b: ArrayLike<number>, satfinite: boolean): number {
  let s = acc ?? 0;
  for (let k = 0; k < a.length; k++) s += a[k] * b[k];
  if (satfinite) return Math.max(-2147483648, Math.min(2147483647, s));
  return Number(BigInt.asIntN(32, BigInt(s)));
}
