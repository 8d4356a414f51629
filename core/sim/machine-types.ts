// The simulator machine's vocabulary, shared by the machine (machine.ts), its parts (scheduler,
// synchronisation services, asynchronous engines, reports), the race detector and the executors:
// launch options, threads, blocks, barriers, async ops, waits, the trace and the reports.
import type { Range } from '../api';
import type { Mbarrier, MbarrierMisuse } from './mbarrier';
import type { Buffer } from './memory';

export type Dim3 = [number, number, number];

export type SchedulePolicy = 'round-robin' | 'random' | 'adversarial';

export interface SourceLoc {
  /** Zero-based line, like the rest of the engine. */
  line: number;
  character?: number;
  range?: Range;
  /** Function the statement is in (kernel, device helper, Croqtile function). */
  func?: string;
  /** The header the statement is in (absolute path); absent for the launched file itself. */
  file?: string;
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
  /**
   * Thread-block cluster dims (`__cluster_dims__`, a launch's cluster attribute): the CTAs of a
   * cluster are resident together and share distributed shared memory. Absent: every CTA is an
   * implicit cluster of one (%is_explicit_cluster false).
   */
  cluster?: Dim3;
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
  /**
   * Warp-lockstep execution (Executor.runLanes) where the executor has it; on by default. Off, every
   * thread runs alone: the same semantics, another interleaving (tests compare the two).
   */
  lockstep?: boolean;
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
 * The machine as the callbacks that barriers and async ops carry receive it: the `Machine` of
 * machine.ts, which this module cannot name without an import cycle. The callbacks are declared as
 * methods (TypeScript checks method parameters bivariantly), so executors write `(m: Machine) => …`.
 */
export type CallbackMachine = object;

/** A thread's reusable wait on an mbarrier phase (parity or token); mbarrier-services.ts makes it. */
export interface MbarrierWaitSlot extends Wait {
  kind: 'mbarrier-parity' | 'mbarrier-token';
  barrier: SimBarrier;
  on: object;
  parity?: number;
  token?: number;
}

/** threadIdx of each linear thread index of a block of `block` threads (shared by every block's threads: nothing writes a Dim3). */
export function threadIdxTable(block: Dim3): Dim3[] {
  const [bx, by] = block;
  return Array.from({ length: bx * by * block[2] }, (_, tid): Dim3 => [tid % bx, Math.floor(tid / bx) % by, Math.floor(tid / (bx * by))]);
}

/** A thread's place before its executor sets one (shared by every thread: locations are never written to). */
const NOWHERE: SourceLoc = Object.freeze({ line: 0 });

export class SimThread {
  status: ThreadStatus = 'ready';
  wait?: Wait;
  /** Where the thread is (kept current by the executor at least at statements that synchronise). */
  loc: SourceLoc = NOWHERE;
  /** Simulated cycle this thread has reached. */
  time = 0;
  steps = 0;
  /** Role name when the program says (Croqtile roles) or the executor infers it (CUDA warp roles). */
  role?: string;
  /** Executor-owned state (frames, locals, pc). */
  state: unknown;
  /** Per-thread collective bookkeeping for idempotent re-entry (syncs, warp exchanges). */
  pendingSync?: { key: string; gen: number };
  private groups?: Map<string, AsyncGroups>;
  /**
   * Commit-group bookkeeping per async engine (`cp.async`, `wgmma`, Croqtile `mma`). Made on first use:
   * most threads never commit a group, and a big grid makes hundreds of thousands of threads.
   */
  get asyncGroups(): Map<string, AsyncGroups> {
    return (this.groups ??= new Map());
  }
  /**
   * Its block finished: forgets its executor state, waits and commit groups (the thread itself stays,
   * done). Its mbarrier wait goes to `spareWaits` while that holds fewer than `keep`, for a later block's thread.
   */
  release(spareWaits: MbarrierWaitSlot[], keep: number): void {
    if (this.mbWait && spareWaits.length < keep) spareWaits.push(this.mbWait);
    this.state = undefined;
    this.wait = undefined;
    this.pendingSync = undefined;
    this.mbWait = undefined;
    this.groups = undefined;
  }
  /** This thread's reusable mbarrier wait (see mbarrier-services.ts). */
  mbWait?: MbarrierWaitSlot;
  /** The machine's last pass over a waiter list that saw this thread. */
  wakePass = 0;
  /**
   * Where the calls that led to `at` (a location in the current statement, or in a function being
   * entered) were made, outermost first (the kernel's line first): reports inside a helper name that
   * chain. Set by executors that have calls.
   */
  callSites?: (this: SimThread, at: SourceLoc) => readonly SourceLoc[];
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

/**
 * Lane `k` of `t`'s warp, or undefined past the warp's last lane (a block's threads are consecutive in
 * the machine's list, so a warp's lanes are too; a partial last warp ends early).
 */
export function warpLane(threads: readonly SimThread[], t: SimThread, k: number): SimThread | undefined {
  if (k >= 32) return undefined;
  const l = threads[t.index - t.lane + k];
  return l && l.block === t.block && l.tid === t.tid - t.lane + k ? l : undefined;
}

export interface AsyncGroups {
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
  /** Its cluster (linear id) and its rank there (%cluster_ctarank); 0 and 0 without clusters. */
  cluster: number;
  rank: number;
  /** Where its last thread ended, once it finished (named when a peer accesses it afterwards). */
  exitLoc?: SourceLoc;
}

/** An mbarrier (or Croqtile event slot) at a shared-memory address, with its display label. */
/**
 * The threads that arrived on a barrier in its current phase (one entry per arrival). Cleared at
 * every phase without giving its storage back: the next phase's arrivals refill it, where an
 * array truncated to length 0 would be grown again arrival by arrival.
 */
export class ArrivalList {
  private items: number[] = [];
  length = 0;
  /** The lowest and highest thread listed (a phase's arrivers usually lie in one block's range). */
  lo = Infinity;
  hi = -1;
  push(thread: number): void {
    this.items[this.length++] = thread;
    if (thread < this.lo) this.lo = thread;
    if (thread > this.hi) this.hi = thread;
  }
  clear(): void {
    this.length = 0;
    this.lo = Infinity;
    this.hi = -1;
  }
  at(i: number): number {
    return this.items[i];
  }
  toArray(): number[] {
    return this.items.slice(0, this.length);
  }
}

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
  arrivedThisPhase: ArrivalList;
  /** Completion function (cuda::barrier's CompletionF), run by the last arriver. */
  onComplete?(m: CallbackMachine): void;
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
  /**
   * What the op will do that a teardown must wait for, declared at issue (`Machine.asyncEffects`):
   * the barriers it signals, and whether it writes its block's shared memory or tensor memory.
   */
  signals?: SimBarrier[];
  writesShared?: boolean;
  writesTmem?: boolean;
  /**
   * The blocks whose tensor memory it writes when that is not only its issuer's: a CTA-pair
   * (`.cta_group::2`) tcgen05 op writes both CTAs' tensor memory, so a dealloc in either waits for it.
   */
  tmemBlocks?: number[];
  /** Other threads whose commit groups hold it too (the rest of a warpgroup, for a wgmma). */
  joined?: number[];
  /** Performs the effect (copy, compute, complete_tx) at completion time. */
  complete(m: CallbackMachine): void;
}

/**
 * What `trace: true` records. `thread` is a machine thread index, -1 for an asynchronous engine's
 * action that no thread's op is known for; barrier events name their barrier by label and block.
 */
export type TraceEvent =
  | { kind: 'phase'; time: number; barrier: string; block: number; completed: number; lastArriver?: number; loc?: SourceLoc }
  | { kind: 'arrive'; time: number; thread: number; barrier: string; block: number; count: number; tx: number; phase: number; loc?: SourceLoc }
  | { kind: 'init'; time: number; thread: number; barrier: string; block: number; count: number; loc?: SourceLoc }
  /** expect_tx on its own (an arrive's expect_tx is its `tx`). */
  | { kind: 'expect-tx'; time: number; thread: number; barrier: string; block: number; bytes: number; loc?: SourceLoc }
  /** complete_tx by an asynchronous copy (`thread`: its issuer), at the copy's completion. */
  | { kind: 'complete-tx'; time: number; thread: number; barrier: string; block: number; bytes: number; loc?: SourceLoc }
  /** `barrier`/`block`: the mbarrier a parity or token wait is on. */
  | { kind: 'wait-start' | 'wait-end'; time: number; thread: number; what: string; barrier?: string; block?: number; loc?: SourceLoc }
  /** A report (misuse, race, deadlock, fault …) as raised; `thread` is its first thread or -1. */
  | { kind: 'report'; time: number; thread: number; report: SimReport }
  | { kind: 'async-issue' | 'async-complete'; time: number; thread: number; op: number; engine: string; label: string; loc?: SourceLoc };

export type ReportKind = 'deadlock' | 'misuse' | 'race' | 'oob' | 'error' | 'unsupported' | 'step-limit';

export interface BlockedThread {
  thread: number;
  label: string;
  waitsOn: string;
  barrier?: string;
  parity?: number;
  loc: SourceLoc;
  /** `line 52 ← bar_wait line 23` when the wait is inside a helper; else `line 23`. */
  where: string;
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
  /** Misuse: the barrier's label and block. */
  barrier?: { label: string; block: number };
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

/**
 * The part of a launch request that a SimError is about, when the request does not fit the file
 * (rather than the program being wrong): the faces name that field (`--kernel`, `args[2]`) without
 * reading the message. `arg` is a given argument by name; `args` the list as a whole (one missing).
 */
export type LaunchField =
  /** `unknown`: the name asked for is not in the file, which has `available`. */
  | { kind: 'kernel'; unknown?: { name: string; available: readonly string[] } }
  | { kind: 'grid' }
  | { kind: 'block' }
  | { kind: 'cluster' }
  | { kind: 'dynamicSmem' }
  | { kind: 'arg'; name: string }
  | { kind: 'args' };

export class SimError extends Error {
  constructor(
    message: string,
    readonly loc?: SourceLoc,
    readonly kind: 'unsupported' | 'error' | 'oob' = 'error',
    /** Set when the error is about the request: the launch field at fault. */
    readonly field?: LaunchField,
  ) {
    super(message);
  }

  /**
   * For an error found while compiling a function reached through calls: the call sites that led
   * there, outermost first (reports name them: `line 9 ← helper line 3`).
   */
  callSites?: SourceLoc[];

  /** An error about the launch request's `field` (no source location: the program is not at fault). */
  static ofRequest(field: LaunchField, message: string, kind: SimError['kind'] = 'error'): SimError {
    return new SimError(message, undefined, kind, field);
  }
}

/** Thread-statements a run may take when the request sets no `maxSteps` (every face's default). */
export const DEFAULT_MAX_STEPS = 50_000_000;
