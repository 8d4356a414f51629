// tcgen05.st, the tcgen05.ld shapes and tcgen05.cp in the CUDA executor: a warp stores registers with
// one shape and reads tensor memory back with .32x32b (the cells) and with the same shape (the
// registers); a canonical-layout matrix copied from shared memory lands row by row in the lanes each
// tcgen05.cp shape names (CUTLASS's SM100_UTCCP_* layouts of the ISA's shapes). The
// cell of every (thread, register) is the ISA's fragment table (core/sim/tmem-fragment.ts, checked
// against the ISA in test/core/sim/tmem-fragment.test.ts); Blackwell kernels cannot run on the H200,
// so there is no GPU record.
import { describe, expect, it } from 'vitest';
import { tmemCell, tmemLanes, tmemRegisters, type TmemLdStShape } from '../../../../core/sim/tmem-fragment';
import { runKernel, values } from './helpers';

const regList = (n: number, from = 0) => `{${Array.from({ length: n }, (_, i) => `%${from + i}`).join(', ')}}`;

/** Warp 0 stores l*1000+j with `shape`.x`num` at lane `lane0`, reads the cells back with .32x32b and the registers with the shape. */
function kernel(shape: TmemLdStShape, num: number, lane0: number): string {
  const n = tmemRegisters(shape, num);
  const cols = (32 * n) / tmemLanes(shape);
  const split = shape === '16x32bx2' ? `, ${num}` : '';
  const ins = Array.from({ length: n }, (_, j) => `"r"(v[${j}])`).join(', ');
  const outs = Array.from({ length: n }, (_, j) => `"=r"(w[${j}])`).join(', ');
  return `#include <cstdint>
__global__ void k(uint32_t* cells, uint32_t* back) {
  __shared__ uint32_t tmem;
  const uint32_t l = threadIdx.x;
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 512;" :: "r"((uint32_t)__cvta_generic_to_shared(&tmem)) : "memory");
  __syncwarp();
  const uint32_t base = tmem + (${lane0}u << 16);
  uint32_t v[${n}], w[${n}];
  for (int j = 0; j < ${n}; j++) v[j] = l * 1000 + j;
  asm volatile("tcgen05.st.sync.aligned.${shape}.x${num}.b32 [%0]${split}, ${regList(n, 1)};" :: "r"(base), ${ins} : "memory");
  asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
  for (int c = 0; c < ${cols}; c++) {
    uint32_t x;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(x) : "r"(tmem + c));
    cells[l * ${cols} + c] = x;
  }
  asm volatile("tcgen05.ld.sync.aligned.${shape}.x${num}.b32 ${regList(n)}, [%${n}]${split};" : ${outs} : "r"(base));
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
  for (int j = 0; j < ${n}; j++) back[l * ${n} + j] = w[j];
}`;
}

describe('tcgen05.st / tcgen05.ld shapes', () => {
  for (const [shape, num, lane0] of [
    ['16x64b', 4, 0],
    ['16x128b', 2, 16],
    ['16x256b', 2, 0],
    ['16x32bx2', 4, 16],
    ['32x32b', 8, 0],
  ] as const) {
    it(`.${shape}.x${num} from lane ${lane0}: the cells of the ISA's fragment table, and the same registers back`, async () => {
      const n = tmemRegisters(shape, num);
      const cols = (32 * n) / tmemLanes(shape);
      const r = await runKernel(kernel(shape, num, lane0), { args: [`cells=u32[${32 * cols}]`, `back=u32[${32 * n}]`] });
      expect(r.status, r.message).toBe('completed');
      const want = new Array<number>(32 * cols).fill(0);
      for (let l = 0; l < 32; l++)
        for (let j = 0; j < n; j++) {
          const c = tmemCell(shape, l, j, shape === '16x32bx2' ? num : 0);
          want[(lane0 + c.lane) * cols + c.col] = l * 1000 + j;
        }
      expect(values(r, 'cells')).toEqual(want);
      expect(values(r, 'back')).toEqual(Array.from({ length: 32 * n }, (_, i) => Math.floor(i / n) * 1000 + (i % n)));
    });
  }

  it('stops on a shape past the warp’s 32 lanes, a register count that does not fit, and 16-bit packing', async () => {
    let r = await runKernel(kernel('16x64b', 1, 20), { args: ['cells=u32[64]', 'back=u32[32]'] });
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/warp 0 may only access TMEM lanes 0\.\.31; \.16x64b from lane 20 reaches lane 35/);
    r = await runKernel(kernel('16x128b', 1, 0).replace('.16x128b.x1.b32 [%0], {%1, %2}', '.16x128b.x1.b32 [%0], {%1}').replace(', "r"(v[1])', ''), { args: ['cells=u32[128]', 'back=u32[64]'] });
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/1 registers, the shape and \.x1 need 2/);
    r = await runKernel(kernel('32x32b', 1, 0).replace('tcgen05.st.sync.aligned.32x32b.x1.b32', 'tcgen05.st.sync.aligned.32x32b.x1.unpack::16b.b32'), { args: ['cells=u32[32]', 'back=u32[32]'] });
    expect(r.message).toMatch(/not supported by the simulator: PTX instruction .*unpack::16b.* \(16-bit packing\)/);
  });
});

describe('tcgen05.cp (shared memory to tensor memory)', () => {
  // 128 threads fill a u32 matrix (element (row, w) = row * 100 + w) in a K-major canonical layout,
  // thread 0 copies it with tcgen05.cp into column 8 and commits to an mbarrier, and every warp reads
  // its 32 lanes back with .32x32b. Lane L must hold the source row the shape sends there.
  const kernel = (shape: string, words: number, swizzled: boolean) => `#include <cstdint>
__device__ uint32_t s32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ uint32_t canon_off(int W, uint32_t lbo, uint32_t sbo, int row, int w) {
  const uint32_t kb = w * 4;
  uint32_t off = W == 0 ? (row & 7) * 16 + (row >> 3) * sbo + (kb >> 4) * lbo + (kb & 15) : (row & 7) * 16 * W + (row >> 3) * sbo + kb;
  if (W) off ^= ((off >> 7) & (uint32_t)(W - 1)) << 4;
  return off;
}
__device__ uint64_t desc(const void* p, uint32_t lbo, uint32_t sbo, uint64_t layout) {
  return ((s32(p) >> 4) & 0x3FFF) | ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32) | (1ull << 46) | (layout << 61);
}
__global__ void k(uint32_t* out) {
  __shared__ __align__(1024) uint8_t sA[16384];
  __shared__ uint64_t done;
  __shared__ uint32_t tmem;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int W = ${swizzled ? 8 : 0};
  const uint32_t lbo = ${swizzled ? 16 : 2048}, sbo = ${swizzled ? 1024 : 128};
  for (int i = threadIdx.x; i < 128 * ${words}; i += 128) {
    const int row = i / ${words}, w = i % ${words};
    *(uint32_t*)(sA + canon_off(W, lbo, sbo, row, w)) = row * 100 + w;
  }
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(s32(&done)) : "memory");
  if (warp == 0) asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(s32(&tmem)) : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (threadIdx.x == 0) {
    asm volatile("tcgen05.cp.cta_group::1.${shape} [%0], %1;" :: "r"(tmem + 8), "l"(desc(sA, lbo, sbo, ${swizzled ? 2 : 0})) : "memory");
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" :: "r"(s32(&done)) : "memory");
  }
  asm volatile("{\\n.reg .pred p;\\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n@!p bra W;\\n}" :: "r"(s32(&done)) : "memory");
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  for (int w = 0; w < ${words}; w++) {
    uint32_t x;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(x) : "r"(tmem + ((uint32_t)(warp * 32) << 16) + 8 + w));
    out[threadIdx.x * ${words} + w] = x;
  }
}`;
  const SHAPES: Array<[string, number, (lane: number) => number]> = [
    ['128x256b', 8, (l) => l],
    ['128x128b', 4, (l) => l],
    ['32x128b.warpx4', 4, (l) => l % 32],
    ['64x128b.warpx2::02_13', 4, (l) => l % 64],
    ['64x128b.warpx2::01_23', 4, (l) => (l % 32) + (l >= 64 ? 32 : 0)],
  ];
  for (const [shape, words, rowOf] of SHAPES)
    for (const swizzled of [false, true])
      it(`.${shape}${swizzled ? ' (128B swizzle)' : ''}: every lane holds the row the shape sends there`, async () => {
        const r = await runKernel(kernel(shape, words, swizzled), { block: [128, 1, 1], args: [`out=u32[${128 * words}]`] });
        expect(r.status, r.message).toBe('completed');
        const want: number[] = [];
        for (let l = 0; l < 128; l++) for (let w = 0; w < words; w++) want.push(rowOf(l) * 100 + w);
        expect(values(r, 'out')).toEqual(want);
      });

  it('refuses decompression by name and copies .4x256b (its 4 rows into the first lane of each warp quarter)', async () => {
    const r = await runKernel(kernel('128x256b.b8x16.b6x16_p32', 8, false), { block: [128, 1, 1], args: ['out=u32[1024]'] });
    expect(r.message).toMatch(/^not supported by the simulator: .*decompression/);
    const four = await runKernel(kernel('4x256b', 8, false), { block: [128, 1, 1], args: ['out=u32[1024]'] });
    expect(four.status, four.message).toBe('completed');
    const want: number[] = [];
    for (let l = 0; l < 128; l++) for (let w = 0; w < 8; w++) want.push(l % 32 === 0 ? (l / 32) * 100 + w : 0);
    expect(values(four, 'out')).toEqual(want);
  });
});
