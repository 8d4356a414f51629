// The simulator's runtime for one kernel launch: threads, blocks in resident waves, the run loop and
// the waking of blocked threads. Its parts live beside it: the scheduler (scheduler.ts), the
// mbarrier services (mbarrier-services.ts over mbarrier.ts), block/warp/cluster syncs and warp
// collectives (sync-services.ts), the timed asynchronous engines (async-engines.ts), the reports
// (reports.ts) and the shared vocabulary (machine-types.ts). It knows nothing of CUDA or Croqtile
// syntax — a language *executor* runs each thread's statements and calls the services here for
// everything that synchronises — and nothing of DAP: the debugger drives it through `run` limits,
// `pause`, the event listener, `lineHook` and the `quanta` counter.
//
// Contract for executors (core/lang/cuda/sim, core/lang/croqtile/sim):
// - `run(m, t, budget)` executes at most `budget` statements of thread `t` and returns how many ran.
// - A blocking service (`mbWaitParity`, `syncBlock`, `warpExchange`, `blockOn` …) returns `false`
//   when the thread must wait; the executor then returns at once WITHOUT advancing past that
//   statement. When the machine wakes the thread, the executor executes the same statement again,
//   and the service, seeing the condition met, returns `true` (services are idempotent on re-entry).
// - After any service call, if `m.yieldNow` is set the executor returns at once (the operation is
//   complete, so its pc is past it): the machine or the debugger wants control back.
// - When `m.lineHook` is set the executor calls `m.atStatement(t, loc)` before each statement and
//   returns without executing it if that returns true (breakpoints, stepping); the machine then
//   pauses, so `run` returns `paused`.
// - Custom waits (`blockOn` with the executor's own `Wait`) are re-checked whenever synchronisation
//   state changes; give them `on` and call `m.notify(on)` when that object changes to make them cheap.
// - Faults (out of bounds, unsupported constructs) are thrown as `SimError`; the machine turns them
//   into a report that names the thread and the line.
import { AsyncEngines } from './async-engines';
import { ClusterBarriers, ClusterLayout, exitedMessage, validateCluster } from './cluster';
import {
  type AsyncOp,
  DEFAULT_LATENCIES,
  DEFAULT_MAX_STEPS,
  type Dim3,
  type Latencies,
  type MachineEvent,
  type MachineOptions,
  type MbarrierWaitSlot,
  type RunResult,
  type SchedulePolicy,
  type SimBarrier,
  type SimBlock,
  SimError,
  type SimReport,
  SimThread,
  type SourceLoc,
  threadIdxTable,
  type TraceEvent,
  type Wait,
  warpLane,
} from './machine-types';
import type { MbarrierState } from './mbarrier';
import { objectArray } from './elements-kinds';
import { MbarrierServices } from './mbarrier-services';
import type { Buffer } from './memory';
import { RaceDetector } from './races';
import { copyOverBarrierReport, deadlockReport, faultReport, inFlightTeardownReport, instructionMisuseReport, raceReport, reportStatus, stallReport, stepLimitReport } from './reports';
import { ReadyQueue, rng } from './scheduler';
import { WaiterLists } from './waiters';
import { SyncServices } from './sync-services';

// The vocabulary stays importable from here, where executors and faces have always found it.
export * from './machine-types';
export { rng } from './scheduler';

/** The executor interface a language implements (see the contract at the top of this file). */
export interface Executor {
  startBlock(m: Machine, block: SimBlock): void;
  startThread(m: Machine, t: SimThread): void;
  run(m: Machine, t: SimThread, budget: number): number;
  /** Optional: called when a block has finished (free per-block resources). */
  endBlock?(m: Machine, block: SimBlock): void;
  /**
   * Optional warp-lockstep execution. `converged(a, b)`: lanes `a` and `b` of one warp are at the same
   * instruction, so they can execute it together. `runLanes` runs `lanes[0..n)` (converged, the first one
   * leading) together: each instruction once per lane, in that order, before the next; at most
   * `perLane` statements each and `total` in all; `ran[lane]` counts each lane's statements. Lanes
   * that block, finish or branch elsewhere leave; lanes of `parked[0..np)` (ready lanes of the warp left out)
   * that the group catches up with join it. The contract of `run` holds per lane (blocking, yieldNow,
   * lineHook); a fault is thrown as a `LaneFault` naming the lane.
   */
  converged?(a: SimThread, b: SimThread): boolean;
  runLanes?(m: Machine, lanes: readonly SimThread[], n: number, parked: readonly SimThread[], np: number, perLane: number, total: number, ran: Int32Array): void;
}

/** A fault in a warp-lockstep quantum: the lane that raised it and what it raised. */
export class LaneFault extends Error {
  constructor(
    readonly thread: SimThread,
    readonly error: unknown,
  ) {
    super(error instanceof Error ? error.message : String(error));
  }
}

/** Threads per cluster up to which races are detected (vector clocks cost 2 × threads² words per cluster). */
export const MAX_RACE_CLUSTER_THREADS = 4096;

/** Consecutive zero-statement quanta of a ready thread before the machine calls it an executor bug. */
const MAX_STALLS = 1000;

export class Machine {
  readonly grid: Dim3;
  readonly blockDim: Dim3;
  readonly blockSize: number;
  readonly numBlocks: number;
  readonly dynamicSmem: number;
  readonly lat: Latencies;
  readonly policy: SchedulePolicy;
  readonly maxSteps: number;
  readonly quantum: number;
  readonly options: MachineOptions;
  /** Every thread launched so far (finished blocks' threads stay, with their state released). */
  readonly threads: SimThread[] = [];
  /** Every block launched so far, in launch order (by linear index unless clusters reorder it: use `blockAt`). */
  readonly blocks: SimBlock[] = [];
  /** The launch's thread-block clusters (1x1x1 implicit clusters when it names none). */
  readonly clusters: ClusterLayout;
  readonly barriers: SimBarrier[];
  readonly trace: TraceEvent[] = [];
  /** Whether `trace` records; the debug runtime turns it on before the first statement (its timeline reads it). */
  tracing: boolean;
  readonly races?: RaceDetector;
  /** Global statement counter across all threads. */
  steps = 0;
  phaseFlips = 0;
  /** Set by services/listeners to make the executor hand control back after the current statement. */
  yieldNow = false;
  /** Breakpoint/step hook; executors call `atStatement` before each statement while it is set. */
  lineHook?: (t: SimThread, loc: SourceLoc) => boolean;
  /** Quanta started so far (one per executor `run` call): the debugger tells a quantum's first statement by it. */
  quanta = 0;
  listeners: ((e: MachineEvent) => void)[] = [];
  /** Blocks launched and not finished, in launch order (for the machine's parts; not for executors). */
  readonly live: SimBlock[] = [];
  /** Simulated time of what is happening now (the running thread's quantum start, or an async completion). */
  eventTime = 0;
  /** The furthest simulated time any thread or async op reached (`cycles`). */
  maxTime = 0;
  /** Reports raised and not yet returned by `run`. */
  private pendingReport?: SimReport;
  private pauseRequested = false;
  private nextBlock = 0;
  private readonly residentLimit: number;
  /** Per live block: threads before this index are done (finishing is checked incrementally). */
  private readonly doneCursor = new Map<number, number>();
  private filling = false;
  private readonly ready: ReadyQueue;
  /** The mbarrier services (languages' warp-lockstep rows call their lane forms directly). */
  readonly mbarriers: MbarrierServices;
  private readonly syncs: SyncServices;
  private readonly engines: AsyncEngines<Machine>;
  private readonly clusterBarriers: ClusterBarriers;
  private readonly byIndex = new Map<number, SimBlock>();
  /** Blocks of each cluster still live (a cluster's barrier state goes when the last one finishes). */
  private readonly clusterLive = new Map<number, number>();
  /** The first machine thread of each live cluster (its race clocks' key). */
  private readonly clusterFirstThread = new Map<number, number>();
  private stalls = 0;
  // Waking: waiters by the object they wait on, objects changed since the last wake (with the time of
  // the change), and waits without `on`, re-checked after any change.
  private readonly waiters = new WaiterLists();
  /** Finished threads' mbarrier waits, for the threads of later blocks (the services re-aim one before each wait). */
  private readonly spareMbWaits: MbarrierWaitSlot[] = [];
  private readonly threadIdxs: Dim3[];
  private changed = new Map<object, SimThread | number>();
  /** The other `changed` map, swapped in while one is being processed (no allocation per wake). */
  private spareChanged = new Map<object, SimThread | number>();
  private readonly genericWaiters = new Set<SimThread>();
  private dirty = false;
  /** The thread running a quantum now: changes it makes happen at its time when the quantum ends. */
  private running?: SimThread;
  /** What made custom waits dirty (a thread or a time), for the time they resume at. */
  private genericCause: SimThread | number = 0;
  private finished = false;
  private final?: RunResult;
  /** Drops the waiter list of an object that goes away with its block. */
  private readonly forgetWaiters = (on: object): void => {
    this.waiters.forget(on);
  };
  /** Resumes a waiter at `wakeTime` (the time of the change being woken for). */
  private wakeTime = 0;
  private readonly resumeWaiter = (t: SimThread): void => this.resume(t, this.wakeTime);

  constructor(
    readonly executor: Executor,
    options: MachineOptions,
  ) {
    validateGeometry(options);
    if (options.cluster) validateCluster(options.grid, options.cluster);
    this.options = options;
    this.grid = options.grid;
    this.blockDim = options.block;
    this.blockSize = options.block[0] * options.block[1] * options.block[2];
    this.threadIdxs = threadIdxTable(options.block);
    this.numBlocks = options.grid[0] * options.grid[1] * options.grid[2];
    this.dynamicSmem = options.dynamicSmem ?? 0;
    this.lat = { ...DEFAULT_LATENCIES, ...options.latencies };
    this.policy = options.schedule ?? 'round-robin';
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    this.quantum = options.quantum ?? 64;
    this.residentLimit = options.residentBlocks ?? 32;
    this.ready = new ReadyQueue(this.policy, rng(options.seed ?? 1), this.threads, Math.ceil(this.blockSize / 32));
    this.tracing = options.trace ?? false;
    // Clocks are kept per cluster and grow with the square of its threads: past 4,096 threads (8 CTAs of 512) they would take gigabytes.
    const clusterThreads = this.blockSize * (options.cluster ? options.cluster[0] * options.cluster[1] * options.cluster[2] : 1);
    if ((options.detectRaces ?? true) && clusterThreads <= MAX_RACE_CLUSTER_THREADS) this.races = new RaceDetector();
    this.mbarriers = new MbarrierServices(this);
    this.barriers = this.mbarriers.barriers;
    this.syncs = new SyncServices(this);
    this.engines = new AsyncEngines<Machine>(this);
    this.clusters = new ClusterLayout(options.grid, options.cluster ?? [1, 1, 1], options.cluster !== undefined);
    this.clusterBarriers = new ClusterBarriers(this);
  }

  // ---------------------------------------------------------------- resident blocks

  /**
   * Launches blocks until `residentBlocks` are live (new ones start when an earlier one finishes).
   * A cluster's CTAs are co-scheduled: a cluster launches whole or waits for room (one at least runs).
   */
  private fillResident(startTime = 0): void {
    if (this.filling) return;
    this.filling = true;
    const size = this.clusters.size;
    try {
      while (this.nextBlock < this.numBlocks && !this.pendingReport && (this.live.length === 0 || this.live.length + size <= this.residentLimit)) {
        const launched: SimBlock[] = [];
        for (let i = 0; i < size; i++) launched.push(this.launchBlock(this.clusters.blockLaunched(this.nextBlock++), startTime));
        // One set of vector clocks per cluster (its threads are consecutive): distributed shared
        // memory, remote arrivals and multicast copies are ordered and race-checked across its CTAs.
        this.races?.addBlock(launched[0].threads[0]?.index ?? this.threads.length, size * this.blockSize);
        this.clusterFirstThread.set(launched[0].cluster, launched[0].threads[0]?.index ?? 0);
        // A block whose threads all finished at once (nothing to run) is done at once.
        for (const b of launched) this.checkBlockDone(b.index);
      }
    } finally {
      this.filling = false;
    }
  }

  private launchBlock(index: number, startTime: number): SimBlock {
    const [gx, gy] = this.grid;
    const idx: Dim3 = [index % gx, Math.floor(index / gx) % gy, Math.floor(index / (gx * gy))];
    const place = this.clusters.placeOf(idx);
    const block: SimBlock = { index, idx, threads: [], state: undefined, done: false, cluster: place.cluster, rank: place.rank };
    this.blocks.push(block);
    this.byIndex.set(index, block);
    this.clusterLive.set(place.cluster, (this.clusterLive.get(place.cluster) ?? 0) + 1);
    this.live.push(block);
    for (let tid = 0; tid < this.blockSize; tid++) {
      const t = new SimThread(this.threads.length, index, idx, tid, this.threadIdxs[tid]);
      t.time = startTime;
      t.mbWait = this.spareMbWaits.pop();
      this.threads.push(t);
      block.threads.push(t);
    }
    try {
      this.executor.startBlock(this, block);
      for (const t of block.threads) this.executor.startThread(this, t);
    } catch (e) {
      for (const t of block.threads) t.status = 'faulted';
      this.raise(faultReport(block.threads[0], e));
    }
    for (const t of block.threads) if (t.status === 'ready') this.ready.enqueue(t);
    return block;
  }

  private allDone(): boolean {
    for (const b of this.live.slice()) this.checkBlockDone(b.index);
    return this.nextBlock >= this.numBlocks && this.live.length === 0;
  }

  /** Finishes block `index` once all its threads are done and none of its async work is in flight. */
  checkBlockDone(index: number): void {
    const b = this.byIndex.get(index);
    if (!b || b.index !== index || b.done) return;
    let c = this.doneCursor.get(index) ?? 0;
    while (c < b.threads.length && b.threads[c].status === 'done') c++;
    this.doneCursor.set(index, c);
    if (c < b.threads.length) return;
    // Async work still in flight for this block completes before its memory goes away (an async
    // write into it after the exit is reported when it lands: async-engines.ts).
    if (this.engines.inFlightOf(index) > 0) return;
    this.finishBlock(b);
  }

  private finishBlock(b: SimBlock): void {
    b.done = true;
    this.live.splice(this.live.indexOf(b), 1);
    this.doneCursor.delete(b.index);
    this.engines.releaseBlock(b.index);
    // It ended when its last thread or its last async op did.
    let end = this.eventTime;
    let last = b.threads[0];
    for (const t of b.threads) {
      end = Math.max(end, t.time);
      if (t.time >= last.time) last = t;
    }
    b.exitLoc = last?.loc;
    try {
      this.executor.endBlock?.(this, b);
    } catch (e) {
      this.raise(faultReport(b.threads[0], e));
    }
    this.releaseBlock(b);
    // The next block takes the finished one's place (its SM) when it finished.
    this.fillResident(end);
  }

  /** Frees what a finished block held: executor state, race clocks, barrier and sync bookkeeping. */
  private releaseBlock(b: SimBlock): void {
    for (const t of b.threads) t.release(this.spareMbWaits, this.blockSize * this.residentLimit);
    b.state = undefined;
    this.mbarriers.releaseBlock(b.index, this.forgetWaiters);
    this.syncs.releaseBlock(b.index, this.forgetWaiters);
    const left = (this.clusterLive.get(b.cluster) ?? 1) - 1;
    if (left > 0) this.clusterLive.set(b.cluster, left);
    else {
      this.clusterLive.delete(b.cluster);
      this.clusterBarriers.releaseCluster(b.cluster, this.forgetWaiters);
      this.races?.removeBlock(this.clusterFirstThread.get(b.cluster) ?? b.threads[0].index);
      this.clusterFirstThread.delete(b.cluster);
    }
  }

  /** The block with linear index `index`, once launched. */
  blockAt(index: number): SimBlock | undefined {
    return this.byIndex.get(index);
  }

  // ---------------------------------------------------------------- the run loop

  /** Asks a running `run` to return with status `paused` as soon as the executor hands control back. */
  pause(): void {
    this.pauseRequested = true;
    this.yieldNow = true;
  }

  /**
   * Runs until the kernel completes, a report stops it, `maxSteps` is reached, `pause()` is called,
   * or `untilSteps` total statements have run (the debugger's replay and stepping). With `thread`,
   * only that thread runs (others run one statement at a time while it is blocked) until `budget`
   * statements ran or it stops being ready. With `thread` and `frozen` (the debugger's single-thread
   * steps), no other thread runs at all: while `thread` is blocked, the earliest in-flight async
   * completion is delivered instead (time jumps to it, as when nothing can run; async engines are
   * not threads), at most one per call; a thread still blocked after it, or with nothing in flight,
   * ends the call (`paused`, never a deadlock: the other threads are only frozen).
   */
  run(limits: { untilSteps?: number; thread?: SimThread; budget?: number; frozen?: boolean } = {}): RunResult {
    if (this.final) return this.final;
    if (this.finished) return { status: 'completed' };
    this.fillResident();
    let delivered = false;
    for (;;) {
      if (this.pendingReport) return this.takeReport();
      if (this.pauseRequested) {
        this.pauseRequested = false;
        this.yieldNow = false;
        return { status: 'paused' };
      }
      if (limits.untilSteps !== undefined && this.steps >= limits.untilSteps) return { status: 'paused' };
      if (this.steps >= this.maxSteps) {
        return this.stopWith(stepLimitReport(this.maxSteps));
      }
      if (this.changed.size || this.dirty) this.wake();
      const t = limits.thread ?? this.ready.pick();
      if (!t) {
        if (this.engines.deliverNext()) continue;
        if (this.ready.rescue(this.live)) continue;
        if (this.allDone()) {
          this.finished = true;
          this.final = { status: 'completed' };
          return this.final;
        }
        return this.stopWith(this.deadlockReport());
      }
      if (t.status !== 'ready') {
        // Single-thread stepping on a blocked thread: let the others and async work advance it.
        if (t.status === 'blocked' && limits.frozen) {
          if (delivered || !this.engines.deliverNext()) return this.pendingReport ? this.takeReport() : { status: 'paused' };
          delivered = true;
          continue;
        }
        if (t.status === 'blocked' && limits.thread) {
          const other = this.ready.pick();
          if (other) {
            this.engines.deliverUpTo(other.time);
            this.runThread(other, 1);
          } else if (!this.engines.deliverNext() && !this.ready.rescue(this.live)) return this.stopWith(this.deadlockReport());
          if (limits.budget !== undefined && --limits.budget <= 0) return this.pendingReport ? this.takeReport() : { status: 'paused' };
          continue;
        }
        return { status: 'paused' };
      }
      this.engines.deliverUpTo(t.time);
      // Statements each lane may run (the quantum), and all of them together (the caller's limits).
      const perLane = this.ready.budget(this.quantum);
      // (Kept a small integer: a budget past 2^30 would make V8 treat every count as a double.)
      let total = Math.min(this.maxSteps - this.steps, 0x3fffffff);
      if (limits.untilSteps !== undefined) total = Math.min(total, limits.untilSteps - this.steps);
      if (limits.budget !== undefined) total = Math.min(total, limits.budget);
      const ran = limits.thread ? this.runThread(t, Math.min(perLane, total)) : this.runWarp(t, perLane, total);
      if (limits.budget !== undefined) {
        limits.budget -= ran;
        if (limits.budget <= 0 || t.status !== 'ready') return this.pendingReport ? this.takeReport() : { status: 'paused' };
      }
    }
  }

  /** Lanes of a warp quantum, the lanes left out, and their statement counts (reused: one quantum at a time). */
  private readonly gang: SimThread[] = objectArray();
  private readonly parked: SimThread[] = objectArray();
  private readonly laneRan = new Int32Array(32);

  /**
   * A warp quantum: `t` and the ready lanes of its warp at the same instruction run together
   * (warp-lockstep, `Executor.runLanes`), `perLane` statements each at most and `total` in all; a
   * lane alone, or an executor without lockstep, runs as a thread.
   */
  private runWarp(t: SimThread, perLane: number, total: number): number {
    const ex = this.executor;
    if (!ex.runLanes || !ex.converged || this.options.lockstep === false) return this.runThread(t, Math.min(perLane, total));
    // Filled by index with counts: an array emptied with `length = 0` gives its storage back and is
    // grown again push by push, every quantum.
    const gang = this.gang;
    const parked = this.parked;
    let n = 0;
    let np = 0;
    gang[n++] = t;
    let inGang = 1 << t.lane;
    for (let k = 0, l = warpLane(this.threads, t, 0); l; l = warpLane(this.threads, t, ++k)) {
      if (l === t || l.status !== 'ready') continue;
      if (ex.converged(t, l)) {
        gang[n++] = l;
        inGang |= 1 << k;
      } else parked[np++] = l;
    }
    if (n === 1) return this.runThread(t, Math.min(perLane, total));
    const ran = this.laneRan;
    ran.fill(0);
    this.startQuantum(t);
    try {
      ex.runLanes(this, gang, n, parked, np, perLane, total, ran);
    } catch (e) {
      const who = e instanceof LaneFault ? e.thread : t;
      who.status = 'faulted';
      this.raise(faultReport(who, e instanceof LaneFault ? e.error : e));
    } finally {
      this.running = undefined;
    }
    // Per lane: its statements, its time, and what its status change means for the machine.
    let all = 0;
    let changed = false;
    let exited = false;
    for (let k = 0, l = warpLane(this.threads, t, 0); l; l = warpLane(this.threads, t, ++k)) {
      const n = ran[k];
      if (n > 0) {
        all += n;
        this.charge(l, n);
      } else if (!(inGang & (1 << k))) continue;
      if (l.status !== 'ready') {
        changed = true;
        if (l.status === 'done') {
          this.clusterBarriers.threadExited(l);
          exited = true;
        }
      }
    }
    this.ready.requeueWarp(t);
    if (changed) this.markDirty();
    if (exited) this.checkBlockDone(t.block);
    this.endQuantum(t, all);
    return all;
  }

  private runThread(t: SimThread, budget: number): number {
    this.startQuantum(t);
    let ran = 0;
    try {
      ran = this.executor.run(this, t, budget);
    } catch (e) {
      t.status = 'faulted';
      this.raise(faultReport(t, e));
    } finally {
      this.running = undefined;
    }
    if (!(ran >= 0)) ran = 0;
    this.charge(t, ran);
    this.ready.requeueWarp(t);
    if (t.status !== 'ready') {
      // A thread finishing (or faulting) can satisfy custom waits (joins).
      this.markDirty();
      if (t.status === 'done') {
        this.clusterBarriers.threadExited(t);
        this.checkBlockDone(t.block);
      }
    }
    this.endQuantum(t, ran);
    return ran;
  }

  /** A quantum led by `t` begins: what it changes happens at `t`'s time. */
  private startQuantum(t: SimThread): void {
    this.ready.lastThread = t.index;
    this.eventTime = t.time;
    this.running = t;
    this.quanta++;
  }

  /** `n` statements ran on `t`: its count and clock, and the machine's. */
  private charge(t: SimThread, n: number): void {
    t.steps += n;
    t.time += n * this.lat.statement;
    this.steps += n;
    if (t.time > this.maxTime) this.maxTime = t.time;
  }

  /** After a quantum of `ran` statements led by `t`. */
  private endQuantum(t: SimThread, ran: number): void {
    // A ready thread that never runs a statement (and asks for no pause) would spin the machine forever.
    if (ran === 0 && t.status === 'ready' && !this.pendingReport && !this.pauseRequested) {
      if (++this.stalls >= MAX_STALLS) this.raise(stallReport(t));
    } else this.stalls = 0;
    if (!this.pauseRequested) this.yieldNow = false;
  }

  // ---------------------------------------------------------------- waking blocked threads

  /** Resumes the blocked threads whose waits the changes since the last wake satisfied. */
  private wake(): void {
    if (this.changed.size) {
      const changed = this.changed;
      this.changed = this.spareChanged;
      // forEach, not for-of: the entries' [key, value] pairs would be an allocation per change.
      changed.forEach(this.wakeWaitersOf, this);
      changed.clear();
      this.spareChanged = changed;
    }
    if (this.dirty) {
      this.dirty = false;
      const cause = this.genericCause;
      const time = typeof cause === 'number' ? cause : cause.time;
      this.genericCause = 0;
      for (const t of this.genericWaiters) {
        if (t.status !== 'blocked' || !t.wait || t.wait.on) this.genericWaiters.delete(t);
        else if (t.wait.ready()) {
          this.genericWaiters.delete(t);
          this.resume(t, time);
        }
      }
    }
  }

  /** Resumes the waiters on `on` whose waits its change at `cause` satisfied. */
  private wakeWaitersOf(cause: SimThread | number, on: object): void {
    this.wakeTime = typeof cause === 'number' ? cause : cause.time;
    this.waiters.wake(on, this.resumeWaiter);
  }

  /** Wakes `t`: it cannot go on before the change that released it happened. */
  private resume(t: SimThread, time: number): void {
    const w = t.wait!;
    t.status = 'ready';
    t.wait = undefined;
    if (time > t.time) t.time = time;
    if (this.tracing) this.trace.push({ kind: 'wait-end', time: t.time, thread: t.index, what: w.describe(), barrier: w.barrier?.label, block: w.barrier?.block, loc: t.loc });
    this.ready.enqueue(t);
  }

  /** Blocks `t` on `wait` unless it is already satisfied. Returns true when the thread may proceed. */
  blockOn(t: SimThread, wait: Wait): boolean {
    if (wait.ready()) return true;
    t.status = 'blocked';
    t.wait = wait;
    if (wait.on) this.waiters.add(wait.on, t);
    else this.genericWaiters.add(t);
    if (this.tracing) this.trace.push({ kind: 'wait-start', time: t.time, thread: t.index, what: wait.describe(), barrier: wait.barrier?.label, block: wait.barrier?.block, loc: t.loc });
    return false;
  }

  /** `on` changed: re-check the waits on it (and the waits without `on`) before the next pick. */
  notify(on: object): void {
    this.changed.set(on, this.cause());
    this.markDirty();
  }

  /** Marks state changed so blocked threads are re-checked: those waiting on `on`, or (without it) custom waits. */
  touch(on?: object): void {
    if (on) this.notify(on);
    else this.markDirty();
  }

  /** Who is changing state now: the running thread (its time when its quantum ends) or an async completion's time. */
  private cause(): SimThread | number {
    return this.running ?? this.eventTime;
  }

  /** State changed in a way only custom waits (without `on`) can see: re-check them before the next pick. */
  markDirty(): void {
    // Custom waits check ready() when they block, so a change before any exists cannot concern them.
    if (!this.genericWaiters.size) return;
    this.dirty = true;
    const c = this.cause();
    const prev = this.genericCause;
    if (typeof c !== 'number' || typeof prev !== 'number' || c > prev) this.genericCause = c;
  }

  // ---------------------------------------------------------------- reports

  /** Raises a report; misuse and races stop the run unless `continueOnMisuse`. */
  raise(r: SimReport): void {
    const cause = this.cause();
    this.traceReport(r, typeof cause === 'number' ? cause : cause.time);
    for (const l of this.listeners) l({ kind: 'report', report: r });
    const soft = r.kind === 'misuse' || r.kind === 'race';
    if (soft && this.options.continueOnMisuse) return;
    this.pendingReport ??= r;
    this.yieldNow = true;
  }

  private traceReport(r: SimReport, time: number): void {
    if (this.tracing) this.trace.push({ kind: 'report', time, thread: r.threads[0] ?? -1, report: r });
  }

  private takeReport(): RunResult {
    const r = this.pendingReport!;
    this.pendingReport = undefined;
    this.yieldNow = false;
    const status = reportStatus(r);
    const result: RunResult = { status, report: r };
    if (status !== 'misuse' && status !== 'race') {
      this.finished = true;
      this.final = result;
    }
    return result;
  }

  private stopWith(r: SimReport): RunResult {
    this.traceReport(r, this.maxTime);
    this.pendingReport = r;
    return this.takeReport();
  }

  get isFinished(): boolean {
    return this.finished;
  }

  /** Every live thread is blocked and no async work can unblock them: name who waits on what. */
  deadlockReport(): SimReport {
    return deadlockReport(this.live, this.blocks, this.threads, this.numBlocks);
  }

  // ---------------------------------------------------------------- mbarriers (mbarrier-services.ts)

  /** The barrier living at `buf[offset]` (created uninitialised on first use). */
  mbarrierAt(buf: Buffer, offset: number, label: string): SimBarrier {
    // In a cluster launch, barriers are named with their CTA: remote arrivals and multicast copies reach them from peers.
    if (this.clusters.size > 1 && buf.block !== undefined) label = `${label} (CTA rank ${this.byIndex.get(buf.block)?.rank ?? '?'})`;
    return this.mbarriers.mbarrierAt(buf, offset, label);
  }

  /** A barrier that has no memory address (Croqtile events, named objects). */
  newBarrier(label: string, block: number): SimBarrier {
    return this.mbarriers.newBarrier(label, block);
  }

  /**
   * mbarrier.init by `t`; without a thread, the barrier is set up before the block's threads start
   * (a language's block-level declaration), ordered before all of them.
   */
  mbInit(t: SimThread | undefined, b: SimBarrier, count: number): void {
    this.mbarriers.mbInit(t, b, count);
  }

  /** mbarrier.inval: the barrier must be initialised again before use (its memory may be reused). */
  mbInval(t: SimThread, b: SimBarrier): void {
    this.mbarriers.mbInval(t, b);
  }

  /**
   * Arrive (`count` arrivals, optionally announcing `tx` bytes, optionally dropping). Returns the
   * token (phase). Without a thread, the arrival is an async engine's (inside a completion callback
   * such as `asyncAfterAll`'s, it carries that op's ordering for race detection).
   */
  mbArrive(t: SimThread | undefined, b: SimBarrier, count = 1, tx = 0, drop = false): number {
    return this.mbarriers.mbArrive(t, b, count, tx, drop);
  }

  mbExpectTx(t: SimThread, b: SimBarrier, bytes: number): void {
    this.mbarriers.mbExpectTx(t, b, bytes);
  }

  /** complete_tx from an async engine (`op` identifies it for race clocks). */
  mbCompleteTx(b: SimBarrier, bytes: number, op?: AsyncOp): void {
    this.mbarriers.mbCompleteTx(b, bytes, op);
  }

  /** Blocking parity wait. True: passed. False: `t` is blocked (re-execute after wake-up). */
  mbWaitParity(t: SimThread, b: SimBarrier, parity: number): boolean {
    return this.mbarriers.mbWaitParity(t, b, parity);
  }

  /** Blocking token wait. */
  mbWaitToken(t: SimThread, b: SimBarrier, token: number): boolean {
    return this.mbarriers.mbWaitToken(t, b, token);
  }

  /** Non-blocking probe (test_wait / try_wait whose result the program inspects). */
  mbTestParity(t: SimThread, b: SimBarrier, parity: number): boolean {
    return this.mbarriers.mbTestParity(t, b, parity);
  }

  mbTestToken(t: SimThread, b: SimBarrier, token: number): boolean {
    return this.mbarriers.mbTestToken(t, b, token);
  }

  // ---------------------------------------------------------------- block / warp syncs (sync-services.ts)

  /**
   * `__syncthreads` / `bar.sync id, count` / named barriers: a rendezvous of `count` threads of the
   * block (all of them by default). Idempotent on re-entry after wake-up.
   */
  syncBlock(t: SimThread, id?: number, count?: number, what?: string): boolean {
    return this.syncs.syncBlock(t, id, count, what);
  }

  /** `bar.arrive id, count`: counts toward the rendezvous without waiting. */
  arriveBlock(t: SimThread, id: number, count: number): void {
    this.syncs.arriveBlock(t, id, count);
  }

  /** `__syncwarp(mask)`: the lanes in `mask` meet. */
  syncWarp(t: SimThread, mask?: number): boolean {
    return this.syncs.syncWarp(t, mask);
  }

  /** A rendezvous of every thread of `blocks` blocks (cooperative groups' grid.sync()). */
  syncGrid(t: SimThread, blocks: number): boolean {
    return this.syncs.syncGrid(t, blocks);
  }

  // ---------------------------------------------------------------- clusters (cluster.ts)

  /** `barrier.cluster.arrive(.release|.relaxed)`: counts `t` toward the current phase of its cluster's barrier. */
  clusterArrive(t: SimThread, release = true, what = 'barrier.cluster.arrive'): void {
    this.clusterBarriers.arrive(t, release, what);
  }

  /** `barrier.cluster.wait(.acquire)`: true once the phase `t` arrived in completed; false: blocked (re-execute). */
  clusterWait(t: SimThread, acquire = true, what = 'barrier.cluster.wait'): boolean {
    return this.clusterBarriers.wait(t, acquire, what);
  }

  /** arrive + wait in one (cooperative groups' cluster.sync()); idempotent on re-entry. */
  clusterSync(t: SimThread, what = 'cluster.sync()'): boolean {
    return this.clusterBarriers.sync(t, what);
  }

  clusterOf(t: SimThread): number {
    return this.byIndex.get(t.block)!.cluster;
  }

  /**
   * The block of CTA `rank` of `t`'s cluster, for a distributed-shared-memory access or a remote
   * arrival (`what`). A rank the cluster does not have, or a CTA that already exited, is an error.
   */
  clusterPeer(t: SimThread, rank: number, what: string): SimBlock {
    const own = this.byIndex.get(t.block)!;
    if (!Number.isInteger(rank) || rank < 0 || rank >= this.clusters.size) throw new SimError(`${what}: CTA rank ${rank} is outside the cluster (${this.clusters.size} CTA${this.clusters.size === 1 ? '' : 's'}, ranks 0..${this.clusters.size - 1})`, undefined, 'oob');
    const index = rank === own.rank ? own.index : this.clusters.blockOf(own.cluster, rank);
    this.checkCtaAlive(index, what);
    return this.byIndex.get(index)!;
  }

  /** Throws when block `index` exited: an access to it now is undefined behaviour (see `exitedMessage`). */
  checkCtaAlive(index: number, access: string, loc?: SourceLoc): void {
    const b = this.byIndex.get(index);
    if (b?.done) throw new SimError(exitedMessage(access, b.rank, b.exitLoc, loc));
  }

  /**
   * Warp collective (shuffle, vote, match, reduce): every lane in `mask` deposits `value`; once all
   * have, each gets the 32 deposited values (undefined for absent lanes). Returns undefined while the
   * thread must wait (it is blocked; re-execute after wake-up).
   */
  warpExchange(t: SimThread, mask: number, value: number): number[] | undefined {
    return this.syncs.warpExchange(t, mask, value);
  }

  // ---------------------------------------------------------------- asynchronous engines (async-engines.ts)

  /** The earliest simulated time any live thread is at (what "now" means for the whole machine). */
  now(): number {
    let t = Infinity;
    for (const b of this.live) for (const th of b.threads) if ((th.status === 'ready' || th.status === 'blocked') && th.time < t) t = th.time;
    return t === Infinity ? this.eventTime : t;
  }

  /** The async op whose completion is running now (its arrivals and accesses carry its ordering). */
  get completingOp(): AsyncOp | undefined {
    return this.engines.completingOp;
  }

  /**
   * Issues timed asynchronous work by `t` on `engine`; `complete` runs when simulated time reaches
   * issue time + latency (the copy happens or the MMA computes then). The op joins `t`'s open
   * commit group on that engine.
   */
  asyncIssue(t: SimThread, engine: string, label: string, latency: number, complete: (m: Machine) => void): AsyncOp {
    return this.engines.issue(t, engine, label, latency, complete);
  }

  /** Makes `op` (issued by another thread) part of `t`'s open group too: a collective op such as a warpgroup's wgmma. */
  asyncJoin(t: SimThread, op: AsyncOp): void {
    this.engines.join(t, op);
  }

  /** commit_group: closes the thread's open group on `engine`. */
  asyncCommit(t: SimThread, engine: string): void {
    this.engines.commit(t, engine);
  }

  /**
   * wait_group N: blocks until every committed group of `t` on `engine` except the `n` most recent
   * has completed (groups may complete out of order; only the older ones are waited for).
   */
  asyncWaitGroups(t: SimThread, engine: string, n: number, what?: string): boolean {
    return this.engines.waitGroups(t, engine, n, what);
  }

  /** Blocks until every op of `t` on `engine` (open or committed) completed (cp.async.wait_all, wgmma wait 0). */
  asyncWaitAll(t: SimThread, engine: string, what?: string): boolean {
    return this.engines.waitAll(t, engine, what);
  }

  /**
   * Runs `fn` once every op `t` issued so far on `engine` has completed (cp.async.mbarrier.arrive,
   * tcgen05.commit). An `mbArrive(undefined, …)` inside `fn` carries the ordering of all those ops.
   */
  asyncAfterAll(t: SimThread, engine: string, label: string, fn: (m: Machine, op: AsyncOp) => void): AsyncOp {
    return this.engines.afterAll(t, engine, label, fn);
  }

  /** Waits for one op (Croqtile futures). */
  asyncWait(t: SimThread, op: AsyncOp, what: string): boolean {
    return this.engines.wait(t, op, what);
  }

  get asyncInFlight(): readonly AsyncOp[] {
    return this.engines.queue;
  }

  /**
   * Declares what async op `op` will do that teardowns must wait for: the barriers it signals, and
   * whether it writes its block's shared memory or tensor memory. An inval of such a barrier, the
   * block's exit, or a `tearDown` that concerns it while the op is in flight is reported.
   */
  asyncEffects(op: AsyncOp, effects: { signals?: SimBarrier[]; writesShared?: boolean; writesTmem?: boolean; tmemBlocks?: number[] }): void {
    if (effects.signals) op.signals = effects.signals;
    if (effects.writesShared) op.writesShared = true;
    if (effects.writesTmem) op.writesTmem = true;
    if (effects.tmemBlocks) op.tmemBlocks = effects.tmemBlocks;
  }

  /**
   * `t` tears down something (`what`: a TMEM dealloc, a reuse of memory) that in-flight async ops of
   * its block matching `affected` still use: reported at `t`'s line, naming the op and its line.
   */
  tearDown(t: SimThread, what: string, affected: (op: AsyncOp) => boolean): void {
    const op = this.engines.queue.find((o) => !o.done && (this.threads[o.issuer].block === t.block || !!o.tmemBlocks?.includes(t.block)) && affected(o));
    if (op) this.raise(inFlightTeardownReport(this.threads, t, what, op));
  }

  /**
   * `t` uses an instruction in a way the PTX ISA leaves undefined (`message` says how and cites the
   * rule); `other` is the earlier thread and line it conflicts with. A misuse: the run stops unless
   * `continueOnMisuse`.
   */
  reportMisuse(t: SimThread, message: string, other?: { thread: number; loc?: SourceLoc }): void {
    this.raise(instructionMisuseReport(t, message, other));
  }

  /**
   * `fence.proxy.async` by `t`: its generic shared-memory accesses (and those ordered before it)
   * become visible to async-proxy operations ordered after it (see races.ts).
   */
  fenceProxyAsync(t: SimThread): void {
    this.races?.fenceProxyAsync(t.index);
  }

  // ---------------------------------------------------------------- memory hooks

  /** Shared-memory access by a thread, for race detection. Call for every shared load/store. */
  access(t: SimThread, buf: Buffer, offset: number, size: number, write: boolean): void {
    // Distributed shared memory: the peer CTA must still be alive.
    if (buf.block !== t.block && buf.space === 'shared' && buf.block !== undefined) this.checkCtaAlive(buf.block, `an access to '${buf.name}' of another CTA`);
    if (!this.races || buf.space !== 'shared') return;
    const r = this.races.access(t.index, buf, offset, size, write, t.loc);
    if (r) this.raise(raceReport(this.threads, t.index, t.loc, buf, offset, write, r));
  }

  /**
   * Shared-memory access by an async op at completion (TMA/bulk copies, WGMMA/UMMA operand reads).
   * `proxy`: the memory proxy the op accesses through — 'async' for bulk/tensor copies and MMA
   * operands (their reads of data threads wrote need a `fence.proxy.async`), 'generic' for the
   * non-bulk cp.async. A write over an initialised mbarrier is reported (a copy's destination
   * covering a barrier).
   */
  accessAsync(op: AsyncOp, buf: Buffer, offset: number, size: number, write: boolean, proxy: 'async' | 'generic' = 'async'): void {
    if (buf.space !== 'shared') return;
    if (write) {
      const b = this.mbarriers.initializedIn(buf, offset, size);
      if (b) this.raise(copyOverBarrierReport(this.threads, op, b));
    }
    if (!this.races) return;
    const r = this.races.asyncAccess(op.id, buf, offset, size, write, op.loc, proxy);
    if (r) this.raise(raceReport(this.threads, op.issuer, op.loc, buf, offset, write, r, op.label));
  }

  /** Program output (Croqtile println, CUDA printf). */
  print(text: string, t?: SimThread): void {
    for (const l of this.listeners) l({ kind: 'print', text, thread: t });
  }

  /** Called by executors before each statement while `lineHook` is set; true pauses the machine there. */
  atStatement(t: SimThread, loc: SourceLoc): boolean {
    if (!this.lineHook) return false;
    const stop = this.lineHook(t, loc);
    if (stop) this.pause();
    return stop;
  }

  /** A snapshot of every barrier for reports, `--json` and the debugger's Barriers scope. */
  barrierStates(): { label: string; block: number; state: MbarrierState; waiting: { thread: number; parity?: number; token?: number }[] }[] {
    const waiting = new Map<SimBarrier, { thread: number; parity?: number; token?: number }[]>();
    for (const blk of this.live) {
      for (const t of blk.threads) {
        const b = t.status === 'blocked' ? t.wait?.barrier : undefined;
        if (!b) continue;
        let w = waiting.get(b);
        if (!w) waiting.set(b, (w = []));
        w.push({ thread: t.index, parity: t.wait!.parity, token: t.wait!.token });
      }
    }
    return this.barriers.map((b) => ({ label: b.label, block: b.block, state: { ...b.mb.state }, waiting: waiting.get(b) ?? [] }));
  }

  /** Simulated cycles: the furthest any thread or async op got. */
  get cycles(): number {
    return this.maxTime;
  }
}

export function validateGeometry(o: MachineOptions): void {
  const bad = (field: 'grid' | 'block' | 'dynamicSmem', detail: string) => SimError.ofRequest({ kind: field }, `bad launch configuration: ${detail}`);
  const dims = (name: 'grid' | 'block', d: Dim3) => {
    if (!Array.isArray(d) || d.length !== 3) throw bad(name, `${name} must have three dimensions`);
    for (const v of d) if (!Number.isInteger(v) || v < 1) throw bad(name, `${name} dimensions must be positive integers, got ${d.join(',')}`);
  };
  dims('grid', o.grid);
  dims('block', o.block);
  const bs = o.block[0] * o.block[1] * o.block[2];
  if (bs > 1024) throw bad('block', `${bs} threads per block exceeds the hardware limit of 1024`);
  if (o.block[2] > 64) throw bad('block', 'blockDim.z is limited to 64');
  if (o.grid[0] > 2 ** 31 - 1) throw bad('grid', 'gridDim.x is limited to 2147483647');
  if (o.grid[1] > 65535 || o.grid[2] > 65535) throw bad('grid', 'gridDim.y and gridDim.z are limited to 65535');
  if (!(Number.isFinite(o.dynamicSmem ?? 0) && (o.dynamicSmem ?? 0) >= 0 && (o.dynamicSmem ?? 0) <= 227 * 1024)) throw bad('dynamicSmem', `dynamic shared memory ${o.dynamicSmem} bytes is outside 0..232448 (227 KiB, Hopper's per-block maximum)`);
  const positive = (name: string, v: number | undefined) => {
    if (v !== undefined && !(Number.isInteger(v) && v >= 1)) throw new SimError(`bad simulator option: ${name} must be a positive integer, got ${v}`);
  };
  positive('residentBlocks', o.residentBlocks);
  positive('quantum', o.quantum);
  positive('maxSteps', o.maxSteps);
  if (o.seed !== undefined && !Number.isFinite(o.seed)) throw new SimError(`bad simulator option: seed must be a number, got ${o.seed}`);
}
