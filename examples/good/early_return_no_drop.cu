// Corrected version of examples/bugs/early_return_no_drop.cu.
// Ragged batch: thread t owns a sequence of my_len <= num_tiles items. Every step, each active
// thread publishes its item in a double-buffered shared slot, meets the others at a block-wide
// cuda::barrier, and adds its right neighbour's item. A thread whose sequence is over leaves
// with arrive_and_drop(): that is its arrival for the current phase, and every later phase
// expects one arrival fewer, so the remaining threads keep going.
#include <cuda/barrier>
#include <cstdint>

using barrier_t = cuda::barrier<cuda::thread_scope_block>;

constexpr int THREADS = 128;

__global__ void __launch_bounds__(128) ragged_neighbor_sum(const float* __restrict__ in, float* __restrict__ out, int num_tiles)
{
  __shared__ float slot[2][THREADS];
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier_t bar;
  const int t = threadIdx.x;

  if (t == 0) {
    init(&bar, blockDim.x);
  }
  __syncthreads();

  const float* src = in + (size_t)blockIdx.x * num_tiles * THREADS;
  const int my_len = num_tiles - (t % 4) * (num_tiles / 4);    // 4 different sequence lengths
  float acc = 0.f;
  for (int k = 0; k < num_tiles; ++k) {
    if (k == my_len) {
      out[blockIdx.x * THREADS + t] = acc;
      bar.arrive_and_drop();
      return;
    }
    slot[k & 1][t] = src[(size_t)k * THREADS + t];
    barrier_t::arrival_token tok = bar.arrive();
    bar.wait(std::move(tok));
    acc += slot[k & 1][(t + 1) % THREADS];
  }
  out[blockIdx.x * THREADS + t] = acc;
}
