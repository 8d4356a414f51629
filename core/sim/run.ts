// The simulator's request and result types, and running a prepared launch in slices (for progress
// and cancellation) to a result condensed into plain data. Languages prepare launches from these
// requests; `simulate` (core/simulate.ts) picks the language. No I/O here: the caller reads files
// (sources, .npy inputs) and writes results.
import type { LanguageId } from '../api';
import type { ExplicitFlags } from '../project/compile-flags';
import type { DType } from './dtypes';
import { withCommas } from './format';
import type { Dim3, Machine, RunStatus, SchedulePolicy, SimReport, TraceEvent, Latencies } from './machine';
import { type Buffer, checksum } from './memory';
import type { MbarrierState } from './mbarrier';
import type { TensorMapArg } from './tensor-map';

export type InitSpec =
  | { kind: 'zeros' }
  | { kind: 'iota' }
  | { kind: 'random'; seed: number }
  | { kind: 'fill'; value: number }
  /** `:file(PATH.npy)`: the caller reads the file; `data` holds its parsed contents. */
  | { kind: 'file'; path: string; data?: { dtype: DType; shape: number[]; bytes: Uint8Array } };

export type ArgSpec =
  | { name: string; kind: 'scalar'; value: number; text: string }
  | { name: string; kind: 'buffer'; dtype: DType; shape: number[]; init: InitSpec; text: string }
  /** `tensormap(A, box=[…], …)`: a CUtensorMap over buffer argument A (core/sim/args.ts `tensorMapOf`). */
  | ({ name: string; kind: 'tensormap'; text: string } & TensorMapArg);

export interface SimulateRequest {
  /** Path for messages; the language comes from `language` or the extension (.co → Croqtile). */
  file: string;
  text: string;
  language?: LanguageId;
  /**
   * Include directories, defines and flag files for the file's translation unit (CUDA), added to
   * what compile_commands.json / compile_flags.txt / .clangd give (core/project/compile-flags.ts).
   */
  compile?: ExplicitFlags;
  /** Kernel (`__global__`) or Croqtile `__co__` function; optional when the file has exactly one. */
  kernel?: string;
  grid?: Dim3;
  block?: Dim3;
  /**
   * Thread-block cluster dims (the launch's cluster attribute); absent: the kernel's
   * `__cluster_dims__`, else no clusters (every CTA a cluster of one).
   */
  cluster?: Dim3;
  dynamicSmem?: number;
  args?: ArgSpec[];
  seed?: number;
  schedule?: SchedulePolicy;
  maxSteps?: number;
  latencies?: Partial<Latencies>;
  trace?: boolean;
  detectRaces?: boolean;
  /** Warp-lockstep execution (MachineOptions.lockstep); on by default. */
  lockstep?: boolean;
  /** Called every few hundred thousand statements with the total so far. */
  onProgress?: (steps: number, maxSteps: number) => void;
  /** Program output (printf, println) as it happens. */
  onPrint?: (text: string) => void;
}

export interface NamedBuffer {
  name: string;
  dtype: DType;
  shape: number[];
  buffer: Buffer;
}

/** One kernel launch ready to run (what the debugger drives step by step). */
export interface Launch {
  machine: Machine;
  /** Global buffers bound to arguments, in argument order. */
  buffers: NamedBuffer[];
}

/**
 * A request its language has prepared (parsed, arguments bound): `run` goes to the end, reporting
 * progress and program output through the request's callbacks.
 */
export interface PreparedSimulation {
  run(): SimulateResult;
}

export interface BarrierSummary {
  label: string;
  block: number;
  state: MbarrierState;
  waiting: { thread: number; parity?: number; token?: number }[];
}

export interface SimulateResult {
  status: Exclude<RunStatus, 'paused'>;
  /** One paragraph for humans: what happened and where. */
  message: string;
  report?: SimReport;
  phaseFlips: number;
  cycles: number;
  steps: number;
  barriers: BarrierSummary[];
  buffers: { name: string; dtype: DType; shape: number[]; checksum: string; buffer: Buffer }[];
  stdout: string;
  /** A whole program's stderr (its own, and the simulator's reports of kernels that failed). */
  stderr?: string;
  /** A whole program's exit code, when it ran to its end. */
  exitCode?: number;
  /** A whole program's kernels that failed (the host saw a launch failure): the simulator's reports. */
  launchFailures?: string[];
  trace?: TraceEvent[];
  /** Who each thread is (for trace tracks and reports), present when tracing. */
  threads?: { block: number; warp: number; lane: number; role?: string }[];
}

/**
 * Whether a C/C++ source defines `main`: with no kernel named, such a file runs as a whole program
 * (its host code launches its kernels), not as one launch.
 */
export function definesMain(text: string): boolean {
  return /(^|[\s;}])int\s+main\s*\(/.test(text);
}

const SLICE = 500_000;
/** Program output kept for the result; a kernel that prints in a loop must not fill memory. */
export const MAX_STDOUT = 4 << 20;

/** Runs a prepared launch to the end, reporting progress and program output as it goes. */
export function runLaunch(launch: Launch, req: Pick<SimulateRequest, 'onProgress' | 'onPrint'>): SimulateResult {
  const m = launch.machine;
  let stdout = '';
  let truncated = false;
  m.listeners.push((e) => {
    if (e.kind !== 'print') return;
    req.onPrint?.(e.text);
    if (stdout.length + e.text.length <= MAX_STDOUT) stdout += e.text;
    else if (!truncated) {
      truncated = true;
      stdout += `\n… output truncated after ${withCommas(MAX_STDOUT)} characters\n`;
    }
  });
  for (;;) {
    const r = m.run({ untilSteps: m.steps + SLICE });
    if (r.status === 'paused') {
      req.onProgress?.(m.steps, m.maxSteps);
      continue;
    }
    return summarize(m, r.status, r.report, launch.buffers, stdout);
  }
}

export function summarize(m: Machine, status: Exclude<RunStatus, 'paused'>, report: SimReport | undefined, buffers: NamedBuffer[], stdout: string): SimulateResult {
  const message =
    report?.message ??
    `completed: ${m.threads.length} threads in ${m.numBlocks} block(s) ran ${withCommas(m.steps)} statements, ${m.phaseFlips} phase flip(s), ${withCommas(m.cycles)} simulated cycles`;
  return {
    status,
    message,
    report,
    phaseFlips: m.phaseFlips,
    cycles: m.cycles,
    steps: m.steps,
    barriers: m.barrierStates(),
    buffers: buffers.map((b) => ({ name: b.name, dtype: b.dtype, shape: b.shape, checksum: checksum(b.buffer), buffer: b.buffer })),
    stdout,
    trace: m.tracing ? m.trace : undefined,
    threads: m.tracing ? m.threads.map((t) => ({ block: t.block, warp: t.warp, lane: t.lane, role: t.role })) : undefined,
  };
}
