// The language-free wgmma and ldmatrix math (core/sim/wgmma.ts, core/sim/ldmatrix.ts): descriptor
// fields, the canonical layouts' addresses and swizzles, the ISA's shape rules, the register fragments
// (every element owned by exactly one thread and register), fp8/tf32 decoding and the H200's adder.
// The GPU-recorded kernels of test/fixtures/sim/gpu/wgmma/ check the same math end to end.
import { describe, expect, it } from 'vitest';
import { elementHolder, fragmentElement } from '../../../core/sim/ldmatrix';
import { accumulateF32, accumulateS32, accumulatorCell, aFragmentCell, decodeDescriptor, decodeInput, elementAddress, K_OF, type MatrixDescriptor, perRegister, shapeError, swizzleAddress, type WgmmaInput } from '../../../core/sim/wgmma';

describe('the shared-memory matrix descriptor', () => {
  it('decodes start >> 4, LBO >> 4, SBO >> 4, base offset and the swizzle from their bit fields, as a bigint or a number', () => {
    const desc = (1n << 62n) | (5n << 49n) | (64n << 32n) | (1n << 16n) | 0x2345n;
    expect(decodeDescriptor(desc)).toEqual({ start: 0x2345 << 4, lbo: 16, sbo: 1024, baseOffset: 5, swizzle: '128B' });
    expect(decodeDescriptor((3n << 62n) | 7n).swizzle).toBe('32B');
    expect(decodeDescriptor((2n << 62n) | 7n).swizzle).toBe('64B');
    expect(decodeDescriptor(Number((32n << 32n) | (8n << 16n) | 0x40n))).toEqual({ start: 0x400, lbo: 128, sbo: 512, baseOffset: 0, swizzle: 'none' });
  });

  it('swizzles address bits [4, 4 + log2 W) with bits [7, 7 + log2 W) of the address itself', () => {
    expect(swizzleAddress(0x1000 + 3 * 128 + 16, '128B')).toBe(0x1000 + 3 * 128 + (16 ^ (3 << 4)));
    expect(swizzleAddress(0x1000 + 5 * 128, '64B')).toBe(0x1000 + 5 * 128 + ((5 & 3) << 4));
    expect(swizzleAddress(0x1000 + 3 * 128 + 16, '32B')).toBe(0x1000 + 3 * 128 + (16 ^ 16));
    expect(swizzleAddress(0x1234, 'none')).toBe(0x1234);
  });

  const desc = (swizzle: MatrixDescriptor['swizzle'], lbo: number, sbo: number): MatrixDescriptor => ({ start: 0x2000, lbo, sbo, baseOffset: 0, swizzle });

  it('lays K-major operands out in 8-row core matrices: rows 16 bytes apart without swizzle (K chunks at LBO), a swizzle row wide with one', () => {
    const none = desc('none', 128, 512);
    expect(elementAddress(none, true, 2, 0, 0)).toBe(0x2000);
    expect(elementAddress(none, true, 2, 1, 0)).toBe(0x2000 + 16);
    expect(elementAddress(none, true, 2, 0, 8)).toBe(0x2000 + 128);
    expect(elementAddress(none, true, 2, 9, 3)).toBe(0x2000 + 512 + 16 + 6);
    const sw = desc('128B', 16, 1024);
    // Row 1, k 8 (byte 16): 128 + 16, whose chunk bits 4-6 are XORed with row bits 7-9 (= 1).
    expect(elementAddress(sw, true, 2, 1, 8)).toBe(0x2000 + 128 + (16 ^ 16));
    expect(elementAddress(sw, true, 2, 10, 0)).toBe(0x2000 + 1024 + 2 * 128 + (2 << 4));
  });

  it('lays MN-major operands out with MN contiguous: SBO between 8-element chunks without swizzle, LBO between swizzle atoms with one', () => {
    const none = desc('none', 1024, 128);
    expect(elementAddress(none, false, 2, 1, 0)).toBe(0x2000 + 2);
    expect(elementAddress(none, false, 2, 8, 0)).toBe(0x2000 + 128);
    expect(elementAddress(none, false, 2, 0, 1)).toBe(0x2000 + 16);
    expect(elementAddress(none, false, 2, 0, 8)).toBe(0x2000 + 1024);
    const sw = desc('32B', 256, 1024);
    // 32B: 16 elements per row; element 16 starts the next atom (LBO); k rows 32 bytes apart, k groups at SBO.
    expect(elementAddress(sw, false, 2, 16, 0)).toBe(0x2000 + 256);
    expect(elementAddress(sw, false, 2, 0, 8)).toBe(0x2000 + 1024);
    expect(elementAddress(sw, false, 2, 0, 4)).toBe(swizzleAddress(0x2000 + 4 * 32, '32B'));
  });
});

describe('shapes and types the ISA allows', () => {
  it('accepts every N from 8 to 256 in steps of 8 for floating point, and 8, 16, 24 then multiples of 16 for integers', () => {
    for (let n = 8; n <= 256; n += 8) {
      expect(shapeError({ n, k: 16, d: 'f32', a: 'f16', b: 'f16' })).toBeUndefined();
      expect(shapeError({ n, k: 32, d: 'f16', a: 'e4m3', b: 'e5m2' })).toBeUndefined();
      const int = shapeError({ n, k: 32, d: 's32', a: 's8', b: 'u8' });
      if (n <= 24 || n % 16 === 0) expect(int).toBeUndefined();
      else expect(int).toMatch(/multiple of 16/);
    }
    expect(shapeError({ n: 12, k: 16, d: 'f32', a: 'f16', b: 'f16' })).toMatch(/N = 12/);
    expect(shapeError({ n: 264, k: 16, d: 'f32', a: 'f16', b: 'f16' })).toMatch(/N = 264/);
  });

  it('refuses type combinations and K that the ISA does not list', () => {
    expect(shapeError({ n: 8, k: 16, d: 'f16', a: 'bf16', b: 'bf16' })).toMatch(/type combination/);
    expect(shapeError({ n: 8, k: 16, d: 'f32', a: 'f16', b: 'bf16' })).toMatch(/type combination/);
    expect(shapeError({ n: 8, k: 8, d: 'f32', a: 'tf32', b: 'tf32' })).toBeUndefined();
    expect(shapeError({ n: 8, k: 16, d: 'f32', a: 'tf32', b: 'tf32' })).toMatch(/K must be 8/);
    expect(shapeError({ n: 8, k: 32, d: 's32', a: 'e4m3', b: 's8' })).toMatch(/type combination/);
  });
});

describe('register fragments', () => {
  it('gives every element of the 64 x N accumulator to exactly one thread and register (warp w: rows 16w..16w+15)', () => {
    for (const n of [8, 24, 256]) {
      const seen = new Set<string>();
      for (let tid = 0; tid < 128; tid++)
        for (let i = 0; i < n / 2; i++) {
          const [row, col] = accumulatorCell(tid, i);
          expect(row >> 4, `thread ${tid} register ${i}`).toBe(tid >> 5);
          expect(col).toBeLessThan(n);
          seen.add(`${row},${col}`);
        }
      expect(seen.size).toBe(64 * n);
    }
    // Thread 5 (g 1, t 1), register 6: row 1 + 8, column 8 + 2.
    expect(accumulatorCell(5, 6)).toEqual([9, 10]);
  });

  it('spreads each warp A tile (16 x K) over the 4 registers of its 32 lanes', () => {
    for (const t of ['f16', 'tf32', 'e4m3'] as WgmmaInput[]) {
      const seen = new Set<string>();
      for (let tid = 0; tid < 32; tid++) for (let e = 0; e < 4 * perRegister(t); e++) seen.add(aFragmentCell(t, tid, e).join(','));
      expect(seen.size, t).toBe(16 * K_OF[t]);
    }
    // Lane 5 (g 1, t 1), f16: register 0 holds (1, 2) and (1, 3); register 3 holds (9, 10) and (9, 11).
    expect([0, 1, 6, 7].map((e) => aFragmentCell('f16', 5, e))).toEqual([[1, 2], [1, 3], [9, 10], [9, 11]]);
  });

  it('ldmatrix: lane l holds (l / 4, 2 (l % 4)) and the next column, transposed with .trans; elementHolder inverts it', () => {
    expect(fragmentElement(9, 1, false)).toEqual([2, 3]);
    expect(fragmentElement(9, 1, true)).toEqual([3, 2]);
    for (const trans of [false, true])
      for (let lane = 0; lane < 32; lane++)
        for (let half = 0; half < 2; half++) {
          const [r, c] = fragmentElement(lane, half, trans);
          expect(elementHolder(r, c, trans)).toEqual({ lane, half });
        }
  });
});

describe('operand values and accumulation', () => {
  it('decodes e4m3 (no infinity, NaN at 0x7f), e5m2 (IEEE-like), their subnormals, tf32 (low 13 bits ignored) and 8-bit integers', () => {
    expect(decodeInput('e4m3', 0x7e)).toBe(448);
    expect(decodeInput('e4m3', 0x7f)).toBeNaN();
    expect(decodeInput('e4m3', 0x01)).toBe(2 ** -9);
    expect(decodeInput('e4m3', 0xb8)).toBe(-1);
    expect(decodeInput('e5m2', 0x7b)).toBe(57344);
    expect(decodeInput('e5m2', 0x7c)).toBe(Infinity);
    expect(decodeInput('e5m2', 0x01)).toBe(2 ** -16);
    expect(decodeInput('tf32', 0x3f801fff)).toBe(1);
    expect(decodeInput('s8', 0xff)).toBe(-1);
    expect(decodeInput('u8', 0xff)).toBe(255);
  });

  it('aligns the terms to the largest exponent, truncating below 2^(emax - 25), and rounds the sum toward zero', () => {
    // 1 + 3 * 2^-25 (a product whose factors' exponents sum to -24): kept by the adder, then cut toward zero
    // to 1 (rounding to nearest would give 1 + 2^-23).
    expect(accumulateF32(1, [3 * 2 ** -13], [2 ** -12])).toBe(1);
    expect(accumulateF32(-1, [-3 * 2 ** -13], [2 ** -12])).toBe(-1);
    // Terms below 2^(emax - 25) vanish before the sum: eight products of 2^-26 would add 2^-23 exactly if kept.
    expect(accumulateF32(1, new Array(8).fill(2 ** -13), new Array(8).fill(2 ** -13))).toBe(1);
    expect(accumulateF32(2 ** -23, new Array(8).fill(2 ** -13), new Array(8).fill(2 ** -13))).toBe(2 ** -22);
    expect(accumulateF32(undefined, [3, -2], [5, 4])).toBe(7);
    expect(accumulateF32(undefined, [Infinity], [1])).toBe(Infinity);
    expect(accumulateS32(2147483647, [1], [1], false)).toBe(-2147483648);
    expect(accumulateS32(2147483647, [1], [1], true)).toBe(2147483647);
  });
});
