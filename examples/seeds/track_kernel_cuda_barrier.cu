// Seed: CUDA Programming Guide 4.9.6 "Tracking Asynchronous Memory Operations", cuda::barrier variant.
// Correct code: every thread arrives with barrier_arrive_tx(bar, 1, 0) (one arrival, zero tx
// bytes) on a barrier initialised with block.size(), then waits on its token.
// Changes from the guide: the nv_diag_suppress pragma silences the __shared__ cuda::barrier
// dynamic-initialisation warning.
#include <cuda/barrier>
#include <cooperative_groups.h>

__global__ void track_kernel()
{
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cooperative_groups::this_thread_block();

  if (block.thread_rank() == 0)
  {
    init(&bar, block.size());
  }
  block.sync();

  auto token = cuda::device::barrier_arrive_tx(bar, 1, 0);

  bar.wait(cuda::std::move(token));
}
