// Independent references for the tensor-TMA fixtures (test/fixtures/sim/gpu/tma): what each kernel
// means, computed from the PTX ISA's description of tile-mode tensor copies and the CUTLASS swizzle
// functors (Swizzle<1,4,3>, <2,4,3>, <3,4,3>: the 16-byte chunk index XOR bits 7.. of the shared
// address), without the simulator's code. Inputs are the buffers before the kernel.
type Inputs = Record<string, number[]>;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
/** The bits of `x` as an f32. */
const bits = (x: number): number => ((f32[0] = x), u32[0]);
const UNWRITTEN = 0xffffffff;
/** CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA's f32 fill, as the H200 wrote it. */
const NAN_F32 = 0x7ff77ff7;

/** Shared address of the byte at `addr` under a swizzle of `span` bytes (0 = none). */
function swizzle(addr: number, span: number): number {
  const mask = span === 32 ? 1 : span === 64 ? 3 : span === 128 ? 7 : 0;
  return addr ^ (((addr >> 7) & mask) << 4);
}

/** A 2-D box of u32/f32 words (bw x bh from column c0, row r0 of a row-major tensor with `pitch` words per row) into `out` at byte `base`. */
function box2d(out: number[], base: number, span: number, bw: number, bh: number, word: (col: number, row: number) => number, c0: number, r0: number): void {
  for (let j = 0; j < bh; j++)
    for (let i = 0; i < bw; i++) out[swizzle(base + (j * bw + i) * 4, span) / 4] = word(c0 + i, r0 + j);
}

/** f32 tensor `a` (rows x cols, row pitch `pitch`) read as raw bits, with `fill` outside. */
const f32Word = (a: number[], rows: number, cols: number, pitch: number, fill: number) => (c: number, r: number) => (c >= 0 && c < cols && r >= 0 && r < rows ? bits(a[r * pitch + c]) : fill);

/** `g` (rows x cols f32/int) with `op(old, tile element e)` applied to the 8x4 box at (c0, r0), inside only. */
function boxUpdate(g: number[], cols: number, rows: number, c0: number, r0: number, value: (e: number) => number, op: (old: number, v: number) => number): void {
  for (let e = 0; e < 32; e++) {
    const c = c0 + (e % 8);
    const r = r0 + Math.floor(e / 8);
    if (c >= 0 && c < cols && r >= 0 && r < rows) g[r * cols + c] = op(g[r * cols + c], value(e));
  }
}

export const REFERENCES: Record<string, (x: Inputs) => Record<string, number[]>> = {
  tma_swizzle_2d: ({ a }) => {
    const out = new Array<number>(2048).fill(0);
    const word = (c: number, r: number) => a[r * 64 + c];
    // Each mode's tile is 2048 bytes at a 1024-byte-aligned address, so address bits = tile offset bits.
    box2d(out, 0, 0, 32, 16, word, 8, 5);
    box2d(out, 2048, 32, 8, 64, word, 8, 5);
    box2d(out, 4096, 64, 16, 32, word, 8, 5);
    box2d(out, 6144, 128, 32, 16, word, 8, 5);
    return { out };
  },
  tma_swizzle_offset: ({ a }) => {
    const out = new Array<number>(1024).fill(UNWRITTEN);
    const word = (c: number, r: number) => a[r * 64 + c];
    box2d(out, 128, 128, 32, 8, word, 0, 2);
    box2d(out, 1024 + 384, 128, 32, 8, word, 32, 5);
    box2d(out, 2560 + 128, 64, 16, 8, word, 16, 1);
    return { out };
  },
  tma_elemstride_3d: ({ a }) => {
    // box 4x4x6, elementStrides 1,2,3 from (4,3,0): 4 x 2 x 2 elements, packed.
    const out = new Array<number>(32).fill(UNWRITTEN);
    for (let k2 = 0; k2 < 2; k2++) for (let k1 = 0; k1 < 2; k1++) for (let k0 = 0; k0 < 4; k0++) out[(k2 * 2 + k1) * 4 + k0] = a[3 * k2 * 128 + (3 + 2 * k1) * 16 + 4 + k0];
    return { out, done: [1] };
  },
  tma_oob_zero: ({ a }) => {
    const out = new Array<number>(96).fill(UNWRITTEN);
    const word = f32Word(a, 10, 20, 32, 0);
    [[16, 8], [24, 0], [12, 6]].forEach(([c, r], k) => box2d(out, k * 128, 0, 8, 4, word, c, r));
    return { out, done: [1, 1, 1] };
  },
  tma_oob_nan: ({ a }) => {
    const out = new Array<number>(64).fill(UNWRITTEN);
    const word = f32Word(a, 10, 20, 32, NAN_F32);
    [[16, 8], [20, 2]].forEach(([c, r], k) => box2d(out, k * 128, 0, 8, 4, word, c, r));
    return { out, done: [1, 1] };
  },
  tma_store_clip: ({ g }) => {
    const o = [...g];
    [[16, 4], [4, 1]].forEach(([c, r], k) => boxUpdate(o, 20, 6, c, r, (e) => k * 100 + e, (_old, v) => v));
    return { g: o };
  },
  tma_reduce_add: ({ g }) => {
    const o = [...g];
    [[0, 0], [4, 2], [12, 6]].forEach(([c, r], k) => boxUpdate(o, 16, 8, c, r, (e) => k * 10 + (e % 7), (old, v) => Math.fround(old + v)));
    return { g: o };
  },
  tma_reduce_max: ({ g }) => {
    const o = [...g];
    boxUpdate(o, 16, 8, 8, 4, (e) => 3 * e - 20, Math.max);
    boxUpdate(o, 16, 8, 0, 0, (e) => 60 - 2 * e, Math.min);
    return { g: o };
  },
  tma_ring_tensor: ({ a }) => {
    const out: number[] = [];
    for (let c = 0; c < 64; c++) {
      let acc = 0;
      for (let k = 0; k < 8; k++) for (let j = 0; j < 4; j++) acc = Math.fround(acc + a[(8 * k + Math.floor(c / 32) * 4 + j) * 32 + (c % 32)]);
      out.push(acc);
    }
    return { out };
  },
  tma_libcu_barrier: ({ t }) => {
    const o = [...t];
    for (let b = 0; b < 2; b++) for (let r = 0; r < 8; r++) for (let c = 0; c < 8; c++) o[(4 + 4 * b + r) * 24 + 8 + 8 * b + c] += 1;
    return { t: o };
  },
};
