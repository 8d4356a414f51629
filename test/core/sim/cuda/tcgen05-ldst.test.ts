// tcgen05.st and the tcgen05.ld shapes in the CUDA executor: a warp stores registers with one shape and
// reads tensor memory back with .32x32b (the cells) and with the same shape (the registers). The
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
