// Seed: CUDA Programming Guide 4.9.3 "Explicit Phase Tracking", cuda::ptx variant.
// Correct code: arrive, compute, wait on the current parity, flip.
// Changes from the guide: compute() is given a trivial body so the file links without -rdc.
#include <cuda/ptx>
#include <cooperative_groups.h>

__device__ void compute(float *data, int iteration) { data[threadIdx.x] += iteration; }

__global__ void split_arrive_wait(int iteration_count, float *data)
{
  __shared__ uint64_t bar;
  int parity = 0; // Initial phase parity is 0.
  auto block = cooperative_groups::this_thread_block();

  if (block.thread_rank() == 0)
  {
    // Initialize barrier with expected arrival count.
    cuda::ptx::mbarrier_init(&bar, block.size());
  }
  block.sync();

  for (int i = 0; i < iteration_count; ++i)
  {
    /* code before arrive */

    // This thread arrives. Arrival does not block a thread.
    (void)cuda::ptx::mbarrier_arrive(&bar);

    compute(data, i);

    // Wait for all threads participating in the barrier to complete mbarrier_arrive().
    while (!cuda::ptx::mbarrier_try_wait_parity(&bar, parity)) {}
    // Flip parity.
    parity ^= 1;

    /* code after wait */
  }
}
