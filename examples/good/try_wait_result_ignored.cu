// Corrected version of examples/bugs/try_wait_result_ignored.cu.
// A 4-slot cp.async.bulk ring that mixes the __mbarrier_* primitives (init, arrive, parity
// waits) with two inline-PTX helpers for what the primitives lack (arrive.expect_tx and the
// bulk copy), as NVIDIA's globalToShmemTMACopy sample does. A try_wait returns false when its
// time limit runs out before the phase completes, so every try_wait sits in a retry loop.
#include <cuda_awbarrier_primitives.h>
#include <cstdint>

constexpr int STAGES = 4;
constexpr int TILE = 1024;
constexpr uint32_t TILE_BYTES = TILE * sizeof(float);
constexpr int CONSUMER_WARPS = 4;

__device__ __forceinline__ void arrive_expect_tx(__mbarrier_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"((uint32_t)__cvta_generic_to_shared(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void copy_bulk(void* dst, const void* src, uint32_t bytes, __mbarrier_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"((uint32_t)__cvta_generic_to_shared(dst)), "l"(src), "r"(bytes), "r"((uint32_t)__cvta_generic_to_shared(bar)) : "memory");
}

__global__ void __launch_bounds__(160) primitives_ring_sum(const float* __restrict__ in, float* __restrict__ out, int num_tiles)
{
  __shared__ alignas(128) float tile[STAGES][TILE];
  __shared__ __mbarrier_t full[STAGES], empty[STAGES];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      __mbarrier_init(&full[s], 1);
      __mbarrier_init(&empty[s], CONSUMER_WARPS);
    }
  }
  __syncthreads();

  const float* src = in + (size_t)blockIdx.x * num_tiles * TILE;
  if (warp == 0) {
    if (lane == 0) {
      for (int k = 0; k < num_tiles; ++k) {
        const int s = k % STAGES;
        while (!__mbarrier_try_wait_parity(&empty[s], ((k / STAGES) & 1) ^ 1, 1000)) {}
        arrive_expect_tx(&full[s], TILE_BYTES);
        copy_bulk(tile[s], src + (size_t)k * TILE, TILE_BYTES, &full[s]);
      }
    }
  } else {
    const int c = threadIdx.x - 32;
    float acc = 0.f;
    for (int k = 0; k < num_tiles; ++k) {
      const int s = k % STAGES;
      while (!__mbarrier_try_wait_parity(&full[s], (k / STAGES) & 1, 1000)) {}
      for (int j = c; j < TILE; j += CONSUMER_WARPS * 32) acc += tile[s][j];
      __syncwarp();
      if (lane == 0) (void)__mbarrier_arrive(&empty[s]);
    }
    out[blockIdx.x * CONSUMER_WARPS * 32 + c] = acc;
  }
}
