// Inline-PTX instructions about ordering, timing and resources rather than data: the proxy fence,
// the TMEM dealloc's in-flight check, `nanosleep`, `griddepcontrol`, `setmaxnreg` and the timer
// special registers. ptx.ts dispatches to these by catalogue key; they touch the machine only
// through its services.
import { SimError } from '../../../sim/machine';
import type { Frame } from './runtime';

type Regs = any[];
type PInstr = (f: Frame, r: Regs, pc: number) => number;
type Val = (r: Regs, f: Frame) => any;

/** fence.proxy.async{.shared::cta|.shared::cluster|.global}: generic accesses before it are visible to async-proxy operations after it. */
export const fenceProxyAsync: PInstr = (f, _r, pc) => {
  f.ts.m.fenceProxyAsync(f.ts.t);
  return pc + 1;
};

/**
 * tcgen05.dealloc: the columns go back to the allocator; an MMA of the block still writing tensor
 * memory is reported here (tcgen05.dealloc while the accumulator is being written).
 */
export const tcgen05Dealloc: PInstr = (f, _r, pc) => {
  f.ts.m.tearDown(f.ts.t, 'tcgen05.dealloc', (op) => !!op.writesTmem);
  return pc + 1;
};
