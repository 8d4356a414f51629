// Which operands of a PTX instruction the instruction writes (its destinations), from the "Syntax" and
// "Description" blocks of the PTX ISA. Read by the rule asm-result-bound-to-input; an instruction not listed
// here is not judged.
//
// PTX ISA 9.0: 9.7.13.15.13 mbarrier.arrive / arrive_drop (`state` is the first operand, written unless it is
// the sink `_`), 9.7.13.15.16 mbarrier.test_wait / try_wait (`waitComplete`), 9.7.13.15.19 mbarrier.pending_count,
// 9.7.9.21 mapa, 9.7.8.1 selp, 9.7.9.6 mov, 9.7.9.8 ld, 9.7.9.9 ldu, 9.7.9.20 cvta, 9.7.9.21 cvt, 9.7.13.5 atom,
// 9.7.3.x integer arithmetic, 9.7.7.x logic and shift, 9.7.13.8 activemask, 9.7.13.7 vote, 9.7.9.6 shfl,
// 9.7.13.11 elect.sync, 9.7.9.23 getctarank, 9.7.16.8.3 tcgen05.ld, 9.7.14.5 mma, 9.7.9.14 ldmatrix: each writes
// its first operand (a register, a vector of registers, or `d|p` for the forms that also set a predicate).

import type { AsmOperand } from '../ir/types';

/** Instruction names whose first operand is a destination; a written mnemonic matches its name or a name followed by qualifiers. */
const WRITES_FIRST_OPERAND = [
  'mbarrier.arrive',
  'mbarrier.arrive_drop',
  'mbarrier.test_wait',
  'mbarrier.try_wait',
  'mbarrier.pending_count',
  'mapa',
  'getctarank',
  'selp',
  'mov',
  'ld',
  'ldu',
  'ldmatrix',
  'cvta',
  'cvt',
  'atom',
  'activemask',
  'vote',
  'shfl',
  'elect',
  'tcgen05.ld',
  'mma',
  'add',
  'sub',
  'mul',
  'mad',
  'div',
  'rem',
  'min',
  'max',
  'abs',
  'neg',
  'and',
  'or',
  'xor',
  'not',
  'shl',
  'shr',
  'prmt',
  'bfe',
  'bfi',
  'popc',
  'clz',
  'brev',
];

/** The positions (0-based) of the operands `mnemonic` writes, or undefined when the table does not know the instruction. */
export function ptxDestinationOperands(mnemonic: string): number[] | undefined {
  // `mbarrier.arrive_drop` is its own instruction, not `mbarrier.arrive` with a qualifier: the name ends at a dot.
  return WRITES_FIRST_OPERAND.some((name) => mnemonic === name || mnemonic.startsWith(`${name}.`)) ? [0] : undefined;
}

/** The operand of an asm statement a reference (`%1`, `%[state]`) names. */
export function asmOperandNamed(ref: string, operands: readonly AsmOperand[]): AsmOperand | undefined {
  const index = /^%(\d+)$/.exec(ref);
  if (index) return operands[+index[1]];
  const name = /^%\[(\w+)\]$/.exec(ref);
  return name ? operands.find((o) => o.name === name[1]) : undefined;
}

/** The asm operand references (`%0`, `%[name]`) a destination operand names: one, or several in a vector `{%0, %1}`; the `|p` predicate half of `d|p` is not one. */
export function operandReferences(operand: string): string[] {
  const text = operand.replace(/\|.*$/, '');
  if (text.trim().startsWith('[')) return [];
  return [...text.matchAll(/%(\d+|\[\w+\])/g)].map((m) => m[0]);
}
