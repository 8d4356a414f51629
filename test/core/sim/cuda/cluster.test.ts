// Thread-block clusters in the CUDA simulator (core/sim/cluster.ts, sim/ptx-cluster.ts): launch
// validation, co-residency, the cluster barrier's split arrive/wait rules, distributed shared memory
// addressing and its faults, remote barriers named with their CTA rank, multicast masks, and the
// report for an access to a CTA that already exited. The GPU-recorded behaviour is in
// test/fixtures/sim/gpu/cluster (fidelity.test.ts).
import { describe, expect, it } from 'vitest';
import { ClusterLayout, clusterAddress, decodeClusterAddress, validateCluster } from '../../../../core/sim/cluster';
import { SimError } from '../../../../core/sim/machine';
import { runKernel, values } from './helpers';

const COMMON = `
#include <cstdint>
__device__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ uint32_t rank_of() { uint32_t r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
__device__ uint32_t map_rank(const void* p, uint32_t rank) { uint32_t r; asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(smem_u32(p)), "r"(rank)); return r; }
`;

describe('cluster layout (core/sim/cluster.ts)', () => {
  it('ranks are x-fastest inside the cluster and a cluster launches as consecutive CTAs', () => {
    const l = new ClusterLayout([4, 4, 1], [2, 2, 1], true);
    expect(l.placeOf([3, 1, 0])).toEqual({ cluster: 1, clusterIdx: [1, 0, 0], rank: 3, ctaid: [1, 1, 0] });
    expect([0, 1, 2, 3].map((n) => l.blockLaunched(n))).toEqual([0, 1, 4, 5]);
    expect(l.blockOf(3, 2)).toEqual(14);
    expect(l.clusterGrid).toEqual([2, 2, 1]);
  });

  it('shared::cluster addresses carry the rank from bit 24, as the H200 numbers them (rank 0: the plain window address)', () => {
    expect(clusterAddress(1, 0x400)).toBe(0x01000400);
    expect(decodeClusterAddress(clusterAddress(3, 0x410))).toEqual({ rank: 3, local: 0x410 });
    expect(decodeClusterAddress(0x410)).toEqual({ rank: 0, local: 0x410 });
  });

  it('validation names the cluster field: divisibility and the 16-CTA maximum', () => {
    const field = (grid: [number, number, number], c: [number, number, number]) => {
      try {
        validateCluster(grid, c);
        return 'ok';
      } catch (e) {
        return `${(e as SimError).field?.kind}: ${(e as SimError).message}`;
      }
    };
    expect(field([6, 1, 1], [4, 1, 1])).toMatch(/^cluster: .*gridDim.x = 6 is not divisible by 4/);
    expect(field([32, 1, 1], [32, 1, 1])).toMatch(/^cluster: .*32 CTAs exceeds the hardware maximum of 16/);
    expect(field([16, 1, 1], [16, 1, 1])).toBe('ok');
    expect(multicastMaskError()).toMatch(/CTA mask 0x4 names CTA ranks beyond the cluster's 2/);
  });
});

function multicastMaskError(): string {
  try {
    new ClusterLayout([2, 1, 1], [2, 1, 1], true).ranksOfMask(0b100, 'cp.async.bulk');
    return '';
  } catch (e) {
    return (e as Error).message;
  }
}

describe('cluster launches', () => {
  it('a launch cluster that contradicts __cluster_dims__ is refused, naming the field', async () => {
    const src = `__global__ void __cluster_dims__(2, 1, 1) k(int* out) { out[blockIdx.x] = 1; }`;
    await expect(runKernel(src, { grid: [4, 1, 1], cluster: [4, 1, 1], args: ['out=s32[4]'] })).rejects.toMatchObject({ field: { kind: 'cluster' } });
    const ok = await runKernel(src, { grid: [4, 1, 1], cluster: [2, 1, 1], args: ['out=s32[4]'] });
    expect(ok.status).toBe('completed');
  });

  it('a cluster is never split across resident waves', async () => {
    // Two CTAs of a cluster wait for each other on the cluster barrier: with room for 3 resident
    // blocks, a split cluster would deadlock. Each cluster records the order its CTAs passed.
    const src = `${COMMON}
__global__ void k(int* out) {
  asm volatile("barrier.cluster.arrive.release.aligned;\\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (threadIdx.x == 0) out[blockIdx.x] = (int)rank_of() + 10 * (blockIdx.x / 2);
}`;
    const { prepareCudaLaunch } = await import('../../../../core/lang/cuda/sim/index');
    const { parseArg } = await import('../../../../core/sim/args');
    const launch = await prepareCudaLaunch({ file: 'k.cu', text: src, grid: [6, 1, 1], block: [32, 1, 1], cluster: [2, 1, 1], args: [parseArg('out=s32[6]')] });
    // Room for 3 resident CTAs (the request has no residentBlocks field): one 2-CTA cluster at a time.
    (launch.machine as unknown as { residentLimit: number }).residentLimit = 3;
    const r = launch.machine.run();
    expect(r.status).toBe('completed');
    expect(launch.machine.blocks.length).toBe(6);
    const out = Array.from(new Int32Array(launch.buffers[0].buffer.bytes.buffer));
    expect(out).toEqual([0, 1, 10, 11, 20, 21]);
  });
});

describe('the cluster barrier', () => {
  it('arriving twice without a wait is an error naming the thread and the line', async () => {
    const r = await runKernel(`__global__ void __cluster_dims__(2,1,1) k() {
  asm volatile("barrier.cluster.arrive;");
  asm volatile("barrier.cluster.arrive;");
}`, { grid: [2, 1, 1] });
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/arrives on the cluster barrier again without a barrier.cluster.wait .*line 3/);
  });

  it('waiting without an arrival is an error', async () => {
    const r = await runKernel(`__global__ void __cluster_dims__(2,1,1) k() { asm volatile("barrier.cluster.wait;"); }`, { grid: [2, 1, 1] });
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/waits on the cluster barrier without having arrived/);
  });

  it('exited threads count as arrived; a CTA that never arrives deadlocks its peer, reported as a cluster sync', async () => {
    const done = await runKernel(`${COMMON}
__global__ void __cluster_dims__(2,1,1) k(int* out) {
  if (rank_of() == 1) return;  // rank 1 exits: its threads no longer hold the barrier back
  asm volatile("barrier.cluster.arrive;\\nbarrier.cluster.wait;");
  out[threadIdx.x] = 1;
}`, { grid: [2, 1, 1], args: ['out=s32[32]'] });
    expect(done.status).toBe('completed');
    expect(values(done, 'out')).toEqual(new Array(32).fill(1));
    const hang = await runKernel(`${COMMON}
__global__ void __cluster_dims__(2,1,1) k() {
  __shared__ uint64_t never;
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&never)));
  __syncthreads();
  if (rank_of() == 1) asm volatile("{\\n .reg .pred p;\\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n @!p bra W;\\n}" :: "r"(smem_u32(&never)));
  asm volatile("barrier.cluster.arrive;\\nbarrier.cluster.wait;");
}`, { grid: [2, 1, 1] });
    expect(hang.status).toBe('deadlock');
    expect(hang.message).toMatch(/barrier.cluster.wait \(cluster 0: 32 of 64 threads arrived\)/);
  });
});

describe('distributed shared memory', () => {
  it('mapa to a rank the cluster lacks faults', async () => {
    const r = await runKernel(`${COMMON}
__global__ void __cluster_dims__(2,1,1) k() {
  __shared__ int x;
  uint32_t a = map_rank(&x, 2);
  (void)a;
}`, { grid: [2, 1, 1] });
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/CTA rank 2 is outside the cluster \(ranks 0\.\.1\)/);
  });

  it('a shared::cluster address in a .shared::cta instruction is refused', async () => {
    const r = await runKernel(`${COMMON}
__global__ void __cluster_dims__(2,1,1) k() {
  __shared__ uint64_t bar;
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(map_rank(&bar, 1)));
}`, { grid: [2, 1, 1] });
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/shared::cluster address .* used where a shared::cta address is expected/);
  });

  it("__cvta_generic_to_shared of a map_shared_rank pointer is that CTA's shared::cluster address", async () => {
    const r = await runKernel(`#include <cooperative_groups.h>
${COMMON}
namespace cg = cooperative_groups;
__global__ void __cluster_dims__(2,1,1) k(unsigned* out) {
  __shared__ int x;
  cg::cluster_group c = cg::this_cluster();
  int* peer = c.map_shared_rank(&x, c.block_rank() ^ 1);
  if (threadIdx.x == 0) out[blockIdx.x] = (unsigned)__cvta_generic_to_shared(peer) == map_rank(&x, c.block_rank() ^ 1) ? 1u : 0u;
  c.sync();
}`, { grid: [2, 1, 1], args: ['out=u32[2]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([1, 1]);
  });

  it('a remote arrive after the owner CTA exited is reported with the arrive line and the exit line', async () => {
    const r = await runKernel(`${COMMON}
__global__ void __cluster_dims__(2,1,1) k() {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&bar)));
  asm volatile("barrier.cluster.arrive;\\nbarrier.cluster.wait;");
  if (rank_of() == 1 && threadIdx.x == 0) {
    for (int i = 0; i < 50; ++i) __nanosleep(10);
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" :: "r"(map_rank(&bar, 0)));
  }
}`, { grid: [2, 1, 1] });
    expect(r.status, r.message).toBe('error');
    expect(r.message).toMatch(/targets CTA rank 0 of its cluster, which already exited \(its last thread ended at line 15\)/);
    expect(r.message).toMatch(/block 1 · warp 0 · lane 0, line 13/);
  });
});

describe('remote barriers in reports', () => {
  it('a deadlock names the CTA rank of each barrier', async () => {
    const r = await runKernel(`${COMMON}
__global__ void __cluster_dims__(2,1,1) k() {
  __shared__ uint64_t full;
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" :: "r"(smem_u32(&full)));
  asm volatile("barrier.cluster.arrive;\\nbarrier.cluster.wait;");
  if (threadIdx.x == 0) asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" :: "r"(map_rank(&full, rank_of() ^ 1)));
  asm volatile("{\\n .reg .pred p;\\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n @!p bra W;\\n}" :: "r"(smem_u32(&full)));
}`, { grid: [2, 1, 1] });
    expect(r.status).toBe('deadlock');
    expect(r.message).toContain('full (CTA rank 0)');
    expect(r.message).toContain('full (CTA rank 1)');
  });
});

describe('cluster PTX forms', () => {
  it('atom.shared::cluster returns the old value of the peer variable and updates it', async () => {
    const r = await runKernel(`${COMMON}
__global__ void __cluster_dims__(2,1,1) k(unsigned* out) {
  __shared__ unsigned x;
  if (threadIdx.x == 0) x = 10;
  asm volatile("barrier.cluster.arrive;\\nbarrier.cluster.wait;");
  if (rank_of() == 1 && threadIdx.x == 0) {
    unsigned old;
    asm volatile("atom.shared::cluster.add.u32 %0, [%1], 5;" : "=r"(old) : "r"(map_rank(&x, 0)) : "memory");
    out[0] = old;
  }
  asm volatile("barrier.cluster.arrive;\\nbarrier.cluster.wait;");
  if (rank_of() == 0 && threadIdx.x == 0) out[1] = x;
}`, { grid: [2, 1, 1], args: ['out=u32[2]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([10, 15]);
  });

  it('tcgen05.commit with .multicast::cluster arrives on the barrier at the same offset in every CTA of the mask', async () => {
    const src = (mask: number) => `${COMMON}
__global__ void __cluster_dims__(2,1,1) k(unsigned* out) {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" :: "r"(smem_u32(&bar)));
  asm volatile("barrier.cluster.arrive;\\nbarrier.cluster.wait;");
  if (threadIdx.x == 0) asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" :: "r"(smem_u32(&bar)), "h"((uint16_t)${mask}));
  asm volatile("{\\n .reg .pred p;\\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n @!p bra W;\\n}" :: "r"(smem_u32(&bar)));
  if (threadIdx.x == 0) out[blockIdx.x] = 1;
  asm volatile("barrier.cluster.arrive;\\nbarrier.cluster.wait;");
}`;
    const both = await runKernel(src(3), { grid: [2, 1, 1], args: ['out=u32[2]'] });
    expect(both.status, both.message).toBe('completed');
    expect(values(both, 'out')).toEqual([1, 1]);
    // Only CTA rank 0 in the mask: its barrier gets both CTAs' arrivals, rank 1's none.
    const one = await runKernel(src(1), { grid: [2, 1, 1], args: ['out=u32[2]'] });
    expect(one.status).toBe('deadlock');
    expect(one.message).toContain('bar (CTA rank 1)');
  });

  it('a peer pointer from map_shared_rank in a .shared::cta instruction is refused', async () => {
    const r = await runKernel(`#include <cooperative_groups.h>
${COMMON}
__global__ void __cluster_dims__(2,1,1) k() {
  __shared__ uint64_t bar;
  auto c = cooperative_groups::this_cluster();
  uint64_t* peer = c.map_shared_rank(&bar, c.block_rank() ^ 1);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "l"(peer));
}`, { grid: [2, 1, 1] });
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/'bar' of another CTA used where a shared::cta address is expected/);
  });
});

describe('bulk copies into a peer CTA', () => {
  const kernel = (barRank: string) => `${COMMON}
__global__ void __cluster_dims__(2,1,1) k(float* out) {
  __shared__ alignas(16) float src[16];
  __shared__ alignas(16) float dst[16];
  __shared__ uint64_t full;
  const uint32_t rank = rank_of();
  if (threadIdx.x < 16) src[threadIdx.x] = (float)(threadIdx.x + 100 * rank);
  // The copy reads src through the async proxy: the generic writes above must be fenced first.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&full)));
    if (rank == 1) asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 64;" :: "r"(smem_u32(&full)));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  asm volatile("barrier.cluster.arrive.release;\\nbarrier.cluster.wait.acquire;");
  if (rank == 0 && threadIdx.x == 0)
    asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], 64, [%2];"
                 :: "r"(map_rank(&dst, 1)), "r"(smem_u32(&src)), "r"(${barRank}) : "memory");
  if (rank == 1) {
    asm volatile("{\\n .reg .pred p;\\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n @!p bra W;\\n}" :: "r"(smem_u32(&full)));
    if (threadIdx.x < 16) out[threadIdx.x] = dst[threadIdx.x];
  }
  asm volatile("barrier.cluster.arrive.release;\\nbarrier.cluster.wait.acquire;");
}`;

  it('cp.async.bulk.shared::cluster.shared::cta lands in the peer and completes its barrier', async () => {
    const r = await runKernel(kernel('map_rank(&full, 1)'), { grid: [2, 1, 1], args: ['out=f32[16]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual(Array.from({ length: 16 }, (_, i) => i));
  });

  it('a destination and a barrier in different CTAs are refused', async () => {
    const r = await runKernel(kernel('smem_u32(&full)'), { grid: [2, 1, 1], args: ['out=f32[16]'] });
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/the destination \('dst'\) and the mbarrier \('full'\) are in different CTAs/);
  });
});

describe('races across the CTAs of a cluster (one set of vector clocks per cluster)', () => {
  const exchange = (arrive: string) => `${COMMON}
__global__ void __cluster_dims__(2,1,1) k(float* out) {
  __shared__ float x[32];
  asm volatile("st.shared::cluster.f32 [%0], %1;" :: "r"(map_rank(&x[threadIdx.x], rank_of() ^ 1)), "f"((float)threadIdx.x) : "memory");
  asm volatile("${arrive}\\nbarrier.cluster.wait.acquire;" ::: "memory");
  out[blockIdx.x * 32 + threadIdx.x] = x[(threadIdx.x + 1) % 32];
  asm volatile("barrier.cluster.arrive.release;\\nbarrier.cluster.wait.acquire;" ::: "memory");
}`;

  it('a peer write ordered by barrier.cluster.arrive.release + wait.acquire is no race', async () => {
    const r = await runKernel(exchange('barrier.cluster.arrive.release;'), { grid: [2, 1, 1], args: ['out=f32[64]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([0, 1].flatMap(() => Array.from({ length: 32 }, (_, t) => (t + 1) % 32)));
  });

  it('with a relaxed arrive the peer write and the local read race, both lines named', async () => {
    const r = await runKernel(exchange('barrier.cluster.arrive.relaxed;'), { grid: [2, 1, 1], args: ['out=f32[64]'] });
    expect(r.status).toBe('race');
    expect(r.message).toMatch(/shared 'x'/);
    expect(r.message).toMatch(/line 9/);
    expect(r.message).toMatch(/line 11/);
  });

  it('a DSMEM write with no cluster barrier at all races with the owner\'s read', async () => {
    const r = await runKernel(`${COMMON}
__global__ void __cluster_dims__(2,1,1) k(float* out) {
  __shared__ float x[32];
  if (rank_of() == 0) asm volatile("st.shared::cluster.f32 [%0], %1;" :: "r"(map_rank(&x[threadIdx.x], 1)), "f"(1.0f) : "memory");
  else out[threadIdx.x] = x[threadIdx.x];
  asm volatile("barrier.cluster.arrive;\\nbarrier.cluster.wait;" ::: "memory");
}`, { grid: [2, 1, 1], args: ['out=f32[32]'] });
    expect(r.status).toBe('race');
    expect(r.message).toMatch(/block 0 .* line 9|line 9 .* block 0/);
    expect(r.message).toMatch(/block 1 .* line 10|line 10 .* block 1/);
  });
});

describe('a CTA that exits while a copy into it is in flight', () => {
  it('the copy landing in the exited CTA is reported with its issuing line and the exit line', async () => {
    const r = await runKernel(`${COMMON}
__global__ void __cluster_dims__(2,1,1) k(const float* in) {
  __shared__ alignas(16) float dst[16];
  __shared__ uint64_t full;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&full)));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  asm volatile("barrier.cluster.arrive.release;\\nbarrier.cluster.wait.acquire;");
  if (rank_of() == 0 && threadIdx.x == 0)
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 64, [%2];"
                 :: "r"(map_rank(&dst, 1)), "l"(in), "r"(map_rank(&full, 1)) : "memory");
}`, { grid: [2, 1, 1], args: ['in=f32[16]:iota'] });
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/^cp.async.bulk 64 B → dst \(CTA rank 1; complete_tx on full\): its delivery into CTA rank 1 at line 16 targets CTA rank 1 of its cluster, which already exited \(its last thread ended at line 18\)/);
  });
});

describe('cooperative groups cluster_group', () => {
  it('barrier_arrive / barrier_wait split the cluster barrier around independent work', async () => {
    const r = await runKernel(`#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void __cluster_dims__(2,1,1) k(int* out) {
  __shared__ int x;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) x = 7 + (int)cluster.block_rank();
  auto token = cluster.barrier_arrive();
  int local = (int)threadIdx.x * 2;
  cluster.barrier_wait(std::move(token));
  int* peer = cluster.map_shared_rank(&x, cluster.block_rank() ^ 1);
  out[blockIdx.x * 32 + threadIdx.x] = *peer + local;
  cluster.sync();
}`, { grid: [2, 1, 1], args: ['out=s32[64]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([8, 7].flatMap((peerX) => Array.from({ length: 32 }, (_, t) => peerX + 2 * t)));
  });
});

describe("CUDA's cluster intrinsics", () => {
  it('__cluster_barrier_arrive/wait, __clusterRelativeBlockRank, __clusterDim, __cluster_map_shared_rank', async () => {
    const r = await runKernel(`__global__ void __cluster_dims__(2,1,1) k(unsigned* out) {
  __shared__ unsigned x;
  if (threadIdx.x == 0) x = 100 + __clusterRelativeBlockRank();
  __cluster_barrier_arrive();
  __cluster_barrier_wait();
  unsigned* peer = __cluster_map_shared_rank(&x, __clusterRelativeBlockRank() ^ 1);
  if (threadIdx.x == 0) {
    out[blockIdx.x * 4] = *peer;
    out[blockIdx.x * 4 + 1] = __clusterSizeInBlocks();
    out[blockIdx.x * 4 + 2] = __clusterDim().x;
    out[blockIdx.x * 4 + 3] = __cluster_query_shared_rank(peer);
  }
  __cluster_barrier_arrive_relaxed();
  __cluster_barrier_wait();
}`, { grid: [4, 1, 1], args: ['out=u32[16]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([101, 2, 2, 1, 100, 2, 2, 0, 101, 2, 2, 1, 100, 2, 2, 0]);
  });
});
