// The inline-assembly instructions the rules that read asm text check: the kernels' (their inlined helpers
// included) and those of functions no kernel reaches, each written instruction once.
import type { AsmInstruction } from '../ir/types';
import type { RuleContext } from './types';

/**
 * A helper's asm inlined into several kernels is one piece of text: each instruction as written, once. The
 * instructions outside the barrier family (kept for their operand bindings) only when `everyMnemonic` is set.
 */
export function writtenAsmInstructions(ctx: RuleContext, everyMnemonic = false): AsmInstruction[] {
  const seen = new Set<string>();
  const out: AsmInstruction[] = [];
  for (const list of [...ctx.kernels.map((k) => k.kernel.asmInstructions ?? []), ctx.module.asmInstructions ?? []]) {
    for (const ins of list) {
      if (ins.beyondBarrierFamily && !everyMnemonic) continue;
      const where = `${ins.range.file ?? ''}:${ins.range.start.line}:${ins.range.start.character}:${ins.mnemonic}`;
      if (seen.has(where)) continue;
      seen.add(where);
      out.push(ins);
    }
  }
  return out;
}
