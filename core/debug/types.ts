// The debug runtime's plain-value types: stops, breakpoints, threads and the views a debugger shows
// (barriers, async operations, futures, buffers), and its events. No DAP types, no language types.
import type { DType } from '../sim/dtypes';
import type { SimReport, TraceEvent } from '../sim/machine';
import type { Buffer } from '../sim/memory';
import type { TraceThread } from '../sim/trace';

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
  blocked?: { thread: number; label: string; lanes: number; waitsOn: string; barrier?: string; line: number; where: string }[];
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

/** A buffer as the debugger shows it, its elements already decoded (the debug adapter only translates). */
export interface BufferView {
  /** Names the buffer for `DebugRuntime.bufferElements` while the machine stays stopped. */
  key: string;
  name: string;
  bytes: number;
  dtype?: DType;
  shape?: number[];
  /** Elements shown: by dtype (`bool` and untyped buffers show their bytes). */
  count: number;
  /** `f32[1024]`, `f16[128,64]` or `64 bytes` when untyped. */
  type: string;
  /** The first elements, formatted (`[0, 1, 2, …]`). */
  elements: string;
  /** The raw buffer, for programmatic readers (tests, tools); the debug adapter shows the decoded values only. */
  buffer: Buffer;
}

export interface SharedBufferView extends BufferView {
  block: number;
  /** What the Shared memory view shows: the first elements, or the byte count when untyped. */
  preview: string;
  /**
   * The barriers living in the buffer, by address: their words hold no meaningful bits in the
   * simulator (the state is the machine's), so views show these states instead of the raw words.
   */
  barriers?: BarrierView[];
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
