// Seed: CUDA Programming Guide 4.9.3 "Explicit Phase Tracking", cuda::barrier + cuda::ptx variant.
// Correct code: every thread arrives once per iteration on a barrier initialised with
// block.size(), then waits on the current parity and flips it.
// Changes from the guide: compute() is given a trivial body so the file links without -rdc, and the
// nv_diag_suppress pragma silences the __shared__ cuda::barrier dynamic-initialisation warning.
#include <cuda/barrier>
#include <cuda/ptx>
#include <cooperative_groups.h>

__device__ void compute(float *data, int iteration) { data[threadIdx.x] += iteration; }

__global__ void split_arrive_wait(int iteration_count, float *data)
{
  using barrier_t = cuda::barrier<cuda::thread_scope_block>;
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier_t bar;
  int parity = 0; // Initial phase parity is 0.
  auto block = cooperative_groups::this_thread_block();

  if (block.thread_rank() == 0)
  {
    // Initialize barrier with expected arrival count.
    init(&bar, block.size());
  }
  block.sync();

  for (int i = 0; i < iteration_count; ++i)
  {
    /* code before arrive */

    // This thread arrives. Arrival does not block a thread.
    // Get a handle to the native barrier to use with cuda::ptx API.
    (void)cuda::ptx::mbarrier_arrive(cuda::device::barrier_native_handle(bar));

    compute(data, i);

    // Wait for all threads participating in the barrier to complete mbarrier_arrive().
    // Get a handle to the native barrier to use with cuda::ptx API.
    while (!cuda::ptx::mbarrier_try_wait_parity(cuda::device::barrier_native_handle(bar), parity)) {}
    // Flip parity.
    parity ^= 1;

    /* code after wait */
  }
}
