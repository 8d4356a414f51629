// What a module of inline-PTX handlers (ptx-cluster, ptx-tensor, ptx-bulk-reduce, ptx-tcgen05) reads
// of one instruction: its mnemonic and words, its operand texts, its syntax node for errors, and
// readers for its operands. One shape for all of them, built once per instruction in ptx.ts.
import type { SyntaxNode } from '../parser';
import type { Frame } from './runtime';

/** The asm block's registers while it executes. */
export type Regs = any[];
/** One compiled PTX instruction: the next instruction's index, or -1 when the thread blocks. */
export type PInstr = (f: Frame, r: Regs, pc: number) => number;
/** Reads an operand: a register, an immediate or a special register. */
export type Operand = (r: Regs, f: Frame) => any;

export interface PtxInstrSite {
  /** The full mnemonic (`cp.async.bulk.tensor.2d.shared::cluster.global…`) and its dot-separated words. */
  mn: string;
  parts: string[];
  /** The operand texts. */
  o: string[];
  n: SyntaxNode;
  value(operand: string): Operand;
  /** `[x]`, `[x+8]`: the base operand and the byte offset. */
  address(operand: string): { base: Operand; off: number };
  /** The register a destination operand names (-1 for the sink `_`). */
  dest(operand: string): number;
}
