// The shared-memory addresses of an asynchronous copy's operands (a bulk copy's destination, a bulk store's
// source) as byte addresses from a declared buffer, for rules that relate copies to the stores and barriers
// around them. Kept out of lower.ts, which reads the operands and hands them here.
import type { BarrierDecl, BarrierOp, Expr } from '../../ir/types';
import { byteAddress } from './byte-address';

/** Sets `op.dst` / `op.src` from the operand expressions, where each resolves to a byte address. */
export function setCopyAddresses(
  op: BarrierOp,
  operands: { dst?: Expr; src?: Expr },
  aliases: ReadonlyMap<string, Expr>,
  decls: ReadonlyMap<string, BarrierDecl>,
): void {
  for (const key of ['dst', 'src'] as const) {
    const e = operands[key];
    const address = e ? byteAddress(e, aliases, decls) : undefined;
    if (e && address) op[key] = { ...address, text: e.text };
  }
}
