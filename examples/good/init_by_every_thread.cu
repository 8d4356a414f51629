// Corrected version of examples/bugs/init_by_every_thread.cu.
// The full and empty rings live in one array, bars[0..STAGES) = full, bars[STAGES..2*STAGES) =
// empty. Each of the first 2*STAGES threads initialises exactly one distinct barrier, which is
// the same idiom as the CUDA guide's `if (threadIdx.x < 4) init(bar + threadIdx.x, ...)`.
#include <cstdint>

constexpr int STAGES = 4;
constexpr int TILE = 1024;
constexpr uint32_t TILE_BYTES = TILE * sizeof(float);
constexpr int CONSUMER_WARPS = 4;

__device__ __forceinline__ uint32_t cvta_smem(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbarrier_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(cvta_smem(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbarrier_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(cvta_smem(bar)) : "memory");
}
__device__ __forceinline__ void mbarrier_arrive_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(cvta_smem(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbarrier_wait_parity(uint64_t* bar, uint32_t parity) {
  asm volatile("{\n .reg .pred done;\n spin:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n @!done bra spin;\n}" :: "r"(cvta_smem(bar)), "r"(parity) : "memory");
}
__device__ __forceinline__ void bulk_copy_g2s(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"(cvta_smem(dst)), "l"(src), "r"(bytes), "r"(cvta_smem(bar)) : "memory");
}

__global__ void __launch_bounds__(160) packed_bars_sum(const float* __restrict__ in, float* __restrict__ out, int num_tiles)
{
  __shared__ alignas(128) float tiles[STAGES][TILE];
  __shared__ uint64_t bars[2 * STAGES];
  uint64_t* full = bars;
  uint64_t* empty = bars + STAGES;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  if (threadIdx.x < 2 * STAGES) {
    mbarrier_init(&bars[threadIdx.x], threadIdx.x < STAGES ? 1 : CONSUMER_WARPS);
    // Thread 0 issues the copies that complete full[]: the async proxy must see each init, and the
    // __syncthreads() below orders it only for the other threads (the CUDA guide's TMA examples fence here too).
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();

  const float* src = in + (size_t)blockIdx.x * num_tiles * TILE;
  if (warp == 0) {
    if (lane == 0) {
      for (int k = 0; k < num_tiles; ++k) {
        const int s = k % STAGES;
        mbarrier_wait_parity(&empty[s], ((k / STAGES) & 1) ^ 1);
        mbarrier_arrive_tx(&full[s], TILE_BYTES);
        bulk_copy_g2s(tiles[s], src + (size_t)k * TILE, TILE_BYTES, &full[s]);
      }
    }
  } else {
    const int c = threadIdx.x - 32;
    float acc = 0.f;
    for (int k = 0; k < num_tiles; ++k) {
      const int s = k % STAGES;
      mbarrier_wait_parity(&full[s], (k / STAGES) & 1);
      for (int j = c; j < TILE; j += CONSUMER_WARPS * 32) acc += tiles[s][j];
      __syncwarp();
      if (lane == 0) mbarrier_arrive(&empty[s]);
    }
    out[blockIdx.x * CONSUMER_WARPS * 32 + c] = acc;
  }
}
