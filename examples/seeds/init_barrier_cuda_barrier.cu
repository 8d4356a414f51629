// Seed: CUDA Programming Guide 4.9.1 "Initialization", cuda::barrier variant.
// Correct code. Changes from the guide: the nv_diag_suppress pragma recommended by the libcu++
// docs, to silence the warning about a __shared__ cuda::barrier without dynamic initialisation.
#include <cuda/barrier>
#include <cooperative_groups.h>

__global__ void init_barrier()
{
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cooperative_groups::this_thread_block();

  if (block.thread_rank() == 0)
  {
    // A single thread initializes the total expected arrival count.
    init(&bar, block.size());
  }
  block.sync();
}
