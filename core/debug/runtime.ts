// The simulator's debug runtime: runs one CUDA kernel launch or one whole Croqtile program under
// debugger control (continue, step, pause, line / barrier breakpoints, barrier watches, exception
// filters, time travel by deterministic replay) and exposes what a debugger shows (threads, frames,
// locals, barriers, async ops, futures, shared memory). It knows nothing of DAP: the debug session
// (debugger/) maps requests to these methods and the typed events (`stopped`, `output`, `exited`)
// to DAP events, and converts lines (every line here is zero-based, like the rest of the engine).
// `language` says which of the two it runs.
//
// Threads, CUDA. One debugger thread per warp (`block b · warp w · role`), ids 1, 2, … in launch
// order (`block * warpsPerBlock + warp + 1`); `lanes` is 32, or fewer for a partial last warp. Each
// warp has a displayed lane (default 0, see `setLane`): its frames and locals are shown, line
// breakpoints and conditions are checked on it, and stepping follows it. So a line only other lanes
// execute (`if (lane == 5)`) stops nobody until lane 5 is displayed. `laneValues` gives a variable
// (or any expression `evaluate` accepts) in every lane of a warp.
//
// Threads, Croqtile. One debugger thread per simulated Croqtile thread (an instance of the innermost
// `parallel`, which may stand for a whole warpgroup), named by its block, the indices of the nested
// parallels and its `inthreads.async` role: `block 0 · wg 1 · consumer` (`role` holds the full role,
// `consumer (wg == 1)`). `warp` is the simulated thread's index in its block, `lane` 0, `lanes` 1.
// Ids are `block * threadsPerBlock + index + 1`, stable within a launch. Each outermost `parallel`
// host code reaches is one launch; the runtime runs them one after another (host code between them
// runs without stopping, its println output arrives as `output`), and a new launch reuses ids from
// 1 (`launchIndex` says which launch the ids belong to; a `console` output line announces every
// launch after the first). `exited` comes after the last launch and the host code after it.
// Frames are the constructs a thread is inside, innermost first: `foreach iv_k = 3`,
// `inthreads.async (wg == 1)`, `parallel wg = 1`, then the function (`gemm_1p1c`); `if`/`while`
// bodies belong to the frame around them. Locals are each frame's own variables (the function frame
// also shows block indices and host variables), spans and events as one-line descriptions.
// `futures()` lists the copies and MMAs each thread holds futures of. Breakpoints verify on
// statements device threads run (host code runs without stopping).
//
// Execution. `continue` runs the machine in slices (so `pause` called between them is honoured).
// `stepOver/stepIn/stepOut(thread)` run the whole machine until the displayed lane reaches another
// line at the same depth (over), any other line or depth (in), or a shallower frame (out); other
// threads progress normally, so a blocked lane is released by them. A step that does not finish
// within STEP_BUDGET statements stops with reason `step` and says what the lane waits on; a step
// whose lane exits stops at once; a step across the end of a Croqtile launch stops at the next
// launch's entry. Breakpoints hit by other threads interrupt a step. With `singleThread` only that
// thread's lanes run (the other threads are frozen; a CUDA warp's lanes take turns, a quantum each,
// displayed lane first). Async engines are not threads: when none of its lanes can run and copies or
// MMAs are in flight, the next completion lands (simulated time jumps to it, as when the whole machine
// waits; `Machine.run({ thread, frozen })`) and the step goes on; a flip it causes is a checkpoint
// like any other. When nothing is in flight and what the lanes wait on only frozen threads can
// release, the step stops with reason `step` and says what the lane waits on. Single-thread runs are
// recorded as segments of their own (the machine thread, whether it blocked, frozen), so time travel
// replays them exactly, deliveries included.
//
// Breakpoints. Line breakpoints use `Machine.lineHook` (verified when some statement starts on the
// line). Conditions and `{expr}` in log messages use a tiny evaluator over the lane's locals (CUDA
// also `threadIdx.x/y/z`, `blockIdx.x/y/z`, `lane`, `warp`; Croqtile every scalar in scope: parallel
// indices, loop variables, host scalars) with numbers, + - * / %, comparisons, && || !,
// parentheses. A condition that fails to evaluate stops, with the error in the description.
// Function breakpoints name a barrier label (`full[1]`; Croqtile event slots are labelled by their
// source names) or a barrier array (`full` matches `full[0]`, `full[1]` …) and stop (reason
// `phase-flip`, `hitBreakpoint` = { kind: 'function', name as given }) right after that barrier
// completes a phase. Barrier watches (`setBarrierWatches`, DAP data breakpoints; `BarrierView.id` is
// their key `${block}:${label}`) stop with reason `data` (`hitBreakpoint` = { kind: 'data', name:
// label }) right after that barrier of that block changes phase; one is verified when the barrier
// exists now, and one set before its barrier exists (initialised later, or a later Croqtile launch)
// still stops when it appears. A flip matching both stops once, as the function breakpoint.
// Exception filters: `phase-flip` (any barrier; no `hitBreakpoint`), `deadlock`, `misuse`, `race`.
// Every phase flip, stopping or not, is also a `flip` event (not while replaying), for a log of flips.
//
// Stops. A stop's `line` is the line of its thread's top frame (the displayed lane), so the editor and
// the call stack agree. A CUDA flip stop names the warp of the lane that arrived last; when that lane is
// not the displayed one, the description adds where it is (`lane 30 arrived at line 23; ':lane 30' shows it`).
// `trace()` gives the recorded trace (request `trace: true`) with thread placement for
// `toChromeTrace`: for Croqtile every launch so far, renumbered and laid end to end in time.
//
// Time travel. The machine is deterministic for a request (seed, policy), and so is Croqtile host
// code. Every `Machine.run` call ends at a recorded step count (a "segment"), and every phase flip
// and every stop is a checkpoint (the machine is paused right after each flip to record it). Going
// back rebuilds from the same request (a Croqtile program from its start, running the launches
// before the target's to their end: time travel works across launches) and replays the same
// segments with `run({ untilSteps })`, pausing after every flip as the recording did (a thread that
// caused a flip hands control back mid-statement, and a segment ending at a flip is replayed up to
// that pause, not to its step count: an async completion can flip after the last statement).
// Segments also record how many quanta (`Machine.quanta`, thread picks) they ran: when the hook
// stopped a freshly picked thread before its first statement, the replay of the statements makes one
// pick fewer, and repeats that pick with a hook that stops at once (its wake-ups, async deliveries and
// random draw happen as recorded; no statement runs). Single-thread calls (`singleThread` steps) are
// replayed as `run({ thread, budget, frozen })` with their statement count (a call that landed an
// async completion lands the same one: the earliest in flight). It then checks a
// fingerprint (launch, steps, flips, cycles, barrier phases) against the recording and, if they
// differ, stays where it was and throws "replay diverged" rather than show a wrong state. Replay is
// exact under the round-robin (default), adversarial and random policies in the tests' scenarios,
// single-thread steps included. Breakpoint hit counts are not rewound. `steps` (and `DebugStop.steps`) count the whole
// program: for Croqtile, host statements and earlier launches included.
import type { DType } from '../sim/dtypes';
import { load, sizeOf } from '../sim/dtypes';
import type { AsyncOp, Machine, MachineEvent, RunResult, SimReport, SimThread, SourceLoc, TraceEvent } from '../sim/machine';
import { SimError } from '../sim/machine';
import type { Buffer } from '../sim/memory';
import type { Launch, SimulateRequest } from '../sim/run';
import type { TraceThread } from '../sim/trace';
import { CudaExecutor, type FrameInfo, type LocalInfo, prepareCudaLaunch } from '../lang/cuda/sim';
import { CroqtileProgram, type CroqtileLaunch, deviceLists } from '../lang/croqtile/sim';

export type StopReason = 'entry' | 'breakpoint' | 'step' | 'pause' | 'phase-flip' | 'data' | 'deadlock' | 'misuse' | 'race' | 'error' | 'completed' | 'step-limit';

export interface DebugStop {
  reason: StopReason;
  /** The thread the stop concerns (id as in `threads()`). */
  thread?: number;
  /** One line for the UI (and the full report text for deadlocks and errors). */
  description: string;
  /** Zero-based line of the stopping lane, when there is one. */
  line?: number;
  /** The lane a breakpoint or step stopped (the warp's displayed lane when it stopped). */
  lane?: number;
  /** Phase flips (function breakpoints, watches, the phase-flip filter, stepping back to a flip). */
  barrier?: string;
  block?: number;
  oldPhase?: number;
  newPhase?: number;
  /** Label of the thread whose arrival (or whose async copy) completed the phase. */
  lastArriver?: string;
  /** The function breakpoint (its name as given) or barrier watch (its label) that stopped. */
  hitBreakpoint?: { kind: 'function' | 'data'; name: string };
  /** Deadlocks: every blocked thread and what it waits on. */
  blocked?: { thread: number; label: string; lanes: number; waitsOn: string; barrier?: string; line: number }[];
  /** The machine's report (deadlock, misuse, race, error, step limit). */
  report?: SimReport;
  /** Statement count at the stop (what time travel replays to). */
  steps: number;
}

export interface LineBreakpoint {
  /** Zero-based. */
  line: number;
  condition?: string;
  /** `5` / `== 5`, `> 5`, `>= 5`, `< 5`, `<= 5`, `% 5` (every fifth hit). */
  hitCondition?: string;
  /** Logpoint: `{expr}` parts are evaluated; it prints and never stops. */
  logMessage?: string;
}

export interface FunctionBreakpoint {
  /** A barrier label (`full[1]`) or an array name (`full`). */
  name: string;
}

/** A data breakpoint on one barrier: stop when it changes phase. */
export interface BarrierWatch {
  label: string;
  block: number;
}

export type ExceptionFilter = 'phase-flip' | 'deadlock' | 'misuse' | 'race';

export interface DebugThread {
  id: number;
  block: number;
  /** CUDA: warp in the block. Croqtile: the simulated thread's index in its block. */
  warp: number;
  /** The displayed lane (0 for Croqtile). */
  lane: number;
  /** Lanes of the thread: 32 (fewer for a partial last warp) for CUDA, 1 for Croqtile. */
  lanes: number;
  role?: string;
  /** `block 0 · warp 1 · consumer`, `block 0 · wg 1 · consumer` */
  label: string;
  status: 'running' | 'blocked' | 'exited';
}

export interface BarrierView {
  /** `${block}:${label}`: stable across stops and replays (the key of a barrier watch). */
  id: string;
  label: string;
  block: number;
  initialized: boolean;
  phase: number;
  parity: number;
  pending: number;
  expected: number;
  tx: number;
  /** Waiting threads with how many lanes wait and on which parity (or token). */
  waiting: { thread: number; label: string; lanes: number; parity?: number; token?: number }[];
}

export interface AsyncOpView {
  id: number;
  engine: string;
  label: string;
  issuer: string;
  issuedAt: number;
  doneAt: number;
  line: number;
}

/** A Croqtile future (DMA/TMA copy or MMA) a thread holds. */
export interface FutureView {
  /** The variable holding it. */
  name: string;
  block: number;
  thread?: number;
  /** In flight, landed but not waited, or waited. */
  state: 'pending' | 'ready' | 'waited';
  what: string;
  line: number;
}

export interface SharedBufferView {
  name: string;
  block: number;
  bytes: number;
  dtype?: DType;
  shape?: number[];
  /** The first elements, formatted (`[0, 1, 2, …]`), or the byte count when untyped. */
  preview: string;
  buffer: Buffer;
}

/** A barrier (or Croqtile event) completing a phase, whether or not anything stops on it. */
export interface PhaseFlip {
  barrier: string;
  block: number;
  oldPhase: number;
  newPhase: number;
  /** Who arrived last (a CUDA lane, a Croqtile thread), when a thread did. */
  lastArriver?: string;
  /** Its debugger thread. */
  thread?: number;
  /** Zero-based line where the last arriver is. */
  line?: number;
  /** Croqtile launch (0 for CUDA). */
  launch: number;
}

export interface DebugEvents {
  stopped: DebugStop;
  output: { text: string; category: 'stdout' | 'console' | 'stderr'; thread?: number };
  exited: { status: 'completed' | 'deadlock' | 'error' | 'step-limit'; message: string };
  /** Every phase flip while running (never while replaying). */
  flip: PhaseFlip;
}

/** The recorded trace with what `toChromeTrace` needs to place its threads. */
export interface DebugTrace {
  events: TraceEvent[];
  /** Where the machine thread an event names (`thread`, `lastArriver`) lives. */
  thread: (index: number) => TraceThread | undefined;
  /** Launches the events cover (Croqtile: every launch so far; 1 for CUDA). */
  launches: number;
}

export interface StepOptions {
  /** Run only this thread's lanes (DAP `singleThread`); the other threads stay where they are. */
  singleThread?: boolean;
}

/** Statements a step may run before it gives up and says what the lane waits on. */
export const STEP_BUDGET = 2_000_000;
/** Statements per slice of `continue` (between slices `pause` is honoured and the event loop runs). */
const SLICE = 200_000;
/** Slices of a step are smaller: a step must notice its lane exiting. */
const STEP_SLICE = 20_000;

interface Checkpoint {
  /** Croqtile launch the checkpoint is in (0 for CUDA). */
  launch: number;
  /** Index in that launch's segments of the run call that ended here. */
  segment: number;
  steps: number;
  fingerprint: string;
  stop?: DebugStop;
  flip?: { barrier: string; block: number; completed: number; lastArriver?: string };
}

/**
 * One `Machine.run` call: the step count it ended at and the quanta it ran (one more than a replay
 * of its statements makes when the line hook stopped its last pick before its first statement: the
 * replay must make that pick too, since under the random policy a pick draws from the generator).
 */
interface Segment {
  steps: number;
  quanta: number;
  /** `Machine.phaseFlips` at its end: more than before means the call ended at a flip. */
  flips: number;
  /** A single-thread call: the machine thread it ran, and whether that thread ended blocked or done. */
  thread?: number;
  notReady?: boolean;
  /** A single-thread step's call (`run({ thread, frozen })`): async completions landed instead of other threads running. */
  frozen?: boolean;
}

interface StepTarget {
  kind: 'over' | 'in' | 'out';
  /** Only the warp's lanes run. */
  single: boolean;
  warp: number;
  thread: SimThread;
  depth: number;
  line: number;
}

/** What the runtime asks of a language's executor to show a thread. */
interface ThreadView {
  frames(t: SimThread): FrameInfo[];
  locals(t: SimThread, index: number): LocalInfo[];
}

type Listener<K extends keyof DebugEvents> = (e: DebugEvents[K]) => void;

export class DebugRuntime {
  readonly language: 'cuda' | 'croqtile';
  private launch?: Launch;
  /** Croqtile: the host runner and the launch running now. */
  private program?: CroqtileProgram;
  private croq?: CroqtileLaunch;
  /** Segments of the Croqtile launches before the current one, by launch index. */
  private launchSegments: Segment[][] = [];
  /** Statements before the current launch (host code and earlier launches). */
  private stepBase = 0;
  private lineBps = new Map<number, LineBreakpoint & { hits: number }>();
  private functionBps: FunctionBreakpoint[] = [];
  private watches: BarrierWatch[] = [];
  private filters = new Set<ExceptionFilter>(['deadlock', 'misuse', 'race']);
  private readonly lanes = new Map<number, number>();
  private readonly listeners: { [K in keyof DebugEvents]: Listener<K>[] } = { stopped: [], output: [], exited: [], flip: [] };
  /** Steps at the end of every `Machine.run` call of the current launch, in order (what a replay repeats). */
  private segments: Segment[] = [];
  private checkpoints: Checkpoint[] = [];
  /** Set while rebuilding a past state: no stops, no output. */
  private replaying = false;
  /** Set by the hook or a listener during a run; read when the run returns. */
  private pendingStop?: DebugStop;
  private flipsThisRun: NonNullable<Checkpoint['flip']>[] = [];
  private step?: StepTarget;
  /**
   * CUDA: the statement each thread last reached while the hook was on (by machine thread index). A
   * thread reaching the same statement again is re-entering it (after blocking in it, or after a
   * stop before it), which must neither stop nor count a hit. Croqtile threads never re-enter a
   * statement; only a thread a replay left before its statement has an entry, used once.
   */
  private lastLoc: (SourceLoc | undefined)[] = [];
  private pauseRequested = false;
  private lastStop?: DebugStop;
  private exited = false;
  /** The deadlock / error / step-limit stop that ended the run (reported again as `exited`). */
  private terminalStop?: DebugStop;
  private verified?: Set<number>;
  private lineStarts = new Set<SourceLoc>();

  constructor(readonly request: SimulateRequest) {
    this.language = request.language ?? (/\.co$/i.test(request.file) ? 'croqtile' : 'cuda');
  }

  // ------------------------------------------------------------------ events

  on<K extends keyof DebugEvents>(kind: K, fn: Listener<K>): void {
    (this.listeners[kind] as Listener<K>[]).push(fn);
  }

  private emit<K extends keyof DebugEvents>(kind: K, e: DebugEvents[K]): void {
    for (const fn of this.listeners[kind] as Listener<K>[]) fn(e);
  }

  // ------------------------------------------------------------------ lifecycle

  /**
   * Builds the (first) launch and stops at entry (blocks launched, nothing run). Bad requests
   * (unknown kernel or function, wrong arguments, syntax errors) reject with the simulator's message.
   */
  async start(): Promise<DebugStop> {
    await this.build();
    const stop: DebugStop = this.launch
      ? { reason: 'entry', description: this.language === 'cuda' ? 'stopped at the kernel entry' : 'stopped at the first launch of the program', thread: 1, line: this.displayed(1)?.loc.line, steps: this.steps }
      : { reason: 'entry', description: 'stopped at the program entry (host code only: no parallel region to debug)', steps: this.steps };
    this.record(stop);
    return stop;
  }

  private async build(): Promise<void> {
    this.stepBase = 0;
    this.launch = undefined;
    this.croq = undefined;
    this.verified = undefined;
    if (this.language === 'cuda') {
      const launch = await prepareCudaLaunch(this.request);
      // Misuse and races become stops (or output) here rather than ending the run.
      launch.machine.options.continueOnMisuse = true;
      this.attach(launch);
      return;
    }
    const program = new CroqtileProgram(this.request, { onOutput: (text, t) => this.programOutput(text, t), continueOnMisuse: true });
    this.program = program;
    const first = program.next();
    if (first) {
      this.attachCroqtile(first);
      return;
    }
    const r = program.result();
    if (r.status !== 'completed') throw new SimError(r.message);
  }

  private attachCroqtile(l: CroqtileLaunch): void {
    this.croq = l;
    this.stepBase = this.program!.steps;
    this.attach({ machine: l.machine, buffers: this.program!.buffers });
  }

  /** Takes over a launch: listeners, breakpoints, and its blocks launched without running a statement. */
  private attach(launch: Launch): void {
    const m = launch.machine;
    m.listeners.push((e) => this.onMachineEvent(m, e));
    this.launch = launch;
    // Breakpoints match statements by identity: a rebuilt launch has new ones.
    this.verified = undefined;
    this.statementLines();
    this.updateHook();
    this.runMachine({ untilSteps: 0 });
  }

  /** Host and device output of a Croqtile program (device output carries its thread). */
  private programOutput(text: string, t?: SimThread): void {
    if (this.replaying) return;
    this.emit('output', { text, category: 'stdout', thread: t && this.croq && t === this.croq.machine.threads[t.index] ? this.threadId(t) : undefined });
  }

  /**
   * A Croqtile launch completed: host code runs on to the next launch (true, it is attached) or to
   * the end of the program (false).
   */
  private nextLaunch(r: RunResult): boolean {
    const program = this.program!;
    program.endLaunch(r);
    const l = program.next();
    // After the last launch its segments stay current: stepping back from the end replays them.
    if (!l) return false;
    this.launchSegments.push(this.segments);
    this.segments = [];
    this.attachCroqtile(l);
    if (!this.replaying) {
      const m = l.machine;
      const line = program.interp!.line(l.launch.root.span) + 1;
      this.emit('output', { text: `launch ${l.index + 1}: the parallel at line ${line} (${m.numBlocks} block(s) × ${m.blockSize} thread(s)); thread ids restart at 1\n`, category: 'console' });
    }
    return true;
  }

  private get machine(): Machine {
    if (!this.launch) {
      if (this.program) throw new Error('the program has no parallel region running');
      throw new Error('the debug runtime has not started (call start() first)');
    }
    return this.launch.machine;
  }

  /** Which Croqtile launch runs now (0 for the first; always 0 for CUDA). */
  get launchIndex(): number {
    return this.croq?.index ?? 0;
  }

  /** The CUDA executor; undefined when the kernel failed to compile (its launch faults at once). */
  private get executor(): CudaExecutor | undefined {
    const e = this.launch?.machine.executor;
    return e instanceof CudaExecutor ? e : undefined;
  }

  /** The executor's view of threads (frames, locals) for either language. */
  private get view(): ThreadView | undefined {
    return this.croq?.launch ?? this.executor;
  }

  // ------------------------------------------------------------------ breakpoints

  /** Replaces the line breakpoints; returns, in order, whether each line has a statement. */
  setBreakpoints(bps: LineBreakpoint[]): { line: number; verified: boolean; message?: string }[] {
    const lines = this.statementLines();
    this.lineBps = new Map();
    const why = this.language === 'cuda' ? 'no statement starts on this line in the simulated kernel' : 'no device statement starts on this line (breakpoints stop inside parallel regions; host code runs without stopping)';
    const out = bps.map((bp) => {
      const verified = lines.has(bp.line);
      if (verified) this.lineBps.set(bp.line, { ...bp, hits: 0 });
      return { line: bp.line, verified, message: verified ? undefined : why };
    });
    this.updateHook();
    return out;
  }

  /** Replaces the barrier breakpoints; each is verified when a barrier of that name exists or may exist. */
  setFunctionBreakpoints(bps: FunctionBreakpoint[]): { name: string; verified: boolean }[] {
    this.functionBps = bps.filter((b) => b.name.trim());
    return bps.map((b) => ({ name: b.name, verified: !!b.name.trim() }));
  }

  /**
   * Replaces the barrier watches (data breakpoints): each stops right after its barrier (label in
   * block) changes phase. Verified when that barrier exists now.
   */
  setBarrierWatches(watches: BarrierWatch[]): (BarrierWatch & { verified: boolean })[] {
    this.watches = watches.filter((w) => w.label.trim()).map((w) => ({ label: w.label.trim(), block: w.block }));
    const known = this.launch?.machine.barriers ?? [];
    return watches.map((w) => ({ label: w.label, block: w.block, verified: !!w.label.trim() && known.some((b) => b.label === w.label.trim() && b.block === w.block) }));
  }

  setExceptionFilters(filters: ExceptionFilter[]): void {
    this.filters = new Set(filters);
  }

  /** Zero-based lines where some statement starts (CUDA: kernel, device functions, lambdas; Croqtile: device code). */
  statementLines(): Set<number> {
    if (this.verified) return this.verified;
    const lines = new Set<number>();
    const starts = new Set<SourceLoc>();
    // A line's breakpoint is hit where execution enters the line: at its first statement, or at the
    // first one after a statement of another line (a loop's increment), not at each piece of it.
    const add = (code: { stmt: boolean; loc: SourceLoc }[]) => {
      let prev = -1;
      for (const ins of code) {
        if (!ins.stmt) continue;
        lines.add(ins.loc.line);
        if (ins.loc.line !== prev) starts.add(ins.loc);
        prev = ins.loc.line;
      }
    };
    const ex = this.executor;
    if (ex) {
      for (const inst of ex.compiler.instances.values()) add(inst.fn.code);
      for (const l of ex.compiler.lambdas.values()) add(l.fn.code);
      add(ex.kernel.fn.code);
    }
    const program = this.program;
    if (program?.fn && program.interp) {
      const interp = program.interp;
      const func = program.fn.name;
      for (const list of deviceLists(program.fn.body)) add(list.map((s) => ({ stmt: true, loc: interp.loc(s, func) })));
    }
    this.verified = lines;
    this.lineStarts = starts;
    return lines;
  }

  private updateHook(): void {
    if (!this.launch) return;
    const m = this.machine;
    const need = !this.replaying && (this.lineBps.size > 0 || !!this.step);
    if (need && !m.lineHook) {
      const last = this.lastStop;
      const t = last?.lane !== undefined && last.thread !== undefined ? this.laneThread(last.thread, last.lane) : undefined;
      const croq = this.croq?.launch;
      if (croq) {
        // A thread the hook stopped does not ask again; one a replay left before its statement does.
        this.lastLoc = [];
        if (t && t.status === 'ready' && !croq.stoppedByHook(t)) this.lastLoc[t.index] = t.loc;
      } else {
        // Blocked threads re-enter the statement they block in, and so does the lane the hook stopped
        // last (before its statement, the one at its pc): neither is a new arrival.
        this.lastLoc = m.threads.map((x) => (x.status === 'blocked' ? x.loc : undefined));
        if (t && t.status === 'ready') this.lastLoc[t.index] = this.executor?.frames(t)[0]?.loc;
      }
      m.lineHook = (x, loc) => this.atStatement(x, loc);
    } else if (!need) m.lineHook = undefined;
  }

  /** The line hook: breakpoints and stepping, on displayed lanes only. Returns true to stop before `loc`. */
  private atStatement(t: SimThread, loc: SourceLoc): boolean {
    if (this.pendingStop) return true;
    if (this.croq) {
      if (this.lastLoc[t.index] !== undefined) {
        const again = this.lastLoc[t.index] === loc;
        this.lastLoc[t.index] = undefined;
        if (again) return false;
      }
    } else {
      if (this.lastLoc[t.index] === loc) return false;
      this.lastLoc[t.index] = loc;
    }
    if (t.lane !== this.laneOf(this.threadId(t)) && !this.croq) return false;
    const s = this.step;
    if (s && s.thread === t) {
      const depth = this.view?.frames(t).length ?? 0;
      const changed = s.kind === 'out' ? depth < s.depth : s.kind === 'in' ? depth !== s.depth || loc.line !== s.line : depth < s.depth || (depth === s.depth && loc.line !== s.line);
      if (changed) return this.stopBefore(t, { reason: 'step', description: `stepped to line ${loc.line + 1}` }, loc);
    }
    const bp = this.lineBps.get(loc.line);
    if (!bp || !this.lineStarts.has(loc)) return false;
    let conditionError: string | undefined;
    if (bp.condition?.trim()) {
      try {
        if (!truthy(evaluate(bp.condition, this.scope(t)))) return false;
      } catch (e) {
        conditionError = `breakpoint condition '${bp.condition}' could not be evaluated: ${(e as Error).message}`;
      }
    }
    bp.hits++;
    if (!conditionError && bp.hitCondition?.trim() && !hitMatches(bp.hitCondition, bp.hits)) return false;
    if (bp.logMessage !== undefined && !conditionError) {
      this.emit('output', { text: `${this.interpolate(bp.logMessage, t)}\n`, category: 'console', thread: this.threadId(t) });
      return false;
    }
    return this.stopBefore(t, { reason: 'breakpoint', description: conditionError ?? `breakpoint at line ${loc.line + 1}` }, loc);
  }

  private stopBefore(t: SimThread, s: { reason: StopReason; description: string }, loc: SourceLoc): true {
    this.pendingStop = { ...s, thread: this.threadId(t), lane: this.croq ? 0 : t.lane, line: loc.line, steps: 0 };
    return true;
  }

  private onMachineEvent(m: Machine, e: MachineEvent): void {
    if (m !== this.launch?.machine) return;
    if (this.replaying) {
      // The recording paused after every flip (a thread hands control back mid-statement there):
      // the replay must too, to leave every thread where it was.
      if (e.kind === 'phase') m.pause();
      return;
    }
    if (e.kind === 'print') {
      // Croqtile output (host and device) arrives through the program (programOutput).
      if (!this.croq) this.emit('output', { text: e.text, category: 'stdout', thread: e.thread ? this.threadId(e.thread) : undefined });
      return;
    }
    if (e.kind === 'phase') {
      const b = e.barrier;
      const flip = { barrier: b.label, block: b.block, completed: e.completed, lastArriver: e.lastArriver ? this.arriverLabel(e.lastArriver) : undefined };
      this.flipsThisRun.push(flip);
      // Pause after every flip: it is a checkpoint for stepping back.
      m.pause();
      const arriver = e.lastArriver;
      this.emit('flip', { barrier: b.label, block: b.block, oldPhase: e.completed, newPhase: e.completed + 1, lastArriver: flip.lastArriver, thread: arriver ? this.threadId(arriver) : undefined, line: arriver?.loc.line, launch: this.launchIndex });
      if (this.pendingStop) return;
      const fbp = this.functionBps.find((f) => barrierNameMatches(f.name, b.label));
      const watch = fbp ? undefined : this.watches.find((w) => w.label === b.label && w.block === b.block);
      if (fbp || watch || this.filters.has('phase-flip')) {
        // The stop names the last arriver's warp, whose frames show its displayed lane: say where the arriving lane is when it is another.
        const elsewhere = arriver && !this.croq && arriver.lane !== this.laneOf(this.threadId(arriver)) ? ` (lane ${arriver.lane} arrived at line ${arriver.loc.line + 1}; ':lane ${arriver.lane}' shows it)` : '';
        const what = `${b.label}${m.numBlocks > 1 ? ` (block ${b.block})` : ''} completed phase ${e.completed} → phase ${e.completed + 1}${flip.lastArriver ? `; last arrival by ${flip.lastArriver}` : ''}${elsewhere}`;
        this.pendingStop = {
          reason: watch ? 'data' : 'phase-flip',
          description: watch ? `watched barrier ${what}` : what,
          thread: e.lastArriver ? this.threadId(e.lastArriver) : undefined,
          line: e.lastArriver?.loc.line,
          barrier: b.label,
          block: b.block,
          oldPhase: e.completed,
          newPhase: e.completed + 1,
          lastArriver: flip.lastArriver,
          hitBreakpoint: fbp ? { kind: 'function', name: fbp.name } : watch ? { kind: 'data', name: watch.label } : undefined,
          steps: 0,
        };
      }
      return;
    }
    const r = e.report;
    if (r.kind !== 'misuse' && r.kind !== 'race') return;
    if (this.filters.has(r.kind) && !this.pendingStop) {
      const t = r.threads.length ? m.threads[r.threads[0]] : undefined;
      this.pendingStop = { reason: r.kind, description: r.message, thread: t ? this.threadId(t) : undefined, line: r.loc?.line, report: r, steps: 0 };
      m.pause();
    } else this.emit('output', { text: `${r.message}\n`, category: 'stderr' });
  }

  // ------------------------------------------------------------------ execution

  /** Runs until a stop (breakpoint, flip filter, report, end). */
  continue(): Promise<DebugStop> {
    return this.drive(undefined);
  }

  stepOver(thread: number, options: StepOptions = {}): Promise<DebugStop> {
    return this.stepKind('over', thread, options);
  }

  stepIn(thread: number, options: StepOptions = {}): Promise<DebugStop> {
    return this.stepKind('in', thread, options);
  }

  stepOut(thread: number, options: StepOptions = {}): Promise<DebugStop> {
    return this.stepKind('out', thread, options);
  }

  /** Asks a running `continue`/step to stop at its next slice boundary (reason `pause`). */
  pause(): void {
    this.pauseRequested = true;
  }

  private stepKind(kind: StepTarget['kind'], thread: number, options: StepOptions): Promise<DebugStop> {
    if (this.exited || !this.launch) return this.drive(undefined);
    const t = this.displayed(thread);
    if (!t) throw new Error(`no thread ${thread}`);
    if (t.status === 'done' || t.status === 'faulted') return Promise.resolve(this.stopAt({ reason: 'step', thread, description: `${this.threadLabel(t)} has exited`, steps: 0 }));
    // The line of the lane's pc (after a replay `t.loc` may still name the statement before it).
    const frames = this.view?.frames(t) ?? [];
    return this.drive({ kind, single: options.singleThread === true, warp: thread, thread: t, depth: frames.length, line: frames[0]?.loc.line ?? t.loc.line });
  }

  private async drive(step: StepTarget | undefined): Promise<DebugStop> {
    if (this.exited || !this.launch || this.machine.isFinished) return this.finish();
    this.step = step;
    this.pauseRequested = false;
    this.updateHook();
    let start = this.steps;
    try {
      for (;;) {
        const m = this.machine;
        const r = step?.single ? this.runFrozen(step) : this.runMachine({ untilSteps: m.steps + (step ? STEP_SLICE : SLICE) });
        if (!r) return this.stopAt(this.frozenStop(step!));
        if (r.status === 'completed' && this.croq) {
          if (!this.nextLaunch(r)) return this.programEnd();
          this.updateHook();
          if (step) {
            const l = this.croq;
            return this.stopAt({ reason: 'step', thread: 1, line: this.displayed(1)?.loc.line, description: `launch ${l.index + 1} started: the parallel at line ${this.program!.interp!.line(l.launch.root.span) + 1}`, steps: 0 });
          }
          start = this.steps;
          continue;
        }
        if (r.status !== 'paused') return this.terminal(r);
        if (this.pendingStop) {
          const stop = this.pendingStop;
          this.pendingStop = undefined;
          return this.stopAt(stop);
        }
        if (this.flipsThisRun.length) {
          this.record(undefined);
          continue;
        }
        if (step) {
          const t = step.thread;
          if (t.status === 'done' || t.status === 'faulted') return this.stopAt({ reason: 'step', thread: step.warp, description: `${this.threadLabel(t)} exited`, steps: 0 });
          if (this.steps - start >= STEP_BUDGET)
            return this.stopAt({
              reason: 'step',
              thread: step.warp,
              line: t.loc.line,
              description: t.status === 'blocked' && t.wait ? `${this.threadLabel(t)} is still waiting on ${t.wait.describe()} after ${STEP_BUDGET} statements` : `the step did not reach another line within ${STEP_BUDGET} statements`,
              steps: 0,
            });
        }
        if (this.pauseRequested) return this.stopAt({ reason: 'pause', description: 'paused', thread: step?.warp ?? 1, steps: 0 });
        // Let the event loop deliver `pause` (and keep the host responsive) between slices.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    } finally {
      this.step = undefined;
      this.updateHook();
    }
  }

  /** One `Machine.run`, recorded as a segment; flips it saw make a checkpoint. */
  private runMachine(limits: { untilSteps?: number; budget?: number; thread?: SimThread; frozen?: boolean }): RunResult {
    const m = this.machine;
    this.flipsThisRun = [];
    const quanta = m.quanta;
    const r = m.run(limits);
    const t = limits.thread;
    const seg: Segment = { steps: m.steps, quanta: m.quanta - quanta, flips: m.phaseFlips };
    if (t) Object.assign(seg, { thread: t.index, notReady: t.status !== 'ready', frozen: limits.frozen === true });
    this.segments.push(seg);
    return r;
  }

  /**
   * Replays one recorded `Machine.run` call. A single-thread call runs the same thread for as many
   * statements (`ran`), plus one when it ended at a flip or by blocking (or finishing) in its next
   * statement, which the replay must attempt too (a frozen call delivers the same async completion
   * first: the machine is in the same state, and the completion is the earliest in flight); any other call runs to its step count (one more
   * when it ended at a flip: the flip's pause ends it). When the recording made one more pick (the
   * hook stopped it before its first statement), that pick is repeated with a hook that stops at once.
   */
  private replaySegment(seg: Segment, ran: number, atFlip: boolean, thread: SimThread | undefined): RunResult {
    const m = this.machine;
    const quanta = m.quanta;
    let r: RunResult = { status: 'paused' };
    if (thread) {
      const budget = ran + (atFlip || seg.notReady ? 1 : 0);
      if (budget > 0) r = m.run({ thread, budget, frozen: seg.frozen });
    } else r = m.run({ untilSteps: atFlip ? seg.steps + 1 : seg.steps });
    if (r.status === 'paused' && m.quanta - quanta < seg.quanta) {
      m.lineHook = () => true;
      try {
        r = m.run(thread ? { thread, budget: 1, frozen: seg.frozen } : { budget: 1 });
      } finally {
        m.lineHook = undefined;
      }
    }
    this.segments.push({ ...seg });
    return r;
  }

  /** The machine threads of debugger thread `id`: a warp's lanes (CUDA) or one simulated thread. */
  private lanesOf(id: number): SimThread[] {
    const out: SimThread[] = [];
    for (let lane = 0; lane < this.groupSize; lane++) {
      const t = this.laneThread(id, lane);
      if (t) out.push(t);
    }
    return out;
  }

  /**
   * One slice of a single-thread step: the thread's lanes that can run take turns (the displayed lane
   * first), a quantum each, until STEP_SLICE statements ran, a run stops (hook, flip, report, pause)
   * or no lane can run. When none can and async work is in flight, its next completion lands (a
   * frozen `Machine.run` on a blocked lane: time jumps, no other thread runs) and the lanes are tried
   * again. Undefined when no lane could run and nothing was in flight: they wait on frozen threads.
   */
  private runFrozen(step: StepTarget): RunResult | undefined {
    const m = this.machine;
    const lanes = this.lanesOf(step.warp);
    const order = [step.thread, ...lanes.filter((l) => l !== step.thread)];
    // A blocked lane whose wait is met is woken by the machine before it runs (at the top of `run`).
    const runnable = (l: SimThread) => l.status === 'ready' || (l.status === 'blocked' && !!l.wait?.ready());
    const end = m.steps + STEP_SLICE;
    let ran = false;
    const turn = (lane: SimThread): RunResult | undefined => {
      ran = true;
      const r = this.runMachine({ thread: lane, budget: Math.min(m.quantum, end - m.steps), frozen: true });
      if (r.status !== 'paused' || this.pendingStop || this.flipsThisRun.length || this.pauseRequested || m.steps >= end) return r;
      if (step.thread.status === 'done' || step.thread.status === 'faulted') return r;
      return undefined;
    };
    for (;;) {
      let any = false;
      for (const lane of order) {
        if (!runnable(lane)) continue;
        any = true;
        const r = turn(lane);
        if (r) return r;
      }
      if (any) continue;
      // Async engines are not threads: a copy or MMA in flight lands even while the others are frozen.
      const blocked = order.find((l) => l.status === 'blocked');
      if (!blocked || !m.asyncInFlight.length) return ran ? { status: 'paused' } : undefined;
      const r = turn(blocked);
      if (r) return r;
    }
  }

  /** The stop of a single-thread step none of whose lanes can run. */
  private frozenStop(step: StepTarget): DebugStop {
    const t = step.thread;
    if (t.status === 'done' || t.status === 'faulted') return { reason: 'step', thread: step.warp, description: `${this.threadLabel(t)} exited`, steps: 0 };
    const lane = t.status === 'blocked' ? t : (this.lanesOf(step.warp).find((l) => l.status === 'blocked') ?? t);
    const line = this.view?.frames(lane)[0]?.loc.line ?? lane.loc.line;
    const wait = lane.wait?.describe();
    const what = wait ? `waits on ${wait}${/ at line \d+/.test(wait) ? '' : ` at line ${line + 1}`}` : `cannot run at line ${line + 1}`;
    const who = lane === step.thread || this.croq ? this.threadLabel(lane) : lane.label;
    // The step lands async work in flight before it gives up, so only the frozen threads are left.
    return { reason: 'step', thread: step.warp, description: `${who} ${what}, which only the other threads can release, and a single-thread step froze them: continue, or step without singleThread`, steps: 0 };
  }

  private record(stop: DebugStop | undefined): void {
    const flip = this.flipsThisRun[this.flipsThisRun.length - 1];
    this.checkpoints.push({ launch: this.launchIndex, segment: this.segments.length - 1, steps: this.steps, fingerprint: this.fingerprint(), stop, flip });
    this.flipsThisRun = [];
  }

  private fingerprint(): string {
    return this.launch ? `launch ${this.launchIndex}, ${fingerprint(this.launch.machine)}, total ${this.steps}` : `no launch, ${this.steps}`;
  }

  private stopAt(stop: DebugStop): DebugStop {
    stop.steps = this.steps;
    this.placeStop(stop);
    this.record(stop);
    this.lastStop = stop;
    this.emit('stopped', stop);
    return stop;
  }

  /** Points the stop at its thread's top frame (the displayed lane's pc: `loc` may still name the statement before it). */
  private placeStop(stop: DebugStop): void {
    if (stop.thread === undefined) return;
    const shown = this.displayed(stop.thread);
    const top = shown && shown.status !== 'done' && shown.status !== 'faulted' ? this.view?.frames(shown)[0] : undefined;
    if (top) stop.line = top.loc.line;
    else stop.line ??= shown?.loc.line;
  }

  private terminal(r: RunResult): DebugStop {
    const m = this.machine;
    const report = r.report;
    if (r.status === 'completed') return this.finish();
    if (this.program?.launchRunning) this.program.endLaunch(r);
    if (r.status === 'deadlock') {
      const stop: DebugStop = { reason: 'deadlock', description: report?.message ?? 'deadlock', report, blocked: this.blockedThreads(report), steps: this.steps };
      stop.thread = stop.blocked?.[0]?.thread;
      stop.line = stop.blocked?.[0]?.line;
      if (!this.filters.has('deadlock')) return this.finish(stop);
      this.terminalStop = stop;
      return this.stopAt(stop);
    }
    const reason: StopReason = r.status === 'step-limit' ? 'step-limit' : 'error';
    const t = report?.threads.length ? m.threads[report.threads[0]] : undefined;
    this.terminalStop = { reason, description: report?.message ?? r.status, report, thread: t ? this.threadId(t) : undefined, line: report?.loc?.line, steps: this.steps };
    return this.stopAt(this.terminalStop);
  }

  /** A Croqtile program ended in host code (after its last launch): completed, or failed there. */
  private programEnd(): DebugStop {
    const r = this.program!.result();
    if (r.status === 'completed') return this.finish();
    const reason: StopReason = r.status === 'step-limit' ? 'step-limit' : 'error';
    this.terminalStop = { reason, description: r.message, report: r.report, line: r.report?.loc?.line, steps: this.steps };
    return this.stopAt(this.terminalStop);
  }

  /** The end of the run: `exited` is emitted once; later calls return the same stop. */
  private finish(stop?: DebugStop): DebugStop {
    if (this.exited && this.lastStop) return this.lastStop;
    // Croqtile ends here only once the program has (after its last launch and host code).
    const completed = (): DebugStop => {
      if (this.program) return { reason: 'completed', description: this.program.done ? this.program.result().message : 'completed', steps: this.steps };
      const m = this.machine;
      return { reason: 'completed', description: `completed: ${m.steps} statements, ${m.phaseFlips} phase flip(s), ${m.cycles} simulated cycles`, steps: m.steps };
    };
    const done = stop ?? this.terminalStop ?? completed();
    this.exited = true;
    this.lastStop = done;
    // The end is a checkpoint too (stepping back from it goes to the stop before), unless it was
    // already recorded as a stop.
    if (!this.terminalStop) this.record(done);
    const status = done.reason === 'completed' ? 'completed' : done.reason === 'deadlock' ? 'deadlock' : done.reason === 'step-limit' ? 'step-limit' : 'error';
    this.emit('exited', { status, message: done.description });
    return done;
  }

  // ------------------------------------------------------------------ time travel

  /** Goes back to the previous checkpoint (phase flip or stop); at the first one, to the entry. */
  stepBack(): Promise<DebugStop> {
    return this.goBack(() => true, false);
  }

  /** Goes back to the previous stop that was not a step (breakpoint, flip filter, report), or the entry. */
  reverseContinue(): Promise<DebugStop> {
    return this.goBack((c) => !!c.stop && c.stop.reason !== 'step' && c.stop.reason !== 'pause', true);
  }

  /** The last checkpoint is where the machine is now; look before it. */
  private async goBack(wanted: (c: Checkpoint) => boolean, keepReason: boolean): Promise<DebugStop> {
    let i = this.checkpoints.length - 2;
    while (i > 0 && !wanted(this.checkpoints[i])) i--;
    if (i < 0) i = 0;
    return this.replayTo(i, keepReason);
  }

  /** Rebuilds from the request and replays the recorded segments up to checkpoint `index`. */
  private async replayTo(index: number, keepReason: boolean): Promise<DebugStop> {
    const target = this.checkpoints[index];
    const current = this.launchIndex;
    const recorded = target.launch === current ? this.segments : this.launchSegments[target.launch];
    const segments = recorded.slice(0, target.segment + 1);
    const before = { launch: this.launch, segments: this.segments, program: this.program, croq: this.croq, launchSegments: this.launchSegments, stepBase: this.stepBase };
    this.replaying = true;
    this.segments = [];
    this.launchSegments = [];
    try {
      await this.build();
      // Croqtile: the launches before the target's run to their end.
      while (this.launchIndex < target.launch) {
        let r = this.machine.run();
        while (r.status === 'paused') r = this.machine.run();
        if (r.status !== 'completed' || !this.nextLaunch(r)) throw new Error(`replay diverged: launch ${this.launchIndex + 1} ended (${r.status}) differently than recorded`);
      }
      if (this.launch) {
        const m = this.machine;
        for (let s = 1; s < segments.length; s++) {
          const seg = segments[s];
          // A call that ended at a flip ran until the flip paused it (which may come after its last
          // statement, when an async completion flips); the replay pauses there too. Other calls end
          // at their statement count.
          const atFlip = seg.flips > segments[s - 1].flips;
          const thread = seg.thread !== undefined ? m.threads[seg.thread] : undefined;
          const r = this.replaySegment(seg, seg.steps - segments[s - 1].steps, atFlip, thread);
          if (r.status !== 'paused' && s < segments.length - 1) throw new Error(`replay diverged: the run ended (${r.status}) at ${this.stepBase + m.steps} statements, before the recorded stop at ${target.steps}`);
        }
      }
      const fp = this.fingerprint();
      if (fp !== target.fingerprint) throw new Error(`replay diverged: expected ${target.fingerprint}, got ${fp} (the schedule is not reproducible under this policy)`);
    } catch (e) {
      // Stay where we were: the old machine is untouched.
      this.replaying = false;
      Object.assign(this, before);
      this.verified = undefined;
      this.statementLines();
      if (this.launch) this.machine.lineHook = undefined;
      this.updateHook();
      throw e;
    } finally {
      this.replaying = false;
    }
    this.launchSegments = before.launchSegments.slice(0, target.launch);
    this.checkpoints = this.checkpoints.slice(0, index + 1);
    this.exited = false;
    this.terminalStop = undefined;
    this.pendingStop = undefined;
    this.flipsThisRun = [];
    const base = target.stop ?? {
      reason: 'step' as const,
      description: target.flip ? `back at the flip of ${target.flip.barrier}: phase ${target.flip.completed} → ${target.flip.completed + 1}` : 'stepped back',
      barrier: target.flip?.barrier,
      block: target.flip?.block,
      oldPhase: target.flip?.completed,
      newPhase: target.flip ? target.flip.completed + 1 : undefined,
      lastArriver: target.flip?.lastArriver,
      steps: target.steps,
    };
    // Stepping back reports a step (DAP's convention); reverse-continue, the stop it lands on.
    const stop: DebugStop = { ...base, reason: base.reason === 'entry' || keepReason ? base.reason : 'step', steps: target.steps };
    // Installed afresh, so a lane stopped before (or blocked in) a statement does not stop there again.
    this.lastStop = stop;
    this.updateHook();
    this.emit('stopped', stop);
    return stop;
  }

  // ------------------------------------------------------------------ state

  /** Statements run so far (Croqtile: the whole program's, host code included). */
  get steps(): number {
    // Between and after Croqtile launches the program counts (host code after the last one too).
    if (this.program && !this.program.launchRunning) return this.program.steps;
    return this.stepBase + (this.launch?.machine.steps ?? 0);
  }

  /** Lanes per debugger thread: a warp for CUDA, one simulated thread for Croqtile. */
  private get groupSize(): number {
    return this.language === 'cuda' ? 32 : 1;
  }

  /** Debugger threads per block (warps for CUDA, simulated threads for Croqtile). */
  get warpsPerBlock(): number {
    return Math.ceil(this.machine.blockSize / this.groupSize);
  }

  private threadId(t: SimThread): number {
    return t.block * this.warpsPerBlock + Math.floor(t.tid / this.groupSize) + 1;
  }

  /** The debugger thread's name for a machine thread (its warp for CUDA). */
  private threadLabel(t: SimThread): string {
    const c = this.croq?.launch;
    if (c) return c.threadLabel(t);
    return `block ${t.block} · warp ${t.warp}${t.role ? ` · ${t.role}` : ''}`;
  }

  /** Who arrived last: a CUDA lane (`block 0 · warp 1 · lane 3 · producer`) or a Croqtile thread. */
  private arriverLabel(t: SimThread): string {
    return this.croq ? this.threadLabel(t) : t.label;
  }

  private laneOf(thread: number): number {
    return this.lanes.get(thread) ?? 0;
  }

  /** Shows (and follows) another lane of a warp. */
  setLane(thread: number, lane: number): void {
    if (this.language === 'croqtile') {
      if (lane !== 0) throw new Error(`Croqtile threads have one lane (0), not ${lane}`);
      return;
    }
    if (!Number.isInteger(lane) || lane < 0 || lane > 31) throw new Error(`lane ${lane} is outside 0..31`);
    this.lanes.set(thread, lane);
  }

  /** The displayed lane's machine thread of debugger thread `id` (undefined when it does not exist). */
  displayed(id: number): SimThread | undefined {
    return this.laneThread(id, this.laneOf(id)) ?? this.laneThread(id, 0);
  }

  private laneThread(id: number, lane: number): SimThread | undefined {
    if (!this.launch || !Number.isInteger(id) || id < 1) return undefined;
    const w = this.warpsPerBlock;
    return this.machine.blocks[Math.floor((id - 1) / w)]?.threads[((id - 1) % w) * this.groupSize + lane];
  }

  threads(): DebugThread[] {
    if (!this.launch) return [];
    const out: DebugThread[] = [];
    for (const b of this.machine.blocks) {
      for (let w = 0; w * this.groupSize < b.threads.length; w++) out.push(this.describeThread(b.index * this.warpsPerBlock + w + 1)!);
    }
    return out;
  }

  /** One debugger thread (what `threads()` lists), without listing the others. */
  thread(id: number): DebugThread | undefined {
    return this.launch && this.displayed(id) ? this.describeThread(id) : undefined;
  }

  private describeThread(id: number): DebugThread | undefined {
    const t = this.displayed(id);
    if (!t) return undefined;
    const g = this.groupSize;
    const w = Math.floor(t.tid / g);
    const lanes = this.machine.blocks[Math.floor((id - 1) / this.warpsPerBlock)].threads.slice(w * g, w * g + g);
    const status = lanes.every((l) => l.status === 'done' || l.status === 'faulted') ? 'exited' : lanes.every((l) => l.status !== 'ready') ? 'blocked' : 'running';
    return { id, block: t.block, warp: w, lane: this.croq ? 0 : t.lane, lanes: lanes.length, role: t.role, label: this.threadLabel(t), status };
  }

  /** Blocks in the current launch's grid (views name the block only when there are several). */
  get numBlocks(): number {
    return this.machine.numBlocks;
  }

  /** Call frames of the thread's displayed lane, innermost first. */
  frames(thread: number): FrameInfo[] {
    const t = this.displayed(thread);
    return (t && this.view?.frames(t)) || [];
  }

  locals(thread: number, frame = 0): LocalInfo[] {
    const t = this.displayed(thread);
    return (t && this.view?.locals(t, frame)) || [];
  }

  /** Evaluates an expression (the Watch/hover language of conditions) in a thread's displayed lane. */
  evaluate(thread: number, expr: string, frame = 0): number {
    const t = this.displayed(thread);
    if (!t) throw new Error(`no thread ${thread}`);
    return evaluate(expr, this.scope(t, frame));
  }

  /**
   * A variable (a local's formatted value) or an expression (evaluated) in every lane of a thread:
   * 32 entries for a full CUDA warp, one for Croqtile. A lane where it cannot be evaluated shows why.
   */
  laneValues(thread: number, name: string, frame = 0): { lane: number; value: string }[] {
    if (!this.displayed(thread)) throw new Error(`no thread ${thread}`);
    const out: { lane: number; value: string }[] = [];
    for (let lane = 0; lane < this.groupSize; lane++) {
      const t = this.laneThread(thread, lane);
      if (!t) continue;
      const local = this.view?.locals(t, frame).find((l) => l.name === name.trim());
      let value: string;
      if (local) value = local.value;
      else {
        try {
          value = String(evaluate(name, this.scope(t, frame)));
        } catch (e) {
          value = `<${(e as Error).message}>`;
        }
      }
      out.push({ lane: t.lane % this.groupSize, value });
    }
    return out;
  }

  barriers(): BarrierView[] {
    if (!this.launch) return [];
    const m = this.machine;
    return m.barrierStates().map((b) => {
      const byThread = new Map<number, BarrierView['waiting'][number]>();
      for (const w of b.waiting) {
        const t = m.threads[w.thread];
        const id = this.threadId(t);
        const v = byThread.get(id);
        if (v) v.lanes++;
        else byThread.set(id, { thread: id, label: this.threadLabel(t), lanes: 1, parity: w.parity, token: w.token });
      }
      const s = b.state;
      return { id: `${b.block}:${b.label}`, label: b.label, block: b.block, initialized: s.initialized, phase: s.phase, parity: s.phase & 1, pending: s.pending, expected: s.expected, tx: s.tx, waiting: [...byThread.values()] };
    });
  }

  asyncOps(): AsyncOpView[] {
    if (!this.launch) return [];
    const m = this.machine;
    return m.asyncInFlight.map((op: AsyncOp) => ({ id: op.id, engine: op.engine, label: op.label, issuer: this.arriverLabel(m.threads[op.issuer]), issuedAt: op.issuedAt, doneAt: op.doneAt, line: op.loc.line }));
  }

  /** Croqtile futures every live thread holds (in flight, landed, or waited); `[]` for CUDA. */
  futures(): FutureView[] {
    const c = this.croq?.launch;
    if (!c || !this.launch) return [];
    const out: FutureView[] = [];
    for (const t of this.machine.threads) {
      if (t.status === 'done' || t.status === 'faulted') continue;
      for (const f of c.futures(t)) out.push({ name: f.name, block: t.block, thread: this.threadId(t), state: f.state, what: f.what, line: f.line });
    }
    return out;
  }

  /** Shared-memory buffers of a block (CUDA: static `__shared__` variables, then dynamic shared memory). */
  sharedMemory(block: number): SharedBufferView[] {
    if (!this.launch) return [];
    if (this.croq) return this.croqShared(block);
    const st = this.machine.blocks[block]?.state as { shared: Buffer[]; dynamic: Buffer } | undefined;
    if (!st) return [];
    return [...st.shared, st.dynamic].map((buf) => ({ name: buf.name, block, bytes: buf.size, dtype: buf.dtype, shape: buf.shape, preview: preview(buf), buffer: buf }));
  }

  /** Croqtile shared tensors of a block: the buffers its threads' shared declarations made. */
  private croqShared(block: number): SharedBufferView[] {
    const st = this.machine.blocks[block]?.state as Map<string, unknown> | undefined;
    if (!st) return [];
    const bufs = new Set<Buffer>();
    const visit = (v: unknown): void => {
      if (!v || typeof v !== 'object') return;
      if ('buf' in v && 'shape' in v) {
        const buf = (v as { buf: Buffer }).buf;
        if (buf.space === 'shared') bufs.add(buf);
      } else if ('items' in v && Array.isArray((v as { items: unknown[] }).items)) for (const x of (v as { items: unknown[] }).items) visit(x);
    };
    for (const [key, v] of st) if (key.startsWith('decl:')) visit(v);
    return [...bufs].map((buf) => ({ name: buf.name, block, bytes: buf.size, dtype: buf.dtype, shape: buf.shape, preview: preview(buf), buffer: buf }));
  }

  /** Global buffers bound to the kernel's (or program's) arguments. */
  globals(): Launch['buffers'] {
    return this.launch?.buffers ?? this.program?.buffers ?? [];
  }

  /**
   * The trace recorded so far (empty unless the request asked for `trace`). Croqtile launches each
   * number their threads and async operations from 0 and start at cycle 0: here they are renumbered
   * and laid end to end, so one Chrome trace shows the whole program.
   */
  trace(): DebugTrace {
    const machines = this.program ? this.program.launches : this.launch ? [this.launch.machine] : [];
    const placed: TraceThread[] = [];
    const events: TraceEvent[] = [];
    let threadBase = 0;
    let opBase = 0;
    let timeBase = 0;
    for (const m of machines) {
      for (const t of m.threads) placed.push(this.language === 'croqtile' ? { block: t.block, warp: t.tid, role: t.role?.split(' ')[0] } : { block: t.block, warp: t.warp, lane: t.lane, role: t.role });
      if (machines.length === 1) events.push(...m.trace);
      else {
        let ops = 0;
        for (const e of m.trace) {
          const time = e.time + timeBase;
          if (e.kind === 'phase') events.push({ ...e, time, lastArriver: e.lastArriver === undefined ? undefined : e.lastArriver + threadBase });
          else if (e.kind === 'async-issue' || e.kind === 'async-complete') {
            ops = Math.max(ops, e.op + 1);
            events.push({ ...e, time, thread: e.thread + threadBase, op: e.op + opBase });
          } else events.push({ ...e, time, thread: e.thread + threadBase });
        }
        opBase += ops;
      }
      threadBase += m.threads.length;
      timeBase += m.cycles;
    }
    return { events, thread: (i) => placed[i], launches: machines.length };
  }

  private blockedThreads(report: SimReport | undefined): DebugStop['blocked'] {
    const m = this.machine;
    const byThread = new Map<string, NonNullable<DebugStop['blocked']>[number]>();
    for (const b of report?.blocked ?? []) {
      const t = m.threads[b.thread];
      const id = this.threadId(t);
      const key = `${id}\u0000${b.waitsOn}`;
      const v = byThread.get(key);
      if (v) v.lanes++;
      else byThread.set(key, { thread: id, label: this.threadLabel(t), lanes: 1, waitsOn: b.waitsOn, barrier: b.barrier, line: b.loc.line });
    }
    return [...byThread.values()];
  }

  /** Values a condition can name: the lane's locals (innermost binding wins) and its coordinates. */
  private scope(t: SimThread, frame = 0): Map<string, number> {
    const c = this.croq?.launch;
    if (c) return c.scope(t, frame);
    const vars = new Map<string, number>();
    vars.set('threadIdx.x', t.threadIdx[0]).set('threadIdx.y', t.threadIdx[1]).set('threadIdx.z', t.threadIdx[2]);
    vars.set('blockIdx.x', t.blockIdx[0]).set('blockIdx.y', t.blockIdx[1]).set('blockIdx.z', t.blockIdx[2]);
    vars.set('lane', t.lane).set('warp', t.warp);
    // Later entries are inner scopes: they shadow outer ones.
    for (const l of this.executor?.locals(t, frame) ?? []) {
      const v = l.value === 'true' ? 1 : l.value === 'false' ? 0 : Number(l.value);
      if (Number.isFinite(v) && l.value.trim() !== '') vars.set(l.name, v);
    }
    return vars;
  }

  private interpolate(message: string, t: SimThread): string {
    const scope = this.scope(t);
    return message.replace(/\{([^{}]*)\}/g, (_all, expr: string) => {
      try {
        return String(evaluate(expr, scope));
      } catch (e) {
        return `<${(e as Error).message}>`;
      }
    });
  }
}

/** Whether a function breakpoint name (`full` or `full[1]`) names a barrier label. */
export function barrierNameMatches(name: string, label: string): boolean {
  const n = name.trim();
  return label === n || label.startsWith(`${n}[`);
}

/** Cheap identity of a machine state for replay checks. */
function fingerprint(m: Machine): string {
  let phases = 0;
  for (const b of m.barriers) phases = (phases * 31 + b.mb.state.phase * 1021 + b.mb.state.pending) >>> 0;
  return `steps ${m.steps}, flips ${m.phaseFlips}, cycles ${m.cycles}, barriers ${m.barriers.length}/${phases}`;
}

function preview(buf: Buffer): string {
  if (!buf.dtype || buf.dtype === 'bool') return `${buf.size} bytes`;
  const es = sizeOf(buf.dtype);
  const n = Math.floor(buf.size / es);
  const items: string[] = [];
  for (let i = 0; i < Math.min(n, 16); i++) items.push(String(load(buf.view, i * es, buf.dtype)));
  return `[${items.join(', ')}${n > 16 ? ', …' : ''}]`;
}

function hitMatches(cond: string, hits: number): boolean {
  const m = /^\s*(==|>=|<=|>|<|%)?\s*(\d+)\s*$/.exec(cond);
  if (!m) return true;
  const n = Number(m[2]);
  switch (m[1] ?? '==') {
    case '==':
      return hits === n;
    case '>=':
      return hits >= n;
    case '<=':
      return hits <= n;
    case '>':
      return hits > n;
    case '<':
      return hits < n;
    default:
      return n > 0 && hits % n === 0;
  }
}

function truthy(v: number): boolean {
  return v !== 0 && !Number.isNaN(v);
}

// ------------------------------------------------------------------ expressions

const TOKEN = /\s*(?:(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|0[xX][0-9a-fA-F]+)|([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)|(==|!=|<=|>=|&&|\|\||[-+*/%<>!()]))/y;

/**
 * Evaluates a condition or log expression: numbers, names from `scope`, unary `- !`, binary
 * `* / % + - < <= > >= == != && ||` (C precedence), parentheses. Integer `/` truncates like C when
 * both sides are integers. Unknown names and syntax errors throw with a message that says which.
 */
export function evaluate(expr: string, scope: Map<string, number>): number {
  const tokens: string[] = [];
  const kinds: ('num' | 'id' | 'op')[] = [];
  TOKEN.lastIndex = 0;
  let pos = 0;
  const text = expr.trimEnd();
  while (pos < text.length) {
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(text);
    if (!m) throw new Error(`unexpected '${text.slice(pos).trim()[0]}' in '${expr}'`);
    pos = TOKEN.lastIndex;
    if (m[1] !== undefined) (tokens.push(m[1]), kinds.push('num'));
    else if (m[2] !== undefined) (tokens.push(m[2]), kinds.push('id'));
    else (tokens.push(m[3]), kinds.push('op'));
  }
  let i = 0;
  const peek = () => (kinds[i] === 'op' ? tokens[i] : undefined);
  const levels: string[][] = [['||'], ['&&'], ['==', '!='], ['<', '<=', '>', '>='], ['+', '-'], ['*', '/', '%']];
  const binary = (level: number): number => {
    if (level === levels.length) return unary();
    let left = binary(level + 1);
    for (let op = peek(); op && levels[level].includes(op); op = peek()) {
      i++;
      const right = binary(level + 1);
      left = apply(op, left, right);
    }
    return left;
  };
  const unary = (): number => {
    const op = peek();
    if (op === '-' || op === '!' || op === '+') {
      i++;
      const v = unary();
      return op === '-' ? -v : op === '!' ? (truthy(v) ? 0 : 1) : v;
    }
    return primary();
  };
  const primary = (): number => {
    if (i >= tokens.length) throw new Error(`'${expr}' ends too early`);
    const tok = tokens[i];
    const kind = kinds[i++];
    if (kind === 'num') return Number(tok);
    if (kind === 'id') {
      if (tok === 'true') return 1;
      if (tok === 'false') return 0;
      const v = scope.get(tok);
      if (v === undefined) throw new Error(`'${tok}' is not a number in scope here`);
      return v;
    }
    if (tok === '(') {
      const v = binary(0);
      if (tokens[i++] !== ')') throw new Error(`missing ')' in '${expr}'`);
      return v;
    }
    throw new Error(`unexpected '${tok}' in '${expr}'`);
  };
  if (!tokens.length) throw new Error('empty expression');
  const v = binary(0);
  if (i < tokens.length) throw new Error(`unexpected '${tokens[i]}' in '${expr}'`);
  return v;
}

function apply(op: string, a: number, b: number): number {
  switch (op) {
    case '||':
      return truthy(a) || truthy(b) ? 1 : 0;
    case '&&':
      return truthy(a) && truthy(b) ? 1 : 0;
    case '==':
      return a === b ? 1 : 0;
    case '!=':
      return a !== b ? 1 : 0;
    case '<':
      return a < b ? 1 : 0;
    case '<=':
      return a <= b ? 1 : 0;
    case '>':
      return a > b ? 1 : 0;
    case '>=':
      return a >= b ? 1 : 0;
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      if (Number.isInteger(a) && Number.isInteger(b)) {
        if (b === 0) throw new Error('division by zero');
        return Math.trunc(a / b);
      }
      return a / b;
    default:
      if (b === 0) throw new Error('division by zero');
      return a % b;
  }
}
