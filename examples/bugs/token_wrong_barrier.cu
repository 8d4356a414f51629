// BUG (PF101 token-from-other-barrier): double buffering with cuda::barrier tokens in the style of
// the CUDA guide's producer/consumer example (every thread arrives on every barrier once per
// phase). The producer's "slot is free" wait was copy-pasted from the consumer's "slot is full"
// wait: it arrives on empty[s] but waits on full[s] with that token. A token only means
// something to the barrier whose arrive produced it.
// On the GPU: the token carries empty[s]'s phase; full[s] is in the same phase number, so the
// producer waits for full[s] to complete, which needs the producer's own arrival on full[s] after
// the fill it never reaches. Producer and consumers all block: the kernel hangs (observed on
// an H200).
// Expected finding: PF101 on the producer's wait. Fix: examples/good/token_wrong_barrier.cu.
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
      full[s].wait(std::move(can_fill));                       // expect: PF101
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
