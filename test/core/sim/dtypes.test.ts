// Element types: f16/bf16 round-to-nearest-even checked against bit patterns a real H100 produced
// (__float2half_rn / __float2bfloat16_rn / __double2half / __double2bfloat16), integer wrap-around,
// and load/store round trips.
import { describe, expect, it } from 'vitest';
import { coerce, DTYPES, fromBf16Bits, fromHalfBits, isDType, load, sizeOf, store, toBf16Bits, toHalfBits } from '../../../core/sim/dtypes';

/** [input, f16 bits, bf16 bits] from doubles, measured on an H100 (the NaN rows use the f32 conversion). */
const GPU: [number, number, number][] = [
  [65504, 0x7bff, 0x4780],
  [65519, 0x7bff, 0x4780],
  [65520, 0x7c00, 0x4780],
  [1e-8, 0x0000, 0x322c],
  [2 ** -25, 0x0000, 0x3300],
  [1.0001 * 2 ** -25, 0x0001, 0x3300],
  [1 + 2 ** -11, 0x3c00, 0x3f80],
  [1 + 3 * 2 ** -11, 0x3c02, 0x3f80],
  [-0, 0x8000, 0x8000],
  [Infinity, 0x7c00, 0x7f80],
  [1 + 2 ** -8 + 2 ** -30, 0x3c04, 0x3f81],
  [1 + 2 ** -11 + 2 ** -40, 0x3c01, 0x3f80],
  [3.0e38, 0x7c00, 0x7f62],
  [3.4e38, 0x7c00, 0x7f80],
  [2 ** -133, 0x0000, 0x0001],
  [2 ** -134, 0x0000, 0x0000],
  [1.5 * 2 ** -134, 0x0000, 0x0001],
  [1 + 2 ** -8, 0x3c04, 0x3f80],
  [1 + 3 * 2 ** -8, 0x3c0c, 0x3f82],
];

/** The conversion as it was written first (the exponent from log2, the mantissa by division): the reference for the bit-level fast path. */
function referenceBits(x: number, expBits: number): number {
  const manBits = 15 - expBits;
  const bias = (1 << (expBits - 1)) - 1;
  const expMask = ((1 << expBits) - 1) << manBits;
  const roundEven = (v: number) => {
    const f = Math.floor(v);
    const d = v - f;
    return d > 0.5 ? f + 1 : d < 0.5 ? f : f % 2 === 0 ? f : f + 1;
  };
  if (Number.isNaN(x)) return 0x7fff;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a === 0) return sign;
  if (a === Infinity) return sign | expMask;
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  const emin = 1 - bias;
  if (e < emin) return sign | roundEven(a / 2 ** (emin - manBits));
  let m = roundEven((a / 2 ** e - 1) * (1 << manBits));
  if (m === 1 << manBits) {
    m = 0;
    e++;
  }
  if (e > bias) return sign | expMask;
  return sign | ((e + bias) << manBits) | m;
}

describe('f16 and bf16 conversion from the double\'s bits', () => {
  it('gives the reference bits for every value, its neighbours and the midpoints between values, and random doubles', () => {
    const f64 = new Float64Array(1);
    const bits = new BigUint64Array(f64.buffer);
    /** The next double above / below (by one unit in the last place). */
    const step = (x: number, d: 1n | -1n) => {
      f64[0] = x;
      bits[0] += x >= 0 ? d : -d;
      return f64[0];
    };
    let compared = 0;
    const check = (x: number) => {
      expect(toHalfBits(x), `f16 ${x}`).toBe(referenceBits(x, 5));
      expect(toBf16Bits(x), `bf16 ${x}`).toBe(referenceBits(x, 8));
      compared++;
    };
    const from = [fromHalfBits, fromBf16Bits];
    for (const value of from) {
      for (let h = 0; h < 0x10000; h++) {
        const v = value(h);
        const next = value(h + 1);
        if (!Number.isFinite(v)) continue;
        check(v);
        check(step(v, 1n));
        check(step(v, -1n));
        if (Number.isFinite(next) && Math.sign(next) === Math.sign(v) && (h & 0x7fff) !== 0x7fff) {
          const mid = (v + next) / 2; // exact in a double
          check(mid);
          check(step(mid, 1n));
          check(step(mid, -1n));
        }
      }
    }
    // Random doubles over the range either format reaches, every mantissa bit random.
    let seed = 12345;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
    for (let i = 0; i < 200_000; i++) {
      const e = Math.floor(rnd() * 300) - 150;
      f64[0] = (rnd() < 0.5 ? -1 : 1) * 2 ** e;
      bits[0] |= (BigInt(Math.floor(rnd() * 2 ** 20)) << 32n) | BigInt(Math.floor(rnd() * 2 ** 32));
      check(f64[0]);
    }
    for (const x of [0, -0, Infinity, -Infinity, NaN, 5e-324, -5e-324, Number.MAX_VALUE, -Number.MAX_VALUE, 65504, 65519.99, 65520, 2 ** -14, 2 ** -24, 3.4e38]) check(x);
    expect(compared).toBeGreaterThan(500_000);
  });
});

describe('f16 and bf16', () => {
  it('round to nearest even exactly as the GPU does', () => {
    for (const [x, h, b] of GPU) {
      expect(toHalfBits(x), `f16 of ${x}`).toBe(h);
      expect(toBf16Bits(x), `bf16 of ${x}`).toBe(b);
    }
  });

  it('encode the landmarks: 1, the largest finite, the smallest subnormal, overflow, negatives', () => {
    expect(toHalfBits(1)).toBe(0x3c00);
    expect(fromHalfBits(0x7bff)).toBe(65504);
    expect(fromHalfBits(0x0001)).toBe(2 ** -24);
    expect(fromHalfBits(0x0400)).toBe(2 ** -14);
    expect(toHalfBits(2 ** -24)).toBe(0x0001);
    expect(toHalfBits(2 ** -14 - 2 ** -25)).toBe(0x0400); // rounds up into the smallest normal
    expect(toHalfBits(1e6)).toBe(0x7c00);
    expect(toHalfBits(-1e6)).toBe(0xfc00);
    expect(toHalfBits(-2)).toBe(0xc000);
    expect(toBf16Bits(1)).toBe(0x3f80);
    expect(fromBf16Bits(0x7f7f)).toBe(3.3895313892515355e38);
    expect(toBf16Bits(-1.5)).toBe(0xbfc0);
  });

  it('write NaN as the canonical 0x7fff (cvt from f32) and read any NaN pattern as NaN', () => {
    expect(toHalfBits(NaN)).toBe(0x7fff);
    expect(toBf16Bits(NaN)).toBe(0x7fff);
    expect(fromHalfBits(0x7e00)).toBeNaN();
    expect(fromBf16Bits(0xffc0)).toBeNaN();
    expect(fromHalfBits(0x7c00)).toBe(Infinity);
  });

  it('round-trips every finite half exactly', () => {
    const wrong: string[] = [];
    for (let h = 0; h < 0x10000; h++) {
      if ((h & 0x7c00) === 0x7c00) continue;
      if (toHalfBits(fromHalfBits(h)) !== h) wrong.push(h.toString(16));
    }
    expect(wrong).toEqual([]);
  });
});

describe('coerce', () => {
  it('wraps integers like C conversions to the narrower type', () => {
    expect(coerce('u8', 300)).toBe(44);
    expect(coerce('s8', 200)).toBe(-56);
    expect(coerce('s16', 40000)).toBe(-25536);
    expect(coerce('u16', -1)).toBe(65535);
    expect(coerce('s32', 2 ** 31)).toBe(-(2 ** 31));
    expect(coerce('u32', -1)).toBe(4294967295);
    expect(coerce('s32', -3.7)).toBe(-3);
    expect(coerce('s64', 2 ** 63)).toBe(-(2 ** 63));
    expect(coerce('u64', -1)).toBe(2 ** 64);
    expect(coerce('s64', NaN)).toBe(0);
    expect(coerce('u64', Infinity)).toBe(0);
  });

  it('rounds floats and maps to bool as C does', () => {
    expect(coerce('f32', 0.1)).toBe(Math.fround(0.1));
    expect(coerce('f16', 0.1)).toBe(fromHalfBits(0x2e66));
    expect(coerce('bf16', 0.1)).toBe(fromBf16Bits(0x3dcd));
    expect(coerce('f64', 0.1)).toBe(0.1);
    expect(coerce('bool', 0)).toBe(0);
    expect(coerce('bool', -0)).toBe(0);
    expect(coerce('bool', 2)).toBe(1);
    expect(coerce('bool', NaN)).toBe(1);
  });
});

describe('load and store', () => {
  it('round-trip every type at an offset, little-endian', () => {
    const dv = new DataView(new ArrayBuffer(64));
    const samples: Record<string, number> = { f16: -2.5, bf16: 3.5, f32: 1.25, f64: Math.PI, s8: -7, s16: -300, s32: -70000, s64: -(2 ** 40), u8: 250, u16: 65000, u32: 4e9, u64: 2 ** 50, bool: 1 };
    for (const t of DTYPES) {
      store(dv, 8, t, samples[t]);
      expect(load(dv, 8, t), t).toBe(samples[t]);
    }
    store(dv, 0, 'u32', 0x01020304);
    expect([dv.getUint8(0), dv.getUint8(3)]).toEqual([4, 1]);
  });

  it('never throws on values C leaves undefined', () => {
    const dv = new DataView(new ArrayBuffer(8));
    expect(() => store(dv, 0, 's64', NaN)).not.toThrow();
    expect(() => store(dv, 0, 'u64', -Infinity)).not.toThrow();
    store(dv, 0, 'bool', 5);
    expect(load(dv, 0, 'bool')).toBe(1);
  });

  it('knows sizes and names', () => {
    expect(DTYPES.map(sizeOf)).toEqual([2, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 1]);
    expect(isDType('bf16')).toBe(true);
    expect(isDType('float')).toBe(false);
  });
});

describe('64-bit integers without BigInt where the value is a safe integer', () => {
  // The definition: truncate, wrap to 64 bits through BigInt (non-finite values are 0).
  const big = (v: number) => (Number.isFinite(v) ? BigInt(Math.trunc(v)) : 0n);
  const values = [0, -0, 0.5, -0.5, 1.9, -1.9, 1, -1, 2 ** 31, -(2 ** 31), 2 ** 32, -(2 ** 32), 2 ** 32 + 5, -(2 ** 32) - 5, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 2 ** 60, -(2 ** 63), 2 ** 64 + 2 ** 12, 1e20, -1e20, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];

  it('coerce gives what the BigInt wrap gives (and 0, not -0)', () => {
    for (const v of values) {
      expect(Object.is(coerce('s64', v), Number(BigInt.asIntN(64, big(v)))), `s64 ${v}`).toBe(true);
      expect(Object.is(coerce('u64', v), Number(BigInt.asUintN(64, big(v)))), `u64 ${v}`).toBe(true);
    }
  });

  it('store writes the bytes setBigInt64 / setBigUint64 write', () => {
    for (const t of ['s64', 'u64'] as const)
      for (const v of values) {
        const got = new DataView(new ArrayBuffer(8));
        const want = new DataView(new ArrayBuffer(8));
        store(got, 0, t, v);
        if (t === 's64') want.setBigInt64(0, BigInt.asIntN(64, big(v)), true);
        else want.setBigUint64(0, BigInt.asUintN(64, big(v)), true);
        expect(got.getBigUint64(0, true), `${t} ${v}`).toBe(want.getBigUint64(0, true));
      }
  });
});
