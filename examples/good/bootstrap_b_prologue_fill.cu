// Correct bootstrap, convention B (CuTe's wgmma_tma_sm90 tutorial, ThunderKittens mha_h100):
// every slot starts free, so a prologue fills all STAGES slots without waiting. From then on the
// producer refills slot `stage` only after the consumers released it, and the first such wait
// is for phase 0 of empty[stage] (the release of the prologue's tile), so the producer's
// steady-state phase starts at 0.
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

__global__ void __launch_bounds__(160) bootstrap_b_sum(const float* __restrict__ in, float* __restrict__ out, int num_tiles)
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
      for (int k = 0; k < STAGES && k < num_tiles; ++k) {   // prologue: all slots start free
        mbar_arrive_tx(&full[k], TILE_BYTES);
        bulk_g2s(tiles[k], src + (size_t)k * TILE, TILE_BYTES, &full[k]);
      }
      int stage = 0;
      uint32_t phase = 0;
      for (int k = STAGES; k < num_tiles; ++k) {
        mbar_wait(&empty[stage], phase);                       // release of tile k - STAGES
        mbar_arrive_tx(&full[stage], TILE_BYTES);
        bulk_g2s(tiles[stage], src + (size_t)k * TILE, TILE_BYTES, &full[stage]);
        if (++stage == STAGES) { stage = 0; phase ^= 1; }
      }
    }
  } else {
    const int c = threadIdx.x - 32;
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
