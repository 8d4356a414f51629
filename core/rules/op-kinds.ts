// Groups of barrier operation kinds that several rules ask about: arrivals and waits.
import type { BarrierOp } from '../ir/types';

export const ARRIVE_KINDS = new Set(['arrive', 'arrive-expect-tx', 'arrive-drop', 'mma-commit-arrive', 'cp-async-arrive-noinc']);
export const WAIT_KINDS = new Set(['wait-parity', 'wait-token']);

export function isBlockingWait(op: BarrierOp): boolean {
  return WAIT_KINDS.has(op.kind) && op.result === 'blocking';
}
