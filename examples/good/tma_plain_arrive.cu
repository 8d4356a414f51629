// Corrected version of examples/bugs/tma_plain_arrive.cu.
// 4-slot cp.async.bulk ring with cuda::ptx. The producer arms full[stage] with
// mbarrier_arrive_expect_tx (its one arrival plus the tile's byte count), so the phase completes
// only when the arrival has happened AND all TILE bytes have landed. Stage and phase advance in
// the DeepGEMM style: `stage = (stage + 1) % STAGES; phase ^= (stage == 0);`.
#include <cuda/ptx>
#include <cstdint>

constexpr int STAGES = 4;
constexpr int TILE = 1024;
constexpr int CONSUMER_WARPS = 4;

__global__ void __launch_bounds__(160) tma_ring_sum(const float* __restrict__ in, float* __restrict__ out, int num_tiles)
{
  constexpr uint32_t tile_bytes = TILE * sizeof(float);
  __shared__ alignas(128) float smem_tile[STAGES][TILE];
  __shared__ uint64_t full[STAGES], empty[STAGES];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      cuda::ptx::mbarrier_init(&full[s], 1);
      cuda::ptx::mbarrier_init(&empty[s], CONSUMER_WARPS);
    }
  }
  __syncthreads();

  const float* src = in + (size_t)blockIdx.x * num_tiles * TILE;
  int stage = 0;
  uint32_t phase = 0;
  if (warp == 0) {
    if (lane == 0) {
      for (int k = 0; k < num_tiles; ++k) {
        while (!cuda::ptx::mbarrier_try_wait_parity(&empty[stage], phase ^ 1)) {}
        (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &full[stage], tile_bytes);
        cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, smem_tile[stage], src + (size_t)k * TILE, tile_bytes, &full[stage]);
        stage = (stage + 1) % STAGES;
        phase ^= (stage == 0);
      }
    }
  } else {
    const int c = threadIdx.x - 32;
    float acc = 0.f;
    for (int k = 0; k < num_tiles; ++k) {
      while (!cuda::ptx::mbarrier_try_wait_parity(&full[stage], phase)) {}
      for (int j = c; j < TILE; j += CONSUMER_WARPS * 32) acc += smem_tile[stage][j];
      __syncwarp();
      if (lane == 0) (void)cuda::ptx::mbarrier_arrive(&empty[stage]);
      stage = (stage + 1) % STAGES;
      phase ^= (stage == 0);
    }
    out[blockIdx.x * CONSUMER_WARPS * 32 + c] = acc;
  }
}
