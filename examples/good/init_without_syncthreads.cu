// Corrected version of examples/bugs/init_without_syncthreads.cu.
// One TMA barrier reused for every tile (the ThunderKittens-tutorial shape): thread 0 arms it
// with barrier_arrive_tx and issues the bulk copy, all 128 threads wait on the tile's parity,
// and a __syncthreads() at the end of the iteration keeps the buffer alive until everyone has
// read it. The __syncthreads() after init() makes the initialised barrier visible to the
// threads that wait on it.
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
    init(&bar, 1);                                             // one arrival (thread 0) + tx bytes
  }
  __syncthreads();

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
