// PF105: a try_wait/test_wait whose result nobody looks at.
import type { RuleDef } from '../types';
import { replaceLine } from '../fix-edits';
import { line1 } from '../naming';
import { WAIT_KINDS } from '../op-kinds';
import { writtenAsmInstructions } from '../written-asm';

export const waitResultDiscarded: RuleDef = {
  meta: {
    id: 'wait-result-discarded',
    code: 'PF105',
    family: 'phase',
    defaultSeverity: 'warning',
    summary: 'A try_wait/test_wait probe whose result is ignored does not wait.',
    languages: ['cuda'],
    fix: 'safe',
  },
  docs: {
    whatItDoes: 'Finds `try_wait` / `test_wait` calls (cuda::ptx, `__mbarrier_*`, inline PTX) whose boolean result is thrown away instead of being retried in a loop, and inline-PTX probes whose predicate nothing in the same asm string reads (a wrapper that cannot return the answer), in kernels and in functions no kernel calls yet.',
    whyIsThisBad:
      'A probe returns false when the phase has not completed yet, and `try_wait` may also give up after a time limit. Ignoring the result lets the thread run on before the producers have arrived, so it reads data that is still being written: a silent data race that usually looks fine in testing.',
    bad: `#include <cuda/ptx>
__global__ void k() {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, blockDim.x);
  __syncthreads();
  uint64_t tok = cuda::ptx::mbarrier_arrive(&bar);
  cuda::ptx::mbarrier_try_wait(&bar, tok);
}`,
    good: `#include <cuda/ptx>
__global__ void k() {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, blockDim.x);
  __syncthreads();
  uint64_t tok = cuda::ptx::mbarrier_arrive(&bar);
  while (!cuda::ptx::mbarrier_try_wait(&bar, tok)) {}
}`,
    fixSafety: 'Wrapping the probe in `while (!probe) {}` is what the probe was meant to do; it cannot change correct code.',
    references: ['CUDA C++ Programming Guide, 4.9.3 Explicit Phase Tracking', 'PTX ISA, mbarrier.test_wait/try_wait'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      for (const s of k.sites) {
        if (!WAIT_KINDS.has(s.op.kind) || s.op.result !== 'discarded') continue;
        const r = s.op.range;
        const fixes = [];
        const lines = s.op.lines;
        // Only a call that is a statement of its own, alone on its line (`probe(...);`, `(void)probe(...);`).
        if (lines && s.op.text !== undefined && r.start.line === r.end.line && /^(\(void\)\s*)?$/.test(lines.before) && /^\s*;\s*$/.test(lines.after)) {
          fixes.push({
            title: 'Retry until the phase completes',
            preferred: true,
            edits: [replaceLine(lines, `while (!${s.op.text}) {}`)],
          });
        }
        ctx.report({
          range: r,
          message: `The result of \`${s.op.api.replace(/^asm /, '')}\` on line ${line1(r)} is discarded: a probe returns false while the phase is still in progress, so this thread runs on before the arrivals it should wait for (silent data race). Retry it in a loop.`,
          fixes,
        });
      }
    }
    // Inside an asm string: the probe's predicate is set and then nothing reads it (no selp into an output,
    // no @p bra retry), so whatever wraps the string cannot know whether the phase completed.
    for (const ins of writtenAsmInstructions(ctx)) {
      if (!ins.resultUnread) continue;
      ctx.report({
        range: ins.range,
        message: `\`${ins.mnemonic}\` sets \`${ins.operands[0]}\`, but nothing in this asm reads it afterwards (no \`selp\` into an output operand, no \`@!${ins.operands[0]} bra\` retry): the probe's answer is thrown away, so code using this wrapper runs on whether or not the phase completed. Write the predicate to an output operand (\`selp.b32 %0, 1, 0, ${ins.operands[0]};\`) or retry in the asm.`,
      });
    }
  },
};
