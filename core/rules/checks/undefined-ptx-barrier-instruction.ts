// PF307: an inline-PTX barrier instruction (mbarrier, cp.async, bulk copy, fence, tcgen05.commit, barrier.cluster)
// that the PTX ISA does not define: a misspelt mnemonic, an unknown or missing qualifier, a wrong type or state space.
import type { RuleDef } from '../types';
import { checkPtxBarrierInstruction } from '../ptx-barrier-grammar';
import { writtenAsmInstructions } from '../written-asm';

export const undefinedPtxBarrierInstruction: RuleDef = {
  meta: {
    id: 'undefined-ptx-barrier-instruction',
    code: 'PF307',
    family: 'commit',
    defaultSeverity: 'error',
    summary: 'An inline-PTX barrier instruction the PTX ISA does not define (misspelt mnemonic, bad qualifiers).',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Checks every mbarrier, cp.async, cp.async.bulk(.tensor), fence.mbarrier_init, fence.proxy.async, tcgen05.commit/fence and barrier.cluster instruction written in an `asm` string against the PTX ISA\'s forms of it: the instruction name, which qualifiers it takes (at most one of each kind, the required ones present, `.sem` together with `.scope`), its state spaces in order and its `.b64` type, and the sink `_` destination of a remote arrive. Strings built from macros or other names are not read.',
    whyIsThisBad:
      'ptxas rejects the instruction, and nvcc only runs ptxas when it generates code for a real architecture: a build for a virtual one (`-arch=compute_90a`, or a JIT fallback) fails at load time on the user\'s machine, and a kernel whose barrier operation never assembles never synchronises. The nearest spelling is usually not what was meant either (`.b32` state, a `.cta` scope on a barrier other CTAs use), so a fix by trial and error can leave a hang or race behind; the message names the ISA form.',
    bad: `__global__ void k(int* out) {
  __shared__ __align__(8) unsigned long long bar;
  unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(addr), "r"(blockDim.x));
  __syncthreads();
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(addr) : "memory");
  asm volatile(
      "{\\n"
      ".reg .pred p;\\n"
      "WAIT:\\n"
      "mbarrier.try_wait.parity.shared::cta.b32 p, [%0], %1;\\n"
      "@!p bra WAIT;\\n"
      "}\\n" :: "r"(addr), "r"(0) : "memory");
  out[threadIdx.x] = 1;
}`,
    good: `__global__ void k(int* out) {
  __shared__ __align__(8) unsigned long long bar;
  unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(addr), "r"(blockDim.x));
  __syncthreads();
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(addr) : "memory");
  asm volatile(
      "{\\n"
      ".reg .pred p;\\n"
      "WAIT:\\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\\n"
      "@!p bra WAIT;\\n"
      "}\\n" :: "r"(addr), "r"(0) : "memory");
  out[threadIdx.x] = 1;
}`,
    references: [
      'PTX ISA 9.0, 9.7.13.15 mbarrier (init, arrive, arrive_drop, expect_tx, complete_tx, test_wait, try_wait, pending_count)',
      'PTX ISA 9.0, 9.7.9.3 cp.async and cp.async.mbarrier.arrive; 9.7.9.25-9.7.9.28 cp.async.bulk, cp.async.bulk.tensor, prefetch',
      'PTX ISA 9.0, 9.7.13.4 fence (mbarrier_init, proxy.async); 9.7.13.3 barrier.cluster; 9.7.16 tcgen05.commit, tcgen05.fence',
    ],
  },
  check(ctx) {
    for (const ins of writtenAsmInstructions(ctx)) {
      const problem = checkPtxBarrierInstruction(ins.mnemonic, ins.operands);
      if (!problem) continue;
      ctx.report({
        range: ins.range,
        message: `\`${ins.mnemonic}\` is not an instruction the PTX ISA defines: ${problem}. ptxas rejects it (at JIT time on the user's machine when the build embeds PTX only), so this barrier operation never runs.`,
      });
    }
  },
};
