// Seed: CUDA Programming Guide 4.9.5 "Completion Function" (psum).
// Correct barrier logic: every thread arrives once per iteration on a barrier initialised with
// block.size(); the completion function runs once per phase before any waiter is released.
// Changes from the guide: added <cassert>, <new> and <type_traits> (assert, placement new,
// std::aligned_storage); divergent_compute()/independent_computation() get trivial bodies; the
// guide's always-false `assert(blockDim.x == blockDim.y == blockDim.y == 1)` is written as
// `assert(blockDim.y == 1 && blockDim.z == 1)`, which is what it meant.
#include <cuda/barrier>
#include <cooperative_groups.h>
#include <functional>
#include <cassert>
#include <new>
#include <type_traits>
namespace cg = cooperative_groups;

__device__ int divergent_compute(int *p, int i) { return p[i] & 1 ? p[i] : 0; }
__device__ int independent_computation(int *p, int i) { return p[i] * 2; }

__global__ void psum(int *data, int n, int *acc)
{
  auto block = cg::this_thread_block();

  constexpr int BlockSize = 128;
  __shared__ int smem[BlockSize];
  assert(BlockSize == block.size());
  assert(n % BlockSize == 0);

  auto completion_fn = [&]
  {
    int sum = 0;
    for (int i = 0; i < BlockSize; ++i)
    {
      sum += smem[i];
    }
    *acc += sum;
  };

  /* Barrier storage.
     Note: the barrier is not default-constructible because
           completion_fn is not default-constructible due
           to the capture. */
  using completion_fn_t = decltype(completion_fn);
  using barrier_t = cuda::barrier<cuda::thread_scope_block,
                                  completion_fn_t>;
  __shared__ std::aligned_storage<sizeof(barrier_t),
                                  alignof(barrier_t)>
      bar_storage;

  // Initialize barrier.
  barrier_t *bar = (barrier_t *)&bar_storage;
  if (block.thread_rank() == 0)
  {
    assert(*acc == 0);
    assert(blockDim.y == 1 && blockDim.z == 1);
    new (bar) barrier_t{block.size(), completion_fn};
    /* equivalent to: init(bar, block.size(), completion_fn); */
  }
  block.sync();

  // Main loop.
  for (int i = 0; i < n; i += block.size())
  {
    smem[block.thread_rank()] = data[i] + *acc;
    auto token = bar->arrive();
    // We can do independent computation here.
    bar->wait(std::move(token));
    // Shared-memory is safe to re-use in the next iteration
    // since all threads are done with it, including the one
    // that did the reduction.
  }
}
