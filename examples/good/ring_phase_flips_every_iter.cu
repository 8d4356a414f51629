// Corrected version of examples/bugs/ring_phase_flips_every_iter.cu.
// A double-buffered (2-slot) cp.async.bulk pipeline written with cuda::ptx. Each slot is reused
// once every STAGES iterations, so the parity of iteration k on slot k % STAGES is
// (k / STAGES) & 1 for the consumer and the opposite bit for the producer.
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

constexpr int STAGES = 2;
constexpr int TILE = 1024;
constexpr int CONSUMER_WARPS = 4;
constexpr int CONSUMERS = CONSUMER_WARPS * 32;

__global__ void __launch_bounds__(160) double_buffer_sum(const float* __restrict__ in, float* __restrict__ out, int num_tiles)
{
  constexpr uint32_t tile_bytes = TILE * sizeof(float);   // local: cuda::ptx takes sizes by reference
  __shared__ alignas(128) float tiles[STAGES][TILE];
  __shared__ uint64_t full[STAGES], empty[STAGES];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      ptx::mbarrier_init(&full[s], 1);
      ptx::mbarrier_init(&empty[s], CONSUMERS);
    }
  }
  __syncthreads();

  const float* src = in + (size_t)blockIdx.x * num_tiles * TILE;
  if (warp == 0) {
    if (lane == 0) {
      for (int k = 0; k < num_tiles; ++k) {
        const int s = k % STAGES;
        const uint32_t parity = ((k / STAGES) & 1) ^ 1;
        while (!ptx::mbarrier_try_wait_parity(&empty[s], parity)) {}
        (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full[s], tile_bytes);
        ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, tiles[s], src + (size_t)k * TILE, tile_bytes, &full[s]);
      }
    }
  } else {
    const int c = threadIdx.x - 32;
    float acc = 0.f;
    for (int k = 0; k < num_tiles; ++k) {
      const int s = k % STAGES;
      const uint32_t phase = (k / STAGES) & 1;
      while (!ptx::mbarrier_try_wait_parity(&full[s], phase)) {}
      for (int j = c; j < TILE; j += CONSUMERS) acc += tiles[s][j];
      (void)ptx::mbarrier_arrive(&empty[s]);
    }
    out[blockIdx.x * CONSUMERS + c] = acc;
  }
}
