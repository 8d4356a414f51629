// BUG (PF301 mma-without-commit-arrive). Blackwell (sm_100a) only:
//   nvcc -std=c++17 -gencode arch=compute_100a,code=sm_100a -c umma_missing_commit.cu
// One 128x128 fp32 accumulator tile in tensor memory, D = A * B^T over num_k_blocks blocks of
// K = 16 (bf16), operands pre-packed in the no-swizzle K-major layout. Warp 0 = TMA producer,
// warp 1 = MMA issuer, warps 2..5 = epilogue. The MMA warp commits to empty[s] after every
// k-block, but the final `tcgen05.commit` to mma_done was lost, and no other operation arrives on
// mma_done. tcgen05.mma is asynchronous; without that commit nothing ever completes a phase of
// mma_done.
// On the GPU: the epilogue warps spin on mma_done forever: the kernel hangs after the main loop.
// Expected finding: PF301 on the epilogue's wait. Fix: examples/good/umma_missing_commit.cu.
#include <cuda_bf16.h>
#include <cstdint>

constexpr int STAGES = 4, BM = 128, BN = 128, BK = 16;
constexpr uint32_t A_BYTES = BM * BK * sizeof(__nv_bfloat16);   // 4096
constexpr uint32_t B_BYTES = BN * BK * sizeof(__nv_bfloat16);   // 4096

__device__ __forceinline__ uint32_t s32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(uint64_t* b, uint32_t n) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(s32(b)), "r"(n) : "memory");
}
__device__ __forceinline__ void mbar_arrive_tx(uint64_t* b, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(s32(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* b, uint32_t parity) {
  asm volatile("{\n .reg .pred p;\n spin:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra spin;\n}" :: "r"(s32(b)), "r"(parity) : "memory");
}
__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes, uint64_t* b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"(s32(dst)), "l"(src), "r"(bytes), "r"(s32(b)) : "memory");
}
__device__ __forceinline__ void umma_bf16(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc, uint32_t idesc, uint32_t accumulate) {
  asm volatile("{\n .reg .pred acc;\n setp.ne.u32 acc, %4, 0;\n tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, acc;\n}" :: "r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate) : "memory");
}
__device__ __forceinline__ void umma_commit(uint64_t* b) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" :: "r"(s32(b)) : "memory");
}
__device__ __forceinline__ void tmem_ld8(uint32_t taddr, uint32_t (&r)[8]) {
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]) : "r"(taddr) : "memory");
}

// No-swizzle K-major smem descriptor: 8x16-byte core matrices, LBO = 128 B (next core matrix
// along K), SBO = 256 B (next 8 rows), descriptor version bits 46..48 = 0b001.
__device__ __forceinline__ uint64_t smem_desc(const void* tile) {
  return (uint64_t)((s32(tile) >> 4) & 0x3FFF) | ((uint64_t)(128 >> 4) << 16) | ((uint64_t)(256 >> 4) << 32) | (1ull << 46);
}
// kind::f16 instruction descriptor: D = f32, A = B = bf16, both K-major, N = BN, M = BM.
constexpr uint32_t IDESC = (1u << 4) | (1u << 7) | (1u << 10) | ((BN >> 3) << 17) | ((BM >> 4) << 24);

__global__ void __launch_bounds__(192) umma_tile_gemm(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b, float* __restrict__ d, int num_k_blocks)
{
  __shared__ alignas(128) __nv_bfloat16 sa[STAGES][BM * BK], sb[STAGES][BN * BK];
  __shared__ uint64_t full[STAGES], empty[STAGES], mma_done;
  __shared__ uint32_t tmem_base;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) { mbar_init(&full[s], 1); mbar_init(&empty[s], 1); }
    mbar_init(&mma_done, 1);
  }
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" :: "r"(s32(&tmem_base)), "r"(BN) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t acc_tmem = tmem_base;

  if (warp == 0 && lane == 0) {                                 // TMA producer
    for (int k = 0; k < num_k_blocks; ++k) {
      const int s = k % STAGES;
      mbar_wait(&empty[s], ((k / STAGES) & 1) ^ 1);
      mbar_arrive_tx(&full[s], A_BYTES + B_BYTES);
      bulk_load(sa[s], a + (size_t)k * BM * BK, A_BYTES, &full[s]);
      bulk_load(sb[s], b + (size_t)k * BN * BK, B_BYTES, &full[s]);
    }
  } else if (warp == 1 && lane == 0) {                          // MMA issuer
    for (int k = 0; k < num_k_blocks; ++k) {
      const int s = k % STAGES;
      mbar_wait(&full[s], (k / STAGES) & 1);
      asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
      umma_bf16(acc_tmem, smem_desc(sa[s]), smem_desc(sb[s]), IDESC, k > 0);
      umma_commit(&empty[s]);                                   // slot s is free once this MMA read it
    }
  } else if (warp >= 2) {                                       // epilogue
    mbar_wait(&mma_done, 0);                                    // expect: PF301
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    const int row = (warp % 4) * 32 + lane;
    for (int col = 0; col < BN; col += 8) {
      uint32_t r[8];
      tmem_ld8(acc_tmem + ((uint32_t)((warp % 4) * 32) << 16) + col, r);
      asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
      for (int i = 0; i < 8; ++i) d[row * BN + col + i] = __uint_as_float(r[i]);
    }
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  if (warp == 0) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" :: "r"(acc_tmem), "r"(BN) : "memory");
  }
}
