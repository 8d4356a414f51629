// The barrier and asynchronous-copy operations compiled builtins and inline PTX perform at run time,
// over the machine's mbarrier services: finding the barrier at an address, a thread's arrive (with
// the converged-warp over-arrival check), parity and token waits (blocking, probing, or with a time
// limit), completion functions, and bulk copies that complete transaction bytes when they land.
import { whereOf } from '../../../sim/reports';
import { type Machine, type SimBarrier, type SimThread, SimError } from '../../../sim/machine';
import { copyBytes, type Pointer } from '../../../sim/memory';
import { barrierLabel, type Closure, type Frame, type ThreadCtx } from './runtime';

/** What the CUDA executor keeps per barrier (`SimBarrier.exec`). */
interface BarrierExt {
  /** Per arrive site (its instruction) and warp (`site * 32 + warp`): the group of the latest instance. */
  groups: (ArriveGroup | undefined)[];
  /** The barrier carries transaction bytes (a wait on it marks the waiter a consumer). */
  tx: boolean;
}

function extOf(b: SimBarrier): BarrierExt {
  return (b.exec ??= { groups: [], tx: false }) as BarrierExt;
}

export function barrierAt(m: Machine, p: Pointer | null, what: string): SimBarrier {
  if (!p) throw new SimError(`${what}: null barrier pointer`);
  // Found by 8-byte slot (a misaligned offset is no slot and takes the checking path below).
  const known = p.buf.slots?.[p.offset / 8] as SimBarrier | undefined;
  if (known) return known;
  if (p.buf.space !== 'shared') throw new SimError(`${what}: the mbarrier must live in shared memory, but '${p.buf.name}' is ${p.buf.space} memory`);
  if (p.offset % 8 !== 0) throw new SimError(`${what}: mbarrier address ${p.buf.name}+${p.offset} is not 8-byte aligned`);
  if (p.offset < 0 || p.offset + 8 > p.buf.size) throw new SimError(`${what}: mbarrier at byte ${p.offset} is outside '${p.buf.name}' (${p.buf.size} bytes)`, undefined, 'oob');
  const b = m.mbarrierAt(p.buf, p.offset, barrierLabel(p));
  (p.buf.slots ??= [])[p.offset / 8] = b;
  return b;
}

export function markProducer(t: SimThread, b?: SimBarrier): void {
  t.role ??= 'producer';
  if (b) extOf(b).tx = true;
}

function markWaiter(t: SimThread, b: SimBarrier): void {
  if (!t.role && (b.exec as BarrierExt | undefined)?.tx) t.role = 'consumer';
}

/** Runs a completion function (cuda::barrier CompletionF) synchronously on the last arriver. */
export function completionRunner(ts: ThreadCtx, cl: Closure): (m: Machine) => void {
  return () => {
    ts.ex.runSync(ts.ex.current ?? ts, cl.fn, cl.env);
  };
}

// A converged warp executes an arrive once for all its active lanes: one update of N arrivals.
// Lanes run one at a time here, so the lanes of one dynamic instance of an arrive site (the k-th
// time each lane executes it) are grouped; if that group's arrivals straddle a phase boundary,
// the hardware's single N-count update would have overshot the phase (over-arrival).
interface ArriveGroup {
  instance: number;
  phase: number;
  pending: number;
  lanes: number;
}

export function threadArrive(f: Frame, b: SimBarrier, count = 1, tx = 0, drop = false): number {
  const ts = f.ts;
  const { m, t } = ts;
  const ins = f.fn.code[f.pc];
  let site = ins.site;
  if (site < 0) ins.site = site = ts.ex.newSite();
  const inst = (ts.siteCount[site] ?? 0) + 1;
  ts.siteCount[site] = inst;
  const g = extOf(b).groups;
  const key = site * 32 + t.warp;
  const e = g[key];
  const st = b.mb.state;
  if (e && e.instance === inst && st.initialized && e.phase !== st.phase && !drop) {
    e.lanes++;
    m.raise({
      kind: 'misuse',
      message:
        `barrier misuse: arrive on ${b.label} by ${t.label} at ${whereOf(t, t.loc)}: the lanes of warp ${t.warp} arrive together ` +
        `(a converged warp's arrive is one update of ${e.lanes} arrivals) but only ${e.pending} ${e.pending === 1 ? 'was' : 'were'} pending in that phase; the excess spills into the next phase`,
      loc: t.loc,
      threads: [t.index],
      misuse: { kind: 'over-arrival', arrivals: e.lanes, pending: e.pending },
      barrier: { label: b.label, block: b.block },
    });
  } else if (!e) g[key] = { instance: inst, phase: st.phase, pending: st.pending, lanes: count };
  else if (e.instance !== inst) {
    e.instance = inst;
    e.phase = st.phase;
    e.pending = st.pending;
    e.lanes = count;
  } else e.lanes += count;
  return m.mbArrive(t, b, count, tx, drop);
}

export type WaitMode = 'block' | 'probe' | number;

/** Parity wait in one of three modes: block until done, probe once, or block up to a time limit. */
export function waitParity(f: Frame, key: object, b: SimBarrier, parity: number, mode: WaitMode): number | undefined {
  const { m, t } = f.ts;
  markWaiter(t, b);
  if (mode === 'block') return m.mbWaitParity(t, b, parity) ? 1 : undefined;
  if (mode === 'probe') {
    const ok = m.mbTestParity(t, b, parity);
    if (!ok) m.yieldNow = true; // let the others run before the next probe
    return ok ? 1 : 0;
  }
  return timed(f, key, b, () => b.mb.parityComplete(parity & 1), () => m.mbTestParity(t, b, parity), mode, `${b.label} (parity ${parity & 1}, try_wait with a time limit)`, parity & 1);
}

export function waitToken(f: Frame, key: object, b: SimBarrier, token: number, mode: WaitMode): number | undefined {
  const { m, t } = f.ts;
  markWaiter(t, b);
  if (mode === 'block') return m.mbWaitToken(t, b, token) ? 1 : undefined;
  if (mode === 'probe') {
    const ok = m.mbTestToken(t, b, token);
    if (!ok) m.yieldNow = true;
    return ok ? 1 : 0;
  }
  return timed(f, key, b, () => b.mb.tokenComplete(token).done, () => m.mbTestToken(t, b, token), mode, `${b.label} (token of phase ${token}, try_wait with a time limit)`, token & 1);
}

function timed(f: Frame, key: object, b: SimBarrier, done: () => boolean, take: () => boolean, limit: number, what: string, parity: number): number | undefined {
  const ts = f.ts;
  const { m, t } = ts;
  if (!b.mb.state.initialized) return m.mbTestParity(t, b, parity) ? 1 : 0; // reports the misuse
  if (done()) {
    ts.timer = undefined;
    return take() ? 1 : 0;
  }
  if (!ts.timer || ts.timer.key !== key) {
    const op = m.asyncIssue(t, 'try_wait-timer', 'try_wait time limit', Math.max(1, limit), () => {});
    t.asyncGroups.get('try_wait-timer')?.open.pop();
    ts.timer = { key, op };
  }
  const op = ts.timer.op;
  if (op.done) {
    ts.timer = undefined;
    return 0;
  }
  m.blockOn(t, { kind: 'mbarrier-parity', barrier: b, parity, ready: () => done() || op.done, describe: () => what });
  return undefined;
}

/** Copies (by their `what`) that go through the generic proxy. */
const GENERIC_PROXY_COPIES = new Set(['cp.async', 'cuda::memcpy_async']);

/** Issues a bulk (TMA-style) copy that completes `bytes` of transactions on `b` when it lands. */
export function bulkCopy(ts: ThreadCtx, dst: Pointer | null, src: Pointer | null, bytes: number, b: SimBarrier | undefined, what: string, latency?: number): void {
  const { m, t } = ts;
  if (!dst || !src) throw new SimError(`${what}: null pointer`);
  if (bytes < 0 || !Number.isInteger(bytes)) throw new SimError(`${what}: bad size ${bytes}`);
  if (bytes % 16 !== 0 && latency === undefined) throw new SimError(`${what}: size ${bytes} is not a multiple of 16 bytes`);
  if (dst.offset < 0 || dst.offset + bytes > dst.buf.size) throw new SimError(`${what}: destination byte ${dst.offset}..${dst.offset + bytes - 1} is outside '${dst.buf.name}' (${dst.buf.size} bytes)`, undefined, 'oob');
  if (src.offset < 0 || src.offset + bytes > src.buf.size) throw new SimError(`${what}: source byte ${src.offset}..${src.offset + bytes - 1} is outside '${src.buf.name}' (${src.buf.size} bytes)`, undefined, 'oob');
  markProducer(t, b);
  const label = `${what} ${bytes} B → ${dst.buf.name}${b ? ` (complete_tx on ${b.label})` : ''}`;
  // The non-bulk cp.async (and cuda::memcpy_async, which lowers to it or to plain copies) accesses
  // memory through the generic proxy; bulk copies through the async proxy.
  const proxy = GENERIC_PROXY_COPIES.has(what) ? 'generic' : 'async';
  const op = m.asyncIssue(t, b ? 'bulk' : 'cp.async', label, latency ?? m.lat.bulkCopy, (mm) => {
    copyBytes(dst, src, bytes);
    mm.accessAsync(op, dst.buf, dst.offset, bytes, true, proxy);
    if (src.buf.space === 'shared') mm.accessAsync(op, src.buf, src.offset, bytes, false, proxy);
    if (b) mm.mbCompleteTx(b, bytes, op);
  });
  m.asyncEffects(op, { signals: b ? [b] : undefined, writesShared: dst.buf.space === 'shared' });
}
