// PF303: cp.async copies that no barrier (and no wait_group) tracks before a barrier wait.
import type { RuleDef } from '../types';
import { barrierName, line1 } from '../naming';
import { isBlockingWait } from '../op-kinds';

export const cpAsyncWithoutBarrierArrive: RuleDef = {
  meta: {
    id: 'cp-async-without-barrier-arrive',
    code: 'PF303',
    family: 'commit',
    defaultSeverity: 'error',
    summary: 'cp.async copies are consumed after an mbarrier wait, but nothing ties the copies to the barrier.',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes: 'Reports non-bulk `cp.async` copies in kernels that synchronise through mbarrier waits but never issue `cp.async.mbarrier.arrive[.noinc]` (or `cpasync_barrier_arrive*`, `cuda::ptx::cp_async_mbarrier_arrive*`) nor `cp.async.wait_group` / `wait_all`.',
    whyIsThisBad: 'A cp.async completes in the background. An mbarrier phase only covers it if `cp.async.mbarrier.arrive` makes the barrier wait for the thread\'s outstanding copies. Without it the consumer passes the wait while the copy is still in flight and reads stale shared memory (data race).',
    bad: `__global__ void k(const float* src) {
  __shared__ float tile[128];
  __shared__ uint64_t full;
  uint32_t bar = (uint32_t)__cvta_generic_to_shared(&full);
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(blockDim.x));
  __syncthreads();
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"((uint32_t)__cvta_generic_to_shared(&tile[threadIdx.x])), "l"(src + threadIdx.x));
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar));
  asm volatile("{\\n.reg .pred p;\\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n@!p bra W;\\n}" :: "r"(bar));
}`,
    good: `__global__ void k(const float* src) {
  __shared__ float tile[128];
  __shared__ uint64_t full;
  uint32_t bar = (uint32_t)__cvta_generic_to_shared(&full);
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(blockDim.x));
  __syncthreads();
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"((uint32_t)__cvta_generic_to_shared(&tile[threadIdx.x])), "l"(src + threadIdx.x));
  asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];" :: "r"(bar));
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar));
  asm volatile("{\\n.reg .pred p;\\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n@!p bra W;\\n}" :: "r"(bar));
}`,
    references: ['PTX ISA, cp.async.mbarrier.arrive', 'libcu++ memcpy_async completion mechanisms'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const copy = k.sites.find((s) => s.op.kind === 'cp-async');
      if (!copy) continue;
      if (k.sites.some((s) => s.op.kind === 'cp-async-arrive' || s.op.kind === 'cp-async-arrive-noinc' || s.op.kind === 'cp-async-wait')) continue;
      const wait = k.sites.find((s) => isBlockingWait(s.op) && s.order > copy.order);
      if (!wait) continue;
      ctx.report({
        range: copy.op.range,
        message: `This cp.async is not attached to any barrier: without cp.async.mbarrier.arrive (or cp.async.wait_group) the wait on \`${barrierName(wait.op)}\` (line ${line1(wait.op.range)}) can pass while the copy is still in flight, and the consumer reads stale shared memory (data race).`,
        related: [{ range: wait.op.range, message: 'this wait does not cover the copy' }],
      });
    }
  },
};
