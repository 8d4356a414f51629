// What a language implements so the debug runtime can run its programs: a debug program (created
// per request by a factory) that hands over launches one after another, and per launch a debug
// target that says how machine threads group into debugger threads and shows their frames, locals,
// futures, shared memory and expressions. The runtime (runtime.ts) sees only these interfaces, never
// a language folder; each language folder implements them (core/lang/*/sim/debug-target.ts).
import type { LaunchField, Machine, RunResult, RunStatus, SimReport, SimThread, SourceLoc } from '../sim/machine';
import type { DType } from '../sim/dtypes';
import type { Buffer } from '../sim/memory';
import type { TraceThread } from '../sim/trace';

/** One call frame of a thread (innermost first in `DebugTarget.frames`). */
export interface FrameInfo {
  name: string;
  loc: SourceLoc;
}

/** A variable in scope in a frame, with its value as the Variables view shows it. */
export interface LocalInfo {
  name: string;
  type: string;
  value: string;
}

/** A future (an asynchronous copy or MMA) a thread holds, for languages that have them. */
export interface FutureInfo {
  name: string;
  thread: SimThread;
  state: 'pending' | 'ready' | 'waited';
  what: string;
  line: number;
}

/** A global buffer bound to an argument (the shape of the simulator's `NamedBuffer`). */
export interface DebugBuffer {
  name: string;
  dtype: DType;
  shape: number[];
  buffer: Buffer;
}

/** What the runtime gives a program when it creates it. */
export interface DebugProgramHooks {
  /** Program output (printf, println; host code's too), with the device thread that printed it. */
  output(text: string, thread?: SimThread): void;
}

/**
 * Decides whether a thread reaching a statement is a new arrival there (breakpoints and steps look
 * at it) or a re-entry of a statement it already reached (after blocking in it, or after the debugger
 * stopped it before it), which must neither stop nor count a hit.
 */
export interface StatementGate {
  enters(t: SimThread, loc: SourceLoc): boolean;
}

/** The runtime's request for one language: known before the program runs, bound to one request. */
export interface DebugProgramFactory {
  /** The language's id (`cuda`, `croqtile`). */
  readonly language: string;
  /** Machine threads per debugger thread: a CUDA warp's 32 lanes, one simulated Croqtile thread. */
  readonly lanes: number;
  /** Whether threads hold futures (the debugger then offers a Futures view). */
  readonly futures: boolean;
  /** Throws (with the message the user sees) when a debugger thread cannot show `lane`. */
  checkLane(lane: number): void;
  /**
   * Builds the program from the request (rejects with the simulator's message for bad requests).
   * Called again for every replay: the same request must give the same program.
   */
  create(hooks: DebugProgramHooks): Promise<DebugProgram>;
}

/** How a whole program ended. */
export interface DebugProgramResult {
  status: Exclude<RunStatus, 'paused'>;
  message: string;
  report?: SimReport;
  /** When the request does not fit the program: the launch field at fault. */
  field?: LaunchField;
}

/**
 * A program under debugger control: its launches one after another (CUDA: exactly one; Croqtile:
 * every outermost `parallel` host code reaches, host code running in between).
 */
export interface DebugProgram {
  /**
   * Runs up to the next launch and hands it over (blocks not launched yet), or returns undefined when
   * the program has ended (`result()` says how). Call `endLaunch` before calling it again.
   */
  next(): DebugTarget | undefined;
  /** How the launch `next()` handed over ended; anything but completion ends the program. */
  endLaunch(r: RunResult): void;
  /** Whether a launch `next()` handed over has not been ended yet. */
  readonly launchRunning: boolean;
  /** Whether the program has ended. */
  readonly done: boolean;
  /** The outcome, once `done`. */
  result(): DebugProgramResult;
  /** Statements outside the running launch: host code and every ended launch. */
  readonly steps: number;
  /** Global buffers bound to the arguments. */
  readonly buffers: readonly DebugBuffer[];
  /** Every launch's machine so far, in order (the trace covers them all). */
  readonly launches: readonly Machine[];
  /** The statements breakpoints can stop in, as instruction lists in execution order (`stmt` marks where a statement starts). */
  statementCode(): Iterable<readonly { stmt: boolean; loc: SourceLoc }[]>;
  /** Where a machine thread of any launch goes in the Chrome trace. */
  traceThread(t: SimThread): TraceThread;
  /** The entry stop's description when there is a launch to debug. */
  readonly entryDescription: string;
  /** The entry stop's description when the program has no launch (host code only). */
  readonly noLaunchDescription: string;
  /** Why a line breakpoint is not verified. */
  readonly unverifiedLineMessage: string;
}

/** One launch under debugger control. */
export interface DebugTarget {
  readonly machine: Machine;
  /** 0 for the program's first launch. */
  readonly index: number;
  /** How launch announcements name it (`the parallel at line 9`). */
  readonly title: string;
  /** The debugger thread's name for a machine thread (`block 0 · warp 1 · consumer`). */
  threadLabel(t: SimThread): string;
  /** Who arrived last at a barrier or issued a copy: a CUDA lane (`… · lane 3 · producer`), a Croqtile thread. */
  arriverLabel(t: SimThread): string;
  /** Call frames of a machine thread, innermost first. */
  frames(t: SimThread): FrameInfo[];
  /** Variables of frame `frame` (0 = innermost). */
  locals(t: SimThread, frame: number): LocalInfo[];
  /**
   * An evaluator of the language's debugger expressions (conditions, logpoints, watch, hover) in the
   * thread's frame; it throws with a message that says what is wrong.
   */
  evaluator(t: SimThread, frame: number): (expr: string) => number;
  /** Futures a thread holds (none for languages without them). */
  futures(t: SimThread): FutureInfo[];
  /** Shared-memory buffers of a block, in the order the Shared memory view lists them. */
  sharedBuffers(block: number): Buffer[];
  /**
   * The gate the line hook asks first, installed afresh with every hook; `stopped` is the machine
   * thread the last stop showed (it must not stop again before the same statement).
   */
  statementGate(stopped: SimThread | undefined): StatementGate;
}
