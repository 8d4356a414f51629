// Seed: CUDA Programming Guide 4.9.6 "Tracking Asynchronous Memory Operations", cuda::ptx variant.
// Correct code: every thread does mbarrier.arrive.expect_tx with 0 bytes, then a token wait.
// Changes from the guide: cuda::ptx::mbarrier_arrive_expect_tx has no arrival-count operand (it
// always arrives once), so the guide's `&bar, 1, 0` becomes `&bar, 0` (still one arrival, 0 bytes).
#include <cuda/ptx>
#include <cooperative_groups.h>

__global__ void track_kernel()
{
  __shared__ uint64_t bar;
  auto block = cooperative_groups::this_thread_block();

  if (block.thread_rank() == 0)
  {
    cuda::ptx::mbarrier_init(&bar, block.size());
  }
  block.sync();

  uint64_t token = cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cluster, cuda::ptx::space_shared, &bar, 0);

  while (!cuda::ptx::mbarrier_try_wait(&bar, token)) {}
}
