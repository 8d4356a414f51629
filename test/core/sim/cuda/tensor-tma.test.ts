// Tensor TMA in the CUDA executor, beyond the GPU fixtures (test/fixtures/sim/gpu/tma): binding
// CUtensorMap parameters, the map travelling as a by-value copy, 4- and 5-D boxes, races on a box read
// before its barrier, multicast to the CTAs of a cluster (its mask errors), and the clear refusals (im2col,
// gather4, a buffer given for a map, the interleaved copies the H200 did not record). The .cta_group::2
// forms are tested with the CTA pairs (tcgen05-pair.test.ts).
import { describe, expect, it } from 'vitest';
import { runKernel, values } from './helpers';

const PRELUDE = `
#include <cstdint>
#include <cuda.h>
__device__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ void init(uint64_t* b) { asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(b))); }
__device__ void expect_tx(uint64_t* b, uint32_t n) { asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem(b)), "r"(n)); }
__device__ void wait(uint64_t* b) {
  asm volatile("{\\n .reg .pred p;\\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n @!p bra W;\\n}" :: "r"(smem(b)));
}
`;

describe('tensor TMA in the CUDA simulator', () => {
  it('loads 4-D and 5-D boxes through a map copied into shared memory (the copy is the map)', async () => {
    const src = `${PRELUDE}
__global__ void k(const __grid_constant__ CUtensorMap t4, const __grid_constant__ CUtensorMap t5, uint32_t* out) {
  __shared__ alignas(128) uint32_t tile[2][32];
  __shared__ alignas(64) CUtensorMap copy;
  __shared__ uint64_t bar[2];
  if (threadIdx.x == 0) {
    copy = t5;
    init(&bar[0]); init(&bar[1]);
    expect_tx(&bar[0], 128);
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
                 :: "r"(smem(tile[0])), "l"(&t4), "r"(4), "r"(1), "r"(0), "r"(1), "r"(smem(&bar[0])));
    expect_tx(&bar[1], 128);
    asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7];"
                 :: "r"(smem(tile[1])), "l"(reinterpret_cast<uint64_t>(&copy)), "r"(0), "r"(1), "r"(1), "r"(0), "r"(1), "r"(smem(&bar[1])));
  }
  __syncthreads();
  wait(&bar[0]); wait(&bar[1]);
  out[threadIdx.x] = tile[0][threadIdx.x];
  out[32 + threadIdx.x] = tile[1][threadIdx.x];
}`;
    // A: u32 [3][2][4][8] (dims 8,4,2,3); B: u32 [2][2][2][4][4] (dims 4,4,2,2,2); both hold their indices.
    const r = await runKernel(src, { args: ['A=u32[3,2,4,8]:iota', 'B=u32[2,2,2,4,4]:iota', 't4=tensormap(A,box=[4,2,2,2])', 't5=tensormap(B,box=[4,2,1,2,2])', 'out=u32[64]'] });
    expect(r.status, r.message).toBe('completed');
    const want4: number[] = [];
    for (let d = 0; d < 2; d++) for (let c = 0; c < 2; c++) for (let b = 0; b < 2; b++) for (let a = 0; a < 4; a++) want4.push((1 + d) * 64 + c * 32 + (1 + b) * 8 + 4 + a);
    // 5-D: element (a,b,0,d,e) at coords (a, 1+b, 1, d, 1+e) -- the box's rows past dim 1's end read as zero.
    const B = (a: number, b: number, c: number, d: number, e: number) => (b < 4 && e < 2 ? e * 64 + d * 32 + c * 16 + b * 4 + a : 0);
    const want5b: number[] = [];
    for (let e = 0; e < 2; e++) for (let d = 0; d < 2; d++) for (let b = 0; b < 2; b++) for (let a = 0; a < 4; a++) want5b.push(B(a, 1 + b, 1, d, 1 + e));
    const out = values(r, 'out');
    expect(out.slice(0, 32)).toEqual(want4);
    expect(out.slice(32)).toEqual(want5b);
  });

  it('reports a race when a thread reads the box before waiting on its barrier', async () => {
    const src = `${PRELUDE}
__global__ void k(const __grid_constant__ CUtensorMap t, float* out) {
  __shared__ alignas(128) float tile[32];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) { init(&bar); }
  __syncthreads();
  if (threadIdx.x == 0) {
    expect_tx(&bar, 128);
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(smem(tile)), "l"(&t), "r"(0), "r"(0), "r"(smem(&bar)));
  }
  out[threadIdx.x] = tile[threadIdx.x];
  wait(&bar);
}`;
    const r = await runKernel(src, { args: ['A=f32[8,32]:iota', 't=tensormap(A,box=[32,1])', 'out=f32[32]'], latencies: { bulkCopy: 5 }, schedule: 'adversarial' });
    expect(r.status, r.message).toBe('race');
    expect(r.message).toMatch(/tile/);
  });

  it('refuses im2col and gather4 copies with a clear message, and a cta_group::2 copy outside a cluster as misuse', async () => {
    const copy = (mn: string, extra = '') => `${PRELUDE}
__global__ void k(const __grid_constant__ CUtensorMap t) {
  __shared__ alignas(128) float tile[32];
  __shared__ uint64_t bar;
  asm volatile("${mn} [%0], [%1, {%2, %3}], [%4]${extra};" :: "r"(smem(tile)), "l"(&t), "r"(0), "r"(0), "r"(smem(&bar)), "h"((unsigned short)1));
}`;
    const args = ['A=f32[8,32]', 't=tensormap(A,box=[32,1])'];
    let r = await runKernel(copy('cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes'), { args });
    expect(r.message).toMatch(/not supported by the simulator: PTX instruction 'cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.im2col\.mbarrier::complete_tx::bytes' \(im2col mode/);
    r = await runKernel(copy('cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::2', ', %5'), { args });
    // .cta_group::2 is modelled (test/core/sim/cuda/tcgen05-pair.test.ts); outside a cluster the CTA has no pair.
    expect(r.status).toBe('misuse');
    expect(r.message).toMatch(/\.cta_group::2 runs on a CTA pair, .* but the kernel is not launched in clusters of an even number of CTAs/);
    r = await runKernel(copy('cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes'), { args });
    expect(r.message).toMatch(/\(the tile::gather4 \/ tile::scatter4 modes/);
  });

  it('refuses the interleaved copies the H200 did not record, by name: a store at negative coordinates, a box past 4096 bytes', async () => {
    const store = `${PRELUDE}
__global__ void k(const __grid_constant__ CUtensorMap t) {
  __shared__ alignas(1024) uint16_t tile[2048];
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3}], [%4];" :: "l"(&t), "r"(0), "r"(-1), "r"(1), "r"(smem(tile)));
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group 0;");
  }
}`;
    const map = (box: string) => `t=tensormap(A,dims=[5,6,4],strides=[144,896],box=[${box}],interleave=16B)`;
    const r = await runKernel(store, { args: ['A=u16[4096]', map('8,2,3')] });
    expect(r.status, r.message).toBe('error'); // an unsupported construct met at run time stops the run
    expect(r.message).toMatch(/not supported by the simulator: cp\.async\.bulk\.tensor \(store\): a store through an interleaved tensor map at negative coordinates \{0, -1, 1\} \(not recorded on the GPU; it faults without interleave\) at line 14/);
    await expect(runKernel(store, { args: ['A=u16[4096]', map('8,4,16')] })).rejects.toThrow(/--arg t=.*: not supported by the simulator: an interleaved tensor map whose box spans 8192 bytes/);
  });

  // Two-CTA clusters: rank 1 multicasts an 8-row box (128B swizzle) to the CTAs of `mask`; each
  // receiving CTA armed expect_tx of the box before the cluster barrier and dumps its raw tile.
  const multicastKernel = (mask: string, opts: { readEarly?: boolean; cpp?: boolean } = {}) => `${PRELUDE}
#include <cuda/ptx>
__device__ uint32_t rank() { uint32_t r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
__device__ void csync() { asm volatile("barrier.cluster.arrive.release.aligned;\\n barrier.cluster.wait.acquire.aligned;" ::: "memory"); }
__global__ void k(const __grid_constant__ CUtensorMap t, uint32_t* out) {
  __shared__ alignas(1024) uint32_t tile[256];
  __shared__ uint64_t bar;
  const uint16_t mask = ${mask};
  const bool receives = (mask >> rank()) & 1;
  if (threadIdx.x == 0) { init(&bar); if (receives) expect_tx(&bar, 1024); }
  csync();
  if (threadIdx.x == 0 && rank() == 1) {
    ${
      opts.cpp
        ? 'const int32_t c[2] = {0, 2}; cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, tile, &t, c, &bar, mask);'
        : 'asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" :: "r"(smem(tile)), "l"(&t), "r"(0), "r"(2), "r"(smem(&bar)), "h"(mask) : "memory");'
    }
  }
  ${opts.readEarly ? 'out[blockIdx.x * 256 + threadIdx.x] = tile[threadIdx.x];' : ''}
  if (receives) wait(&bar);
  for (int i = threadIdx.x; i < 256; i += 32) out[blockIdx.x * 256 + i] = tile[i];
  csync();
}`;
  const mcArgs = ['A=u32[16,32]:iota', 't=tensormap(A,box=[32,8],swizzle=128B)', 'out=u32[512]'];
  const swizzledBox = () => {
    const want = new Array<number>(256);
    for (let j = 0; j < 8; j++) for (let i = 0; i < 32; i++) {
      const a = (j * 32 + i) * 4;
      want[(a ^ (((a >> 7) & 7) << 4)) / 4] = (2 + j) * 32 + i;
    }
    return want;
  };

  it('multicasts a box to the CTAs of its mask only, each barrier completing on the whole box (inline PTX and cuda::ptx)', async () => {
    for (const cpp of [false, true]) {
      // Mask 0b01: the issuing CTA (rank 1) is not a receiver; rank 0 gets the box, rank 1's tile stays zero.
      let r = await runKernel(multicastKernel('0x1', { cpp }), { args: mcArgs, grid: [2, 1, 1], cluster: [2, 1, 1] });
      expect(r.status, r.message).toBe('completed');
      let out = values(r, 'out');
      expect(out.slice(0, 256)).toEqual(swizzledBox());
      expect(out.slice(256)).toEqual(new Array(256).fill(0));
      r = await runKernel(multicastKernel('0x3', { cpp }), { args: mcArgs, grid: [2, 1, 1], cluster: [2, 1, 1] });
      expect(r.status, r.message).toBe('completed');
      out = values(r, 'out');
      expect(out.slice(0, 256)).toEqual(swizzledBox());
      expect(out.slice(256)).toEqual(swizzledBox());
    }
  });

  it('reports a race when a receiving CTA reads the box before its barrier completes', async () => {
    const r = await runKernel(multicastKernel('0x3', { readEarly: true }), { args: mcArgs, grid: [2, 1, 1], cluster: [2, 1, 1], latencies: { bulkCopy: 5 }, schedule: 'adversarial' });
    expect(r.status, r.message).toBe('race');
    expect(r.message).toMatch(/tile/);
  });

  it('reports a multicast into a CTA that already exited (undefined behaviour: a launch failure on the GPU)', async () => {
    // Rank 0 leaves right after the cluster barrier; rank 1's box is still due to land in it.
    const src = multicastKernel('0x3').replace('  csync();\n  if (threadIdx.x == 0 && rank() == 1)', '  csync();\n  if (rank() == 0) return;\n  if (threadIdx.x == 0 && rank() == 1)');
    expect(src).toContain('if (rank() == 0) return;');
    const r = await runKernel(src, { args: mcArgs, grid: [2, 1, 1], cluster: [2, 1, 1] });
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/cp\.async\.bulk\.tensor.* targets CTA rank 0 of its cluster, which already exited/);
  });

  it('stops on a CTA mask naming ranks the cluster lacks, or none', async () => {
    let r = await runKernel(multicastKernel('0x4'), { args: mcArgs, grid: [2, 1, 1], cluster: [2, 1, 1] });
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/CTA mask 0x4 names CTA ranks beyond the cluster's 2/);
    r = await runKernel(multicastKernel('0x0'), { args: mcArgs, grid: [2, 1, 1], cluster: [2, 1, 1] });
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/CTA mask 0 names no CTA/);
  });

  it('binds CUtensorMap parameters only to tensormap(…) and says how to give one', async () => {
    const src = `#include <cuda.h>
__global__ void k(const __grid_constant__ CUtensorMap t, float* a) { (void)a; }`;
    await expect(runKernel(src, { args: ['a=f32[8]'] })).rejects.toThrow(/missing argument 't' of k: pass --arg t=tensormap\(BUFFER,box=\[…\]\)/);
    await expect(runKernel(src, { args: ['a=f32[8]', 't=f32[8]'] })).rejects.toThrow(/argument 't' is a CUtensorMap: give t=tensormap\(BUFFER,box=\[…\]\), not t=f32\[8\]/);
    await expect(runKernel(src, { args: ['a=tensormap(B,box=[8])', 'B=f32[8]', 't=tensormap(B,box=[8])'] })).rejects.toThrow(/^argument 'a' is a f32\*, not a CUtensorMap \(a=tensormap\(B,box=\[8\]\)\)$/);
    // The viewed buffer need not be a parameter; it is still an output.
    const r = await runKernel(src, { args: ['a=f32[8]', 'B=f32[4,8]:iota', 't=tensormap(B,box=[8,2])'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'B')[31]).toBe(31);
  });

  it('starts dynamic shared memory at the alignment its extern declaration asks for (swizzled destinations)', async () => {
    const src = `#include <cstdint>
__global__ void k(uint32_t* out) {
  __shared__ uint64_t bar;
  extern __shared__ __align__(1024) uint8_t smem[];
  out[0] = static_cast<uint32_t>(__cvta_generic_to_shared(smem)) % 1024;
  out[1] = static_cast<uint32_t>(__cvta_generic_to_shared(&bar)) < static_cast<uint32_t>(__cvta_generic_to_shared(smem));
}`;
    const r = await runKernel(src, { args: ['out=u32[2]'], block: [1, 1, 1], dynamicSmem: 4096 });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([0, 1]);
  });
});
