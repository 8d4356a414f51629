// BUG (PF401 arrival-count-mismatch): empty[s] is initialised for ONE arrival per phase (the
// design was "the consumers meet at a named barrier, then one of them releases the slot"), but
// the named barrier and the election were dropped: all 128 consumer threads arrive on empty[s].
// On the GPU: 128 arrivals on a barrier that expects 1 per phase. A warp's converged arrive
// lands as one 32-count update that overshoots the phase, and the hardware faults. Observed on an
// H200: "unspecified launch failure"; compute-sanitizer synccheck reports barrier errors on the
// consumers' arrive.
// Expected finding: PF401 on the consumers' arrive. Fix: examples/good/every_thread_arrives_on_count1.cu.
#include <cuda/ptx>
#include <cstdint>

constexpr int STAGES = 4;
constexpr int TILE = 1024;
constexpr int CONSUMERS = 128;

__global__ void __launch_bounds__(160) named_barrier_release_sum(const float* __restrict__ in, float* __restrict__ out, int num_tiles)
{
  constexpr uint32_t tile_bytes = TILE * sizeof(float);
  __shared__ alignas(128) float tiles[STAGES][TILE];
  __shared__ uint64_t full[STAGES], empty[STAGES];

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      cuda::ptx::mbarrier_init(&full[s], 1);
      cuda::ptx::mbarrier_init(&empty[s], 1);                  // one release per phase
    }
  }
  __syncthreads();

  const float* src = in + (size_t)blockIdx.x * num_tiles * TILE;
  if (threadIdx.x == 0) {
    for (int k = 0; k < num_tiles; ++k) {
      const int s = k % STAGES;
      while (!cuda::ptx::mbarrier_try_wait_parity(&empty[s], ((k / STAGES) & 1) ^ 1)) {}
      (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &full[s], tile_bytes);
      cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, tiles[s], src + (size_t)k * TILE, tile_bytes, &full[s]);
    }
  } else if (threadIdx.x >= 32) {
    const int c = threadIdx.x - 32;
    float acc = 0.f;
    for (int k = 0; k < num_tiles; ++k) {
      const int s = k % STAGES;
      while (!cuda::ptx::mbarrier_try_wait_parity(&full[s], (k / STAGES) & 1)) {}
      for (int j = c; j < TILE; j += CONSUMERS) acc += tiles[s][j];
      (void)cuda::ptx::mbarrier_arrive(&empty[s]);             // expect: PF401
    }
    out[blockIdx.x * CONSUMERS + c] = acc;
  }
}
