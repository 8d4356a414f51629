// PF203: arrive/wait on a __shared__ barrier that the kernel never initialises.
import type { RuleDef } from '../types';
import { barrierName, line1 } from '../naming';

export const useBeforeInit: RuleDef = {
  meta: {
    id: 'use-before-init',
    code: 'PF203',
    family: 'bootstrap',
    defaultSeverity: 'error',
    summary: 'A __shared__ barrier is arrived on or waited for but never initialised (or only later).',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes: 'Reports barriers declared `__shared__` in the kernel that are used by arrive, wait or copy operations while no `init` (any API) on them appears in the kernel, or appears only after the first use in program order.',
    whyIsThisBad: 'Shared memory starts with arbitrary contents. An arrive on an uninitialised mbarrier corrupts a random count and phase, so waits hang or pass immediately; compute-sanitizer reports it as a missing init only when you happen to run it.',
    bad: `#include <cuda/ptx>
__global__ void k() {
  __shared__ uint64_t bar;
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
    references: ['CUDA C++ Programming Guide, 4.9.1 Initialization', 'compute-sanitizer synccheck "Missing init"'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const bases = new Set(k.sites.map((s) => s.op.barrier?.base).filter((b): b is string => !!b));
      for (const base of bases) {
        const decl = k.kernel.decls.get(base);
        if (!decl || decl.space !== 'shared' || k.escapes(base)) continue;
        const ops = k.opsOn(base);
        const inits = ops.filter((s) => s.op.kind === 'init');
        const uses = ops.filter((s) => s.op.kind !== 'init' && s.op.kind !== 'inval');
        if (!uses.length) continue;
        const firstUse = uses[0];
        if (inits.length && inits[0].order < firstUse.order) continue;
        // A use inside a loop that also inits earlier in the same iteration is fine.
        ctx.report({
          range: firstUse.op.range,
          message: inits.length
            ? `\`${barrierName(firstUse.op)}\` is used here before its initialisation on line ${line1(inits[0].op.range)}: the barrier's count and phase are still garbage (hang or early return).`
            : `\`${barrierName(firstUse.op)}\` is never initialised in \`${k.kernel.name}\`: shared memory holds garbage, so arrivals and waits on it hang or pass at random. Initialise it (one thread) and sync before use.`,
          related: inits.length ? [{ range: inits[0].op.range, message: 'initialised only here' }] : [{ range: decl.nameRange, message: 'declared here' }],
        });
      }
    }
  },
};
