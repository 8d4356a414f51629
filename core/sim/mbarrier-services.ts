// The machine's mbarrier services over the exact PTX state machine (mbarrier.ts): barriers by
// shared-memory address, init/inval, arrivals (with tx and drop, by threads or async engines),
// expect_tx/complete_tx, blocking and probing parity and token waits, phase completion (completion
// functions, race-clock publication, listeners) and misuse reports.
import { type AsyncOp, ArrivalList, type MachineEvent, type MbarrierWaitSlot, type SimBarrier, type SimReport, type SimThread, type TraceEvent, type Wait } from './machine-types';
import { Mbarrier, type MbarrierMisuse } from './mbarrier';
import type { Buffer } from './memory';
import type { RaceDetector } from './races';
import { barrierInitRaceReport, inFlightTeardownReport, lineOf, misuseReport } from './reports';

/** What the services need from the machine that owns them. */
export interface MbarrierHost {
  readonly races?: RaceDetector;
  readonly tracing: boolean;
  readonly trace: TraceEvent[];
  readonly threads: readonly SimThread[];
  readonly listeners: readonly ((e: MachineEvent) => void)[];
  /** Phases completed so far (counted here). */
  phaseFlips: number;
  /** Simulated time of what is happening now (an arrival by an async engine happens then). */
  readonly eventTime: number;
  /** The async op whose completion is running (its arrivals carry its ordering). */
  readonly completingOp: AsyncOp | undefined;
  /** Async ops in flight (an inval while one of them is due to signal the barrier is reported). */
  readonly asyncInFlight: readonly AsyncOp[];
  blockOn(t: SimThread, wait: Wait): boolean;
  notify(on: object): void;
  markDirty(): void;
  raise(r: SimReport): void;
}

/**
 * The wait of a thread blocked on an mbarrier phase (parity or token). One per thread, reused for
 * every such wait: a thread has at most one wait at a time, and waits are the hottest allocation.
 */
class MbarrierWait implements MbarrierWaitSlot {
  kind: 'mbarrier-parity' | 'mbarrier-token' = 'mbarrier-parity';
  parity?: number;
  token?: number;
  constructor(
    public barrier: SimBarrier,
    public on: object,
  ) {}
  ready(): boolean {
    return this.kind === 'mbarrier-parity' ? this.barrier.mb.waitDone(true, this.parity!) : this.barrier.mb.waitDone(false, this.token!);
  }
  describe(): string {
    const b = this.barrier;
    return this.kind === 'mbarrier-parity' ? `${b.label} (parity ${this.parity})` : `${b.label} (token of phase ${this.token}, parity ${this.token! & 1})`;
  }
}

/** Every mbarrier of one machine and the operations on them. */
export class MbarrierServices {
  readonly barriers: SimBarrier[] = [];
  private readonly barrierAt = new Map<Buffer, Map<number, SimBarrier>>();
  /** The shared buffers of each block that hold barriers (a finished block's are found without a walk over every block's). */
  private readonly sharedWithBarriers = new Map<number, Buffer[]>();
  private nextBarrierId = 0;
  /** mbWaitLanes: which lanes' waits passed (reused; a warp has at most 32 lanes). */
  private passedLanes = new Uint8Array(32);
  /** The thread whose arrival (or whose async op's complete_tx) is being applied: it completes the phase. */
  private completingThread?: SimThread;
  private readonly races?: RaceDetector;

  constructor(private readonly m: MbarrierHost) {
    this.races = m.races;
  }

  /** The barrier living at `buf[offset]` (created uninitialised on first use). */
  mbarrierAt(buf: Buffer, offset: number, label: string): SimBarrier {
    let byOff = this.barrierAt.get(buf);
    if (!byOff) {
      this.barrierAt.set(buf, (byOff = new Map()));
      if (buf.block !== undefined && buf.space === 'shared') {
        const bufs = this.sharedWithBarriers.get(buf.block);
        if (bufs) bufs.push(buf);
        else this.sharedWithBarriers.set(buf.block, [buf]);
      }
    }
    let b = byOff.get(offset);
    if (!b) {
      b = this.newBarrier(label, buf.block ?? 0);
      b.buf = buf;
      b.offset = offset;
      byOff.set(offset, b);
    }
    return b;
  }

  /** An initialised barrier whose 8 bytes overlap `buf[offset, offset + size)`, if any. */
  initializedIn(buf: Buffer, offset: number, size: number): SimBarrier | undefined {
    const byOff = this.barrierAt.get(buf);
    if (!byOff) return undefined;
    for (const [o, b] of byOff) if (o < offset + size && o + 8 > offset && b.mb.state.initialized) return b;
    return undefined;
  }

  /** A barrier that has no memory address (Croqtile events, named objects). */
  newBarrier(label: string, block: number): SimBarrier {
    const b: SimBarrier = { id: this.nextBarrierId++, label, mb: new Mbarrier(), block, arrivedThisPhase: new ArrivalList(), onComplete: undefined, exec: undefined };
    b.mb.onPhaseComplete = (completed) => this.phaseCompleted(b, completed);
    this.barriers.push(b);
    return b;
  }

  private phaseCompleted(b: SimBarrier, completed: number): void {
    this.m.phaseFlips++;
    this.m.notify(b);
    const last = this.completingThread;
    // Completed by an async copy's complete_tx: at the copy's completion, not at its issuer's clock.
    const time = this.m.completingOp || !last ? this.m.eventTime : last.time;
    if (this.m.tracing) this.m.trace.push({ kind: 'phase', time, barrier: b.label, block: b.block, completed, lastArriver: last?.index, loc: last?.loc });
    // The completion function runs once per phase, on the thread whose arrival completed it, before
    // the phase is published: its accesses happen before every waiter's. Listeners still see who
    // arrived in the phase.
    try {
      b.onComplete?.(this.m);
    } finally {
      this.races?.release(b.id, b.arrivedThisPhase);
      for (const l of this.m.listeners) l({ kind: 'phase', barrier: b, completed, lastArriver: last });
      // Emptied in place: nothing keeps the list past the phase (reports copy it).
      b.arrivedThisPhase.clear();
    }
  }

  private misuse(t: SimThread | undefined, b: SimBarrier, misuse: MbarrierMisuse, what: string): void {
    this.m.raise(misuseReport(t, b, misuse, what));
  }

  /**
   * mbarrier.init by `t`; without a thread, the barrier is set up before the block's threads start
   * (a language's block-level declaration), ordered before all of them.
   */
  mbInit(t: SimThread | undefined, b: SimBarrier, count: number): void {
    const m = b.mb.init(count);
    b.initLoc = t?.loc;
    if (this.m.tracing) this.m.trace.push({ kind: 'init', time: t?.time ?? 0, thread: t?.index ?? -1, barrier: b.label, block: b.block, count, loc: t?.loc });
    b.arrivedThisPhase.clear();
    this.races?.initBarrier(b.id, t?.index, t ? { ...t.loc } : undefined);
    if (m) this.misuse(t, b, m, 'init');
    this.m.notify(b);
  }

  /**
   * mbarrier.inval: the barrier must be initialised again before use (its memory may be reused). An
   * async operation still due to signal it (a copy's complete_tx, a commit's arrival) is reported at
   * the inval, naming that operation.
   */
  mbInval(t: SimThread, b: SimBarrier): void {
    if (!this.checkInit(t, b, 'inval')) return;
    const pending = this.m.asyncInFlight.find((op) => !op.done && op.signals?.includes(b));
    if (pending) this.m.raise(inFlightTeardownReport(this.m.threads, t, `mbarrier.inval of ${b.label}`, pending));
    b.mb.inval();
    b.arrivedThisPhase.clear();
    this.races?.initBarrier(b.id, t.index, { ...t.loc });
    this.m.notify(b);
  }

  /** `t` reads-and-writes the barrier word: the init must happen before (else a race naming both lines). */
  private use(t: SimThread, b: SimBarrier, what: string): void {
    const hit = this.races?.barrierUse(b.id, t.index);
    if (hit) this.m.raise(barrierInitRaceReport(this.m.threads, b, what, t.index, t.loc, hit));
  }

  /** Async op `op` signals `b`: its issue must be ordered after the init. */
  private asyncUse(op: AsyncOp, b: SimBarrier, what: string): void {
    const hit = this.races?.asyncBarrierUse(b.id, op.id);
    if (hit) this.m.raise(barrierInitRaceReport(this.m.threads, b, `${what} (${op.label})`, op.issuer, op.loc, hit));
  }

  /**
   * Arrive (`count` arrivals, optionally announcing `tx` bytes, optionally dropping). Returns the
   * token (phase). Without a thread, the arrival is an async engine's (inside a completion callback
   * such as `asyncAfterAll`'s, it carries that op's ordering for race detection).
   */
  mbArrive(t: SimThread | undefined, b: SimBarrier, count = 1, tx = 0, drop = false): number {
    if (t) {
      if (b.mb.state.initialized) this.use(t, b, drop ? 'arrive_drop' : 'arrive');
      for (let i = 0; i < count; i++) b.arrivedThisPhase.push(t.index);
      this.races?.arrive(b.id, t.index);
    } else if (this.m.completingOp) {
      if (b.mb.state.initialized) this.asyncUse(this.m.completingOp, b, 'arrive');
      this.races?.asyncArrive(b.id, this.m.completingOp.id);
    }
    this.completingThread = t ?? (this.m.completingOp ? this.m.threads[this.m.completingOp.issuer] : undefined);
    const phase = b.mb.state.phase;
    let token: number;
    let misuse: MbarrierMisuse | undefined;
    try {
      token = b.mb.arriveToken(count, tx, drop);
      misuse = b.mb.arriveMisuse;
    } finally {
      this.completingThread = undefined;
    }
    if (this.m.tracing) this.traceArrive(t, b, count, tx, phase);
    if (misuse) this.misuse(t, b, misuse, drop ? 'arrive_drop' : 'arrive');
    // Parity and token waits change only when a phase completes (phaseCompleted notifies b); custom waits may look at counts.
    this.m.markDirty();
    return token;
  }

  /**
   * The arrivals of a converged warp's lanes `ts[0..n)`, `count` each, in one update (as the hardware
   * makes them): exactly what `n` calls of mbArrive in lane order do, taken only where nothing but
   * counts changes between those calls — the barrier is initialised, the arrivals cannot complete
   * its phase before the last lane's, and every lane's use is ordered after the init (else a lane
   * reports, and the lanes run one by one). Returns the token, or undefined with nothing done.
   */
  mbArriveLanes(ts: readonly SimThread[], n: number, b: SimBarrier, count: number): number | undefined {
    const st = b.mb.state;
    if (!st.initialized || st.pending < n * count) return undefined;
    const races = this.races;
    if (races && !races.barrierUsesOrdered(b.id, ts, n)) return undefined;
    const arrived = b.arrivedThisPhase;
    for (let j = 0; j < n; j++) for (let c = 0; c < count; c++) arrived.push(ts[j].index);
    if (races) races.arriveLanes(b.id, ts, n);
    const last = ts[n - 1];
    const phase = st.phase;
    const tracing = this.m.tracing;
    // The trace as lane-by-lane arrivals leave it: each lane's arrive, the last one's after its phase completion.
    if (tracing) for (let j = 0; j < n - 1; j++) this.traceArrive(ts[j], b, count, 0, phase);
    this.completingThread = last;
    let token: number;
    let misuse: MbarrierMisuse | undefined;
    try {
      token = b.mb.arriveToken(n * count, 0, false);
      misuse = b.mb.arriveMisuse;
    } finally {
      this.completingThread = undefined;
    }
    if (tracing) this.traceArrive(last, b, count, 0, phase);
    // Only the last lane's arrival can complete the phase: a misuse (tx underflow) is its.
    if (misuse) this.misuse(last, b, misuse, 'arrive');
    this.m.markDirty();
    return token;
  }

  /** An arrival's trace event; without a thread, an async engine's (at the time of the event). */
  private traceArrive(t: SimThread | undefined, b: SimBarrier, count: number, tx: number, phase: number): void {
    this.m.trace.push({ kind: 'arrive', time: t?.time ?? this.m.eventTime, thread: t?.index ?? -1, barrier: b.label, block: b.block, count, tx, phase, loc: t?.loc });
  }

  mbExpectTx(t: SimThread, b: SimBarrier, bytes: number): void {
    if (b.mb.state.initialized) this.use(t, b, 'expect_tx');
    const m = b.mb.expectTx(bytes);
    if (this.m.tracing) this.m.trace.push({ kind: 'expect-tx', time: t.time, thread: t.index, barrier: b.label, block: b.block, bytes, loc: t.loc });
    if (m) this.misuse(t, b, m, 'expect_tx');
    this.m.markDirty();
  }

  /** complete_tx from an async engine (`op` identifies it for race clocks). */
  mbCompleteTx(b: SimBarrier, bytes: number, op?: AsyncOp): void {
    op ??= this.m.completingOp;
    if (op && b.mb.state.initialized) this.asyncUse(op, b, 'complete_tx');
    if (op) this.races?.asyncArrive(b.id, op.id);
    this.completingThread = op ? this.m.threads[op.issuer] : undefined;
    let m: MbarrierMisuse | undefined;
    try {
      m = b.mb.completeTx(bytes);
    } finally {
      this.completingThread = undefined;
    }
    if (this.m.tracing) this.m.trace.push({ kind: 'complete-tx', time: this.m.eventTime, thread: op?.issuer ?? -1, barrier: b.label, block: b.block, bytes, loc: op?.loc });
    if (m) this.misuse(undefined, b, m, `complete_tx of ${bytes} bytes${op ? ` (${op.label} issued by ${this.m.threads[op.issuer].label} at ${lineOf(op.loc)})` : ''}`);
    this.m.markDirty();
  }

  /** The barrier is initialised (else a misuse); a use by `t`, which must be ordered after the init. */
  private checkInit(t: SimThread, b: SimBarrier, op: string): boolean {
    if (b.mb.state.initialized) {
      this.use(t, b, op);
      return true;
    }
    this.misuse(t, b, { kind: 'not-initialized', operation: op }, op);
    return false;
  }

  /** Blocking parity wait. True: passed. False: `t` is blocked (re-execute after wake-up). */
  mbWaitParity(t: SimThread, b: SimBarrier, parity: number): boolean {
    if (!this.checkInit(t, b, 'wait')) return true;
    const p = parity & 1;
    if (b.mb.parityComplete(p)) {
      this.acquire(b, t);
      return true;
    }
    return this.blockOnPhase(t, b, true, p);
  }

  /** Blocking token wait. */
  mbWaitToken(t: SimThread, b: SimBarrier, token: number): boolean {
    if (!this.checkInit(t, b, 'wait')) return true;
    if (b.mb.tokenDone(token)) {
      const phase = b.mb.state.phase;
      if (token < phase - 1 || token > phase) {
        this.misuse(t, b, b.mb.tokenComplete(token).misuse!, 'wait(token)');
        return true;
      }
      this.acquire(b, t);
      return true;
    }
    return this.blockOnPhase(t, b, false, token);
  }

  /**
   * Blocking waits of a converged warp's lanes `ts[0..n)` on `b` (parity or token `values[j]`): what
   * `n` calls of mbWaitParity / mbWaitToken in lane order do, taken only where no lane's wait reports
   * (the barrier is initialised, each use is ordered after the init, no token is stale; waits change
   * nothing another lane's wait reads). `out[j]` is 1 for a lane that passed, undefined for one now
   * blocked. False: nothing done.
   */
  mbWaitLanes(ts: readonly SimThread[], n: number, b: SimBarrier, values: ArrayLike<number>, parity: boolean, out: unknown[]): boolean {
    const mb = b.mb;
    if (!mb.state.initialized) return false;
    const races = this.races;
    const phase = mb.state.phase;
    if (races && !races.barrierUsesOrdered(b.id, ts, n)) return false;
    if (!parity)
      for (let j = 0; j < n; j++) {
        const v = values[j];
        if (mb.tokenDone(v) && (v < phase - 1 || v > phase)) return false;
      }
    // The lanes whose waits passed acquire the phase together (a lane's acquire changes only its
    // own clock, so doing them after the others blocked is what lane order does).
    if (n > this.passedLanes.length) this.passedLanes = new Uint8Array(n);
    const passed = this.passedLanes;
    let any = false;
    for (let j = 0; j < n; j++) {
      const v = values[j];
      if (mb.waitDone(parity, v)) {
        passed[j] = 1;
        any = true;
        out[j] = 1;
        continue;
      }
      passed[j] = 0;
      out[j] = this.blockOnPhase(ts[j], b, parity, parity ? v & 1 : v) ? 1 : undefined;
    }
    if (races && any) races.acquireLanes(b.id, ts, n, passed);
    return true;
  }

  /** Blocks `t` on `b` until the phase of parity `v` (or of token `v`) completes, through its reusable wait. */
  private blockOnPhase(t: SimThread, b: SimBarrier, parity: boolean, v: number): boolean {
    const w = this.mbarrierWait(t, b);
    w.kind = parity ? 'mbarrier-parity' : 'mbarrier-token';
    w.parity = parity ? v : undefined;
    w.token = parity ? undefined : v;
    return this.m.blockOn(t, w);
  }

  /** `t`'s reusable mbarrier wait, pointed at `b`. */
  private mbarrierWait(t: SimThread, b: SimBarrier): MbarrierWait {
    const w = t.mbWait;
    if (!w) return (t.mbWait = new MbarrierWait(b, b));
    w.barrier = b;
    w.on = b;
    return w;
  }

  /** Non-blocking probe (test_wait / try_wait whose result the program inspects). */
  mbTestParity(t: SimThread, b: SimBarrier, parity: number): boolean {
    if (!this.checkInit(t, b, 'test_wait')) return false;
    const ok = b.mb.parityComplete(parity & 1);
    if (ok) this.acquire(b, t);
    return ok;
  }

  mbTestToken(t: SimThread, b: SimBarrier, token: number): boolean {
    if (!this.checkInit(t, b, 'test_wait')) return false;
    const r = b.mb.tokenComplete(token);
    if (r.misuse) this.misuse(t, b, r.misuse, 'test_wait(token)');
    if (r.done) this.acquire(b, t);
    return r.done;
  }

  /** `t` observed a completed phase of `b`: what its arrivals released. */
  private acquire(b: SimBarrier, t: SimThread): void {
    this.races?.acquire(b.id, t.index);
  }

  /** Forgets a finished block's shared-memory barriers; `forget` drops the machine's waiter list on each. */
  releaseBlock(block: number, forget: (on: object) => void): void {
    const bufs = this.sharedWithBarriers.get(block);
    if (!bufs) return;
    this.sharedWithBarriers.delete(block);
    for (const buf of bufs) {
      const byOff = this.barrierAt.get(buf);
      if (!byOff) continue;
      // The barrier stays listed (reports, the debugger's Barriers scope show its state); what only a
      // live barrier uses goes: its executor bookkeeping (the warp arrive groups).
      for (const bar of byOff.values()) {
        forget(bar);
        bar.buf = undefined;
        bar.exec = undefined;
      }
      this.barrierAt.delete(buf);
    }
  }
}
