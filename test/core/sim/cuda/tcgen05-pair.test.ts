// CTA pairs (tcgen05 `.cta_group::2`) in the CUDA executor. ISA-derived, not GPU-recorded: Blackwell
// kernels cannot run on the project's H200, so every expectation here comes from the PTX ISA (the
// CTA pair, Table 46's issue granularity, the kind::f16 shapes of Table 39, cp.async.bulk.tensor's
// .cta_group) and from how CUTLASS uses the instructions (SM100_MMA_F16BF16_2x1SM_SS's operand
// split, tmem_frg_2sm's accumulator layout, SM100_TMA_2SM_LOAD, umma_arrive_multicast_2x1SM,
// Allocator2Sm, SM100_UTCCP_*_2cta). The kernels follow CUTLASS's 2SM UMMA mainloop: both CTAs of
// a pair load their halves of A and B with TMA, completing on the even CTA's barrier; the even CTA
// issues the pair MMA and commits with a multicast to both CTAs. Outputs are checked against a
// product computed here from small integers (exact in bf16 and f32).
import { describe, expect, it } from 'vitest';
import { parseArg } from '../../../../core/sim/args';
import { toBf16Bits } from '../../../../core/sim/dtypes';
import type { SimulateRequest } from '../../../../core/sim/run';
import { simulate } from '../../../../core/simulate';
import { runKernel, values } from './helpers';

const aAt = (i: number, k: number) => ((i * 3 + k) % 5) - 2;
const bAt = (n: number, k: number) => ((n + 2 * k) % 7) - 3;

/** A bf16 [rows, cols] buffer argument holding `at(row, col)`. */
function bf16Arg(name: string, rows: number, cols: number, at: (r: number, c: number) => number) {
  const spec = parseArg(`${name}=bf16[${rows},${cols}]:file(${name}.npy)`);
  const bytes = new Uint8Array(rows * cols * 2);
  const dv = new DataView(bytes.buffer);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) dv.setUint16((r * cols + c) * 2, toBf16Bits(at(r, c)), true);
  if (spec.kind !== 'buffer' || spec.init.kind !== 'file') throw new Error('not a file buffer');
  spec.init.data = { dtype: 'bf16', shape: [rows, cols], bytes };
  return spec;
}

const PRELUDE = `#include <cstdint>
#include <cuda.h>
__device__ uint32_t smem(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ uint32_t rank() { uint32_t r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
__device__ uint32_t at_rank(const void* p, uint32_t r) { uint32_t a; asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(smem(p)), "r"(r)); return a; }
__device__ void csync() { asm volatile("barrier.cluster.arrive.release.aligned;\\n barrier.cluster.wait.acquire.aligned;" ::: "memory"); }
__device__ void init(uint64_t* b, uint32_t n) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(b)), "r"(n) : "memory"); }
__device__ void wait(uint64_t* b, uint32_t parity) {
  asm volatile("{\\n .reg .pred p;\\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\\n @!p bra W;\\n}" :: "r"(smem(b)), "r"(parity) : "memory");
}
// K-major, 32-byte swizzle (a row of 16 bf16 per 32 bytes, 8-row groups 256 bytes apart): what a TMA box [16, rows] with swizzle=32B writes.
__device__ uint64_t desc(const void* p) { return ((smem(p) >> 4) & 0x3FFF) | (1ull << 16) | ((uint64_t)(256 >> 4) << 32) | (1ull << 46) | (6ull << 61); }
`;

interface MainloopOpts {
  M: number;
  N: number;
  cluster: number;
  /** The CTA rank whose barrier the TMA loads complete on (default: the even CTA of the pair). */
  barrierRank?: string;
  /**
   * Cluster of 4: pair 0's CTAs multicast their half of B to the same CTA of pair 1 too (CUTLASS's
   * SM100_TMA_2SM_LOAD_MULTICAST), and each pair's MMA releases the stage to every CTA that writes it.
   */
  multicastB?: boolean;
  /** Name the even CTA's barrier as CUTLASS's SM100_TMA_2SM_LOAD does: a shared::cta address with bit 24 cleared. */
  peerBitMask?: boolean;
  /** The loads through cuda::ptx::cp_async_bulk_tensor(…, cta_group_2, …) with a map_shared_rank barrier. */
  cpp?: boolean;
  /** The bug: the odd CTA's producer refills a stage without waiting for the pair MMA to release it. */
  oddSkipsEmpty?: boolean;
}

/** CUTLASS's 2SM UMMA mainloop, 4 k-blocks of 16 through 2 stages; each pair computes M rows of A x B^T. */
function mainloop(o: MainloopOpts): string {
  const { M, N } = o;
  const bytes = 2 * ((M / 2) * 32 + (N / 2) * 32);
  const epilogue =
    M === 256
      ? `for (int c = 0; c < N; c++) { uint32_t x; asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(x) : "r"(tmem + ((uint32_t)(warp * 32) << 16) + c)); asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory"); out[(pair_id * M + self * 128 + warp * 32 + lane) * N + c] = __uint_as_float(x); }`
      : `for (int c = 0; c < N / 2; c++) { uint32_t x; asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(x) : "r"(tmem + ((uint32_t)(warp * 32) << 16) + c)); asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory"); const int L = warp * 32 + lane; out[(pair_id * M + self * 64 + (L & 63)) * N + c + (L >= 64 ? N / 2 : 0)] = __uint_as_float(x); }`;
  return `${PRELUDE}${o.cpp ? '#include <cooperative_groups.h>\n#include <cuda/ptx>\n' : ''}
constexpr int M = ${M}, N = ${N}, KB = 4, STAGES = 2;
__global__ void __cluster_dims__(${o.cluster},1,1) k(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb, float* out) {
  __shared__ alignas(1024) uint8_t sA[STAGES][M / 2 * 32];
  __shared__ alignas(1024) uint8_t sB[STAGES][N / 2 * 32];
  __shared__ uint64_t full[STAGES], empty[STAGES], done;
  __shared__ uint32_t tmem_slot;
  const uint32_t r = rank(), leader = r & ~1u, self = r & 1u;
  const uint16_t pair_mask = (uint16_t)(3u << leader);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int pair_id = blockIdx.x / 2;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; s++) { init(&full[s], 1); init(&empty[s], ${o.multicastB ? 'r < 2 ? 2 : 1' : '1'}); }
    init(&done, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;" :: "r"(smem(&tmem_slot)), "r"(N) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;" ::: "memory");
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  csync();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_slot;
  if (threadIdx.x == 0) {
    for (int kb = 0; kb < KB; kb++) {
      const int s = kb % STAGES;
      ${o.oddSkipsEmpty ? 'if (self == 0) ' : ''}wait(&empty[s], ((kb / STAGES) & 1) ^ 1);
      if (self == 0) asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem(&full[s])), "r"(${bytes}) : "memory");
      const uint32_t bar = ${o.peerBitMask ? 'smem(&full[s]) & 0xFEFFFFFFu' : `at_rank(&full[s], ${o.barrierRank ?? 'leader'})`};
      ${
        o.cpp
          ? `uint64_t* leader_bar = cooperative_groups::this_cluster().map_shared_rank(&full[s], leader);
      const int32_t ca[2] = {kb * 16, pair_id * M + (int)self * (M / 2)}, cb[2] = {kb * 16, (int)self * (N / 2)};
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, cuda::ptx::cta_group_2, sA[s], &ta, ca, leader_bar);
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, cuda::ptx::cta_group_2, sB[s], &tb, cb, leader_bar);
      continue;`
          : ''
      }
      asm volatile("cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                   :: "r"(smem(sA[s])), "l"(&ta), "r"(kb * 16), "r"(pair_id * M + (int)self * (M / 2)), "r"(bar) : "memory");
      ${
        o.multicastB
          ? `if (r < 2) asm volatile("cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;"
                   :: "r"(smem(sB[s])), "l"(&tb), "r"(kb * 16), "r"((int)self * (N / 2)), "r"(bar), "h"((uint16_t)((1u << r) | (1u << (r + 2)))) : "memory");`
          : `asm volatile("cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                   :: "r"(smem(sB[s])), "l"(&tb), "r"(kb * 16), "r"((int)self * (N / 2)), "r"(bar) : "memory");`
      }
    }
  }
  if (threadIdx.x == 32 && self == 0) {
    const uint32_t idesc = (1u << 4) | (1u << 7) | (1u << 10) | ((uint32_t)(N >> 3) << 17) | ((uint32_t)(M >> 4) << 24);
    const uint32_t lanes_on[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int kb = 0; kb < KB; kb++) {
      const int s = kb % STAGES;
      wait(&full[s], (kb / STAGES) & 1);
      asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
      asm volatile("{\\n .reg .pred p;\\n setp.ne.b32 p, %4, 0;\\n tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, {%5, %6, %7, %8, %9, %10, %11, %12}, p;\\n}"
                   :: "r"(tmem), "l"(desc(sA[s])), "l"(desc(sB[s])), "r"(idesc), "r"(kb),
                      "r"(lanes_on[0]), "r"(lanes_on[1]), "r"(lanes_on[2]), "r"(lanes_on[3]), "r"(lanes_on[4]), "r"(lanes_on[5]), "r"(lanes_on[6]), "r"(lanes_on[7]) : "memory");
      asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" :: "r"(smem(&empty[s])), "h"((uint16_t)(pair_mask${o.multicastB ? ' | 3u' : ''})) : "memory");
    }
    asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" :: "r"(smem(&done)), "h"(pair_mask) : "memory");
  }
  wait(&done, 0);
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  ${epilogue}
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  csync();
  if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;" :: "r"(tmem), "r"(N) : "memory");
}`;
}

async function runMainloop(o: MainloopOpts, extra: Partial<SimulateRequest> = {}) {
  const pairs = o.cluster / 2;
  return simulate({
    file: 'k.cu',
    text: mainloop(o),
    block: [128, 1, 1],
    grid: [o.cluster, 1, 1],
    maxSteps: 20_000_000,
    args: [
      bf16Arg('A', pairs * o.M, 64, aAt),
      bf16Arg('B', o.N, 64, bAt),
      parseArg(`ta=tensormap(A,box=[16,${o.M / 2}],swizzle=32B)`),
      parseArg(`tb=tensormap(B,box=[16,${o.N / 2}],swizzle=32B)`),
      parseArg(`out=f32[${pairs * o.M * o.N}]`),
    ],
    ...extra,
  });
}

/** The CPU reference: out[row][n] = sum over k < 64 of A[row][k] * B[n][k]. */
function reference(rows: number, N: number): number[] {
  const want: number[] = [];
  for (let i = 0; i < rows; i++)
    for (let n = 0; n < N; n++) {
      let s = 0;
      for (let k = 0; k < 64; k++) s += aAt(i, k) * bAt(n, k);
      want.push(s);
    }
  return want;
}

describe('tcgen05 CTA pairs (.cta_group::2): ISA-derived, not GPU-recorded', () => {
  for (const [M, N, cluster] of [
    [256, 64, 2],
    [128, 64, 2],
    [256, 32, 4],
  ] as const)
    it(`a 2SM UMMA mainloop, M = ${M}, N = ${N}, cluster of ${cluster}: A's rows and B's columns split across the pair, D in both CTAs' tensor memory`, async () => {
      const r = await runMainloop({ M, N, cluster });
      expect(r.status, r.message).toBe('completed');
      expect(values(r, 'out')).toEqual(reference((cluster / 2) * M, N));
    });

  it('multicasts B from one pair to the other: each destination CTA completes on its own pair’s even-CTA barrier', async () => {
    const r = await runMainloop({ M: 128, N: 32, cluster: 4, multicastB: true });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual(reference(256, 32));
    const random = await runMainloop({ M: 128, N: 32, cluster: 4, multicastB: true }, { schedule: 'random', seed: 3 });
    expect(random.status, random.message).toBe('completed');
  });

  it('the same through cuda::ptx::cp_async_bulk_tensor with cta_group_2 and a map_shared_rank barrier', async () => {
    const r = await runMainloop({ M: 128, N: 64, cluster: 2, cpp: true });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual(reference(128, 64));
  });

  it('runs CUTLASS’s bit-24 peer-barrier address: the odd CTA’s own barrier address with bit 24 cleared is the even CTA’s barrier', async () => {
    // Shared addresses carry the CTA's rank from bit 24 (recorded on the H200: gpu-probes/cluster-addresses).
    for (const M of [256, 128]) {
      const r = await runMainloop({ M, N: 32, cluster: 2, peerBitMask: true });
      expect(r.status, r.message).toBe('completed');
      expect(values(r, 'out')).toEqual(reference(M, 32));
    }
  });

  it('runs the same under the adversarial and random schedules (the pair barriers order every stage)', async () => {
    for (const [schedule, seed] of [['adversarial', 1], ['random', 7]] as const) {
      const r = await runMainloop({ M: 128, N: 32, cluster: 2 }, { schedule, seed });
      expect(r.status, `${schedule}: ${r.message}`).toBe('completed');
      expect(values(r, 'out'), schedule).toEqual(reference(128, 32));
    }
  });

  it('reports the race when the odd CTA refills a stage the pair MMA still reads (its producer skips the empty barrier)', async () => {
    const r = await runMainloop({ M: 256, N: 32, cluster: 2, oddSkipsEmpty: true }, { latencies: { tcgen05: 2000 } });
    expect(r.status, r.message).toBe('race');
    // The refill of stage 0 (k-block 2) is ordered after neither the first fill's landing nor the pair MMA's read of it.
    expect(r.message).toMatch(/^data race on shared 's[AB]' byte \d+: write by cp\.async\.bulk\.tensor \{32, \d+\} \d+ B → s[AB] \(complete_tx on full\[0\] \(CTA rank 0\)\) issued by block 1 · warp 0 · lane 0 · producer at line \d+ is not ordered by any barrier with the (write|read) by an async operation issued by block [01]/);
  });

  it('reports a TMA load whose .cta_group::2 barrier is in a CTA outside the pair', async () => {
    const r = await runMainloop({ M: 256, N: 32, cluster: 4, barrierRank: 'leader ^ 2u' });
    expect(r.status, r.message).toBe('misuse');
    expect(r.message).toMatch(/with \.cta_group::2 the mbarrier must be in the destination's CTA \(rank \d\) or its peer \(rank \d\), not in CTA rank \d/);
  });

});

describe('tcgen05 CTA-pair misuse and the collective allocation', () => {
  const alloc = (body: string, dims = '2,1,1') => `${PRELUDE}
__global__ void __cluster_dims__(${dims}) k(uint32_t* out) {
  __shared__ uint32_t slot;
  __shared__ uint64_t bar;
  __shared__ __align__(1024) uint8_t sA[4096];
  const int warp = threadIdx.x / 32;
${body}
}`;
  // A pair allocation and a barrier, then \`issue\` (M = 128, N = 32, zero operands), then \`after\`.
  const pairMma = (issue: string, after: string) =>
    alloc(`  if (warp == 0) asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(smem(&slot)) : "memory");
  if (threadIdx.x == 0) { init(&bar, 1); asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  csync();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (${issue}) {
    asm volatile("{\\n .reg .pred p;\\n setp.ne.b32 p, 0, 0;\\n tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %1, %2, p;\\n}" :: "r"(slot), "l"(desc(sA)), "r"((1u << 4) | (1u << 7) | (1u << 10) | ((32u >> 3) << 17) | ((128u >> 4) << 24)) : "memory");
    asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [%0];" :: "r"(smem(&bar)) : "memory");
  }
${after}`);

  it('reports both CTAs of a pair issuing the pair MMA as misuse, naming both lines', async () => {
    const r = await runKernel(pairMma('threadIdx.x == 0', '  if (threadIdx.x == 0) wait(&bar, 0);\n  csync();\n  if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, 32;" :: "r"(slot) : "memory");'), { grid: [2, 1, 1], args: ['out=u32[1]'] });
    expect(r.status, r.message).toBe('misuse');
    expect(r.message).toMatch(/tcgen05\.mma\.cta_group::2\.kind::f16: both CTAs of the pair issue the pair MMA on the accumulator at tensor-memory address 0x0 \(CTA rank (\d) at line 25, still in flight, and CTA rank (?!\1)\d here\); one thread of the CTA pair issues/);
  });

  it('reports a dealloc while the pair MMA still writes the tensor memory, in the CTA that did not issue it too', async () => {
    // Rank 1 reaches the collective dealloc last, so its lanes run the dealloc's in-flight check first
    // when threads run one at a time; in warp lockstep rank 0's waiting lanes pass it first (the
    // report then names block 0, the issuer's CTA, which the test above covers).
    const r = await runKernel(
      pairMma('threadIdx.x == 0 && rank() == 0', '  csync();\n  if (rank() == 1) asm volatile("nanosleep.u32 1000;");\n  if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, 32;" :: "r"(slot) : "memory");'),
      { grid: [2, 1, 1], args: ['out=u32[1]'], latencies: { tcgen05: 100000 }, lockstep: false },
    );
    expect(r.status, r.message).toBe('misuse');
    expect(r.message).toMatch(/^tcgen05\.dealloc by block 1 · warp 0 · lane \d+ at line \d+ while tcgen05\.mma \(CTA pair\) 128x32x16 issued by block 0 · warp 0 · lane 0 · mma at line 25 is still in flight/);
  });

  it('allocates the same columns in both CTAs and writes the address into each CTA’s shared memory', async () => {
    const r = await runKernel(
      alloc(`  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(smem(&slot)) : "memory");
    if (rank() == 1) asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 64;" :: "r"(smem(&slot)) : "memory");
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 64;" :: "r"(smem(&slot)) : "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) out[rank()] = slot;`),
      { grid: [2, 1, 1], args: ['out=u32[2]'] },
    );
    expect(r.status, r.message).toBe('completed');
    // Rank 0 had 32 columns in use and rank 1 96: the pair's 64 columns start past both (column 96).
    expect(values(r, 'out')).toEqual([96, 96]);
  });

  it('pairs the allocations by each warp’s k-th execution, wherever in the code the two CTAs allocate', async () => {
    const r = await runKernel(
      alloc(`  if (warp == 0) {
    if (rank() == 0) asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(smem(&slot)) : "memory");
    else asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(smem(&slot)) : "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) out[rank()] = slot;
  csync();
  if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, 32;" :: "r"(slot) : "memory");`),
      { grid: [2, 1, 1], args: ['out=u32[2]'] },
    );
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([0, 0]);
  });

  it('a CTA-pair allocation waits for the peer’s warp: a peer that never allocates is a deadlock naming the instruction', async () => {
    const r = await runKernel(
      alloc(`  if (warp == 0 && rank() == 0) asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(smem(&slot)) : "memory");`),
      { grid: [2, 1, 1], args: ['out=u32[2]'] },
    );
    expect(r.status, r.message).toBe('deadlock');
    expect(r.message).toMatch(/\.cta_group::2 is collective: it waits for a warp of the peer CTA, rank 1, to execute it too/);
  });

  it('reports an allocation after the CTA relinquished its allocation permit', async () => {
    const r = await runKernel(
      alloc(`  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(smem(&slot)) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;" ::: "memory");
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(smem(&slot)) : "memory");
  }`),
      { grid: [2, 1, 1], args: ['out=u32[2]'] },
    );
    expect(r.status, r.message).toBe('misuse');
    expect(r.message).toMatch(/this CTA already relinquished its tensor-memory allocation permit \(tcgen05\.relinquish_alloc_permit at line 21\); an allocation after that is illegal \(block \d · warp 0 · lane \d+ at line 22\)/);
  });

  it('reports the pair’s two warps asking for different column counts', async () => {
    const r = await runKernel(
      alloc(`  if (warp == 0) asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;" :: "r"(smem(&slot)), "r"(32u << rank()) : "memory");`),
      { grid: [2, 1, 1], args: ['out=u32[2]'] },
    );
    expect(r.status, r.message).toBe('misuse');
    expect(r.message).toMatch(/ask for different column counts \(32 in the even CTA, 64 in the odd one\)/);
  });

  it('reports .cta_group::2 outside a cluster, and in the CTA without a peer of an odd-sized cluster', async () => {
    const lone = await runKernel(`${PRELUDE}
__global__ void k() {
  __shared__ uint32_t slot;
  asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(smem(&slot)) : "memory");
}`);
    expect(lone.status, lone.message).toBe('misuse');
    expect(lone.message).toMatch(/^tcgen05\.alloc\.cta_group::2\.sync\.aligned\.shared::cta\.b32: \.cta_group::2 runs on a CTA pair, the CTAs whose %cluster_ctarank differ only in bit 0, but the kernel is not launched in clusters of an even number of CTAs \(block 0 · warp 0 · lane 0 at line 16\)/);
    const odd = await runKernel(
      alloc(`  if (threadIdx.x == 0 && rank() == 2) asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [%0];" :: "r"(smem(&bar)) : "memory");`, '3,1,1'),
      { grid: [3, 1, 1], args: ['out=u32[1]'] },
    );
    expect(odd.status, odd.message).toBe('misuse');
    expect(odd.message).toMatch(/the cluster has 3 CTAs, so CTA rank 2 has no peer \(rank 3\)/);
  });

  it('reports a .cta_group::2 MMA or dealloc on columns allocated with .cta_group::1', async () => {
    const mixed = (instr: string) =>
      alloc(`  if (warp == 0) asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(smem(&slot)) : "memory");
  __syncthreads();
  const uint32_t tmem = slot;
  ${instr}`);
    const mma = await runKernel(
      mixed(`if (threadIdx.x == 0 && rank() == 0) asm volatile("{\\n .reg .pred p;\\n setp.ne.b32 p, 0, 0;\\n tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %1, %2, p;\\n}" :: "r"(tmem), "l"(desc(&bar)), "r"((1u << 4) | ((32u >> 3) << 17) | ((128u >> 4) << 24)) : "memory");`),
      { grid: [2, 1, 1], args: ['out=u32[1]'] },
    );
    expect(mma.status, mma.message).toBe('misuse');
    expect(mma.message).toMatch(/tcgen05\.mma\.cta_group::2\.kind::f16: tensor-memory column 0 was allocated with tcgen05\.alloc\.cta_group::1 at line 19, but this instruction uses \.cta_group::2/);
    const dealloc = await runKernel(mixed(`if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, 32;" :: "r"(tmem) : "memory");`), { grid: [2, 1, 1], args: ['out=u32[1]'] });
    expect(dealloc.status, dealloc.message).toBe('misuse');
    expect(dealloc.message).toMatch(/tcgen05\.dealloc\.cta_group::2\.sync\.aligned\.b32: tensor-memory column 0 was allocated with tcgen05\.alloc\.cta_group::1/);
  });

  it('refuses a pair MMA shape the ISA does not have for .cta_group::2 (M = 64)', async () => {
    const r = await runKernel(
      alloc(`  if (warp == 0) asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(smem(&slot)) : "memory");
  __syncthreads();
  if (threadIdx.x == 0 && rank() == 0) asm volatile("{\\n .reg .pred p;\\n setp.ne.b32 p, 0, 0;\\n tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %1, %2, p;\\n}" :: "r"(slot), "l"(desc(&bar)), "r"((1u << 4) | ((32u >> 3) << 17) | ((64u >> 4) << 24)) : "memory");`),
      { grid: [2, 1, 1], args: ['out=u32[1]'] },
    );
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/M = 64 is not a \.cta_group::2 shape of kind::f16 \(M = 128 or 256\)/);
  });
});

describe('tcgen05.cp with .cta_group::2 and the .4x256b shape (ISA-derived, not GPU-recorded)', () => {
  // Each CTA fills a K-major u32 matrix (element (row, w) = rank * 10000 + row * 100 + w); the even
  // CTA issues one pair copy and commits to both CTAs; every CTA finds its own matrix in its lanes.
  const src = (shape: string, words: number) => `${PRELUDE}
__global__ void __cluster_dims__(2,1,1) k(uint32_t* out) {
  __shared__ __align__(1024) uint8_t sM[16384];
  __shared__ uint64_t done;
  __shared__ uint32_t slot;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int i = threadIdx.x; i < 128 * ${words}; i += 128) {
    const int row = i / ${words}, w = i % ${words};
    *(uint32_t*)(sM + (row & 7) * 16 + (row >> 3) * 128 + (w / 4) * 2048 + (w % 4) * 4) = rank() * 10000 + row * 100 + w;
  }
  if (threadIdx.x == 0) { init(&done, 1); asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
  if (warp == 0) asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(smem(&slot)) : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  csync();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (threadIdx.x == 0 && rank() == 0) {
    const uint64_t d = ((smem(sM) >> 4) & 0x3FFF) | ((uint64_t)(2048 >> 4) << 16) | ((uint64_t)(128 >> 4) << 32) | (1ull << 46);
    asm volatile("tcgen05.cp.cta_group::2.${shape} [%0], %1;" :: "r"(slot), "l"(d) : "memory");
    asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" :: "r"(smem(&done)), "h"((uint16_t)3) : "memory");
  }
  wait(&done, 0);
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  for (int w = 0; w < ${words}; w++) {
    uint32_t x;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(x) : "r"(slot + ((uint32_t)(warp * 32) << 16) + w));
    out[(rank() * 128 + threadIdx.x) * ${words} + w] = x;
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  csync();
  if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, 32;" :: "r"(slot) : "memory");
}`;

  for (const [shape, rowOf] of [
    ['128x256b', (l: number) => l],
    ['4x256b', (l: number) => (l % 32 === 0 ? l / 32 : -1)],
  ] as const)
    it(`.${shape}: one thread of the pair copies each CTA's own shared memory into its own tensor memory`, async () => {
      const r = await runKernel(src(shape, 8), { block: [128, 1, 1], grid: [2, 1, 1], args: ['out=u32[2048]'] });
      expect(r.status, r.message).toBe('completed');
      const want: number[] = [];
      for (let rank = 0; rank < 2; rank++)
        for (let l = 0; l < 128; l++)
          for (let w = 0; w < 8; w++) {
            const row = rowOf(l);
            want.push(row < 0 ? 0 : rank * 10000 + row * 100 + w);
          }
      expect(values(r, 'out')).toEqual(want);
    });
});

describe('tcgen05.mma.cta_group::1 with M = 64 (CUTLASS tmem_frg_1sm: lanes 0-15 of each subpartition)', () => {
  it('writes row i of a 64 x 16 accumulator to lane (i % 16) + 32 * (i / 16)', async () => {
    const r = await runKernel(
      `${PRELUDE}
__global__ void k(float* out) {
  __shared__ __align__(1024) uint8_t sA[4096];
  __shared__ __align__(1024) uint8_t sB[1024];
  __shared__ uint64_t done;
  __shared__ uint32_t slot;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int i = threadIdx.x; i < 64 * 16; i += 128) { const int m = i / 16, kk = i % 16; const uint32_t o = (m & 7) * 32 + (m >> 3) * 256 + kk * 2; *(uint16_t*)(sA + (o ^ (((o >> 7) & 1) << 4))) = __bfloat16_as_ushort(__float2bfloat16(kk == 0 ? (float)(m + 1) : 0.f)); }
  for (int i = threadIdx.x; i < 16 * 16; i += 128) { const int n = i / 16, kk = i % 16; const uint32_t o = (n & 7) * 32 + (n >> 3) * 256 + kk * 2; *(uint16_t*)(sB + (o ^ (((o >> 7) & 1) << 4))) = __bfloat16_as_ushort(__float2bfloat16((float)(n == kk ? 1 : 0))); }
  if (threadIdx.x == 0) init(&done, 1);
  if (warp == 0) asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(smem(&slot)) : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (threadIdx.x == 0) {
    const uint32_t idesc = (1u << 4) | (1u << 7) | (1u << 10) | ((16u >> 3) << 17) | ((64u >> 4) << 24);
    asm volatile("{\\n .reg .pred p;\\n setp.ne.b32 p, 0, 0;\\n tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\\n}" :: "r"(slot), "l"(desc(sA)), "l"(desc(sB)), "r"(idesc) : "memory");
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" :: "r"(smem(&done)) : "memory");
  }
  wait(&done, 0);
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  uint32_t x;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(x) : "r"(slot + ((uint32_t)(warp * 32) << 16)));
  out[threadIdx.x] = __uint_as_float(x);
}`,
      { block: [128, 1, 1], args: ['out=f32[128]'] },
    );
    expect(r.status, r.message).toBe('completed');
    // A[i][0] = i + 1 (the rest 0) and B = I: column 0 of D holds i + 1 for row i, in lane (i % 16) + 32 * (i / 16).
    const want = new Array<number>(128).fill(0);
    for (let i = 0; i < 64; i++) want[(i & 15) + 32 * (i >> 4)] = i + 1;
    expect(values(r, 'out')).toEqual(want);
  });
});
