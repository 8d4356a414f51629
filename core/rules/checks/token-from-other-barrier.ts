// PF101: a token wait whose token came from an arrive on a different barrier.
import { exprKey } from '../../ir/expr';
import type { RuleDef } from '../types';
import { barrierName, line1 } from '../naming';

export const tokenFromOtherBarrier: RuleDef = {
  meta: {
    id: 'token-from-other-barrier',
    code: 'PF101',
    family: 'phase',
    defaultSeverity: 'error',
    summary: 'A token is waited on a barrier other than the one whose arrive produced it.',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes: 'Follows arrival tokens (`cuda::barrier::arrival_token`, the `uint64_t` state returned by `mbarrier_arrive`, `__mbarrier_token_t`) from the arrive that produced them to the wait that consumes them, and reports waits on a different barrier or slot.',
    whyIsThisBad:
      'A token encodes the phase of the barrier it came from. Waiting with it on another barrier compares unrelated phases: the behaviour is undefined, and in practice the wait either returns at once (data race) or never returns (hang).',
    bad: `#include <cuda/ptx>
__global__ void k() {
  __shared__ uint64_t a, b;
  if (threadIdx.x == 0) { cuda::ptx::mbarrier_init(&a, blockDim.x); cuda::ptx::mbarrier_init(&b, blockDim.x); }
  __syncthreads();
  uint64_t ta = cuda::ptx::mbarrier_arrive(&a);
  (void)cuda::ptx::mbarrier_arrive(&b);
  while (!cuda::ptx::mbarrier_try_wait(&b, ta)) {}
}`,
    good: `#include <cuda/ptx>
__global__ void k() {
  __shared__ uint64_t a, b;
  if (threadIdx.x == 0) { cuda::ptx::mbarrier_init(&a, blockDim.x); cuda::ptx::mbarrier_init(&b, blockDim.x); }
  __syncthreads();
  uint64_t ta = cuda::ptx::mbarrier_arrive(&a);
  uint64_t tb = cuda::ptx::mbarrier_arrive(&b);
  while (!cuda::ptx::mbarrier_try_wait(&a, ta)) {}
  while (!cuda::ptx::mbarrier_try_wait(&b, tb)) {}
}`,
    references: ['CUDA C++ Programming Guide, 4.9.2 A Barrier\'s Phase', 'libcu++ cuda::barrier::wait'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      for (const s of k.sites) {
        if (s.op.kind !== 'wait-token' || !s.op.barrier || !s.op.token) continue;
        const t = s.op.token;
        const name = t.kind === 'var' ? t.name : t.kind === 'call' && t.callee === 'move' && t.args[0]?.kind === 'var' ? t.args[0].name : undefined;
        if (!name) continue;
        const defs = k.sites.filter((d) => d.op.tokenOut === name && d.op.barrier);
        if (!defs.length) continue;
        const key = (b: typeof s.op.barrier | undefined): string => `${b?.base}[${exprKey(b?.index)}]`;
        if (defs.some((d) => key(d.op.barrier) === key(s.op.barrier))) continue;
        const d = defs[0];
        ctx.report({
          range: s.op.range,
          message: `Token \`${t.text.replace(/^std::move\((.*)\)$/, '$1')}\` comes from the arrive on \`${barrierName(d.op)}\` (line ${line1(d.op.range)}) but is waited on \`${barrierName(s.op)}\`: the token names a phase of the other barrier, so this wait is undefined behaviour and typically returns early (data race) or hangs.`,
          related: [{ range: d.op.range, message: `token produced by this arrive on ${barrierName(d.op)}` }],
        });
      }
    }
  },
};
