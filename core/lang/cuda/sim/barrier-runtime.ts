// The barrier and asynchronous-copy operations compiled builtins and inline PTX perform at run time,
// over the machine's mbarrier services: finding the barrier at an address, a thread's arrive (with
// the converged-warp over-arrival check), parity and token waits (blocking, probing, or with a time
// limit), completion functions, and bulk copies that complete transaction bytes when they land.
import { whereOf } from '../../../sim/reports';
import { type Machine, type SimBarrier, type SimThread, SimError } from '../../../sim/machine';
import { type Buffer, copyBytes, type Pointer } from '../../../sim/memory';
import type { ElemLanes } from './context';
import { barrierLabel, type Closure, type Frame, type RowFx, type ThreadCtx } from './runtime';

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
  return barrierFirstUse(m, p, what);
}

/** `barrierAt` of `buf[offset]` without a pointer. */
function barrierAtParts(m: Machine, buf: Buffer, offset: number, what: string): SimBarrier {
  const known = buf.slots?.[offset / 8] as SimBarrier | undefined;
  return known ?? barrierFirstUse(m, { buf, offset }, what);
}

function barrierFirstUse(m: Machine, p: Pointer, what: string): SimBarrier {
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

export function markWaiter(t: SimThread, b: SimBarrier): void {
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

/** What a row's lane scratch holds between rows (nothing of a run: compiled kernels outlive their runs). */
export const NO_THREAD = undefined as unknown as SimThread;

/**
 * The row form of an arrive (`count` arrivals per lane) for a converged warp's lanes: when they all
 * arrive on one barrier, one update of their arrivals (MbarrierServices.mbArriveLanes), with the
 * arrive groups left as lane-by-lane arrivals leave them. `bar` must be free of effects (it is
 * evaluated again when the row declines). Declines, before any effect, where a lane would report.
 */
export function arriveRow(find: LaneBarrier, count: number): RowFx {
  const lanes: SimThread[] = [];
  return (fs, n, out) => {
    const f0 = fs[0];
    const ts0 = f0.ts;
    const b = find(fs, n);
    if (!b) return false;
    const st = b.mb.state;
    if (!st.initialized) return false;
    const ins = f0.fn.code[f0.pc];
    let site = ins.site;
    if (site < 0) ins.site = site = ts0.ex.newSite();
    const g = extOf(b).groups;
    const key = site * 32 + ts0.t.warp;
    let e = g[key];
    // Only lane 0 can find its group begun in an earlier phase (then it reports over-arrival): lane by lane.
    if (e && e.instance === (ts0.siteCount[site] ?? 0) + 1 && e.phase !== st.phase) return false;
    const phase = st.phase;
    const pending = st.pending;
    for (let j = 0; j < n; j++) lanes[j] = fs[j].ts.t;
    // A completion function runs on the last arriver.
    const ex = ts0.ex;
    const running = ex.current;
    ex.current = fs[n - 1].ts;
    let token: number | undefined;
    try {
      token = ts0.m.mbarriers.mbArriveLanes(lanes, n, b, count);
    } finally {
      ex.current = running;
      // A compiled kernel outlives its run (compile-cache.ts): its scratch keeps no thread.
      lanes.fill(NO_THREAD, 0, n);
    }
    if (token === undefined) return false;
    for (let j = 0; j < n; j++) {
      const ts = fs[j].ts;
      const inst = (ts.siteCount[site] ?? 0) + 1;
      ts.siteCount[site] = inst;
      if (!e) g[key] = e = { instance: inst, phase, pending: pending - j * count, lanes: count };
      else if (e.instance !== inst) {
        e.instance = inst;
        e.phase = phase;
        e.pending = pending - j * count;
        e.lanes = count;
      } else e.lanes += count;
      out[j] = token;
    }
    return true;
  };
}

/**
 * The row form of a blocking parity or token wait (`value`: the lane's parity or token; like `bar`,
 * free of effects): lanes waiting on one barrier pass or block in one call
 * (MbarrierServices.mbWaitLanes). Declines, before any effect, where a lane would report.
 */
export function waitRow(find: LaneBarrier, value: (f: Frame) => number, parity: boolean): RowFx {
  const lanes: SimThread[] = [];
  const values: number[] = [];
  return (fs, n, out) => {
    const b = find(fs, n);
    if (!b) return false;
    for (let j = 0; j < n; j++) {
      const f = fs[j];
      lanes[j] = f.ts.t;
      values[j] = value(f);
    }
    const ok = fs[0].ts.m.mbarriers.mbWaitLanes(lanes, n, b, values, parity, out);
    if (ok) for (let j = 0; j < n; j++) markWaiter(lanes[j], b);
    lanes.fill(NO_THREAD, 0, n);
    return ok;
  };
}

/** The one barrier a row's lanes name, or undefined (different ones, or an operand that faults: the lanes then run one by one). */
export type LaneBarrier = (fs: readonly Frame[], n: number) => SimBarrier | undefined;

/**
 * The LaneBarrier of operand `bar` (free of effects). An array element whose index has a lane-vector
 * form (`bars[i % STAGES]`) is found with the index evaluated once for all lanes.
 */
export function laneBarrier(bar: (f: Frame) => SimBarrier, what: string, elem?: ElemLanes): LaneBarrier {
  if (!elem)
    return (fs, n) => {
      try {
        const b = bar(fs[0]);
        for (let j = 1; j < n; j++) if (bar(fs[j]) !== b) return undefined;
        return b;
      } catch {
        return undefined;
      }
    };
  const { buf: B, base, index, es } = elem;
  return (fs, n) => {
    try {
      const ix = index(fs, n);
      const f0 = fs[0];
      const buf = B(f0) as Buffer;
      const off = base(f0) + ix[0] * es;
      for (let j = 1; j < n; j++) if (B(fs[j]) !== buf || base(fs[j]) + ix[j] * es !== off) return undefined;
      return barrierAtParts(f0.ts.m, buf, off, what);
    } catch {
      return undefined;
    }
  };
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
