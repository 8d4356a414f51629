// Correct bootstrap, convention A (CUTLASS make_producer_start_state, DeepGEMM `phase ^ 1`,
// tilus producer_initial_phase = 1): nobody arrives on the empty barriers before the first
// tiles are consumed; the producer's ring state simply starts in phase 1. A parity-1 wait on a
// freshly initialised barrier (phase 0 still in progress) returns at once, so the first pass
// over the ring does not block, and from the second pass on it waits for real releases.
#include <cuda/ptx>
#include <cstdint>

constexpr int STAGES = 4;
constexpr int TILE = 1024;
constexpr int CONSUMER_WARPS = 4;

struct RingState {
  int stage;
  uint32_t phase;
  __device__ void advance() {
    if (++stage == STAGES) { stage = 0; phase ^= 1; }
  }
};

__global__ void __launch_bounds__(160) bootstrap_a_sum(const float* __restrict__ in, float* __restrict__ out, int num_tiles)
{
  constexpr uint32_t tile_bytes = TILE * sizeof(float);
  __shared__ alignas(128) float tiles[STAGES][TILE];
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
  if (warp == 0) {
    if (lane == 0) {
      RingState prod{0, 1};                                    // producer starts in phase 1
      for (int k = 0; k < num_tiles; ++k, prod.advance()) {
        while (!cuda::ptx::mbarrier_try_wait_parity(&empty[prod.stage], prod.phase)) {}
        (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &full[prod.stage], tile_bytes);
        cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, tiles[prod.stage], src + (size_t)k * TILE, tile_bytes, &full[prod.stage]);
      }
    }
  } else {
    const int c = threadIdx.x - 32;
    float acc = 0.f;
    RingState cons{0, 0};                                      // consumer starts in phase 0
    for (int k = 0; k < num_tiles; ++k, cons.advance()) {
      while (!cuda::ptx::mbarrier_try_wait_parity(&full[cons.stage], cons.phase)) {}
      for (int j = c; j < TILE; j += CONSUMER_WARPS * 32) acc += tiles[cons.stage][j];
      __syncwarp();
      if (lane == 0) (void)cuda::ptx::mbarrier_arrive(&empty[cons.stage]);
    }
    out[blockIdx.x * CONSUMER_WARPS * 32 + c] = acc;
  }
}
