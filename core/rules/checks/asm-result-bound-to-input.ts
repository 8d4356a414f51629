// PF111: an inline-PTX instruction writes its destination into an operand the asm statement declares as an input.
import type { RuleDef } from '../types';
import { asmOperandNamed, operandReferences, ptxDestinationOperands } from '../ptx-destination-operands';
import { writtenAsmInstructions } from '../written-asm';

/** Register constraints of NVPTX inline assembly (16/32/64-bit integer, 32/64-bit float, 128-bit); modifiers stripped. */
const REGISTER_CONSTRAINT = /^[hrlfdq]$/;

export const asmResultBoundToInput: RuleDef = {
  meta: {
    id: 'asm-result-bound-to-input',
    code: 'PF111',
    family: 'phase',
    defaultSeverity: 'error',
    summary: 'An inline-PTX instruction writes its result into an operand bound as an input (no `=` or `+`).',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Reads every inline `asm` string (in kernels, their helpers, and functions no kernel calls) and, for the instructions whose destination operands the PTX ISA defines (`mbarrier.arrive`\'s and `arrive_drop`\'s state, the predicate of `mbarrier.try_wait`/`test_wait`, `mapa`, `selp`, `mov`, `ld`, `cvt`, `atom`, integer and logic arithmetic, …), checks that a destination written as `%N` or `%[name]` is bound to an output operand (`"=r"`, `"+l"`). Other instructions, and destinations named inside the string (`_`, a `.reg` declared there), are not judged.',
    whyIsThisBad:
      'The compiler takes input operands as read-only: it may keep the bound value in that register for later use, or pass a register that holds something else with the same value. The instruction overwrites it behind the compiler\'s back, so the result never reaches the C++ variable (a returned mbarrier state or try_wait answer is lost, and a phase or token built from it is wrong) and an unrelated value the compiler still uses is silently clobbered: undefined behaviour that shows up as wrong phases, hangs or corrupted data depending on register allocation. ptxas does not see the C++ side and cannot complain.',
    bad: `__device__ uint64_t arrive(uint64_t* bar) {
  uint64_t state = 0;
  asm volatile("mbarrier.arrive.shared::cta.b64 %1, [%0];"
               :: "r"(static_cast<unsigned>(__cvta_generic_to_shared(bar))), "l"(state) : "memory");
  return state;
}`,
    good: `__device__ uint64_t arrive(uint64_t* bar) {
  uint64_t state;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
               : "=l"(state) : "r"(static_cast<unsigned>(__cvta_generic_to_shared(bar))) : "memory");
  return state;
}`,
    references: [
      'PTX ISA 9.0, 9.7.13.15.13 mbarrier.arrive (state destination, sink `_`); 9.7.13.15.16 mbarrier.test_wait/try_wait',
      'CUDA: Inline PTX Assembly in CUDA, section 1.1 (output operands `=`, read-write `+`; inputs are not modified)',
    ],
  },
  check(ctx) {
    for (const ins of writtenAsmInstructions(ctx, true)) {
      const operands = ins.asmOperands;
      if (!operands) continue;
      for (const position of ptxDestinationOperands(ins.mnemonic) ?? []) {
        const written = ins.operands[position];
        if (!written) continue;
        for (const ref of operandReferences(written)) {
          const bound = asmOperandNamed(ref, operands);
          if (!bound || bound.output || !REGISTER_CONSTRAINT.test(bound.constraint.replace(/[=+&%!?*#]/g, ''))) continue;
          ctx.report({
            range: ins.range,
            message: `\`${ins.mnemonic}\` writes its destination \`${ref}\`, but \`${ref}\` is the input operand \`"${bound.constraint}"(${bound.value})\`: the compiler assumes inputs are not modified, so the result never reaches \`${bound.value}\` and a register the compiler may still use for something else is overwritten. Bind it as an output (\`"=${bound.constraint}"(${bound.value})\`)${/^mbarrier\.arrive/.test(ins.mnemonic) ? ', or write the sink `_` when the state is not needed' : ''}.`,
          });
        }
      }
    }
  },
};
