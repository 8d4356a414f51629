// The barrier-family instructions written in a function's inline assembly, as the PTX spelling check reads
// them (rule undefined-ptx-barrier-instruction): those of the helpers a kernel inlines are collected by the
// lowering; those of functions no kernel reaches are collected here, from the syntax tree alone.
import type { AsmInstruction, AsmOperand } from '../../ir/types';
import { asmOperandNamed } from '../../rules/ptx-destination-operands';
import type { SyntaxNode } from './parser';
import { asmStringIsLiteral, asmStringText, readPtxLines } from './ptx';
import { type FnDef, HOLDS_ASM } from './scan';
import { rangeOf } from './syntax-nodes';

/** Mnemonics the PTX spelling check reads: the barrier families (mbarrier, bar/barrier, cp.async, fence, tcgen05) and near misses of `mbarrier`. */
export const BARRIER_FAMILY_MNEMONIC = /^(m?ba|mb|cp\.async|fence\.|tcgen05\.)/;

/** At most this many per kernel or file: the check is about spelling, and a generated file can hold thousands. */
export const MAX_ASM_INSTRUCTIONS = 500;

/** The checked instructions of one asm statement's string, when the string is all literal text. */
export function asmInstructionsOf(code: SyntaxNode): AsmInstruction[] {
  if (!asmStringIsLiteral(code)) return [];
  const range = rangeOf(code);
  const lines = readPtxLines(asmStringText(code));
  const out: AsmInstruction[] = [];
  const operands = asmOperandsOf(code.parent);
  lines.forEach((line, i) => {
    const family = BARRIER_FAMILY_MNEMONIC.test(line.mnemonic);
    // Outside the barrier family only an instruction whose first operand (where most instructions write)
    // names an input operand is kept: what rule asm-result-bound-to-input reads, and rare.
    if (!family && !(line.mnemonic && namesInputOperand(line.operands[0], operands))) return;
    const ins: AsmInstruction = { mnemonic: line.mnemonic, operands: line.operands, range };
    if (!family) ins.beyondBarrierFamily = true;
    if (operands.length && line.operands.some((o) => o.includes('%'))) ins.asmOperands = operands;
    if (PROBE.test(line.mnemonic) && resultUnread(line.operands[0], lines.slice(i + 1))) ins.resultUnread = true;
    out.push(ins);
  });
  return out;
}

/** The operands of an asm statement, outputs first (as `%N` numbers them); empty when `asm` is not a GNU asm expression. */
function asmOperandsOf(asm: SyntaxNode | null): AsmOperand[] {
  if (asm?.type !== 'gnu_asm_expression') return [];
  const out: AsmOperand[] = [];
  for (const [list, output] of [['output_operands', true], ['input_operands', false]] as const) {
    for (const o of asm.childForFieldName(list)?.namedChildren ?? []) {
      if (o?.type !== (output ? 'gnu_asm_output_operand' : 'gnu_asm_input_operand')) continue;
      const constraint = o.childForFieldName('constraint');
      const value = o.childForFieldName('value');
      if (!constraint || !value) continue;
      const symbol = o.childForFieldName('symbol') ?? o.namedChildren.find((c) => c?.type === 'identifier' && c.id !== value.id) ?? undefined;
      const operand: AsmOperand = { constraint: asmStringText(constraint), value: value.text, output };
      if (symbol) operand.name = symbol.text;
      out.push(operand);
    }
  }
  return out;
}

/** Whether a PTX operand names an operand of the statement that is an input only. */
function namesInputOperand(operand: string | undefined, operands: readonly AsmOperand[]): boolean {
  if (!operand || !operands.length) return false;
  return [...operand.matchAll(/%(\d+|\[\w+\])/g)].some((m) => asmOperandNamed(m[0], operands)?.output === false);
}

const PROBE = /^mbarrier\.(try_wait|test_wait)\b/;

/** A probe's destination register, named in the string (not an operand `%N`), that nothing after it reads. */
function resultUnread(destination: string | undefined, after: ReturnType<typeof readPtxLines>): boolean {
  if (!destination || !/^[A-Za-z_$][\w$]*$/.test(destination)) return false;
  const mentions = new RegExp(`(^|[^\\w$%])${destination.replace(/\$/g, '\\$')}($|[^\\w$])`);
  return !after.some((l) => l.pred?.reg === destination || l.operands.some((o) => mentions.test(o)));
}

/** The instructions in the bodies of `fns` (the document's own functions that no kernel reached). */
export function unreachedAsmInstructions(fns: readonly FnDef[], text: string): AsmInstruction[] {
  const out: AsmInstruction[] = [];
  for (const fn of fns) {
    if (out.length >= MAX_ASM_INSTRUCTIONS) break;
    // A lexical test first (known from the scan when it read this text before): most functions hold no asm,
    // and walking their trees is what costs.
    if (fn.holdsAsm === false) continue;
    if (fn.holdsAsm === undefined) {
      const [start, end] = fn.bodySpan?.() ?? [fn.body.startIndex, fn.body.endIndex];
      if (!HOLDS_ASM.test(text.slice(start, end))) continue;
    }
    for (const n of fn.body.descendantsOfType('gnu_asm_expression')) {
      const code = n?.childForFieldName('assembly_code');
      if (code) out.push(...asmInstructionsOf(code));
    }
  }
  return out.slice(0, MAX_ASM_INSTRUCTIONS);
}
