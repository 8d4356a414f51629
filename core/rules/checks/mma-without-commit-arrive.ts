// PF301: tcgen05.mma work that no tcgen05.commit attaches to a barrier.
import type { RuleDef } from '../types';
import { ARRIVE_KINDS, isBlockingWait } from '../op-kinds';
import { barrierName, line1 } from '../naming';

export const mmaWithoutCommitArrive: RuleDef = {
  meta: {
    id: 'mma-without-commit-arrive',
    code: 'PF301',
    family: 'commit',
    defaultSeverity: 'error',
    summary: 'tcgen05.mma results are waited for, but no tcgen05.commit arrives on a barrier.',
    languages: ['cuda', 'tilus'],
    fix: 'none',
  },
  docs: {
    whatItDoes: 'Reports kernels that issue `tcgen05.mma` (inline PTX or wrappers that inline to it) and wait on mbarriers, but never issue `tcgen05.commit…mbarrier::arrive::one` (or `umma_arrive`, `cuda::ptx::tcgen05_commit`).',
    whyIsThisBad: 'An MMA does not signal anything by itself. Only a commit turns "all prior tcgen05 work of this thread is done" into a barrier arrival. Without it the epilogue waits on a barrier that never completes (hang), or, if it uses another barrier, reads the accumulator while the tensor core is still writing it.',
    bad: `__global__ void k(uint32_t tmem, uint64_t adesc, uint64_t bdesc, uint32_t idesc) {
  __shared__ uint64_t done;
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"((uint32_t)__cvta_generic_to_shared(&done)));
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, 1;" :: "r"(tmem), "l"(adesc), "l"(bdesc), "r"(idesc));
  }
  asm volatile("{\\n.reg .pred p;\\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n@!p bra W;\\n}" :: "r"((uint32_t)__cvta_generic_to_shared(&done)));
}`,
    good: `__global__ void k(uint32_t tmem, uint64_t adesc, uint64_t bdesc, uint32_t idesc) {
  __shared__ uint64_t done;
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"((uint32_t)__cvta_generic_to_shared(&done)));
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, 1;" :: "r"(tmem), "l"(adesc), "l"(bdesc), "r"(idesc));
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" :: "r"((uint32_t)__cvta_generic_to_shared(&done)));
  }
  asm volatile("{\\n.reg .pred p;\\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n@!p bra W;\\n}" :: "r"((uint32_t)__cvta_generic_to_shared(&done)));
}`,
    references: ['PTX ISA, tcgen05.commit', 'mbarrier tutorial, Synchronization Rules (MMA to epilogue)'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const mma = k.sites.find((s) => s.op.kind === 'mma');
      if (!mma) continue;
      // A barrier that is waited for but that nothing arrives on: in an MMA kernel, the missing
      // arrival is the commit of the MMA work the waiter is after.
      let reported = false;
      const seen = new Set<string>();
      for (const w of k.sites) {
        if (!isBlockingWait(w.op) || !w.op.barrier || seen.has(w.op.barrier.base)) continue;
        const base = w.op.barrier.base;
        seen.add(base);
        if (k.escapes(base) || k.sites.some((s) => s.op.barrier?.base === base && s.op.remote)) continue;
        if (k.opsOn(base).some((s) => ARRIVE_KINDS.has(s.op.kind) || s.op.kind === 'bulk-copy' || s.op.kind === 'cp-async-arrive')) continue;
        reported = true;
        ctx.report({
          range: w.op.range,
          message: `Nothing ever arrives on \`${barrierName(w.op)}\`: the tcgen05.mma work this wait is for (line ${line1(mma.op.range)}) is never committed to it with tcgen05.commit…mbarrier::arrive, so the wait hangs.`,
          related: [{ range: mma.op.range, message: 'MMA whose completion is never signalled to this barrier' }],
        });
      }
      if (reported || k.sites.some((s) => s.op.kind === 'mma-commit-arrive')) continue;
      const wait = k.sites.find((s) => isBlockingWait(s.op) && s.order > mma.order);
      if (!wait) continue;
      ctx.report({
        range: mma.op.range,
        message: `This tcgen05.mma is never committed to a barrier: no tcgen05.commit…mbarrier::arrive follows it, so the wait on \`${barrierName(wait.op)}\` (line ${line1(wait.op.range)}) never learns that the MMA finished — it hangs, or the epilogue reads the accumulator while the tensor core still writes it.`,
        related: [{ range: wait.op.range, message: 'waits for the MMA results' }],
      });
    }
  },
};
