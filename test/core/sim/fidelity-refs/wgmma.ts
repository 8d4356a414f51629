// Independent references for test/fixtures/sim/gpu/wgmma/: what each kernel computes, from its header
// comment, in plain JS (no simulator code): D = scale_a * scale_b * A x B^T (+ D's initial values), with
// A[m][k] and B[n][k] derived from the integer inputs, placed into the registers of the thread that owns
// each element as the PTX ISA's wgmma accumulator fragment figure says (warp w owns rows 16w..16w+15;
// lane l = 4g + t holds, in register i, row 16w + g + 8 * ((i >> 1) & 1), column 8 * (i >> 2) + 2t + (i & 1)).
// wgmma_f16_random_n64 (random f16 inputs) is reproduced bit for bit by the adder this file models in
// `hopperDot` (fitted to that kernel's 4,096 H200 results): an exact sum per instruction rounded once
// would differ in 3,041 of them (by up to 2.0e-4 relative); rounding to nearest instead of toward zero
// leaves 2,895, aligning to one bit more or less 1,019 or 2,004, and aligning to the products' own
// exponents instead of their factors' sums 164.
// ldmatrix/stmatrix: the ISA's m8n8 fragment (lane l holds row l / 4, columns 2 (l % 4) and + 1; .trans
// the transpose), with each lane's row address as the kernel scatters them.

type Inputs = Record<string, number[]>;

interface MmaCase {
  n: number;
  k: number;
  /** Operand types: how an input integer x becomes a value. */
  a: 'signed' | 'unsigned' | 'f16';
  b: 'signed' | 'unsigned' | 'f16';
  acc: 'f32' | 'f16' | 's32';
  scaleA?: number;
  scaleB?: number;
  /** 'zero': scale-d = 0 on the first step; 'values': D starts at the kernel's small integers. */
  init: 'zero' | 'values';
}

/** The generator's table (make_fixtures.py), restated. */
const CASES: Record<string, MmaCase> = {
  wgmma_f16_n8_none: { n: 8, k: 32, a: 'signed', b: 'signed', acc: 'f32', init: 'values' },
  wgmma_f16_n256_sw128: { n: 256, k: 64, a: 'signed', b: 'signed', acc: 'f32', init: 'zero' },
  wgmma_bf16_n64_rs_sw64: { n: 64, k: 32, a: 'signed', b: 'signed', acc: 'f32', scaleA: -1, init: 'zero' },
  wgmma_f16_f16acc_n128_sw32: { n: 128, k: 16, a: 'signed', b: 'signed', acc: 'f16', scaleB: -1, init: 'values' },
  wgmma_f16_trans_n16_none: { n: 16, k: 32, a: 'signed', b: 'signed', acc: 'f32', init: 'zero' },
  wgmma_bf16_trans_n64_sw32_sw64: { n: 64, k: 32, a: 'signed', b: 'signed', acc: 'f32', scaleA: -1, scaleB: -1, init: 'values' },
  wgmma_f16_trans_n32_sw128: { n: 32, k: 32, a: 'signed', b: 'signed', acc: 'f32', init: 'zero' },
  wgmma_f16_rs_trans_b_n24: { n: 24, k: 16, a: 'signed', b: 'signed', acc: 'f32', init: 'values' },
  wgmma_tf32_n24_sw128: { n: 24, k: 32, a: 'signed', b: 'signed', acc: 'f32', init: 'zero' },
  wgmma_tf32_rs_n16: { n: 16, k: 16, a: 'signed', b: 'signed', acc: 'f32', init: 'values' },
  wgmma_e4m3_e5m2_n40_sw64: { n: 40, k: 64, a: 'signed', b: 'signed', acc: 'f32', init: 'zero' },
  wgmma_e5m2_f16acc_rs_n16: { n: 16, k: 32, a: 'signed', b: 'signed', acc: 'f16', init: 'values' },
  wgmma_s8_u8_n48_sw128: { n: 48, k: 64, a: 'signed', b: 'unsigned', acc: 's32', init: 'values' },
  silent_wgmma_read_before_wait: { n: 8, k: 16, a: 'signed', b: 'signed', acc: 'f32', init: 'values' },
  silent_wgmma_missing_fence: { n: 8, k: 16, a: 'signed', b: 'signed', acc: 'f32', init: 'values' },
};

const valueOf = (kind: MmaCase['a'], x: number): number => (kind === 'unsigned' ? x % 7 : kind === 'signed' ? (x % 7) - 3 : x);

/** f16 bits of a small integer (exact: |v| < 2048). */
function f16Bits(v: number): number {
  if (v === 0) return 0;
  const s = v < 0 ? 0x8000 : 0;
  const a = Math.abs(v);
  const e = Math.floor(Math.log2(a));
  return s | ((e + 15) << 10) | ((a - 2 ** e) << (10 - e));
}

/** (row, column) of element i of a thread's accumulator fragment. */
function accumulatorCell(tid: number, i: number): [number, number] {
  const warp = tid >> 5;
  const g = (tid & 31) >> 2;
  const t = tid & 3;
  return [16 * warp + g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * t + (i & 1)];
}

/** floor(log2 |x|) for a finite non-zero x. */
function exponent(x: number): number {
  let e = Math.floor(Math.log2(Math.abs(x)));
  if (2 ** e > Math.abs(x)) e--;
  if (2 ** (e + 1) <= Math.abs(x)) e++;
  return e;
}

/**
 * One k16 step of the H200's f32 accumulation of f16 products: the accumulator and the 16 exact products
 * aligned to the largest exponent (a product's being the sum of its factors'), each cut toward zero to a
 * multiple of 2^(emax - 25), summed exactly, the sum cut toward zero to f32.
 */
function hopperDot(acc: number, a: number[], b: number[]): number {
  const terms = [acc, ...a.map((x, k) => x * b[k])];
  const exps = [acc === 0 ? -Infinity : exponent(acc), ...a.map((x, k) => (x === 0 || b[k] === 0 ? -Infinity : exponent(x) + exponent(b[k])))];
  const emax = Math.max(...exps);
  if (emax === -Infinity) return 0;
  const q = 2 ** (emax - 25);
  const sum = terms.reduce((s, t) => s + Math.sign(t) * Math.floor(Math.abs(t) / q) * q, 0);
  const r = Math.fround(sum);
  if (Math.abs(r) <= Math.abs(sum)) return r;
  const bits = new DataView(new ArrayBuffer(4));
  bits.setFloat32(0, r);
  bits.setUint32(0, bits.getUint32(0) - 1);
  return bits.getFloat32(0);
}

/** wgmma_f16_random_n64: D = A x B^T over K = 64 in four k16 steps (scale-d = 0 on the first). */
function randomReference(a: number[], b: number[]): number[] {
  const out: number[] = [];
  for (let tid = 0; tid < 128; tid++)
    for (let i = 0; i < 32; i++) {
      const [row, col] = accumulatorCell(tid, i);
      let acc = 0;
      for (let k0 = 0; k0 < 64; k0 += 16) acc = hopperDot(acc, a.slice(row * 64 + k0, row * 64 + k0 + 16), b.slice(col * 64 + k0, col * 64 + k0 + 16));
      out.push(acc);
    }
  return out;
}

function mmaReference(c: MmaCase, a: number[], b: number[]): number[] {
  const scale = (c.scaleA ?? 1) * (c.scaleB ?? 1);
  const elems = c.n / 2; // accumulator elements per thread
  const out: number[] = [];
  for (let tid = 0; tid < 128; tid++) {
    const cell = (i: number): number => {
      const [row, col] = accumulatorCell(tid, i);
      let s = 0;
      for (let k = 0; k < c.k; k++) s += valueOf(c.a, a[row * c.k + k]) * valueOf(c.b, b[col * c.k + k]);
      // The initial value of element i: register i (f32/s32), or half i % 2 of register i >> 1 (f16).
      const r = c.acc === 'f16' ? i >> 1 : i;
      const init = c.init === 'zero' ? 0 : c.acc === 'f16' ? ((tid + 6 * r + 3 * (i & 1)) % 5) - 2 : ((tid + 3 * r) % 5) - 2;
      return init + scale * s;
    };
    if (c.acc === 'f16') for (let r = 0; r < elems / 2; r++) out.push((f16Bits(cell(2 * r)) | (f16Bits(cell(2 * r + 1)) << 16)) >>> 0);
    else for (let i = 0; i < elems; i++) out.push(cell(i));
  }
  return out;
}

/** The kernel's tile: row slot (7 * lane) % 32 holds row lane % 8 of matrix lane / 8. */
function ldmatrixReference(src: number[]): Record<string, number[]> {
  const tile = src.map((x) => (x * 3 + 1) & 0xffff);
  const slotOf = (lane: number) => (lane * 7) % 32;
  // Element (r, c) of matrix j: the 16-bit value at the row lane 8j + r addresses.
  const elem = (j: number, r: number, c: number) => tile[slotOf(8 * j + r) * 8 + c];
  const pack = (lo: number, hi: number) => (lo | (hi << 16)) >>> 0;
  const ld: number[] = [];
  const load = (count: number, trans: boolean) => {
    for (let lane = 0; lane < 32; lane++)
      for (let j = 0; j < count; j++) {
        const r = lane >> 2;
        const c = 2 * (lane & 3);
        ld.push(trans ? pack(elem(j, c, r), elem(j, c + 1, r)) : pack(elem(j, r, c), elem(j, r, c + 1)));
      }
  };
  load(1, false);
  load(2, false);
  load(4, false);
  load(4, true);
  load(2, true);
  load(1, true);
  // stmatrix: lane l's register j holds (l * 8 + 2j, l * 8 + 2j + 1), which are elements (l / 4, 2 (l % 4)) and
  // the next of matrix j (transposed for .trans); row r of matrix j goes to the row slot lane 8j + r addressed.
  const st = new Array<number>(768).fill(0);
  const store = (dst: number, count: number, trans: boolean) => {
    for (let lane = 0; lane < 32; lane++)
      for (let j = 0; j < count; j++)
        for (let h = 0; h < 2; h++) {
          const v = lane * 8 + 2 * j + h;
          const r = lane >> 2;
          const c = 2 * (lane & 3) + h;
          const [row, col] = trans ? [c, r] : [r, c];
          st[dst * 256 + slotOf(8 * j + row) * 8 + col] = v;
        }
  };
  store(0, 1, false);
  store(1, 4, false);
  store(2, 4, true);
  return { ld, st };
}

export const REFERENCES: Record<string, (x: Inputs) => Record<string, number[]>> = {
  ...Object.fromEntries(Object.entries(CASES).map(([name, c]) => [name, ({ a, b }: Inputs) => ({ out: mmaReference(c, a, b) })])),
  ldmatrix_stmatrix: ({ src }) => ldmatrixReference(src),
  wgmma_f16_random_n64: ({ a, b }) => ({ out: randomReference(a, b) }),
};
