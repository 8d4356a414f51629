// Non-tensor bulk reductions (cp.reduce.async.bulk) beyond the GPU fixtures (test/fixtures/sim/gpu/tma2):
// the element operations and the ISA's type tables, cuda::ptx::cp_reduce_async_bulk (global and
// shared::cluster overloads), the errors for malformed forms, the race of a source written without
// fence.proxy.async, and a reduction into a CTA that already exited.
import { describe, expect, it } from 'vitest';
import { bulkReduceTypeError, reduceBytes } from '../../../../core/sim/bulk-reduce';
import { Buffer } from '../../../../core/sim/memory';
import { runKernel, values } from './helpers';

const PRELUDE = `
#include <cstdint>
#include <cuda/ptx>
__device__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
`;

describe('bulk reduction element operations (core/sim/bulk-reduce.ts)', () => {
  it('follows the ISA type table of each form', () => {
    expect(bulkReduceTypeError('global', 'add', 'f64')).toBeUndefined();
    expect(bulkReduceTypeError('global', 'min', 's64')).toBeUndefined();
    expect(bulkReduceTypeError('global', 'and', 'u32')).toMatch(/\.and does not reduce u32 elements into global memory \(it takes b32, b64\)/);
    expect(bulkReduceTypeError('cluster', 'add', 'f32')).toMatch(/into shared::cluster memory \(it takes u32, s32, u64\)/);
    expect(bulkReduceTypeError('cluster', 'min', 's64')).toBeDefined();
    // ptxas 13.0: "Illegal reduction operation" for the 64-bit bitwise forms into shared::cluster.
    expect(bulkReduceTypeError('cluster', 'xor', 'b64')).toMatch(/into shared::cluster memory \(it takes b32\)/);
    expect(bulkReduceTypeError('global', 'xor', 'b64')).toBeUndefined();
    expect(bulkReduceTypeError('tensor', 'add', 'f64')).toBeDefined();
    expect(bulkReduceTypeError('global', 'inc', 's32')).toMatch(/it takes u32/);
  });

  it('rounds f16/bf16/f32 adds once to nearest even and takes the non-NaN operand of a float min', () => {
    const d = new Buffer(1, 'd', 'global', 16);
    const s = new Buffer(2, 's', 'shared', 16);
    // f16: 2048 + 1 and 2048 + 3 (spacing 2 above 2048): ties go to the even neighbour.
    d.view.setUint16(0, 0x6800, true); // 2048
    d.view.setUint16(2, 0x6800, true);
    s.view.setUint16(0, 0x3c00, true); // 1
    s.view.setUint16(2, 0x4200, true); // 3
    reduceBytes('add', 'f16', d, 0, s, 0, 4);
    expect([d.view.getUint16(0, true), d.view.getUint16(2, true)]).toEqual([0x6800, 0x6802]); // 2048, 2052
    d.view.setFloat32(4, NaN, true);
    s.view.setFloat32(4, 1.5, true);
    reduceBytes('min', 'f32', d, 4, s, 4, 4);
    expect(d.view.getFloat32(4, true)).toBe(1.5);
    // u32 .dec of 0 gives the source value; .inc at the bound wraps to 0.
    d.view.setUint32(8, 0, true);
    s.view.setUint32(8, 9, true);
    d.view.setUint32(12, 9, true);
    s.view.setUint32(12, 9, true);
    reduceBytes('dec', 'u32', d, 8, s, 8, 4);
    reduceBytes('inc', 'u32', d, 12, s, 12, 4);
    expect([d.view.getUint32(8, true), d.view.getUint32(12, true)]).toEqual([9, 0]);
  });
});

describe('cp.reduce.async.bulk in the CUDA simulator', () => {
  it('cuda::ptx::cp_reduce_async_bulk reduces into global memory with the pointers\' element type', async () => {
    const r = await runKernel(
      `${PRELUDE}
__global__ void k(float* g, int* h) {
  __shared__ alignas(16) float t[8];
  __shared__ alignas(16) int u[4];
  if (threadIdx.x < 8) t[threadIdx.x] = 0.5f * threadIdx.x;
  if (threadIdx.x < 4) u[threadIdx.x] = 3 - 2 * (int)threadIdx.x;
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::ptx::cp_reduce_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, cuda::ptx::op_add, g, t, 32u);
    cuda::ptx::cp_reduce_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, cuda::ptx::op_max, h, u, 16u);
    cuda::ptx::cp_async_bulk_commit_group();
    cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>());
  }
}`,
      { args: ['g=f32[8]:iota', 'h=s32[4]:zeros'] },
    );
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'g')).toEqual([0, 1.5, 3, 4.5, 6, 7.5, 9, 10.5]);
    expect(values(r, 'h')).toEqual([3, 1, 0, 0]);
  });

  it("cuda::ptx::cp_reduce_async_bulk into a peer CTA's shared memory completes bytes on its barrier", async () => {
    const r = await runKernel(
      `${PRELUDE}
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void __cluster_dims__(2,1,1) k(unsigned* out) {
  __shared__ alignas(16) unsigned acc[4];
  __shared__ alignas(16) unsigned src[4];
  __shared__ uint64_t bar;
  cg::cluster_group c = cg::this_cluster();
  const unsigned rank = c.block_rank();
  if (threadIdx.x < 4) { acc[threadIdx.x] = 100 * rank + threadIdx.x; src[threadIdx.x] = 10 * (rank + 1); }
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&bar)));
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16;" :: "r"(smem(&bar)));
  }
  c.sync();
  if (threadIdx.x == 0)
    cuda::ptx::cp_reduce_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_shared, cuda::ptx::op_add,
                                    c.map_shared_rank(acc, rank ^ 1), src, 16u, c.map_shared_rank(&bar, rank ^ 1));
  asm volatile("{\\n .reg .pred p;\\n W: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], 0;\\n @!p bra W;\\n}" :: "r"(smem(&bar)));
  if (threadIdx.x < 4) out[blockIdx.x * 4 + threadIdx.x] = acc[threadIdx.x];
  c.sync();
}`,
      { grid: [2, 1, 1], args: ['out=u32[8]'] },
    );
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([20, 21, 22, 23, 110, 111, 112, 113]);
  });

  it('names the malformed forms: .add.f16 without .noftz, a type the table lacks, a size not a multiple of 16', async () => {
    const form = (instr: string, size = 16) =>
      runKernel(
        `${PRELUDE}
__global__ void k(void* g) {
  __shared__ alignas(16) unsigned t[8];
  if (threadIdx.x == 0) asm volatile("${instr} [%0], [%1], ${size};" :: "l"(g), "r"(smem(t)) : "memory");
}`,
        { args: ['g=u32[8]'] },
      );
    const noftz = await form('cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f16');
    expect(noftz.status).toBe('error');
    expect(noftz.message).toMatch(/an \.add of f16 elements is written \.add\.noftz\.f16/);
    const table = await form('cp.reduce.async.bulk.global.shared::cta.bulk_group.and.u32');
    expect(table.message).toMatch(/\.and does not reduce u32 elements into global memory/);
    const size = await form('cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32', 24);
    expect(size.status).toBe('error');
    expect(size.message).toMatch(/size 24 is not a multiple of 16 bytes/);
  });

  it('reports a race when the source was written without fence.proxy.async', async () => {
    const r = await runKernel(
      `${PRELUDE}
__global__ void k(unsigned* g) {
  __shared__ alignas(16) unsigned t[4];
  if (threadIdx.x < 4) t[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], 16;" :: "l"(g), "r"(smem(t)) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group 0;");
  }
}`,
      { args: ['g=u32[4]'] },
    );
    expect(r.status).toBe('race');
    expect(r.message).toMatch(/'t'/);
  });

  it('a reduction into a CTA that already exited is reported', async () => {
    const r = await runKernel(
      `${PRELUDE}
__device__ uint32_t map_rank(const void* p, uint32_t rank) {
  uint32_t a; asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(smem(p)), "r"(rank)); return a;
}
__global__ void __cluster_dims__(2,1,1) k() {
  __shared__ alignas(16) unsigned acc[4];
  __shared__ alignas(16) unsigned src[4];
  __shared__ uint64_t bar;
  unsigned rank; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&bar)));
  asm volatile("fence.proxy.async.shared::cta;");
  asm volatile("barrier.cluster.arrive;\\nbarrier.cluster.wait;");
  if (rank == 1 && threadIdx.x == 0) {
    for (int i = 0; i < 50; ++i) __nanosleep(10);
    asm volatile("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%0], [%1], 16, [%2];"
                 :: "r"(map_rank(acc, 0)), "r"(smem(src)), "r"(map_rank(&bar, 0)) : "memory");
  }
}`,
      { grid: [2, 1, 1] },
    );
    expect(r.status, r.message).toBe('error');
    expect(r.message).toMatch(/targets CTA rank 0 of its cluster, which already exited/);
  });
});
