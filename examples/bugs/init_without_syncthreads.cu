// BUG (PF202 init-not-visible): one TMA barrier reused for every tile. Thread 0 initialises it and
// immediately starts the pipeline, but there is no __syncthreads() between the init and the
// other threads' first wait_parity, so those threads may read the barrier word before the init
// is visible to them.
// On the GPU: usually silent (3 of 3 runs on an H200 gave correct sums). If another thread's
// first try_wait reads a stale shared-memory word (left by a previous block on that SM, e.g. a
// barrier in a later phase) it can pass at once and sum a tile that has not landed, or miss the
// real phase and stay one phase behind: wrong sums or a hang, depending on what was there.
// Expected finding: PF202 on the init. Fix: examples/good/init_without_syncthreads.cu.
#include <cuda/barrier>
#include <cstdint>

using barrier_t = cuda::barrier<cuda::thread_scope_block>;

constexpr int TILE = 1024;
constexpr int THREADS = 128;

__global__ void __launch_bounds__(128) single_buffer_sum(const float* __restrict__ in, float* __restrict__ out, int num_tiles)
{
  __shared__ alignas(128) float tile[TILE];
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier_t bar;

  if (threadIdx.x == 0) {
    init(&bar, 1);                                             // expect: PF202
  }

  const float* src = in + (size_t)blockIdx.x * num_tiles * TILE;
  float acc = 0.f;
  for (int k = 0; k < num_tiles; ++k) {
    if (threadIdx.x == 0) {
      (void)cuda::device::barrier_arrive_tx(bar, 1, TILE * sizeof(float));
      cuda::device::memcpy_async_tx(tile, src + (size_t)k * TILE, cuda::aligned_size_t<16>(TILE * sizeof(float)), bar);
    }
    bar.wait_parity(k & 1);
    for (int j = threadIdx.x; j < TILE; j += THREADS) acc += tile[j];
    __syncthreads();                                           // tile may be overwritten now
  }
  out[blockIdx.x * THREADS + threadIdx.x] = acc;
}
