// The simulator's runtime for one kernel launch: threads, blocks, the seeded scheduler, simulated
// time, mbarriers and block/warp syncs, timed asynchronous engines, the trace, and the reports
// (deadlock with its wait-for picture, misuse, races, out-of-bounds, step limit). It knows nothing of
// CUDA or Croqtile syntax — a language *executor* runs each thread's statements and calls the
// services here for everything that synchronises — and nothing of DAP: the debugger drives it
// through `run` limits, `pause`, the event listener, `lineHook` and the `quanta` counter.
//
// Contract for executors (core/sim/cuda, core/sim/croqtile):
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
import type { Range } from '../api';
import { Mbarrier, type MbarrierMisuse, type MbarrierState } from './mbarrier';
import { numberRanges, withCommas } from './format';
import { type Buffer, OutOfBounds } from './memory';
import { RaceDetector } from './races';

export type Dim3 = [number, number, number];

export type SchedulePolicy = 'round-robin' | 'random' | 'adversarial';

export interface SourceLoc {
  /** Zero-based line, like the rest of the engine. */
  line: number;
  character?: number;
  range?: Range;
  /** Function the statement is in (kernel, device helper, Croqtile function). */
  func?: string;
}

/** Latencies in simulated cycles. A statement costs `statement`; async work completes after its latency. */
export interface Latencies {
  statement: number;
  /** TMA / cp.async.bulk copies, Croqtile DMA/TMA. */
  bulkCopy: number;
  /** cp.async (LDGSTS) and cuda::memcpy_async element copies. */
  cpAsync: number;
  /** wgmma / Croqtile mma groups. */
  mma: number;
  /** tcgen05.mma. */
  tcgen05: number;
}

export const DEFAULT_LATENCIES: Latencies = { statement: 1, bulkCopy: 600, cpAsync: 300, mma: 120, tcgen05: 150 };

export interface MachineOptions {
  grid: Dim3;
  block: Dim3;
  dynamicSmem?: number;
  seed?: number;
  schedule?: SchedulePolicy;
  /** Total thread-statements before the run stops with `step-limit`. */
  maxSteps?: number;
  latencies?: Partial<Latencies>;
  /** Blocks resident at once (the rest launch as earlier ones finish, like SMs). */
  residentBlocks?: number;
  /** Statements a thread runs before the scheduler picks again (round-robin and random). */
  quantum?: number;
  /** Shared-memory race detection (vector clocks). Costs time; on by default. */
  detectRaces?: boolean;
  /** Record the trace (phase flips, arrives, waits, async issue/complete). */
  trace?: boolean;
  /** Keep running after a misuse or race instead of stopping (the debugger's choice). */
  continueOnMisuse?: boolean;
}

export type ThreadStatus = 'ready' | 'blocked' | 'done' | 'faulted';

/** What a blocked thread waits for. `ready()` is re-checked whenever synchronisation state changes. */
export interface Wait {
  kind: 'mbarrier-parity' | 'mbarrier-token' | 'block-sync' | 'warp-sync' | 'cluster-sync' | 'async-group' | 'future' | 'event' | 'other';
  ready(): boolean;
  /** One line for reports: `full[1] (parity 0)`, `__syncthreads (barrier 0)`, `wgmma group ≤ 0` … */
  describe(): string;
  barrier?: SimBarrier;
  parity?: number;
  token?: number;
  /**
   * The object whose change can make `ready()` true (a SimBarrier, an AsyncOp, a sync state). The
   * machine then re-checks the wait only when that object is `notify`-ed, instead of after every
   * change; waits without it are re-checked after every change (always correct, slower).
   */
  on?: object;
}

/**
 * The wait of a thread blocked on an mbarrier phase (parity or token). One per thread, reused for
 * every such wait: a thread has at most one wait at a time, and waits are the hottest allocation.
 */
class MbarrierWait implements Wait {
  kind: 'mbarrier-parity' | 'mbarrier-token' = 'mbarrier-parity';
  parity?: number;
  token?: number;
  constructor(
    public barrier: SimBarrier,
    public on: object,
  ) {}
  ready(): boolean {
    const mb = this.barrier.mb;
    return this.kind === 'mbarrier-parity' ? mb.parityComplete(this.parity!) : mb.tokenDone(this.token!);
  }
  describe(): string {
    const b = this.barrier;
    return this.kind === 'mbarrier-parity' ? `${b.label} (parity ${this.parity})` : `${b.label} (token of phase ${this.token}, parity ${this.token! & 1})`;
  }
}

export class SimThread {
  status: ThreadStatus = 'ready';
  wait?: Wait;
  /** Where the thread is (kept current by the executor at least at statements that synchronise). */
  loc: SourceLoc = { line: 0 };
  /** Simulated cycle this thread has reached. */
  time = 0;
  steps = 0;
  /** Role name when the program says (Croqtile roles) or the executor infers it (CUDA warp roles). */
  role?: string;
  /** Executor-owned state (frames, locals, pc). */
  state: unknown;
  /** Per-thread collective bookkeeping for idempotent re-entry (syncs, warp exchanges). */
  pendingSync?: { key: string; gen: number };
  /** Commit-group bookkeeping per async engine (`cp.async`, `wgmma`, Croqtile `mma`). */
  readonly asyncGroups = new Map<string, AsyncGroups>();
  /** This thread's reusable mbarrier wait (see MbarrierWait). */
  mbWait?: MbarrierWait;
  /** The machine's last pass over a waiter list that saw this thread. */
  wakePass = 0;
  constructor(
    /** Index in `Machine.threads`. */
    readonly index: number,
    readonly block: number,
    readonly blockIdx: Dim3,
    /** Linear thread index within the block. */
    readonly tid: number,
    readonly threadIdx: Dim3,
  ) {}
  get warp(): number {
    return this.tid >> 5;
  }
  get lane(): number {
    return this.tid & 31;
  }
  /** "block 0 · warp 1 · lane 3 · producer" */
  get label(): string {
    return `block ${this.block} · warp ${this.warp} · lane ${this.lane}${this.role ? ` · ${this.role}` : ''}`;
  }
}

interface AsyncGroups {
  /** Ops issued since the last commit. */
  open: AsyncOp[];
  /** Committed groups, oldest first. */
  committed: AsyncOp[][];
}

export interface SimBlock {
  index: number;
  idx: Dim3;
  threads: SimThread[];
  /** Executor-owned per-block state (shared memory allocations). */
  state: unknown;
  done: boolean;
}

/** An mbarrier (or Croqtile event slot) at a shared-memory address, with its display label. */
export interface SimBarrier {
  id: number;
  label: string;
  mb: Mbarrier;
  buf?: Buffer;
  offset?: number;
  block: number;
  /** Where it was initialised. */
  initLoc?: SourceLoc;
  /** Threads that arrived in the current phase (for "who arrived last" and missing-arrival reports). */
  arrivedThisPhase: number[];
  /** Completion function (cuda::barrier's CompletionF), run by the last arriver. */
  onComplete?: (m: Machine) => void;
  /** Executor-owned bookkeeping for this barrier (the CUDA executor's warp arrive groups). */
  exec?: unknown;
}

export interface AsyncOp {
  id: number;
  engine: string;
  label: string;
  issuer: number;
  issuedAt: number;
  doneAt: number;
  done: boolean;
  loc: SourceLoc;
  /** Performs the effect (copy, compute, complete_tx) at completion time. */
  complete: (m: Machine) => void;
}

export type TraceEvent =
  | { kind: 'phase'; time: number; barrier: string; block: number; completed: number; lastArriver?: number; loc?: SourceLoc }
  | { kind: 'arrive'; time: number; thread: number; barrier: string; count: number; tx: number; phase: number; loc?: SourceLoc }
  | { kind: 'wait-start' | 'wait-end'; time: number; thread: number; what: string; loc?: SourceLoc }
  | { kind: 'async-issue' | 'async-complete'; time: number; thread: number; op: number; engine: string; label: string; loc?: SourceLoc };

export type ReportKind = 'deadlock' | 'misuse' | 'race' | 'oob' | 'error' | 'unsupported' | 'step-limit';

export interface BlockedThread {
  thread: number;
  label: string;
  waitsOn: string;
  barrier?: string;
  parity?: number;
  loc: SourceLoc;
}

export interface SimReport {
  kind: ReportKind;
  message: string;
  loc?: SourceLoc;
  /** Threads involved (machine indices). */
  threads: number[];
  /** Deadlock: every blocked thread, grouped later by the faces. */
  blocked?: BlockedThread[];
  /** Deadlock: for each waited-on barrier, what is missing. */
  missing?: { barrier: string; pending: number; expected: number; tx: number; arrivedThisPhase: number[] }[];
  /** Misuse detail from the mbarrier model. */
  misuse?: MbarrierMisuse;
  /** Race: the earlier access. */
  other?: { thread: number; loc?: SourceLoc; write: boolean };
}

export type RunStatus = 'completed' | 'deadlock' | 'misuse' | 'race' | 'error' | 'step-limit' | 'paused';

export interface RunResult {
  status: RunStatus;
  report?: SimReport;
}

export type MachineEvent =
  | { kind: 'phase'; barrier: SimBarrier; completed: number; lastArriver?: SimThread }
  | { kind: 'report'; report: SimReport }
  | { kind: 'print'; text: string; thread?: SimThread };

export class SimError extends Error {
  constructor(
    message: string,
    readonly loc?: SourceLoc,
    readonly kind: 'unsupported' | 'error' | 'oob' = 'error',
  ) {
    super(message);
  }
}

/** The executor interface a language implements (see the contract at the top of this file). */
export interface Executor {
  startBlock(m: Machine, block: SimBlock): void;
  startThread(m: Machine, t: SimThread): void;
  run(m: Machine, t: SimThread, budget: number): number;
  /** Optional: called when a block has finished (free per-block resources). */
  endBlock?(m: Machine, block: SimBlock): void;
}

/** mulberry32: small, fast, deterministic. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Min-heap of ready threads by (simulated time, thread index): round-robin's "furthest behind first". */
class ReadyHeap {
  private readonly items: SimThread[] = [];
  private readonly times: number[] = [];
  private readonly indices: number[] = [];
  private readonly stamps: number[] = [];
  /** The stamp the thread `pop` returned was pushed with. */
  poppedStamp = 0;

  get size(): number {
    return this.items.length;
  }

  push(t: SimThread, stamp: number): void {
    const items = this.items;
    const times = this.times;
    const indices = this.indices;
    const stamps = this.stamps;
    const time = t.time;
    const index = t.index;
    let i = items.length;
    items.push(t);
    times.push(time);
    indices.push(index);
    stamps.push(stamp);
    // Sift up: move parents down until the new entry's place is found.
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = times[p];
      if (pt < time || (pt === time && indices[p] < index)) break;
      items[i] = items[p];
      times[i] = pt;
      indices[i] = indices[p];
      stamps[i] = stamps[p];
      i = p;
    }
    items[i] = t;
    times[i] = time;
    indices[i] = index;
    stamps[i] = stamp;
  }

  /** Removes the first entry and returns its thread (its stamp is in `poppedStamp`). */
  pop(): SimThread | undefined {
    const items = this.items;
    const n = items.length;
    if (!n) return undefined;
    const times = this.times;
    const indices = this.indices;
    const stamps = this.stamps;
    const top = items[0];
    this.poppedStamp = stamps[0];
    const lt = items.pop()!;
    const ltime = times.pop()!;
    const lindex = indices.pop()!;
    const lstamp = stamps.pop()!;
    const m = n - 1;
    if (m === 0) return top;
    // Sift the last entry down from the root.
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= m) break;
      let c = l;
      const r = l + 1;
      if (r < m && (times[r] < times[l] || (times[r] === times[l] && indices[r] < indices[l]))) c = r;
      const ct = times[c];
      if (ltime < ct || (ltime === ct && lindex < indices[c])) break;
      items[i] = items[c];
      times[i] = ct;
      indices[i] = indices[c];
      stamps[i] = stamps[c];
      i = c;
    }
    items[i] = lt;
    times[i] = ltime;
    indices[i] = lindex;
    stamps[i] = lstamp;
    return top;
  }
}

type SyncState = {
  gen: number;
  arrived: Set<number>;
  expected: number;
  /** Its key in `syncs` (`b<block>:<id>`, `w<block>:<warp>`, `cluster`), and the race detector's. */
  key: string;
  raceKey: string;
};
type ExchangeState = { gen: number; values: number[]; arrived: number; mask: number };

/** Consecutive zero-statement quanta of a ready thread before the machine calls it an executor bug. */
const MAX_STALLS = 1000;
/** How many same-role ready threads adversarial scheduling skips looking for another role. */
const ADVERSARIAL_SCAN = 256;

/** Thread-statements a run may take when the request sets no `maxSteps` (every face's default). */
export const DEFAULT_MAX_STEPS = 50_000_000;

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
  /** Every block launched so far, by linear index. */
  readonly blocks: SimBlock[] = [];
  readonly barriers: SimBarrier[] = [];
  readonly trace: TraceEvent[] = [];
  readonly tracing: boolean;
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
  /** Reports raised and not yet returned by `run`. */
  private pendingReport?: SimReport;
  private pauseRequested = false;
  private readonly random: () => number;
  private readonly asyncQueue: AsyncOp[] = [];
  private nextBlock = 0;
  private nextBarrierId = 0;
  private nextOpId = 0;
  private readonly residentLimit: number;
  /** Blocks launched and not finished, in launch order. */
  private readonly live: SimBlock[] = [];
  /** Per live block: threads before this index are done (finishing is checked incrementally). */
  private readonly doneCursor = new Map<number, number>();
  /** Per live block: async ops in flight (a block finishes only when they have completed). */
  private readonly inFlight = new Map<number, number>();
  private filling = false;
  // Scheduling: a heap (round-robin, adversarial) or a list (random) of ready threads, validated lazily.
  private readonly heap = new ReadyHeap();
  private readonly heapStamp: number[] = [];
  private readonly readyList: SimThread[] = [];
  private readonly readyPos: number[] = [];
  private stalls = 0;
  // Waking: waiters by the object they wait on, objects changed since the last wake (with the time of
  // the change), and waits without `on`, re-checked after any change.
  private readonly waiters = new Map<object, SimThread[]>();
  private changed = new Map<object, SimThread | number>();
  /** The other `changed` map, swapped in while one is being processed (no allocation per wake). */
  private spareChanged = new Map<object, SimThread | number>();
  /** Stamps a waiter list pass, to drop a thread listed twice (a stale entry and a current one). */
  private wakePass = 0;
  private readonly genericWaiters = new Set<SimThread>();
  private dirty = false;
  /** Simulated time of what is happening now (the running thread's quantum start, or an async completion). */
  private eventTime = 0;
  /** The thread running a quantum now: changes it makes happen at its time when the quantum ends. */
  private running?: SimThread;
  /** What made custom waits dirty (a thread or a time), for the time they resume at. */
  private genericCause: SimThread | number = 0;
  private maxTime = 0;
  private readonly barrierAt = new Map<Buffer, Map<number, SimBarrier>>();
  /** Block-level sync rendezvous: key → generation and arrivals. */
  private readonly syncs = new Map<string, SyncState>();
  /** The same block and warp syncs by block, then by number (bar id, or -1 - warp): no key strings per call. */
  private readonly localSyncs = new Map<number, Map<number, SyncState>>();
  /** Warp exchanges: key → values deposited by the lanes of one round. */
  private readonly exchanges = new Map<string, ExchangeState>();
  private readonly exchangeResults = new Map<string, { values: number[]; readers: number }>();
  private finished = false;
  private final?: RunResult;
  private lastThread = -1;
  private completingThread?: SimThread;
  private completingOp?: AsyncOp;

  constructor(
    readonly executor: Executor,
    options: MachineOptions,
  ) {
    validateGeometry(options);
    this.options = options;
    this.grid = options.grid;
    this.blockDim = options.block;
    this.blockSize = options.block[0] * options.block[1] * options.block[2];
    this.numBlocks = options.grid[0] * options.grid[1] * options.grid[2];
    this.dynamicSmem = options.dynamicSmem ?? 0;
    this.lat = { ...DEFAULT_LATENCIES, ...options.latencies };
    this.policy = options.schedule ?? 'round-robin';
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    this.quantum = options.quantum ?? 64;
    this.residentLimit = options.residentBlocks ?? 32;
    this.random = rng(options.seed ?? 1);
    this.tracing = options.trace ?? false;
    if (options.detectRaces ?? true) this.races = new RaceDetector();
  }

  // ---------------------------------------------------------------- scheduling

  /** Launches blocks until `residentBlocks` are live (new ones start when an earlier one finishes). */
  private fillResident(startTime = 0): void {
    if (this.filling) return;
    this.filling = true;
    try {
      while (this.live.length < this.residentLimit && this.nextBlock < this.numBlocks && !this.pendingReport) {
        const b = this.launchBlock(this.nextBlock++, startTime);
        // A block whose threads all finished at once (nothing to run) is done at once.
        this.checkBlockDone(b.index);
      }
    } finally {
      this.filling = false;
    }
  }

  private launchBlock(index: number, startTime: number): SimBlock {
    const [gx, gy] = this.grid;
    const idx: Dim3 = [index % gx, Math.floor(index / gx) % gy, Math.floor(index / (gx * gy))];
    const block: SimBlock = { index, idx, threads: [], state: undefined, done: false };
    this.blocks.push(block);
    this.live.push(block);
    const [bx, by] = this.blockDim;
    for (let tid = 0; tid < this.blockSize; tid++) {
      const t = new SimThread(this.threads.length, index, idx, tid, [tid % bx, Math.floor(tid / bx) % by, Math.floor(tid / (bx * by))]);
      t.time = startTime;
      this.threads.push(t);
      block.threads.push(t);
    }
    this.races?.addBlock(block.threads.map((t) => t.index));
    try {
      this.executor.startBlock(this, block);
      for (const t of block.threads) this.executor.startThread(this, t);
    } catch (e) {
      for (const t of block.threads) t.status = 'faulted';
      this.raise(this.faultReport(block.threads[0], e));
    }
    for (const t of block.threads) if (t.status === 'ready') this.enqueue(t);
    return block;
  }

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
        return this.stopWith({ kind: 'step-limit', message: `step budget exhausted: ${withCommas(this.maxSteps)} thread-statements ran without the kernel finishing (raise --max-steps, or look for a spin loop)`, threads: [] });
      }
      if (this.changed.size || this.dirty) this.wake();
      const t = limits.thread ?? this.pick();
      if (!t) {
        if (this.deliverNextAsync()) continue;
        if (this.rescueReady()) continue;
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
          if (delivered || !this.deliverNextAsync()) return this.pendingReport ? this.takeReport() : { status: 'paused' };
          delivered = true;
          continue;
        }
        if (t.status === 'blocked' && limits.thread) {
          const other = this.pick();
          if (other) {
            this.deliverAsyncUpTo(other.time);
            this.runThread(other, 1);
          } else if (!this.deliverNextAsync() && !this.rescueReady()) return this.stopWith(this.deadlockReport());
          if (limits.budget !== undefined && --limits.budget <= 0) return this.pendingReport ? this.takeReport() : { status: 'paused' };
          continue;
        }
        return { status: 'paused' };
      }
      this.deliverAsyncUpTo(t.time);
      let budget = this.policy === 'adversarial' ? 1 << 20 : this.policy === 'random' ? 1 + Math.floor(this.random() * this.quantum * 2) : this.quantum;
      if (limits.untilSteps !== undefined) budget = Math.min(budget, limits.untilSteps - this.steps);
      if (limits.budget !== undefined) budget = Math.min(budget, limits.budget);
      budget = Math.min(budget, this.maxSteps - this.steps);
      const ran = this.runThread(t, budget);
      if (limits.budget !== undefined) {
        limits.budget -= ran;
        if (limits.budget <= 0 || t.status !== 'ready') return this.pendingReport ? this.takeReport() : { status: 'paused' };
      }
    }
  }

  private runThread(t: SimThread, budget: number): number {
    this.lastThread = t.index;
    this.eventTime = t.time;
    this.running = t;
    this.quanta++;
    let ran = 0;
    try {
      ran = this.executor.run(this, t, budget);
    } catch (e) {
      t.status = 'faulted';
      this.raise(this.faultReport(t, e));
    } finally {
      this.running = undefined;
    }
    if (!(ran >= 0)) ran = 0;
    t.steps += ran;
    t.time += ran * this.lat.statement;
    this.steps += ran;
    if (t.time > this.maxTime) this.maxTime = t.time;
    if (t.status === 'ready') {
      this.enqueue(t);
      // A ready thread that never runs a statement (and asks for no pause) would spin the machine forever.
      if (ran === 0 && !this.pendingReport && !this.pauseRequested) {
        if (++this.stalls >= MAX_STALLS) {
          this.raise({ kind: 'error', message: `internal simulator error: the executor made no progress on ${t.label} at line ${t.loc.line + 1}`, loc: t.loc, threads: [t.index] });
        }
      } else this.stalls = 0;
    } else {
      this.stalls = 0;
      // A thread finishing (or faulting) can satisfy custom waits (joins).
      this.markDirty();
      if (t.status === 'done') this.checkBlockDone(t.block);
    }
    if (!this.pauseRequested) this.yieldNow = false;
    return ran;
  }

  private faultReport(t: SimThread, e: unknown): SimReport {
    if (e instanceof OutOfBounds) return { kind: 'oob', message: `${e.message} by ${t.label} at line ${t.loc.line + 1}`, loc: t.loc, threads: [t.index] };
    if (e instanceof SimError) {
      const loc = e.loc ?? t.loc;
      const message = e.kind === 'unsupported' ? `not supported by the simulator: ${e.message} at line ${loc.line + 1}` : `${e.message} (${t.label}, line ${loc.line + 1})`;
      return { kind: e.kind, message, loc, threads: [t.index] };
    }
    const err = e instanceof Error ? e : new Error(String(e));
    return { kind: 'error', message: `internal simulator error at line ${t.loc.line + 1} (${t.label}): ${err.message}`, loc: t.loc, threads: [t.index] };
  }

  /** A fault inside an async op's completion: named by the op, the thread that issued it and the issuing line. */
  private asyncFaultReport(op: AsyncOp, issuer: SimThread, e: unknown): SimReport {
    const by = `${op.label} issued by ${issuer.label}`;
    if (e instanceof OutOfBounds) return { kind: 'oob', message: `${e.message} by ${by} at line ${op.loc.line + 1}`, loc: op.loc, threads: [issuer.index] };
    if (e instanceof SimError) {
      const loc = e.loc ?? op.loc;
      const message = e.kind === 'unsupported' ? `not supported by the simulator: ${e.message} at line ${loc.line + 1}` : `${op.label}: ${e.message} (issued by ${issuer.label}, line ${loc.line + 1})`;
      return { kind: e.kind, message, loc, threads: [issuer.index] };
    }
    const err = e instanceof Error ? e : new Error(String(e));
    return { kind: 'error', message: `internal simulator error in ${by} at line ${op.loc.line + 1}: ${err.message}`, loc: op.loc, threads: [issuer.index] };
  }

  /** Makes `t` (ready) eligible for `pick`. Stale entries are skipped when popped. */
  private enqueue(t: SimThread): void {
    if (this.policy === 'random') {
      if ((this.readyPos[t.index] ?? -1) < 0) {
        this.readyPos[t.index] = this.readyList.length;
        this.readyList.push(t);
      }
      return;
    }
    const stamp = (this.heapStamp[t.index] ?? 0) + 1;
    this.heapStamp[t.index] = stamp;
    this.heap.push(t, stamp);
  }

  private dropReady(i: number): void {
    const t = this.readyList[i];
    const last = this.readyList.pop()!;
    if (last !== t) {
      this.readyList[i] = last;
      this.readyPos[last.index] = i;
    }
    this.readyPos[t.index] = -1;
  }

  /** The next valid heap entry (its stamp is in `heap.poppedStamp`). */
  private popReady(): SimThread | undefined {
    for (;;) {
      const t = this.heap.pop();
      if (!t) return undefined;
      if (t.status === 'ready' && this.heapStamp[t.index] === this.heap.poppedStamp) return t;
    }
  }

  private pick(): SimThread | undefined {
    if (this.policy === 'random') {
      while (this.readyList.length) {
        const i = Math.floor(this.random() * this.readyList.length);
        const t = this.readyList[i];
        if (t.status === 'ready') return t;
        this.dropReady(i);
      }
      return undefined;
    }
    if (this.policy === 'round-robin') {
      // Lowest simulated time first (ties: lowest thread index) = fair interleaving by time.
      return this.popReady();
    }
    // Adversarial: keep running the thread that ran last (maximal lag between roles); when it blocks,
    // switch to the ready thread of a *different* role (or warp) that is furthest behind.
    const last = this.threads[this.lastThread];
    if (last && last.status === 'ready') return last;
    const lastRole = last ? roleOf(last) : undefined;
    const skipped: [SimThread, number][] = [];
    let best: SimThread | undefined;
    while (!best && skipped.length < ADVERSARIAL_SCAN) {
      const t = this.popReady();
      if (!t) break;
      if (lastRole !== undefined && roleOf(t) === lastRole) skipped.push([t, this.heap.poppedStamp]);
      else best = t;
    }
    if (!best && skipped.length) best = skipped.shift()![0];
    for (const [t, stamp] of skipped) this.heap.push(t, stamp);
    return best;
  }

  /** Ready threads the queue does not know (made ready behind the machine's back): queue them. */
  private rescueReady(): boolean {
    let found = false;
    for (const b of this.live) {
      for (const t of b.threads) {
        if (t.status !== 'ready') continue;
        if (this.policy === 'random' ? (this.readyPos[t.index] ?? -1) >= 0 : false) continue;
        this.enqueue(t);
        found = true;
      }
    }
    return found;
  }

  private wake(): void {
    if (this.changed.size) {
      const changed = this.changed;
      this.changed = this.spareChanged;
      for (const [on, cause] of changed) {
        const time = typeof cause === 'number' ? cause : cause.time;
        const ws = this.waiters.get(on);
        if (!ws) continue;
        // Waiters in the order they blocked; the ones still waiting stay, in order.
        const pass = ++this.wakePass;
        let kept = 0;
        for (let i = 0; i < ws.length; i++) {
          const t = ws[i];
          if (t.status !== 'blocked' || t.wait?.on !== on || t.wakePass === pass) continue;
          t.wakePass = pass;
          if (t.wait.ready()) this.resume(t, time);
          else ws[kept++] = t;
        }
        if (!kept) this.waiters.delete(on);
        else if (kept !== ws.length) ws.length = kept;
      }
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

  /** Wakes `t`: it cannot go on before the change that released it happened. */
  private resume(t: SimThread, time: number): void {
    const w = t.wait!;
    t.status = 'ready';
    t.wait = undefined;
    if (time > t.time) t.time = time;
    if (this.tracing) this.trace.push({ kind: 'wait-end', time: t.time, thread: t.index, what: w.describe(), loc: t.loc });
    this.enqueue(t);
  }

  /** Blocks `t` on `wait` unless it is already satisfied. Returns true when the thread may proceed. */
  blockOn(t: SimThread, wait: Wait): boolean {
    if (wait.ready()) return true;
    t.status = 'blocked';
    t.wait = wait;
    if (wait.on) {
      const ws = this.waiters.get(wait.on);
      if (!ws) this.waiters.set(wait.on, [t]);
      else ws.push(t);
    } else this.genericWaiters.add(t);
    if (this.tracing) this.trace.push({ kind: 'wait-start', time: t.time, thread: t.index, what: wait.describe(), loc: t.loc });
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

  private markDirty(): void {
    // Custom waits check ready() when they block, so a change before any exists cannot concern them.
    if (!this.genericWaiters.size) return;
    this.dirty = true;
    const c = this.cause();
    const prev = this.genericCause;
    if (typeof c !== 'number' || typeof prev !== 'number' || c > prev) this.genericCause = c;
  }

  private allDone(): boolean {
    for (const b of this.live.slice()) this.checkBlockDone(b.index);
    return this.nextBlock >= this.numBlocks && this.live.length === 0;
  }

  private checkBlockDone(index: number): void {
    const b = this.blocks[index];
    if (!b || b.index !== index || b.done) return;
    let c = this.doneCursor.get(index) ?? 0;
    while (c < b.threads.length && b.threads[c].status === 'done') c++;
    this.doneCursor.set(index, c);
    if (c < b.threads.length) return;
    // Async work still in flight for this block completes before its memory goes away.
    if ((this.inFlight.get(index) ?? 0) > 0) return;
    this.finishBlock(b);
  }

  private finishBlock(b: SimBlock): void {
    b.done = true;
    this.live.splice(this.live.indexOf(b), 1);
    this.doneCursor.delete(b.index);
    this.inFlight.delete(b.index);
    // It ended when its last thread or its last async op did.
    let end = this.eventTime;
    for (const t of b.threads) end = Math.max(end, t.time);
    try {
      this.executor.endBlock?.(this, b);
    } catch (e) {
      this.raise(this.faultReport(b.threads[0], e));
    }
    this.releaseBlock(b);
    // The next block takes the finished one's place (its SM) when it finished.
    this.fillResident(end);
  }

  /** Frees what a finished block held: executor state, race clocks, barrier and sync bookkeeping. */
  private releaseBlock(b: SimBlock): void {
    for (const t of b.threads) {
      t.state = undefined;
      t.wait = undefined;
      t.pendingSync = undefined;
      t.mbWait = undefined;
      t.asyncGroups.clear();
    }
    b.state = undefined;
    this.races?.removeBlock(b.threads[0].index);
    for (const [buf, byOff] of this.barrierAt) {
      if (buf.block !== b.index || buf.space !== 'shared') continue;
      for (const bar of byOff.values()) {
        this.waiters.delete(bar);
        bar.buf = undefined;
      }
      this.barrierAt.delete(buf);
    }
    const mine = (key: string) => key.startsWith(`b${b.index}:`) || key.startsWith(`w${b.index}:`);
    for (const [key, s] of this.syncs) if (mine(key)) (this.waiters.delete(s), this.syncs.delete(key));
    this.localSyncs.delete(b.index);
    for (const [key, s] of this.exchanges) if (mine(key)) (this.waiters.delete(s), this.exchanges.delete(key));
    for (const key of this.exchangeResults.keys()) if (mine(key)) this.exchangeResults.delete(key);
  }

  // ---------------------------------------------------------------- reports

  /** Raises a report; misuse and races stop the run unless `continueOnMisuse`. */
  raise(r: SimReport): void {
    for (const l of this.listeners) l({ kind: 'report', report: r });
    const soft = r.kind === 'misuse' || r.kind === 'race';
    if (soft && this.options.continueOnMisuse) return;
    this.pendingReport ??= r;
    this.yieldNow = true;
  }

  private takeReport(): RunResult {
    const r = this.pendingReport!;
    this.pendingReport = undefined;
    this.yieldNow = false;
    const status: RunStatus = r.kind === 'oob' || r.kind === 'unsupported' ? 'error' : r.kind === 'deadlock' || r.kind === 'misuse' || r.kind === 'race' || r.kind === 'step-limit' ? r.kind : 'error';
    const result: RunResult = { status, report: r };
    if (status !== 'misuse' && status !== 'race') {
      this.finished = true;
      this.final = result;
    }
    return result;
  }

  private stopWith(r: SimReport): RunResult {
    this.pendingReport = r;
    return this.takeReport();
  }

  get isFinished(): boolean {
    return this.finished;
  }

  /** Every live thread is blocked and no async work can unblock them: name who waits on what. */
  deadlockReport(): SimReport {
    const blocked: BlockedThread[] = [];
    const bars = new Set<SimBarrier>();
    const syncBlocks = new Map<number, string>();
    for (const blk of this.live) {
      for (const t of blk.threads) {
        if (t.status !== 'blocked' || !t.wait) continue;
        blocked.push({ thread: t.index, label: t.label, waitsOn: t.wait.describe(), barrier: t.wait.barrier?.label, parity: t.wait.parity, loc: t.loc });
        if (t.wait.barrier) bars.add(t.wait.barrier);
        // Only __syncthreads needs every thread of the block; named barriers and warp syncs count a subset.
        if (t.wait.kind === 'block-sync' && t.wait.describe().startsWith('__syncthreads')) syncBlocks.set(t.block, '__syncthreads');
      }
    }
    const missing = [...bars].map((b) => ({ barrier: b.label, pending: b.mb.state.pending, expected: b.mb.state.expected, tx: b.mb.state.tx, arrivedThisPhase: b.arrivedThisPhase.slice() }));
    const lines: string[] = [];
    for (const g of groupBlocked(blocked, this.threads)) lines.push(`  ${g.who} wait${g.count > 1 ? '' : 's'} on ${g.waitsOn} at line ${g.line + 1}`);
    // One line per barrier state, barriers of different blocks in the same state merged.
    const barLines = new Map<string, number[]>();
    for (const b of bars) {
      const key = `${b.label}\u0000${this.describeBarrierState(b)}`;
      let blocks = barLines.get(key);
      if (!blocks) barLines.set(key, (blocks = []));
      blocks.push(b.block);
    }
    for (const [key, blocks] of barLines) {
      const [label, state] = key.split('\u0000');
      lines.push(`  ${label}${this.numBlocks > 1 ? ` (${plural(blocks, 'block')})` : ''} ${state}`);
    }
    // Threads that exited can never reach the __syncthreads the others wait at.
    for (const [block, what] of syncBlocks) {
      const exited = this.blocks[block].threads.filter((t) => t.status === 'done');
      if (!exited.length) continue;
      lines.push(`  ${exited.length} thread${exited.length === 1 ? ' has' : 's have'} already exited (${whoOf(exited.map((t) => ({ thread: t.index, label: t.label })), this.threads)}), so ${what} in block ${block} can never complete`);
    }
    const n = blocked.length;
    return {
      kind: 'deadlock',
      message: `deadlock: all ${n} live thread${n === 1 ? ' is' : 's are'} blocked and no asynchronous work is in flight\n${lines.join('\n')}`,
      loc: blocked[0]?.loc,
      threads: blocked.map((b) => b.thread),
      blocked,
      missing,
    };
  }

  /** "is in phase 3 (parity 1) and needs 1 more arrival of 2 (arrived so far: warp 0 · lane 0)" for the deadlock report. */
  private describeBarrierState(b: SimBarrier): string {
    const s = b.mb.state;
    if (!s.initialized) return 'was never initialised';
    const parts: string[] = [];
    if (s.pending > 0) {
      const arrived = b.arrivedThisPhase.length ? `arrived so far: ${localWho(b.arrivedThisPhase.map((i) => this.threads[i]))}` : 'nobody has arrived in this phase';
      parts.push(`needs ${s.pending} more arrival${s.pending === 1 ? '' : 's'} of ${s.expected} (${arrived})`);
    }
    if (s.tx > 0) parts.push(`${s.pending > 0 ? '' : 'has all its arrivals but '}waits for ${s.tx} transaction bytes that no copy in flight will deliver`);
    if (s.tx < 0) parts.push(`has received ${-s.tx} transaction bytes more than were announced`);
    if (!parts.length) parts.push('expects no more arrivals (every participant dropped out)');
    return `is in phase ${s.phase} (parity ${s.phase & 1}) and ${parts.join(' and ')}`;
  }

  // ---------------------------------------------------------------- mbarriers

  /** The barrier living at `buf[offset]` (created uninitialised on first use). */
  mbarrierAt(buf: Buffer, offset: number, label: string): SimBarrier {
    let byOff = this.barrierAt.get(buf);
    if (!byOff) this.barrierAt.set(buf, (byOff = new Map()));
    let b = byOff.get(offset);
    if (!b) {
      b = this.newBarrier(label, buf.block ?? 0);
      b.buf = buf;
      b.offset = offset;
      byOff.set(offset, b);
    }
    return b;
  }

  /** A barrier that has no memory address (Croqtile events, named objects). */
  newBarrier(label: string, block: number): SimBarrier {
    const b: SimBarrier = { id: this.nextBarrierId++, label, mb: new Mbarrier(), block, arrivedThisPhase: [], onComplete: undefined, exec: undefined };
    b.mb.onPhaseComplete = (completed) => this.phaseCompleted(b, completed);
    this.barriers.push(b);
    return b;
  }

  private phaseCompleted(b: SimBarrier, completed: number): void {
    this.phaseFlips++;
    this.notify(b);
    const last = this.completingThread;
    if (this.tracing) this.trace.push({ kind: 'phase', time: last?.time ?? this.eventTime, barrier: b.label, block: b.block, completed, lastArriver: last?.index, loc: last?.loc });
    // The completion function runs once per phase, on the thread whose arrival completed it, before
    // the phase is published: its accesses happen before every waiter's. Listeners still see who
    // arrived in the phase.
    try {
      b.onComplete?.(this);
    } finally {
      this.races?.release(b.id, b.arrivedThisPhase);
      for (const l of this.listeners) l({ kind: 'phase', barrier: b, completed, lastArriver: last });
      b.arrivedThisPhase = [];
    }
  }

  private misuse(t: SimThread | undefined, b: SimBarrier, misuse: MbarrierMisuse, what: string): void {
    const who = t ? ` by ${t.label}` : '';
    const line = t ? ` at line ${t.loc.line + 1}` : '';
    const detail = describeMisuse(misuse);
    this.raise({ kind: 'misuse', message: `barrier misuse: ${what} on ${b.label}${who}${line}: ${detail}`, loc: t?.loc, threads: t ? [t.index] : [], misuse });
  }

  mbInit(t: SimThread, b: SimBarrier, count: number): void {
    const m = b.mb.init(count);
    b.initLoc = t.loc;
    b.arrivedThisPhase = [];
    this.races?.initBarrier(b.id, t.index);
    if (m) this.misuse(t, b, m, 'init');
    this.notify(b);
  }

  /** mbarrier.inval: the barrier must be initialised again before use (its memory may be reused). */
  mbInval(t: SimThread, b: SimBarrier): void {
    if (!this.checkInit(t, b, 'inval')) return;
    b.mb.inval();
    b.arrivedThisPhase = [];
    this.races?.initBarrier(b.id, t.index);
    this.notify(b);
  }

  /**
   * Arrive (`count` arrivals, optionally announcing `tx` bytes, optionally dropping). Returns the
   * token (phase). Without a thread, the arrival is an async engine's (inside a completion callback
   * such as `asyncAfterAll`'s, it carries that op's ordering for race detection).
   */
  mbArrive(t: SimThread | undefined, b: SimBarrier, count = 1, tx = 0, drop = false): number {
    if (t) {
      for (let i = 0; i < count; i++) b.arrivedThisPhase.push(t.index);
      this.races?.arrive(b.id, t.index);
    } else if (this.completingOp) this.races?.asyncArrive(b.id, this.completingOp.id);
    this.completingThread = t ?? (this.completingOp ? this.threads[this.completingOp.issuer] : undefined);
    const phase = b.mb.state.phase;
    let r: { token: number; misuse?: MbarrierMisuse };
    try {
      r = b.mb.arrive(count, tx, drop);
    } finally {
      this.completingThread = undefined;
    }
    if (this.tracing) this.trace.push({ kind: 'arrive', time: t?.time ?? this.eventTime, thread: t?.index ?? -1, barrier: b.label, count, tx, phase, loc: t?.loc });
    if (r.misuse) this.misuse(t, b, r.misuse, drop ? 'arrive_drop' : 'arrive');
    // Parity and token waits change only when a phase completes (phaseCompleted notifies b); custom waits may look at counts.
    this.markDirty();
    return r.token;
  }

  mbExpectTx(t: SimThread, b: SimBarrier, bytes: number): void {
    const m = b.mb.expectTx(bytes);
    if (m) this.misuse(t, b, m, 'expect_tx');
    this.markDirty();
  }

  /** complete_tx from an async engine (`op` identifies it for race clocks). */
  mbCompleteTx(b: SimBarrier, bytes: number, op?: AsyncOp): void {
    op ??= this.completingOp;
    if (op) this.races?.asyncArrive(b.id, op.id);
    this.completingThread = op ? this.threads[op.issuer] : undefined;
    let m: MbarrierMisuse | undefined;
    try {
      m = b.mb.completeTx(bytes);
    } finally {
      this.completingThread = undefined;
    }
    if (m) this.misuse(undefined, b, m, `complete_tx of ${bytes} bytes${op ? ` (${op.label} issued by ${this.threads[op.issuer].label} at line ${op.loc.line + 1})` : ''}`);
    this.markDirty();
  }

  private checkInit(t: SimThread, b: SimBarrier, op: string): boolean {
    if (b.mb.state.initialized) return true;
    this.misuse(t, b, { kind: 'not-initialized', operation: op }, op);
    return false;
  }

  /** Blocking parity wait. True: passed. False: `t` is blocked (re-execute after wake-up). */
  mbWaitParity(t: SimThread, b: SimBarrier, parity: number): boolean {
    if (!this.checkInit(t, b, 'wait')) return true;
    const p = parity & 1;
    if (b.mb.parityComplete(p)) {
      this.races?.acquire(b.id, t.index);
      return true;
    }
    const w = this.mbarrierWait(t, b);
    w.kind = 'mbarrier-parity';
    w.parity = p;
    w.token = undefined;
    return this.blockOn(t, w);
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
      this.races?.acquire(b.id, t.index);
      return true;
    }
    const w = this.mbarrierWait(t, b);
    w.kind = 'mbarrier-token';
    w.token = token;
    w.parity = undefined;
    return this.blockOn(t, w);
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
    if (ok) this.races?.acquire(b.id, t.index);
    return ok;
  }

  mbTestToken(t: SimThread, b: SimBarrier, token: number): boolean {
    if (!this.checkInit(t, b, 'test_wait')) return false;
    const r = b.mb.tokenComplete(token);
    if (r.misuse) this.misuse(t, b, r.misuse, 'test_wait(token)');
    if (r.done) this.races?.acquire(b.id, t.index);
    return r.done;
  }

  // ---------------------------------------------------------------- block / warp syncs

  /**
   * `__syncthreads` / `bar.sync id, count` / named barriers: a rendezvous of `count` threads of the
   * block (all of them by default). Idempotent on re-entry after wake-up.
   */
  syncBlock(t: SimThread, id = 0, count = this.blockSize, what = id === 0 && count === this.blockSize ? '__syncthreads' : `bar.sync ${id}, ${count}`): boolean {
    this.checkNamedBarrier(id, count, what);
    return this.rendezvous(t, this.localSync(t, id, count), count, what, 'block-sync');
  }

  /** `bar.arrive id, count`: counts toward the rendezvous without waiting. */
  arriveBlock(t: SimThread, id: number, count: number): void {
    this.checkNamedBarrier(id, count, `bar.arrive ${id}, ${count}`);
    const s = this.localSync(t, id, count);
    s.expected = count;
    s.arrived.add(-1 - s.arrived.size); // anonymous arrival
    this.races?.arrive(s.raceKey, t.index);
    this.maybeCompleteSync(s);
  }

  /** Counts the rendezvous can never reach (or ids that are not ids) are program errors, reported as such. */
  private checkNamedBarrier(id: number, count: number, what: string): void {
    if (!Number.isInteger(id) || id < 0) throw new SimError(`${what}: barrier id ${id} is not a non-negative integer`);
    if (!Number.isInteger(count) || count < 1 || count > this.blockSize) throw new SimError(`${what}: thread count ${count} is outside 1..${this.blockSize} (the block size)`);
  }

  /** `__syncwarp(mask)`: the lanes in `mask` meet. */
  syncWarp(t: SimThread, mask = 0xffffffff): boolean {
    const n = popcount(this.warpMask(t, mask));
    return this.rendezvous(t, this.localSync(t, -1 - t.warp, n), n, `__syncwarp(0x${(mask >>> 0).toString(16)})`, 'warp-sync');
  }

  /** `mask` limited to the lanes the warp has (the last warp of a block may be partial). */
  private warpMask(t: SimThread, mask: number): number {
    const lanes = Math.min(32, this.blockSize - t.warp * 32);
    return (lanes >= 32 ? mask : mask & ((1 << lanes) - 1)) >>> 0;
  }

  /** Cluster barrier (barrier.cluster.arrive + wait): all threads of all blocks in the launch's cluster. */
  syncCluster(t: SimThread, blocks: number): boolean {
    return this.rendezvous(t, this.syncState('cluster', blocks * this.blockSize), blocks * this.blockSize, 'barrier.cluster', 'cluster-sync');
  }

  private syncState(key: string, expected: number): SyncState {
    let s = this.syncs.get(key);
    if (!s) this.syncs.set(key, (s = { gen: 0, arrived: new Set(), expected, key, raceKey: `sync:${key}` }));
    return s;
  }

  /** Block sync `local` ≥ 0 (a bar id) or warp sync `-1 - warp` of `t`'s block. */
  private localSync(t: SimThread, local: number, expected: number): SyncState {
    let byNumber = this.localSyncs.get(t.block);
    if (!byNumber) this.localSyncs.set(t.block, (byNumber = new Map()));
    let s = byNumber.get(local);
    if (!s) byNumber.set(local, (s = this.syncState(local >= 0 ? `b${t.block}:${local}` : `w${t.block}:${-1 - local}`, expected)));
    return s;
  }

  private maybeCompleteSync(s: SyncState): void {
    if (s.arrived.size < s.expected) return;
    this.races?.release(s.raceKey, []);
    s.gen++;
    s.arrived.clear();
    this.notify(s);
  }

  private rendezvous(t: SimThread, s: SyncState, expected: number, what: string, kind: Wait['kind']): boolean {
    const key = s.key;
    const pend = t.pendingSync;
    if (pend && pend.key === key) {
      if (s.gen > pend.gen) {
        t.pendingSync = undefined;
        this.races?.acquire(s.raceKey, t.index);
        return true;
      }
      return this.blockOn(t, { kind, on: s, ready: () => s.gen > pend.gen, describe: () => `${what} (${s.arrived.size} of ${s.expected} arrived)` });
    }
    s.expected = expected;
    s.arrived.add(t.index);
    this.races?.arrive(s.raceKey, t.index);
    const gen = s.gen;
    t.pendingSync = { key, gen };
    this.maybeCompleteSync(s);
    if (s.gen > gen) {
      t.pendingSync = undefined;
      this.races?.acquire(s.raceKey, t.index);
      return true;
    }
    return this.blockOn(t, { kind, on: s, ready: () => s.gen > gen, describe: () => `${what} (${s.arrived.size} of ${s.expected} arrived)` });
  }

  /**
   * Warp collective (shuffle, vote, match, reduce): every lane in `mask` deposits `value`; once all
   * have, each gets the 32 deposited values (undefined for absent lanes). Returns undefined while the
   * thread must wait (it is blocked; re-execute after wake-up).
   */
  warpExchange(t: SimThread, mask: number, value: number): number[] | undefined {
    const key = `w${t.block}:${t.warp}:x`;
    let s = this.exchanges.get(key);
    if (!s) this.exchanges.set(key, (s = { gen: 0, values: new Array(32), arrived: 0, mask: this.warpMask(t, mask) }));
    const st = s;
    const pend = t.pendingSync;
    if (pend && pend.key === key) {
      if (st.gen > pend.gen) {
        t.pendingSync = undefined;
        const rk = `${key}:${pend.gen}`;
        const r = this.exchangeResults.get(rk)!;
        if (--r.readers === 0) this.exchangeResults.delete(rk);
        return r.values;
      }
      this.blockOn(t, { kind: 'warp-sync', on: st, ready: () => st.gen > pend.gen, describe: () => `warp collective (mask 0x${st.mask.toString(16)}, ${st.arrived} of ${popcount(st.mask)} lanes)` });
      return undefined;
    }
    st.mask = this.warpMask(t, mask);
    st.values[t.lane] = value;
    st.arrived++;
    const gen = st.gen;
    const need = popcount(st.mask);
    if (st.arrived >= need) {
      const values = st.values;
      if (need > 1) this.exchangeResults.set(`${key}:${gen}`, { values, readers: need - 1 });
      st.gen++;
      st.values = new Array(32);
      st.arrived = 0;
      this.notify(st);
      return values;
    }
    t.pendingSync = { key, gen };
    this.blockOn(t, { kind: 'warp-sync', on: st, ready: () => st.gen > gen, describe: () => `warp collective (mask 0x${st.mask.toString(16)}, ${st.arrived} of ${need} lanes)` });
    return undefined;
  }

  // ---------------------------------------------------------------- asynchronous engines

  /** The earliest simulated time any live thread is at (what "now" means for the whole machine). */
  now(): number {
    let t = Infinity;
    for (const b of this.live) for (const th of b.threads) if ((th.status === 'ready' || th.status === 'blocked') && th.time < t) t = th.time;
    return t === Infinity ? this.eventTime : t;
  }

  /**
   * Issues timed asynchronous work by `t` on `engine`; `complete` runs when simulated time reaches
   * issue time + latency (the copy happens or the MMA computes then). The op joins `t`'s open
   * commit group on that engine.
   */
  asyncIssue(t: SimThread, engine: string, label: string, latency: number, complete: (m: Machine) => void): AsyncOp {
    const lat = Number.isFinite(latency) && latency > 0 ? latency : 0;
    const op: AsyncOp = { id: this.nextOpId++, engine, label, issuer: t.index, issuedAt: t.time, doneAt: t.time + lat, done: false, loc: t.loc, complete };
    this.races?.asyncIssue(op.id, t.index);
    this.groups(t, engine).open.push(op);
    this.inFlight.set(t.block, (this.inFlight.get(t.block) ?? 0) + 1);
    // Keep the queue sorted by completion time (then issue order) for deterministic delivery.
    let i = this.asyncQueue.length;
    while (i > 0 && this.asyncQueue[i - 1].doneAt > op.doneAt) i--;
    this.asyncQueue.splice(i, 0, op);
    if (this.tracing) this.trace.push({ kind: 'async-issue', time: t.time, thread: t.index, op: op.id, engine, label, loc: t.loc });
    return op;
  }

  private groups(t: SimThread, engine: string): AsyncGroups {
    let g = t.asyncGroups.get(engine);
    if (!g) t.asyncGroups.set(engine, (g = { open: [], committed: [] }));
    return g;
  }

  /** commit_group: closes the thread's open group on `engine`. */
  asyncCommit(t: SimThread, engine: string): void {
    const g = this.groups(t, engine);
    g.committed.push(g.open);
    g.open = [];
  }

  /**
   * wait_group N: blocks until every committed group of `t` on `engine` except the `n` most recent
   * has completed (groups may complete out of order; only the older ones are waited for).
   */
  asyncWaitGroups(t: SimThread, engine: string, n: number, what = `${engine} wait_group ${n}`): boolean {
    const g = this.groups(t, engine);
    const older = () => g.committed.slice(0, Math.max(0, g.committed.length - Math.max(0, n)));
    const ok = this.blockOn(t, { kind: 'async-group', on: g, ready: () => older().every((grp) => grp.every((op) => op.done)), describe: () => what });
    if (ok) {
      const done = older();
      for (const grp of done) for (const op of grp) this.races?.asyncAcquire(op.id, t.index);
      g.committed.splice(0, done.length);
    }
    return ok;
  }

  /** Blocks until every op of `t` on `engine` (open or committed) completed (cp.async.wait_all, wgmma wait 0). */
  asyncWaitAll(t: SimThread, engine: string, what = `${engine} wait_all`): boolean {
    const g = this.groups(t, engine);
    const all = () => [...g.open, ...g.committed.flat()];
    const ok = this.blockOn(t, { kind: 'async-group', on: g, ready: () => all().every((op) => op.done), describe: () => what });
    if (ok) {
      for (const op of all()) this.races?.asyncAcquire(op.id, t.index);
      g.open = [];
      g.committed = [];
    }
    return ok;
  }

  /**
   * Runs `fn` once every op `t` issued so far on `engine` has completed (cp.async.mbarrier.arrive,
   * tcgen05.commit). An `mbArrive(undefined, …)` inside `fn` carries the ordering of all those ops.
   */
  asyncAfterAll(t: SimThread, engine: string, label: string, fn: (m: Machine, op: AsyncOp) => void): AsyncOp {
    const g = this.groups(t, engine);
    const prior = [...g.open, ...g.committed.flat()].filter((op) => !op.done);
    let doneAt = t.time;
    for (const p of prior) doneAt = Math.max(doneAt, p.doneAt);
    const op = this.asyncIssue(t, `${engine}:after`, label, doneAt - t.time, (m) => fn(m, op));
    // Not part of the engine's commit groups.
    this.groups(t, `${engine}:after`).open.pop();
    this.races?.asyncJoin(
      op.id,
      [...g.open, ...g.committed.flat()].map((p) => p.id),
    );
    return op;
  }

  /** Waits for one op (Croqtile futures). */
  asyncWait(t: SimThread, op: AsyncOp, what: string): boolean {
    const ok = this.blockOn(t, { kind: 'future', on: op, ready: () => op.done, describe: () => what });
    if (ok) this.races?.asyncAcquire(op.id, t.index);
    return ok;
  }

  get asyncInFlight(): readonly AsyncOp[] {
    return this.asyncQueue;
  }

  private deliverAsyncUpTo(time: number): void {
    while (this.asyncQueue.length && this.asyncQueue[0].doneAt <= time) this.completeOp(this.asyncQueue.shift()!);
  }

  /** Nothing can run: jump time to the next completion. */
  private deliverNextAsync(): boolean {
    const op = this.asyncQueue.shift();
    if (!op) return false;
    // Waiting threads catch up to the completion time.
    for (const b of this.live) for (const t of b.threads) if (t.status === 'blocked' && t.time < op.doneAt) t.time = op.doneAt;
    this.completeOp(op);
    return true;
  }

  private completeOp(op: AsyncOp): void {
    op.done = true;
    this.eventTime = op.doneAt;
    if (op.doneAt > this.maxTime) this.maxTime = op.doneAt;
    const issuer = this.threads[op.issuer];
    this.notify(op);
    const g = issuer.asyncGroups.get(op.engine);
    if (g) this.notify(g);
    this.completingOp = op;
    try {
      op.complete(this);
    } catch (e) {
      this.raise(this.asyncFaultReport(op, issuer, e));
    } finally {
      this.completingOp = undefined;
    }
    if (this.tracing) this.trace.push({ kind: 'async-complete', time: op.doneAt, thread: op.issuer, op: op.id, engine: op.engine, label: op.label, loc: op.loc });
    const left = (this.inFlight.get(issuer.block) ?? 1) - 1;
    if (left > 0) this.inFlight.set(issuer.block, left);
    else this.inFlight.delete(issuer.block);
    if (issuer.status === 'done') this.checkBlockDone(issuer.block);
  }

  // ---------------------------------------------------------------- memory hooks

  /** Shared-memory access by a thread, for race detection. Call for every shared load/store. */
  access(t: SimThread, buf: Buffer, offset: number, size: number, write: boolean): void {
    if (!this.races || buf.space !== 'shared') return;
    const r = this.races.access(t.index, buf, offset, size, write, t.loc);
    if (r) this.raceReport(t.index, t.loc, buf, offset, write, r);
  }

  /** Shared-memory access by an async op at completion (TMA/cp.async writes, MMA reads). */
  accessAsync(op: AsyncOp, buf: Buffer, offset: number, size: number, write: boolean): void {
    if (!this.races || buf.space !== 'shared') return;
    const r = this.races.asyncAccess(op.id, buf, offset, size, write, op.loc);
    if (r) this.raceReport(op.issuer, op.loc, buf, offset, write, r, op.label);
  }

  private raceReport(thread: number, loc: SourceLoc, buf: Buffer, offset: number, write: boolean, other: { thread: number; loc?: SourceLoc; write: boolean; async?: boolean }, asyncLabel?: string): void {
    const me = asyncLabel ? `${asyncLabel} issued by ${this.threads[thread].label}` : this.threads[thread].label;
    const them = other.thread >= 0 ? this.threads[other.thread].label : 'an asynchronous copy';
    const msg =
      `data race on shared '${buf.name}' byte ${offset}: ${write ? 'write' : 'read'} by ${me} at line ${loc.line + 1} ` +
      `is not ordered by any barrier with the ${other.write ? 'write' : 'read'} by ${other.async ? `an async operation issued by ${them}` : them}${other.loc ? ` at line ${other.loc.line + 1}` : ''}`;
    this.raise({ kind: 'race', message: msg, loc, threads: other.thread >= 0 ? [thread, other.thread] : [thread], other });
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

function roleOf(t: SimThread): string {
  return t.role ?? `warp${t.warp}`;
}

function describeMisuse(m: MbarrierMisuse): string {
  switch (m.kind) {
    case 'not-initialized':
      return `${m.operation} on a barrier that was never initialised (or was invalidated)`;
    case 'over-arrival':
      return `${m.arrivals} arrival(s) but only ${m.pending} pending in this phase; the excess spills into the next phase`;
    case 'tx-underflow':
      return `${m.bytes} transaction bytes completed in this phase but only ${m.outstanding} were announced (tx-count underflow), so the phase cannot complete`;
    case 'stale-token':
      return `the token is from phase ${m.tokenPhase} but the barrier is in phase ${m.phase}; only the current or the immediately preceding phase is valid`;
    case 'bad-count':
      return `arrival count ${m.count} is outside 1..${(1 << 20) - 1}`;
  }
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** "3", "0-3", "0-3, 7" */
function ranges(ns: number[]): string {
  return numberRanges(ns, ', ');
}

function plural(ns: number[], noun: string): string {
  return `${noun}${new Set(ns).size > 1 ? 's' : ''} ${ranges(ns)}`;
}

/**
 * Who a set of threads is, compactly: one thread by its label; otherwise "block 0 · warps 1-3" or
 * "blocks 0-31 · warp 1", with the role when they share one.
 */
function whoOf(members: { thread: number; label: string }[], threads: SimThread[]): string {
  const ts = [...new Set(members.map((m) => m.thread))].map((i) => threads[i]);
  if (ts.length === 1) return ts[0].label;
  const warpsByBlock = new Map<number, number[]>();
  for (const t of ts) {
    let w = warpsByBlock.get(t.block);
    if (!w) warpsByBlock.set(t.block, (w = []));
    w.push(t.warp);
  }
  // Blocks with the same warps share one phrase.
  const byWarps = new Map<string, number[]>();
  for (const [block, warps] of warpsByBlock) {
    const key = ranges(warps);
    let bs = byWarps.get(key);
    if (!bs) byWarps.set(key, (bs = []));
    bs.push(block);
  }
  const roles = new Set(ts.map((t) => t.role));
  const role = roles.size === 1 && ts[0].role ? ` · ${ts[0].role}` : '';
  const parts = [...byWarps].map(([warps, blocks]) => `${plural(blocks, 'block')} · ${warps.includes(',') || warps.includes('-') ? 'warps' : 'warp'} ${warps}`);
  const who = parts.length <= 3 ? parts.join('; ') : `${parts.slice(0, 2).join('; ')} and ${parts.length - 2} more`;
  return `${who}${role}`;
}

/** Threads of one block without the block: "warp 0 · lane 3" or "warps 1-2 (48 threads)". */
function localWho(ts: SimThread[]): string {
  const uniq = [...new Set(ts)];
  if (uniq.length === 1) return uniq[0].label.replace(/^block \d+ · /, '');
  const warps = ranges(uniq.map((t) => t.warp));
  return `${/[-,]/.test(warps) ? 'warps' : 'warp'} ${warps} (${uniq.length} threads)`;
}

function groupBlocked(blocked: BlockedThread[], threads: SimThread[]): { who: string; count: number; waitsOn: string; line: number }[] {
  // "block 0 · warps 1-3 (96 threads)" rather than 96 lines.
  const groups = new Map<string, BlockedThread[]>();
  for (const b of blocked) {
    const key = `${b.waitsOn}@${b.loc.line}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(b);
  }
  return [...groups.values()].map((g) => ({
    who: g.length === 1 ? g[0].label : `${whoOf(g, threads)} (${g.length} threads)`,
    count: g.length,
    waitsOn: g[0].waitsOn,
    line: g[0].loc.line,
  }));
}

export function validateGeometry(o: MachineOptions): void {
  const dims = (name: string, d: Dim3) => {
    if (!Array.isArray(d) || d.length !== 3) throw new SimError(`bad launch configuration: ${name} must have three dimensions`);
    for (const v of d) if (!Number.isInteger(v) || v < 1) throw new SimError(`bad launch configuration: ${name} dimensions must be positive integers, got ${d.join(',')}`);
  };
  dims('grid', o.grid);
  dims('block', o.block);
  const bs = o.block[0] * o.block[1] * o.block[2];
  if (bs > 1024) throw new SimError(`bad launch configuration: ${bs} threads per block exceeds the hardware limit of 1024`);
  if (o.block[2] > 64) throw new SimError('bad launch configuration: blockDim.z is limited to 64');
  if (o.grid[0] > 2 ** 31 - 1) throw new SimError('bad launch configuration: gridDim.x is limited to 2147483647');
  if (o.grid[1] > 65535 || o.grid[2] > 65535) throw new SimError('bad launch configuration: gridDim.y and gridDim.z are limited to 65535');
  if (!(Number.isFinite(o.dynamicSmem ?? 0) && (o.dynamicSmem ?? 0) >= 0 && (o.dynamicSmem ?? 0) <= 227 * 1024)) throw new SimError(`bad launch configuration: dynamic shared memory ${o.dynamicSmem} bytes is outside 0..232448 (227 KiB, Hopper's per-block maximum)`);
  const positive = (name: string, v: number | undefined) => {
    if (v !== undefined && !(Number.isInteger(v) && v >= 1)) throw new SimError(`bad simulator option: ${name} must be a positive integer, got ${v}`);
  };
  positive('residentBlocks', o.residentBlocks);
  positive('quantum', o.quantum);
  positive('maxSteps', o.maxSteps);
  if (o.seed !== undefined && !Number.isFinite(o.seed)) throw new SimError(`bad simulator option: seed must be a number, got ${o.seed}`);
}
