// PF401: arrivals per phase that cannot equal the barrier's init count.
import { arrivalBalance } from '../arrival-balance';
import type { RuleDef } from '../types';
import { barrierName, line1 } from '../naming';

export const arrivalCountMismatch: RuleDef = {
  meta: {
    id: 'arrival-count-mismatch',
    code: 'PF401',
    family: 'count',
    defaultSeverity: 'error',
    summary: 'The threads that arrive on a barrier in one phase cannot add up to its init count.',
    languages: ['cuda', 'croqtile'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Replays the kernel per thread, counting who executes each arrive (elected threads, lane 0 of each warp, whole warps or blocks) and with what count. Reports one arrive instance that alone exceeds the init count (over-arrival), and barriers whose arrivals from all threads together stay below the init count (under-arrival). The replay runs at the kernel\'s block size, read from the translation unit ([launch shapes](../launch-shapes.md)); when nothing gives it, a finding that does not hold at every plausible size is reported as an information note instead.',
    whyIsThisBad: 'Over-arrival completes phases early, so waiters run ahead of producers (data race); when one warp-wide arrive crosses a phase boundary the hardware traps with "unspecified launch failure". Under-arrival means the phase never completes and every waiter hangs.',
    bad: `#include <cuda/ptx>
__global__ void k() {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, 1);
  __syncthreads();
  (void)cuda::ptx::mbarrier_arrive(&bar);
  while (!cuda::ptx::mbarrier_try_wait_parity(&bar, 0)) {}
}`,
    good: `#include <cuda/ptx>
__global__ void k() {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, 1);
  __syncthreads();
  if (threadIdx.x == 0) (void)cuda::ptx::mbarrier_arrive(&bar);
  while (!cuda::ptx::mbarrier_try_wait_parity(&bar, 0)) {}
}`,
    references: ['CUDA C++ Programming Guide, 4.9.1 (expected arrival count)', 'compute-sanitizer synccheck "Barrier overflow"'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const balance = arrivalBalance(k);
      if (!balance) continue;
      const { over, under } = balance;
      for (const [op, v] of over ?? []) {
        ctx.report({
          range: op.range,
          message: `${v.threads} threads execute this arrive on \`${barrierName(op)}\`, ${v.total} arrivals in one phase, but the barrier was initialised for ${v.expected}: the surplus completes extra phases (waiters run ahead of the data) or traps with "unspecified launch failure". Let one elected thread arrive, or initialise with the real participant count.`,
        });
      }
      for (const [op, v] of under ?? []) {
        ctx.report({
          range: op.range,
          message: `\`${barrierName(op)}\` is initialised for ${v.expected} arrivals per phase, but at most ${v.max} can arrive: the phase never completes and every waiter hangs. Initialise it with the number of arriving threads (line ${line1(op.range)}).`,
        });
      }
    }
  },
};
