// BUG (PF402 early-exit-without-drop): ragged batch on a block-wide cuda::barrier initialised with
// blockDim.x. Thread t owns my_len <= num_tiles items; when its sequence is over it writes its
// result and returns from inside the arrive/wait loop without arrive_and_drop(). The barrier
// still expects blockDim.x arrivals per phase.
// On the GPU: the first phase in which some thread has left never completes; every remaining
// thread blocks in bar.wait() and the kernel hangs (observed on an H200).
// Expected finding: PF402 on the return. Fix: examples/good/early_return_no_drop.cu.
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
      return;                                                  // expect: PF402
    }
    slot[k & 1][t] = src[(size_t)k * THREADS + t];
    barrier_t::arrival_token tok = bar.arrive();
    bar.wait(std::move(tok));
    acc += slot[k & 1][(t + 1) % THREADS];
  }
  out[blockIdx.x * THREADS + t] = acc;
}
