// Inline-PTX instructions about ordering, timing and resources rather than data: the proxy fence,
// the TMEM dealloc's in-flight check, `nanosleep`, `griddepcontrol`, `setmaxnreg` and the timer
// special registers. ptx.ts dispatches to these by catalogue key; they touch the machine only
// through its services.
import { SimError } from '../../../sim/machine';
import type { Frame } from './runtime';
import type { PInstr, Regs } from './ptx-site';

type Val = (r: Regs, f: Frame) => any;

/** The PTX result for a blocked instruction (re-run when the thread wakes). */
const BLOCK = -1;

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

/** nanosleep.u32 t: the thread's simulated time advances by `t` (one simulated cycle per nanosecond). */
export function nanosleep(ns: Val): PInstr {
  return (f, r, pc) => {
    const v = Number(ns(r, f));
    if (!Number.isFinite(v) || v < 0) throw new SimError(`nanosleep: bad duration ${v}`);
    f.ts.t.time += v;
    return pc + 1;
  };
}

/**
 * griddepcontrol.launch_dependents / .wait (programmatic dependent launch): a single kernel launch
 * has no dependent grid to signal and no primary grid to wait for, so both do nothing.
 */
export const griddepcontrol: PInstr = (_f, _r, pc) => pc + 1;

/** Barrier ids above PTX's 16 named barriers: one internal rendezvous per warpgroup for setmaxnreg. */
const SETMAXNREG_BARRIER = 16;

/**
 * setmaxnreg.{inc|dec}.sync.aligned.u32 N: the register budget of the warpgroup's threads. The
 * simulator has no register file to resize; it checks the operand as ptxas does (an immediate in
 * 24..256, a multiple of 8) and, since `.sync.aligned` requires every thread of the warpgroup to
 * execute it, makes the warpgroup's threads meet there: one under an elect or a lane test leaves the
 * others waiting, and the run ends in a deadlock naming the instruction.
 */
export function setmaxnreg(mn: string, count: string): PInstr {
  const n = Number(count.trim());
  if (!/^\d+$/.test(count.trim()) || n < 24 || n > 256 || n % 8 !== 0) throw new SimError(`${mn}: the register count must be an immediate in 24..256 and a multiple of 8, got '${count.trim()}'`);
  if (!/\.(inc|dec)\b/.test(mn)) throw new SimError(`${mn}: setmaxnreg needs .inc or .dec`);
  const op = mn.includes('.inc') ? 'setmaxnreg.inc' : 'setmaxnreg.dec';
  return (f, _r, pc) => {
    const { m, t } = f.ts;
    const wg = t.tid >> 7;
    const members = Math.min(128, m.blockSize - wg * 128);
    return m.syncBlock(t, SETMAXNREG_BARRIER + wg, members, `${op} ${n} (every thread of warpgroup ${wg} must execute it)`) ? pc + 1 : BLOCK;
  };
}

/**
 * %globaltimer (a 64-bit nanosecond timer), %globaltimer_lo / _hi (its halves): the thread's
 * simulated time, one nanosecond per simulated cycle, so it only moves forward and does not depend
 * on the host's clock.
 */
export function timerRegister(name: string): Val | undefined {
  switch (name) {
    case '%globaltimer':
      return (_r, f) => f.ts.t.time;
    case '%globaltimer_lo':
      return (_r, f) => f.ts.t.time % 4294967296;
    case '%globaltimer_hi':
      return (_r, f) => Math.floor(f.ts.t.time / 4294967296);
  }
  return undefined;
}

/**
 * elect.sync d|p, membermask: warp-synchronous, every lane of the mask executes it together; the
 * leader is the lowest lane of the mask. The lanes meet in a warp collective (as the shuffles do),
 * so the election sees the lanes that execute it together rather than whoever has not exited yet.
 */
export function electSync(dests: string, mask: Val, reg: (n: string) => number): PInstr {
  const [dn, pn] = dests.split('|').map((x) => x.trim());
  const d = dn && dn !== '_' ? reg(dn) : -1;
  const p = pn ? reg(pn) : -1;
  return (f, r, pc) => {
    const leader = electedLane(f, Number(mask(r, f)) >>> 0);
    if (leader === undefined) return BLOCK;
    if (d >= 0) r[d] = leader;
    if (p >= 0) r[p] = f.ts.t.lane === leader ? 1 : 0;
    return pc + 1;
  };
}

/** The lane elect.sync elects among `mask` once all of its lanes arrived; undefined while the thread waits. */
export function electedLane(f: Frame, mask: number): number | undefined {
  const { m, t } = f.ts;
  if (!((mask >>> t.lane) & 1)) throw new SimError(`elect.sync: lane ${t.lane} executes it but is not in the member mask 0x${mask.toString(16)}`);
  const values = m.warpExchange(t, mask, 1);
  if (!values) return undefined;
  for (let l = 0; l < 32; l++) if (values[l] !== undefined) return l;
  return t.lane;
}
