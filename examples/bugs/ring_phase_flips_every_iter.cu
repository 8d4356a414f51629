// BUG (PF104 parity-flip-off-ring-schedule): double-buffered (2-slot) cp.async.bulk pipeline with
// cuda::ptx. The consumer flips `phase` after EVERY iteration, as if there were a single barrier.
// With a ring of 2 slots, slot k % 2 is reused every 2 iterations, so its parity must be
// (k / 2) & 1; the flip-every-iteration schedule makes full[0] always wait for parity 0 and
// full[1] always for parity 1.
// On the GPU: the very first wait on full[1] asks for parity 1 on a fresh barrier and returns
// at once; from then on the consumers run ahead of the copies, read tiles before they land and
// release slots early, so warps arrive on empty[s] for different phases and the producer re-arms
// full[s] before its previous phase completed: over-arrival. Observed on an H200 (264 blocks x 160
// threads, 128 tiles each): "unspecified launch failure" in 3 of 3 runs.
// Expected finding: PF104 on the consumer's wait. Fix: examples/good/ring_phase_flips_every_iter.cu.
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
    uint32_t phase = 0;
    for (int k = 0; k < num_tiles; ++k) {
      const int s = k % STAGES;
      while (!ptx::mbarrier_try_wait_parity(&full[s], phase)) {}          // expect: PF104
      for (int j = c; j < TILE; j += CONSUMERS) acc += tiles[s][j];
      (void)ptx::mbarrier_arrive(&empty[s]);
      phase ^= 1;
    }
    out[blockIdx.x * CONSUMERS + c] = acc;
  }
}
