// The simulator's runtime for one kernel launch: threads, blocks, the seeded scheduler, simulated
// time, mbarriers and block/warp syncs, timed asynchronous engines, the trace, and the reports
// (deadlock with its wait-for picture, misuse, races, out-of-bounds, step limit). It knows nothing of
// CUDA or Croqtile syntax — a language *executor* runs each thread's statements and calls the
// services here for everything that synchronises — and nothing of DAP: the debugger drives it
// through `run` limits, `pause` and the event listener.
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
//   returns without executing it if that returns true (breakpoints, stepping).
// - Faults (out of bounds, unsupported constructs) are thrown as `SimError`; the machine turns them
//   into a report that names the thread and the line.
import type { Range } from '../api';
import { Mbarrier, type MbarrierMisuse, type MbarrierState } from './mbarrier';
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
  readonly threads: SimThread[] = [];
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
  listeners: ((e: MachineEvent) => void)[] = [];
  /** Reports raised and not yet returned by `run`. */
  private pendingReport?: SimReport;
  private pauseRequested = false;
  private readonly random: () => number;
  private readonly asyncQueue: AsyncOp[] = [];
  private nextBlock = 0;
  private nextBarrierId = 0;
  private nextOpId = 0;
  private dirty = true;
  private readonly barrierAt = new Map<Buffer, Map<number, SimBarrier>>();
  /** Block-level sync rendezvous: key → generation and arrivals. */
  private readonly syncs = new Map<string, { gen: number; arrived: Set<number>; expected: number }>();
  /** Warp exchanges: key → values deposited by the lanes of one round. */
  private readonly exchanges = new Map<string, { gen: number; values: number[]; arrived: number; mask: number; result?: number[] }>();
  private finished = false;
  private lastThread = -1;

  constructor(
    readonly executor: Executor,
    options: MachineOptions,
  ) {
    this.options = options;
    this.grid = options.grid;
    this.blockDim = options.block;
    this.blockSize = options.block[0] * options.block[1] * options.block[2];
    this.numBlocks = options.grid[0] * options.grid[1] * options.grid[2];
    this.dynamicSmem = options.dynamicSmem ?? 0;
    this.lat = { ...DEFAULT_LATENCIES, ...options.latencies };
    this.policy = options.schedule ?? 'round-robin';
    this.maxSteps = options.maxSteps ?? 50_000_000;
    this.quantum = options.quantum ?? 64;
    this.random = rng(options.seed ?? 1);
    this.tracing = options.trace ?? false;
    if (options.detectRaces ?? true) this.races = new RaceDetector();
    validateGeometry(options);
  }

  // ---------------------------------------------------------------- scheduling

  /** Starts resident blocks lazily; call `run` to execute. */
  private fillResident(): void {
    const limit = this.options.residentBlocks ?? 32;
    let live = 0;
    for (const b of this.blocks) if (!b.done) live++;
    while (live < limit && this.nextBlock < this.numBlocks) {
      this.launchBlock(this.nextBlock++);
      live++;
    }
  }

  private launchBlock(index: number): void {
    const [gx, gy] = this.grid;
    const idx: Dim3 = [index % gx, Math.floor(index / gx) % gy, Math.floor(index / (gx * gy))];
    const block: SimBlock = { index, idx, threads: [], state: undefined, done: false };
    this.blocks.push(block);
    const [bx, by] = this.blockDim;
    const startTime = this.threads.length ? Math.min(...this.liveTimes()) : 0;
    for (let tid = 0; tid < this.blockSize; tid++) {
      const t = new SimThread(this.threads.length, index, idx, tid, [tid % bx, Math.floor(tid / bx) % by, Math.floor(tid / (bx * by))]);
      t.time = startTime;
      this.threads.push(t);
      block.threads.push(t);
    }
    this.races?.addBlock(block.threads.map((t) => t.index));
    this.executor.startBlock(this, block);
    for (const t of block.threads) this.executor.startThread(this, t);
  }

  private *liveTimes(): Iterable<number> {
    for (const t of this.threads) if (t.status === 'ready' || t.status === 'blocked') yield t.time;
  }

  /** Asks a running `run` to return with status `paused` as soon as the executor hands control back. */
  pause(): void {
    this.pauseRequested = true;
    this.yieldNow = true;
  }

  /**
   * Runs until the kernel completes, a report stops it, `maxSteps` is reached, `pause()` is called,
   * or `untilSteps` total statements have run (the debugger's replay and stepping).
   */
  run(limits: { untilSteps?: number; thread?: SimThread; budget?: number } = {}): RunResult {
    if (this.finished) return { status: 'completed' };
    this.fillResident();
    for (;;) {
      if (this.pendingReport) return this.takeReport();
      if (this.pauseRequested) {
        this.pauseRequested = false;
        this.yieldNow = false;
        return { status: 'paused' };
      }
      if (limits.untilSteps !== undefined && this.steps >= limits.untilSteps) return { status: 'paused' };
      if (this.steps >= this.maxSteps) {
        return this.stopWith({ kind: 'step-limit', message: `step budget exhausted: ${this.maxSteps.toLocaleString('en-US')} thread-statements ran without the kernel finishing (raise --max-steps, or look for a spin loop)`, threads: [] });
      }
      if (this.dirty) this.wake();
      const t = limits.thread ?? this.pick();
      if (!t) {
        if (this.deliverNextAsync()) continue;
        if (this.allDone()) {
          this.finished = true;
          return { status: 'completed' };
        }
        return this.stopWith(this.deadlockReport());
      }
      if (t.status !== 'ready') {
        // Single-thread stepping on a blocked thread: let the others and async work advance it.
        if (t.status === 'blocked' && limits.thread) {
          const other = this.pick();
          if (other) this.runThread(other, 1);
          else if (!this.deliverNextAsync()) return this.stopWith(this.deadlockReport());
          if (limits.budget !== undefined && --limits.budget <= 0) return { status: 'paused' };
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
    let ran = 0;
    try {
      ran = this.executor.run(this, t, budget);
    } catch (e) {
      t.status = 'faulted';
      this.raise(this.faultReport(t, e));
    }
    t.steps += ran;
    t.time += ran * this.lat.statement;
    this.steps += ran;
    if (t.status !== 'ready') this.dirty = true;
    if (t.status === 'done') this.checkBlockDone(t.block);
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

  private pick(): SimThread | undefined {
    // Threads of live blocks only; the scan is linear but cheap next to executing a quantum.
    let best: SimThread | undefined;
    if (this.policy === 'round-robin') {
      // Lowest simulated time first (ties: lowest index after the last one run) = fair interleaving.
      for (const b of this.blocks) {
        if (b.done) continue;
        for (const t of b.threads) if (t.status === 'ready' && (!best || t.time < best.time)) best = t;
      }
      return best;
    }
    const ready: SimThread[] = [];
    for (const b of this.blocks) if (!b.done) for (const t of b.threads) if (t.status === 'ready') ready.push(t);
    if (!ready.length) return undefined;
    if (this.policy === 'random') return ready[Math.floor(this.random() * ready.length)];
    // Adversarial: keep running the thread that ran last (maximal lag between roles); when it blocks,
    // switch to the ready thread of a *different* role (or warp) that is furthest behind.
    const last = this.threads[this.lastThread];
    if (last && last.status === 'ready') return last;
    const lastRole = last ? (last.role ?? `warp${last.warp}`) : undefined;
    for (const t of ready) {
      const role = t.role ?? `warp${t.warp}`;
      if (role === lastRole) continue;
      if (!best || t.time < best.time) best = t;
    }
    return best ?? ready[0];
  }

  private wake(): void {
    this.dirty = false;
    for (const b of this.blocks) {
      if (b.done) continue;
      for (const t of b.threads) {
        if (t.status !== 'blocked' || !t.wait) continue;
        if (t.wait.ready()) this.resume(t);
      }
    }
  }

  private resume(t: SimThread): void {
    const w = t.wait!;
    t.status = 'ready';
    t.wait = undefined;
    if (this.tracing) this.trace.push({ kind: 'wait-end', time: t.time, thread: t.index, what: w.describe(), loc: t.loc });
  }

  /** Blocks `t` on `wait` unless it is already satisfied. Returns true when the thread may proceed. */
  blockOn(t: SimThread, wait: Wait): boolean {
    if (wait.ready()) return true;
    t.status = 'blocked';
    t.wait = wait;
    if (this.tracing) this.trace.push({ kind: 'wait-start', time: t.time, thread: t.index, what: wait.describe(), loc: t.loc });
    return false;
  }

  /** Marks state changed so blocked threads are re-checked. */
  touch(): void {
    this.dirty = true;
  }

  private allDone(): boolean {
    if (this.nextBlock < this.numBlocks) return false;
    return this.threads.every((t) => t.status === 'done');
  }

  private checkBlockDone(index: number): void {
    const b = this.blocks.find((x) => x.index === index);
    if (!b || b.done) return;
    if (b.threads.every((t) => t.status === 'done')) {
      // Async work still in flight for this block completes before its memory goes away.
      if (this.asyncQueue.some((op) => this.threads[op.issuer].block === index)) return;
      b.done = true;
      this.executor.endBlock?.(this, b);
      this.fillResident();
    }
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
    if (status !== 'misuse' && status !== 'race') this.finished = true;
    return { status, report: r };
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
    for (const t of this.threads) {
      if (t.status !== 'blocked' || !t.wait) continue;
      blocked.push({ thread: t.index, label: t.label, waitsOn: t.wait.describe(), barrier: t.wait.barrier?.label, parity: t.wait.parity, loc: t.loc });
      if (t.wait.barrier) bars.add(t.wait.barrier);
    }
    const missing = [...bars].map((b) => ({ barrier: b.label, pending: b.mb.state.pending, expected: b.mb.state.expected, tx: b.mb.state.tx, arrivedThisPhase: b.arrivedThisPhase.slice() }));
    const groups = groupBlocked(blocked);
    const lines = groups.map((g) => `  ${g.who} wait${g.count > 1 ? '' : 's'} on ${g.waitsOn} at line ${g.line + 1}`);
    for (const m of missing) {
      const why = m.pending > 0 ? `${m.pending} of ${m.expected} arrivals missing` : '';
      const tx = m.tx > 0 ? `${m.tx} transaction bytes outstanding` : '';
      lines.push(`  ${m.barrier}: ${[why, tx].filter(Boolean).join(', ') || 'phase already completed; the waiters expect the other parity'}`);
    }
    const n = blocked.length;
    return {
      kind: 'deadlock',
      message: `deadlock: all ${n} live thread${n === 1 ? '' : 's'} are blocked and no asynchronous work is in flight\n${lines.join('\n')}`,
      loc: blocked[0]?.loc,
      threads: blocked.map((b) => b.thread),
      blocked,
      missing,
    };
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
    const b: SimBarrier = { id: this.nextBarrierId++, label, mb: new Mbarrier(), block, arrivedThisPhase: [] };
    b.mb.onPhaseComplete = (completed) => this.phaseCompleted(b, completed);
    this.barriers.push(b);
    return b;
  }

  private completingThread?: SimThread;

  private phaseCompleted(b: SimBarrier, completed: number): void {
    this.phaseFlips++;
    this.dirty = true;
    const last = this.completingThread;
    this.races?.release(b.id, b.arrivedThisPhase);
    if (this.tracing) this.trace.push({ kind: 'phase', time: last?.time ?? this.now(), barrier: b.label, block: b.block, completed, lastArriver: last?.index, loc: last?.loc });
    b.onComplete?.(this);
    for (const l of this.listeners) l({ kind: 'phase', barrier: b, completed, lastArriver: last });
    b.arrivedThisPhase = [];
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
    this.dirty = true;
  }

  /** Arrive (`count` arrivals, optionally announcing `tx` bytes, optionally dropping). Returns the token (phase). */
  mbArrive(t: SimThread | undefined, b: SimBarrier, count = 1, tx = 0, drop = false): number {
    if (t) {
      for (let i = 0; i < count; i++) b.arrivedThisPhase.push(t.index);
      this.races?.arrive(b.id, t.index);
    }
    this.completingThread = t;
    const phase = b.mb.state.phase;
    const r = b.mb.arrive(count, tx, drop);
    this.completingThread = undefined;
    if (this.tracing) this.trace.push({ kind: 'arrive', time: t?.time ?? this.now(), thread: t?.index ?? -1, barrier: b.label, count, tx, phase, loc: t?.loc });
    if (r.misuse) this.misuse(t, b, r.misuse, drop ? 'arrive_drop' : 'arrive');
    this.dirty = true;
    return r.token;
  }

  mbExpectTx(t: SimThread, b: SimBarrier, bytes: number): void {
    const m = b.mb.expectTx(bytes);
    if (m) this.misuse(t, b, m, 'expect_tx');
  }

  /** complete_tx from an async engine (`op` identifies it for race clocks). */
  mbCompleteTx(b: SimBarrier, bytes: number, op?: AsyncOp): void {
    if (op) this.races?.asyncArrive(b.id, op.id);
    this.completingThread = op ? this.threads[op.issuer] : undefined;
    const m = b.mb.completeTx(bytes);
    this.completingThread = undefined;
    if (m) this.misuse(undefined, b, m, `complete_tx of ${bytes} bytes${op ? ` (${op.label})` : ''}`);
    this.dirty = true;
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
    const ok = this.blockOn(t, { kind: 'mbarrier-parity', barrier: b, parity: p, ready: () => b.mb.parityComplete(p), describe: () => `${b.label} (parity ${p})` });
    if (ok) this.races?.acquire(b.id, t.index);
    return ok;
  }

  /** Blocking token wait. */
  mbWaitToken(t: SimThread, b: SimBarrier, token: number): boolean {
    if (!this.checkInit(t, b, 'wait')) return true;
    const first = b.mb.tokenComplete(token);
    if (first.misuse) {
      this.misuse(t, b, first.misuse, 'wait(token)');
      return true;
    }
    const ok = this.blockOn(t, { kind: 'mbarrier-token', barrier: b, token, ready: () => b.mb.tokenComplete(token).done, describe: () => `${b.label} (token of phase ${token}, parity ${token & 1})` });
    if (ok) this.races?.acquire(b.id, t.index);
    return ok;
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
    return this.rendezvous(t, `b${t.block}:${id}`, count, what, 'block-sync');
  }

  /** `bar.arrive id, count`: counts toward the rendezvous without waiting. */
  arriveBlock(t: SimThread, id: number, count: number): void {
    const key = `b${t.block}:${id}`;
    const s = this.syncState(key, count);
    s.arrived.add(-1 - s.arrived.size); // anonymous arrival
    this.races?.arrive(`sync:${key}`, t.index);
    this.maybeCompleteSync(key, s);
  }

  /** `__syncwarp(mask)`: the lanes in `mask` meet. */
  syncWarp(t: SimThread, mask = 0xffffffff): boolean {
    const n = popcount(mask >>> 0);
    return this.rendezvous(t, `w${t.block}:${t.warp}`, n, `__syncwarp(0x${(mask >>> 0).toString(16)})`, 'warp-sync');
  }

  /** Cluster barrier (barrier.cluster.arrive + wait): all threads of all blocks in the launch's cluster. */
  syncCluster(t: SimThread, blocks: number): boolean {
    return this.rendezvous(t, 'cluster', blocks * this.blockSize, 'barrier.cluster', 'cluster-sync');
  }

  private syncState(key: string, expected: number) {
    let s = this.syncs.get(key);
    if (!s) this.syncs.set(key, (s = { gen: 0, arrived: new Set(), expected }));
    return s;
  }

  private maybeCompleteSync(key: string, s: { gen: number; arrived: Set<number>; expected: number }): void {
    if (s.arrived.size < s.expected) return;
    this.races?.release(`sync:${key}`, []);
    s.gen++;
    s.arrived.clear();
    this.dirty = true;
  }

  private rendezvous(t: SimThread, key: string, expected: number, what: string, kind: Wait['kind']): boolean {
    const s = this.syncState(key, expected);
    const pend = t.pendingSync;
    if (pend && pend.key === key) {
      if (s.gen > pend.gen) {
        t.pendingSync = undefined;
        this.races?.acquire(`sync:${key}`, t.index);
        return true;
      }
      return this.blockOn(t, { kind, ready: () => s.gen > pend.gen, describe: () => `${what} (${s.arrived.size} of ${s.expected} arrived)` });
    }
    s.expected = expected;
    s.arrived.add(t.index);
    this.races?.arrive(`sync:${key}`, t.index);
    const gen = s.gen;
    t.pendingSync = { key, gen };
    this.maybeCompleteSync(key, s);
    if (s.gen > gen) {
      t.pendingSync = undefined;
      this.races?.acquire(`sync:${key}`, t.index);
      return true;
    }
    return this.blockOn(t, { kind, ready: () => s.gen > gen, describe: () => `${what} (${s.arrived.size} of ${s.expected} arrived)` });
  }

  /**
   * Warp collective (shuffle, vote, match, reduce): every lane in `mask` deposits `value`; once all
   * have, each gets the 32 deposited values (undefined for absent lanes). Returns undefined while the
   * thread must wait (it is blocked; re-execute after wake-up).
   */
  warpExchange(t: SimThread, mask: number, value: number): number[] | undefined {
    const key = `w${t.block}:${t.warp}:x`;
    let s = this.exchanges.get(key);
    if (!s) this.exchanges.set(key, (s = { gen: 0, values: new Array(32), arrived: 0, mask: mask >>> 0 }));
    const pend = t.pendingSync;
    if (pend && pend.key === key) {
      const st = s;
      if (st.gen > pend.gen) {
        t.pendingSync = undefined;
        const r = this.exchangeResults.get(`${key}:${pend.gen}`)!;
        if (--r.readers === 0) this.exchangeResults.delete(`${key}:${pend.gen}`);
        return r.values;
      }
      this.blockOn(t, { kind: 'warp-sync', ready: () => st.gen > pend.gen, describe: () => `warp collective (mask 0x${st.mask.toString(16)})` });
      return undefined;
    }
    s.mask = mask >>> 0;
    s.values[t.lane] = value;
    s.arrived++;
    const gen = s.gen;
    const need = popcount(s.mask);
    if (s.arrived >= need) {
      const values = s.values;
      this.exchangeResults.set(`${key}:${gen}`, { values, readers: need - 1 });
      if (need - 1 === 0) this.exchangeResults.delete(`${key}:${gen}`);
      s.gen++;
      s.values = new Array(32);
      s.arrived = 0;
      this.dirty = true;
      return values;
    }
    t.pendingSync = { key, gen };
    const st = s;
    this.blockOn(t, { kind: 'warp-sync', ready: () => st.gen > gen, describe: () => `warp collective (mask 0x${st.mask.toString(16)}, ${st.arrived} of ${need} lanes)` });
    return undefined;
  }

  private readonly exchangeResults = new Map<string, { values: number[]; readers: number }>();

  // ---------------------------------------------------------------- asynchronous engines

  now(): number {
    let t = Infinity;
    for (const th of this.liveTimes()) t = Math.min(t, th);
    return t === Infinity ? 0 : t;
  }

  /**
   * Issues timed asynchronous work by `t` on `engine`; `complete` runs when simulated time reaches
   * issue time + latency (the copy happens or the MMA computes then). The op joins `t`'s open
   * commit group on that engine.
   */
  asyncIssue(t: SimThread, engine: string, label: string, latency: number, complete: (m: Machine) => void): AsyncOp {
    const op: AsyncOp = { id: this.nextOpId++, engine, label, issuer: t.index, issuedAt: t.time, doneAt: t.time + latency, done: false, loc: t.loc, complete };
    this.races?.asyncIssue(op.id, t.index);
    this.groups(t, engine).open.push(op);
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

  /** wait_group N: blocks until at most `n` committed groups of `t` on `engine` are pending. */
  asyncWaitGroups(t: SimThread, engine: string, n: number, what = `${engine} wait_group ${n}`): boolean {
    const g = this.groups(t, engine);
    const ready = () => {
      while (g.committed.length && g.committed[0].every((op) => op.done)) g.committed.shift();
      return g.committed.filter((grp) => grp.some((op) => !op.done)).length <= n;
    };
    const ok = this.blockOn(t, { kind: 'async-group', ready, describe: () => what });
    if (ok) for (const grp of g.committed) for (const op of grp) if (op.done) this.races?.asyncAcquire(op.id, t.index);
    if (ok && n === 0) for (const grp of g.committed.splice(0)) for (const op of grp) this.races?.asyncAcquire(op.id, t.index);
    return ok;
  }

  /** Blocks until every op of `t` on `engine` (open or committed) completed (cp.async.wait_all, wgmma wait 0). */
  asyncWaitAll(t: SimThread, engine: string, what = `${engine} wait_all`): boolean {
    const g = this.groups(t, engine);
    const all = () => [...g.open, ...g.committed.flat()];
    const ok = this.blockOn(t, { kind: 'async-group', ready: () => all().every((op) => op.done), describe: () => what });
    if (ok) {
      for (const op of all()) this.races?.asyncAcquire(op.id, t.index);
      g.open = [];
      g.committed = [];
    }
    return ok;
  }

  /** Runs `fn` once every op `t` issued so far on `engine` has completed (cp.async.mbarrier.arrive, tcgen05.commit). */
  asyncAfterAll(t: SimThread, engine: string, label: string, fn: (m: Machine, op: AsyncOp) => void): AsyncOp {
    const g = this.groups(t, engine);
    const prior = [...g.open, ...g.committed.flat()].filter((op) => !op.done);
    const doneAt = Math.max(t.time, ...prior.map((op) => op.doneAt));
    const op = this.asyncIssue(t, `${engine}:after`, label, doneAt - t.time, (m) => fn(m, op));
    // Not part of the engine's commit groups.
    this.groups(t, `${engine}:after`).open.pop();
    return op;
  }

  /** Waits for one op (Croqtile futures). */
  asyncWait(t: SimThread, op: AsyncOp, what: string): boolean {
    const ok = this.blockOn(t, { kind: 'future', ready: () => op.done, describe: () => what });
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
    for (const b of this.blocks) if (!b.done) for (const t of b.threads) if (t.status === 'blocked' && t.time < op.doneAt) t.time = op.doneAt;
    this.completeOp(op);
    return true;
  }

  private completeOp(op: AsyncOp): void {
    op.done = true;
    this.dirty = true;
    try {
      op.complete(this);
    } catch (e) {
      const t = this.threads[op.issuer];
      this.raise(this.faultReport(t, e instanceof OutOfBounds ? e : e instanceof SimError ? new SimError(`${op.label}: ${e.message}`, op.loc, e.kind) : e));
    }
    if (this.tracing) this.trace.push({ kind: 'async-complete', time: op.doneAt, thread: op.issuer, op: op.id, engine: op.engine, label: op.label, loc: op.loc });
    const t = this.threads[op.issuer];
    if (t.status === 'done') this.checkBlockDone(t.block);
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

  /** Called by executors before each statement while `lineHook` is set. */
  atStatement(t: SimThread, loc: SourceLoc): boolean {
    return this.lineHook ? this.lineHook(t, loc) : false;
  }

  /** A snapshot of every barrier for reports, `--json` and the debugger's Barriers scope. */
  barrierStates(): { label: string; block: number; state: MbarrierState; waiting: { thread: number; parity?: number; token?: number }[] }[] {
    return this.barriers.map((b) => ({
      label: b.label,
      block: b.block,
      state: { ...b.mb.state },
      waiting: this.threads.filter((t) => t.status === 'blocked' && t.wait?.barrier === b).map((t) => ({ thread: t.index, parity: t.wait!.parity, token: t.wait!.token })),
    }));
  }

  /** Simulated cycles: the furthest any thread or async op got. */
  get cycles(): number {
    let c = 0;
    for (const t of this.threads) c = Math.max(c, t.time);
    return c;
  }
}

function describeMisuse(m: MbarrierMisuse): string {
  switch (m.kind) {
    case 'not-initialized':
      return `${m.operation} on a barrier that was never initialised (or was invalidated)`;
    case 'over-arrival':
      return `${m.arrivals} arrival(s) but only ${m.pending} pending in this phase; the excess spills into the next phase`;
    case 'tx-underflow':
      return `${m.bytes} bytes completed but only ${m.outstanding} were expected (tx-count underflow)`;
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

function groupBlocked(blocked: BlockedThread[]): { who: string; count: number; waitsOn: string; line: number }[] {
  // "block 0 · warps 1-3 (96 threads)" rather than 96 lines.
  const groups = new Map<string, BlockedThread[]>();
  for (const b of blocked) {
    const key = `${b.waitsOn}@${b.loc.line}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(b);
  }
  return [...groups.values()].map((g) => {
    const labels = g.map((b) => b.label.replace(/ · lane \d+/, ''));
    const uniq = [...new Set(labels)];
    const who = uniq.length <= 3 ? uniq.join(', ') : `${uniq.slice(0, 2).join(', ')} and ${uniq.length - 2} more warps`;
    return { who: `${who} (${g.length} thread${g.length === 1 ? '' : 's'})`, count: g.length, waitsOn: g[0].waitsOn, line: g[0].loc.line };
  });
}

export function validateGeometry(o: MachineOptions): void {
  const dims = (name: string, d: Dim3) => {
    for (const v of d) if (!Number.isInteger(v) || v < 1) throw new SimError(`bad launch configuration: ${name} dimensions must be positive integers, got ${d.join(',')}`);
  };
  dims('grid', o.grid);
  dims('block', o.block);
  const bs = o.block[0] * o.block[1] * o.block[2];
  if (bs > 1024) throw new SimError(`bad launch configuration: ${bs} threads per block exceeds the hardware limit of 1024`);
  if (o.block[2] > 64) throw new SimError('bad launch configuration: blockDim.z is limited to 64');
  if (o.grid[1] > 65535 || o.grid[2] > 65535) throw new SimError('bad launch configuration: gridDim.y and gridDim.z are limited to 65535');
  if ((o.dynamicSmem ?? 0) < 0 || (o.dynamicSmem ?? 0) > 227 * 1024) throw new SimError(`bad launch configuration: dynamic shared memory ${o.dynamicSmem} bytes is outside 0..232448 (227 KiB, Hopper's per-block maximum)`);
}
