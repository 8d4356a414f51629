// PF204: every thread (or a whole warp) initialises the same barrier.
import type { BarrierOp } from '../../ir/types';
import type { RuleDef } from '../types';
import { barrierName } from '../naming';

const PER_THREAD_INIT = /^asm mbarrier\.init|(^|::)mbarrier_init$|^__mbarrier_init$|^(cuda::)?init$|^new cuda::barrier$/;

export const initByManyThreads: RuleDef = {
  meta: {
    id: 'init-by-many-threads',
    code: 'PF204',
    family: 'bootstrap',
    defaultSeverity: 'warning',
    summary: 'The same barrier is initialised by more than one thread.',
    languages: ['cuda'],
    fix: 'unsafe',
  },
  docs: {
    whatItDoes: 'Replays the kernel per thread and reports an init executed by several threads on the same barrier (not `init(bar + threadIdx.x, ...)`, which gives each thread its own barrier). The replay runs at the kernel\'s block size, read from the translation unit ([launch shapes](../launch-shapes.md)); when nothing gives it, a finding that does not hold at every plausible size is reported as an information note instead.',
    whyIsThisBad: 'A late init from a slow warp resets the count and phase while fast threads are already arriving on the barrier: their arrivals are lost and the phase never completes (hang), or a waiter sees phase 0 again.',
    bad: `#include <cuda/ptx>
__global__ void k() {
  __shared__ uint64_t bar;
  cuda::ptx::mbarrier_init(&bar, blockDim.x);
  __syncthreads();
  (void)cuda::ptx::mbarrier_arrive(&bar);
  while (!cuda::ptx::mbarrier_try_wait_parity(&bar, 0)) {}
}`,
    good: `#include <cuda/ptx>
__global__ void k() {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, blockDim.x);
  __syncthreads();
  (void)cuda::ptx::mbarrier_arrive(&bar);
  while (!cuda::ptx::mbarrier_try_wait_parity(&bar, 0)) {}
}`,
    fixSafety: 'Guarding the init with `if (threadIdx.x == 0)` is right when the kernel is 1-D; for other layouts pick the elected thread yourself.',
    references: ['CUDA C++ Programming Guide, 4.9.1 Initialization (a single thread initialises)'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const runs = k.runs();
      if (!runs) continue;
      let bad: Map<BarrierOp, number> | undefined;
      for (const run of runs) {
        const here = new Map<BarrierOp, number>();
        for (const [key, init] of run.initializers) {
          // Only APIs known to initialise once per calling thread; library wrappers may elect a lane.
          if (!PER_THREAD_INIT.test(init.op.api)) continue;
          if (init.threads.length > 1 && !run.uncertain.has(key)) here.set(init.op, init.threads.length);
        }
        if (!bad) bad = here;
        else for (const op of [...bad.keys()]) if (!here.has(op)) bad.delete(op);
      }
      for (const [op, n] of bad ?? []) {
        const site = k.sites.find((s) => s.op === op);
        const fixes =
          site && site.ancestors.length === 0 && op.range.start.line === op.range.end.line
            ? [{ title: 'Initialise from thread 0 only', edits: [{ range: { ...op.range, end: op.range.start }, newText: 'if (threadIdx.x == 0) ' }] }]
            : [];
        ctx.report({
          range: op.range,
          message: `\`${barrierName(op)}\` is initialised by ${n} threads: a late init resets the count and phase after other threads already arrived (lost arrivals, hang). Let one thread initialise it, then sync.`,
          fixes,
        });
      }
    }
  },
};
