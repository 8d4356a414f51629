// Corrected version of examples/bugs/token_wrong_barrier.cu.
// Double buffering with cuda::barrier tokens, in the style of the CUDA guide's producer/consumer
// example: every thread arrives on every barrier once per phase (count = blockDim.x). Warp 0
// copies a tile into buf[s] with plain loads/stores, warps 1..4 sum it. The consumers pre-arrive
// on both `empty` barriers (bootstrap convention C). Each wait uses the token returned by an
// arrive on the same barrier.
#include <cuda/barrier>
#include <cstdint>

using barrier_t = cuda::barrier<cuda::thread_scope_block>;

constexpr int TILE = 1024;
constexpr int CONSUMERS = 128;

__global__ void __launch_bounds__(160) token_pipeline_sum(const float* __restrict__ in, float* __restrict__ out, int num_tiles)
{
  __shared__ alignas(16) float buf[2][TILE];
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier_t full[2], empty[2];

  if (threadIdx.x < 2) {
    init(&full[threadIdx.x], blockDim.x);
    init(&empty[threadIdx.x], blockDim.x);
  }
  __syncthreads();

  const float* src = in + (size_t)blockIdx.x * num_tiles * TILE;
  if (threadIdx.x < 32) {
    const int lane = threadIdx.x;
    for (int k = 0; k < num_tiles; ++k) {
      const int s = k & 1;
      barrier_t::arrival_token can_fill = empty[s].arrive();
      empty[s].wait(std::move(can_fill));                      // slot s is free
      for (int j = lane; j < TILE; j += 32) buf[s][j] = src[(size_t)k * TILE + j];
      barrier_t::arrival_token filled = full[s].arrive();      // publish tile k
      (void)filled;
    }
  } else {
    const int c = threadIdx.x - 32;
    barrier_t::arrival_token pre0 = empty[0].arrive();         // both slots start free
    barrier_t::arrival_token pre1 = empty[1].arrive();
    (void)pre0; (void)pre1;
    float acc = 0.f;
    for (int k = 0; k < num_tiles; ++k) {
      const int s = k & 1;
      barrier_t::arrival_token ready = full[s].arrive();
      full[s].wait(std::move(ready));
      for (int j = c; j < TILE; j += CONSUMERS) acc += buf[s][j];
      barrier_t::arrival_token released = empty[s].arrive();
      (void)released;
    }
    out[blockIdx.x * CONSUMERS + c] = acc;
  }
}
