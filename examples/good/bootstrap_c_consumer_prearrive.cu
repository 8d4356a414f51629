// Correct bootstrap, convention C (the CUDA guide's producer/consumer example, Triton's
// "pre-arrive empty barriers" lowering): before their loop, the consumers arrive once on every
// empty barrier, which completes phase 0 of each one. The producer then waits for parity
// (k / STAGES) & 1, i.e. 0 on its first pass, and that wait is already satisfied.
#include <cstdint>

constexpr int STAGES = 4;
constexpr int TILE = 1024;
constexpr uint32_t TILE_BYTES = TILE * sizeof(float);
constexpr int CONSUMER_WARPS = 4;

__device__ __forceinline__ uint32_t smem_ptr(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem_ptr(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem_ptr(bar)) : "memory");
}
__device__ __forceinline__ void mbar_arrive_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem_ptr(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile("{\n .reg .pred p;\n L0:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra L0;\n}" :: "r"(smem_ptr(bar)), "r"(parity) : "memory");
}
__device__ __forceinline__ void bulk_g2s(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"(smem_ptr(dst)), "l"(src), "r"(bytes), "r"(smem_ptr(bar)) : "memory");
}

__global__ void __launch_bounds__(160) bootstrap_c_sum(const float* __restrict__ in, float* __restrict__ out, int num_tiles)
{
  __shared__ alignas(128) float tiles[STAGES][TILE];
  __shared__ uint64_t full[STAGES], empty[STAGES];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) { mbar_init(&full[s], 1); mbar_init(&empty[s], CONSUMER_WARPS); }
  }
  __syncthreads();

  const float* src = in + (size_t)blockIdx.x * num_tiles * TILE;
  if (warp == 0) {
    if (lane == 0) {
      for (int k = 0; k < num_tiles; ++k) {
        const int s = k % STAGES;
        mbar_wait(&empty[s], (k / STAGES) & 1);                // phase 0 was completed by the pre-arrivals
        mbar_arrive_tx(&full[s], TILE_BYTES);
        bulk_g2s(tiles[s], src + (size_t)k * TILE, TILE_BYTES, &full[s]);
      }
    }
  } else {
    const int c = threadIdx.x - 32;
    if (lane == 0) {
      for (int s = 0; s < STAGES; ++s) mbar_arrive(&empty[s]);  // every slot starts free
    }
    float acc = 0.f;
    for (int k = 0; k < num_tiles; ++k) {
      const int s = k % STAGES;
      mbar_wait(&full[s], (k / STAGES) & 1);
      for (int j = c; j < TILE; j += CONSUMER_WARPS * 32) acc += tiles[s][j];
      __syncwarp();
      if (lane == 0) mbar_arrive(&empty[s]);
    }
    out[blockIdx.x * CONSUMER_WARPS * 32 + c] = acc;
  }
}
