// `phaseflip sim`: runs a kernel on the simulator (core/sim) and says what happened — completed,
// deadlocked (who waits on what), misused a barrier, raced — with phase flips, cycles, final barrier
// states and buffer checksums, as text or JSON. The file I/O the core leaves to its callers lives
// here: the source, `:file(PATH.npy)` inputs, the `--trace` Chrome trace, the `--timeline` page and
// `--dump` outputs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type ArgSpec,
  type BarrierSummary,
  type ChromeTraceEvent,
  DEFAULT_LATENCIES,
  type ExplicitFlags,
  LAUNCH_INTEGERS,
  type Latencies,
  type LaunchProblem,
  LaunchRequestError,
  SCHEDULES,
  SimError,
  type SimulateRequest,
  type SimulateResult,
  type TraceThread,
  bindNpyFile,
  buildTimeline,
  definesMain,
  numberRanges,
  readRegularFile,
  simulate as simulateRequest,
  sizeOf,
  timelineHtml,
  toChromeTrace,
  toNpy,
  validateLaunch,
  withCommas,
} from '../core/index';
import { COMPILE_FLAGS_HELP, takeCompileFlag } from './compile-args';
import { EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, UsageError, describeError } from './errors';
import { readSource } from './files';
import { formatProgramJson, programExitCode, programSummary } from './sim-program';
import type { Streams } from './streams';

export const SIM_HELP = `Usage: phaseflip sim FILE [options]

Runs one CUDA kernel launch (.cu, .cuh) or a Croqtile program (.co) on Phaseflip's simulator:
every thread, mbarrier phase and asynchronous copy is simulated, no GPU needed. It reports
whether the kernel completed, deadlocked (and who waits on what), misused a barrier or raced.

Whole programs: a .cu file that defines main(), run without --kernel, --grid, --block and --arg,
runs from main() like the binary nvcc would build (host code, its launches, its checks). Stdout
is the program's stdout; its stderr, the simulator's report and a summary go to stderr. Exit status: the program's exit
code when it ran to its end (a kernel that raced: 1), 1 for a deadlock (the GPU would hang),
2 for what the simulator cannot run. Pass the program's build defines with -D (-DHARNESS).

Options:
  --kernel NAME            the __global__ kernel or Croqtile __co__ function to run
                           (may be left out when the file has exactly one); a template kernel
                           as an instantiation, --kernel 'k<float, 128>', or by its bare name
                           when the file launches or instantiates exactly one
  --grid X[,Y,Z]           grid dimensions; required for CUDA, Croqtile takes them from the program
  --block X[,Y,Z]          block dimensions; required for CUDA, likewise
  --cluster X[,Y,Z]        thread-block cluster dimensions (CUDA; cudaLaunchKernelEx's cluster
                           attribute); default: the kernel's __cluster_dims__, else no clusters
  --arg NAME=SPEC          a kernel argument; repeatable. SPEC is a number (64, 2.0, true) or a
                           buffer TYPE[D0,D1,...][:INIT] with TYPE one of f16 bf16 f32 f64 s8 s16
                           s32 s64 u8 u16 u32 u64 bool and INIT one of zeros (default), iota,
                           random(SEED), fill(V), file(PATH.npy); a CUtensorMap parameter takes
                           tensormap(BUFFER, box=[B0,...][, dtype=T, dims=[...], strides=[...],
                           elementStrides=[...], swizzle=none|32B|64B|128B, oob=zero|nan]).
                           Croqtile's symbolic dimensions
                           are bound from the shapes of the buffers passed. PATH is relative to
                           the current directory; a bf16 buffer reads its raw bits from a uint16
                           (<u2) .npy file.
  --dynamic-smem BYTES     dynamic shared memory per block (default 0)
  --seed N                 scheduler seed (default 1): the same seed gives the same interleaving
  --schedule POLICY        round-robin (default), random, or adversarial (runs one role as far
                           ahead of the others as it can: finds missing waits fast)
  --max-steps N            stop with step-limit after N thread-statements (default 50000000)
  --latency OP=CYCLES      simulated latency of one kind of operation; repeatable. OP is one of
                           statement (1), bulkCopy (600: TMA / cp.async.bulk / Croqtile DMA),
                           cpAsync (300), mma (120: wgmma / Croqtile MMA), tcgen05 (150)
  --json                   print the result as JSON (below) instead of text
  --trace FILE             write a Chrome trace of phase flips, waits, arrives and async copies;
                           open it in ui.perfetto.dev or chrome://tracing (1 µs shown = 1 cycle)
  --timeline FILE          write the barrier timeline as one self-contained HTML page (phases,
                           arrivals, tx bytes, blocked warps, reports; opens offline in a browser)
  --dump NAME=FILE.npy     after the run, write buffer NAME as a NumPy .npy file; repeatable.
                           bf16 has no NumPy type: it is written as its bits in uint16 (<u2)
  -h, --help               print this help

${COMPILE_FLAGS_HELP}

Text output: a status line, the simulator's report (a deadlock's wait-for picture, the misuse,
the race), phase flips, simulated cycles and statements, the final barrier states, a checksum
per buffer, then the program's output (printf, println).

JSON output (--json): one object, keys in this order:
  status      how the run ended (also the text output's first word):
              "completed"
              the kernel's own failures (exit 1): "deadlock" | "misuse" | "race" | "fault"
                (out of bounds, __trap(), a null pointer, ...) | "step-limit"
              the simulator could not run it (exit 2): "unsupported" (a construct the simulator
                does not model) | "bad-input" (the file, kernel, launch or inputs are wrong) |
                "error" (an internal simulator error)
  message     what happened, for humans
  details     the report (kind, message, loc, threads, blocked, missing, misuse, other), or null
              when the kernel completed; lines in loc are zero-based, as in lint's JSON
  phaseFlips  mbarrier phases completed
  cycles      simulated cycles
  steps       thread-statements executed
  barriers    [{label, block, phase, pending, expected, tx, initialized, waiting: [{thread,
              parity | token}]}] in the order the barriers were first used
  buffers     [{name, dtype, shape, checksum}], checksum = FNV-1a of the bytes (8 hex digits)
  stdout      the program's output
Errors that stop the run before it starts (an unsupported construct, a parse error, a missing
kernel, an unreadable input) print the same object with status "unsupported" or "bad-input".
--dump writes its files only when the kernel ran (status completed or one of the kernel's own
failures): after "unsupported", "bad-input" or "error" there is nothing to dump.

Exit status: 0 completed; 1 the kernel is wrong (deadlock, misuse, race, fault, step-limit);
2 usage, I/O, bad input, unsupported construct or internal error.

Examples:
  phaseflip sim pipeline.cu --kernel producer_consumer --grid 1 --block 256 \\
      --arg 'out=f32[256]' --arg n=256
  phaseflip sim gemm.cu --kernel gemm --grid 4,4 --block 384 --dynamic-smem 98304 \\
      --arg 'A=f16[512,512]:random(1)' --arg 'B=f16[512,512]:file(b.npy)' --arg 'C=f32[512,512]' \\
      --schedule adversarial --seed 7 --trace gemm.trace.json --dump C=c.npy
  phaseflip sim matmul.co --arg 'lhs=f16[256,128]:random(1)' --arg 'rhs=f16[128,256]:iota' --json
`;

/**
 * The command line as given. The launch fields stay the texts the user typed: core's launch
 * validation checks them (validateLaunch), and this face words its problems in flags.
 */
export interface SimArgs {
  file?: string;
  kernel?: string;
  grid?: string;
  block?: string;
  cluster?: string;
  /** `NAME=SPEC` texts, in order. */
  args: string[];
  dynamicSmem?: string;
  seed?: string;
  schedule?: string;
  maxSteps?: string;
  latencies?: Partial<Latencies>;
  json: boolean;
  trace?: string;
  timeline?: string;
  dumps: { name: string; file: string }[];
  help: boolean;
  /** -I, -D, --compile-commands, --cuda-arch: added to the flags found for the file. */
  compile: ExplicitFlags;
}

export function parseSimArgs(argv: readonly string[]): SimArgs {
  const args: SimArgs = { args: [], json: false, dumps: [], help: false, compile: {} };
  const files: string[] = [];
  let onlyFiles = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (onlyFiles || !arg.startsWith('-') || arg === '-') {
      files.push(arg);
      continue;
    }
    if (arg === '--') {
      onlyFiles = true;
      continue;
    }
    const used = takeCompileFlag(argv, i, args.compile);
    if (used > 0) {
      // The simulator runs one launch, whose shape its own flags give.
      if (args.compile.launch) throw new UsageError('--launch is for lint and ir: sim takes the launch shape from --grid, --block and --dynamic-smem');
      i += used - 1;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const takeValue = (): string => {
      if (flag !== arg) return arg.slice(eq + 1);
      const value = argv[++i];
      if (value === undefined) throw new UsageError(`${flag} needs a value`);
      return value;
    };
    const noValue = () => {
      if (flag !== arg) throw new UsageError(`${flag} takes no value`);
    };
    switch (flag) {
      case '-h':
      case '--help':
        noValue();
        args.help = true;
        break;
      case '--kernel':
        args.kernel = takeValue();
        if (!args.kernel) throw new UsageError('--kernel needs a name');
        break;
      case '--grid':
        args.grid = takeValue();
        break;
      case '--block':
        args.block = takeValue();
        break;
      case '--cluster':
        args.cluster = takeValue();
        break;
      case '--arg':
        args.args.push(takeValue());
        break;
      case '--dynamic-smem':
        args.dynamicSmem = takeValue();
        break;
      case '--seed':
        args.seed = takeValue();
        break;
      case '--schedule':
        args.schedule = takeValue();
        break;
      case '--max-steps':
        args.maxSteps = takeValue();
        break;
      case '--latency': {
        const value = takeValue();
        const eq = value.indexOf('=');
        const op = value.slice(0, eq);
        if (eq < 0 || !(op in DEFAULT_LATENCIES)) throw new UsageError(`--latency '${value}': expected OP=CYCLES with OP one of ${Object.keys(DEFAULT_LATENCIES).join(', ')}`);
        args.latencies = { ...args.latencies, [op]: parseCount(`--latency ${op}`, value.slice(eq + 1), op === 'statement' ? 1 : 0) };
        break;
      }
      case '--json':
        noValue();
        args.json = true;
        break;
      case '--trace':
        args.trace = takeValue();
        if (!args.trace) throw new UsageError('--trace needs a file name');
        break;
      case '--timeline':
        args.timeline = takeValue();
        if (!args.timeline) throw new UsageError('--timeline needs a file name');
        break;
      case '--dump': {
        const value = takeValue();
        const sep = value.indexOf('=');
        const name = sep > 0 ? value.slice(0, sep).trim() : '';
        const file = sep > 0 ? value.slice(sep + 1).trim() : '';
        if (!name || !file) throw new UsageError(`--dump expects NAME=FILE.npy, got '${value}'`);
        args.dumps.push({ name, file });
        break;
      }
      default:
        throw new UsageError(`unknown option '${arg}' for 'phaseflip sim'`);
    }
  }
  if (files.length > 1) throw new UsageError(`sim runs one file, got ${files.length}: ${files.join(' ')}`);
  args.file = files[0];
  return args;
}

/** A count as typed: digits with optional _ or , grouping (1_000_000), or a plain exponent (1e6); NaN otherwise. */
function countValue(text: string): number {
  const clean = text.trim().replace(/[_,](?=\d{3}(\D|$))/g, '');
  return /^\d+$/.test(clean) || /^\d+(\.\d+)?e\d+$/i.test(clean) ? Number(clean) : NaN;
}

/** What a count flag takes, in words: "a positive integer", "a non-negative integer up to 4294967295". */
function countWords(min: number, max = Number.MAX_SAFE_INTEGER): string {
  return `${min === 0 ? 'a non-negative' : 'a positive'} integer${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}`;
}

/** A `--latency` count: latencies are the CLI's own knob, which no launch description has. */
function parseCount(flag: string, text: string, min: number): number {
  const n = countValue(text);
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`${flag} expects ${countWords(min)}, got '${text}'`);
  return n;
}

/** The flag of each launch field, for messages. */
const FLAGS: Record<LaunchProblem['field'], string> = {
  program: 'FILE',
  kernel: '--kernel',
  grid: '--grid',
  block: '--block',
  cluster: '--cluster',
  args: '--arg',
  dynamicSmem: '--dynamic-smem',
  seed: '--seed',
  schedule: '--schedule',
  maxSteps: '--max-steps',
};

/** A launch problem found by core, worded in flags (`--grid expects …`). */
function flagMessage(p: LaunchProblem, args: SimArgs): string {
  switch (p.kind) {
    case 'language':
      return p.linted ? `not supported by the simulator: ${p.linted} file ${p.file} (${p.linted} files are linted with phaseflip lint, not simulated; the simulator runs .cu, .cuh and .co files)` : `don't know how to simulate ${p.file}: expected a .cu, .cuh or .co file`;
    case 'required':
      return `a CUDA launch needs ${p.missing.map((f) => FLAGS[f]).join(' and ')} (e.g. --grid 1 --block 128)`;
    case 'dims':
      return `${FLAGS[p.field]} expects X[,Y,Z] with positive integers, got '${p.value}'`;
    case 'geometry':
      return `bad launch configuration: ${p.detail}`;
    case 'integer': {
      const { min, max } = LAUNCH_INTEGERS[p.field];
      return `${FLAGS[p.field]} expects ${countWords(min, max)}, got '${args[p.field] ?? p.value}'`;
    }
    case 'choice':
      return `unknown schedule '${p.value}': expected one of ${SCHEDULES.join(', ')}`;
    case 'name':
      return `--kernel expects a function name, got '${p.value}'`;
    case 'list':
    case 'spec':
      return `--arg ${p.kind === 'spec' && p.detail ? p.detail : `'${String(p.value)}': expected NAME=SPEC`}`;
    case 'duplicate':
      return `--arg ${p.name} is given twice`;
  }
}

/** What `runSim` needs from the outside world; tests pass their own. */
export interface SimDeps {
  simulate?: (req: SimulateRequest) => Promise<SimulateResult>;
  /** Whether stderr is a terminal: only then is the progress line drawn. */
  stderrIsTTY?: boolean;
  /** Milliseconds, for the progress rate. */
  now?: () => number;
}

/** Runs `phaseflip sim ARGS`; resolves to the exit status. */
export async function runSim(argv: readonly string[], io: Streams, deps: SimDeps = {}): Promise<number> {
  let args: SimArgs;
  let req: SimulateRequest;
  try {
    args = parseSimArgs(argv);
    if (args.help) {
      io.stdout(SIM_HELP);
      return EXIT_OK;
    }
    req = buildRequest(args);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`phaseflip: ${e.message}\nRun 'phaseflip sim --help' for usage.\n`);
      return EXIT_ERROR;
    }
    if (e instanceof InputError) {
      if (argv.includes('--json')) io.stdout(formatJson(failedRun(e.message), e.outcome));
      io.stderr(`phaseflip: ${e.message}\n`);
      return EXIT_ERROR;
    }
    throw e;
  }

  const program = isProgram(args, req.file, req.text);
  const progress = deps.stderrIsTTY ? new Progress(io.stderr, deps.now ?? Date.now) : undefined;
  let streamed = false;
  req.onProgress = progress && ((steps, max) => progress.update(steps, max));
  if (!args.json) {
    req.onPrint = (text) => {
      progress?.clear();
      streamed = true;
      io.stdout(text);
    };
  }
  if (args.trace || args.timeline) req.trace = true;

  let result: SimulateResult;
  try {
    result = await (deps.simulate ?? simulateRequest)(req);
  } catch (e) {
    progress?.clear();
    const message = e instanceof SimError ? renderSimError(e) : `internal simulator error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`;
    // Before the run: the simulator refused a construct, or the request does not fit the program.
    const outcome: Outcome = e instanceof SimError ? (e.kind === 'unsupported' ? 'unsupported' : e.kind === 'oob' ? 'fault' : 'bad-input') : 'error';
    if (args.json) io.stdout(formatJson(failedRun(message), outcome));
    io.stderr(`phaseflip: ${message}\n`);
    return EXIT_ERROR;
  }
  progress?.clear();

  if (program) {
    // A whole program: stdout is the program's, exactly; the simulator speaks on stderr.
    if (args.json) io.stdout(formatProgramJson(result));
    else {
      if (!streamed && result.stdout) io.stdout(result.stdout);
      if (result.stderr) io.stderr(result.stderr);
      io.stderr(programSummary(result, args.file ?? req.file));
    }
    const exit = programExitCode(result);
    const say = (line: string) => io.stderr(`phaseflip: ${line}\n`);
    if (args.trace && !writeTrace(args.trace, result, req, say, !args.json)) return EXIT_ERROR;
    // A program's buffers are its live device allocations, by the variable each was made for.
    for (const dump of args.dumps) if (!writeDump(dump, result, say, false)) return EXIT_ERROR;
    return exit;
  }

  io.stdout(args.json ? formatJson(result) : formatText(result, { file: args.file, kernel: args.kernel, seed: req.seed, schedule: req.schedule }, streamed));
  let exit = exitCodeFor(result);
  const say = (line: string) => io.stderr(`phaseflip: ${line}\n`);
  if (args.trace && !writeTrace(args.trace, result, req, say, !args.json)) exit = EXIT_ERROR;
  if (args.timeline && !writeTimeline(args.timeline, result, req, say, !args.json)) exit = EXIT_ERROR;
  const outcome = outcomeOf(result);
  if (args.dumps.length && !kernelRan(outcome, result)) {
    // Buffers of a kernel that never ran (or that the simulator gave up on) are its inputs, not its results.
    say(`--dump: nothing written, the kernel did not run (${outcome})`);
  } else for (const dump of args.dumps) if (!writeDump(dump, result, say, !args.json)) exit = EXIT_ERROR;
  return exit;
}

/**
 * Bad input discovered while preparing the run (unreadable files, mismatched .npy), or a file of a language the
 * simulator does not run (a tilus script): exit 2, no usage hint, and with --json the result object.
 */
class InputError extends Error {
  constructor(
    message: string,
    readonly outcome: 'bad-input' | 'unsupported' = 'bad-input',
  ) {
    super(message);
  }
}

function buildRequest(args: SimArgs): SimulateRequest {
  const file = args.file;
  if (file === undefined) throw new UsageError('no file given: phaseflip sim FILE --kernel NAME --grid X --block X');
  const count = (text: string | undefined) => (text === undefined ? undefined : countValue(text));
  let text: string;
  try {
    text = readSource(file);
  } catch (e) {
    throw new InputError(`cannot read ${file}: ${describeError(e)}`);
  }
  let launch;
  try {
    launch = validateLaunch({
      file,
      kernel: args.kernel,
      grid: args.grid,
      block: args.block,
      cluster: args.cluster,
      args: args.args,
      dynamicSmem: count(args.dynamicSmem),
      seed: count(args.seed),
      schedule: args.schedule,
      maxSteps: count(args.maxSteps),
      program: isProgram(args, file, text),
    });
  } catch (e) {
    if (e instanceof LaunchRequestError) {
      // A file Phaseflip lints but cannot simulate is no mistake of the command line: the run is unsupported.
      if (e.problem.kind === 'language' && e.problem.linted) throw new InputError(flagMessage(e.problem, args), 'unsupported');
      throw new UsageError(flagMessage(e.problem, args));
    }
    throw e;
  }
  for (const spec of launch.args) if (spec.kind === 'buffer' && spec.init.kind === 'file') readNpyInput(spec);
  return { ...launch, text, latencies: args.latencies, compile: args.compile };
}

/**
 * A CUDA file with main() and no --kernel runs as a whole program (its host code launches its
 * kernels); given a launch geometry or arguments, it launches its one kernel as before.
 */
function isProgram(args: SimArgs, file: string, text: string): boolean {
  const launch = args.grid !== undefined || args.block !== undefined || args.args.length > 0 || args.dynamicSmem !== undefined;
  return args.kernel === undefined && !launch && /\.(cu|cuh|cpp|cc|cxx)$/i.test(file) && definesMain(text);
}

/** A `:file(...)` argument larger than this is refused (a device or a runaway file must not fill memory). */
const MAX_NPY_BYTES = 1024 * 1024 * 1024;

/** Reads `:file(PATH)` into the spec, checking element type and shape against the argument's. */
function readNpyInput(spec: Extract<ArgSpec, { kind: 'buffer' }>): void {
  if (spec.init.kind !== 'file') return;
  const where = `--arg ${spec.text}`;
  const file = spec.init.path;
  let problem;
  try {
    problem = bindNpyFile(spec, file, readRegularFile(file, MAX_NPY_BYTES));
  } catch (e) {
    throw new InputError(`${where}: cannot read ${file}: ${describeError(e)}`);
  }
  if (problem) throw new InputError(`${where}: ${problem}`);
}

function renderSimError(e: SimError): string {
  const at = e.loc ? ` at line ${e.loc.line + 1}` : '';
  return e.kind === 'unsupported' ? `not supported by the simulator: ${e.message}${at}` : `${e.message}${at}`;
}

/** The result shape for a run that never started (its error is in `message`). */
function failedRun(message: string): SimulateResult {
  return { status: 'error', message, phaseFlips: 0, cycles: 0, steps: 0, barriers: [], buffers: [], stdout: '' };
}

/** How a run ended, as --json's `status` and the text's status line say it. */
export type Outcome = 'completed' | 'deadlock' | 'misuse' | 'race' | 'fault' | 'step-limit' | 'unsupported' | 'bad-input' | 'error';

/**
 * The outcome of a finished run: the machine's `error` status split into the kernel's own fault (an out-of-bounds
 * access, `__trap()`, a null pointer, a division by zero, a misaligned barrier: what would fault on the GPU), an
 * unsupported construct, and an internal simulator error (which the machine's reports word as such).
 */
export function outcomeOf(result: Pick<SimulateResult, 'status' | 'report'>): Outcome {
  if (result.status !== 'error') return result.status;
  if (result.report?.kind === 'unsupported') return 'unsupported';
  if (result.report?.kind === 'oob') return 'fault';
  return !result.report || /^internal simulator error\b/.test(result.report.message) ? 'error' : 'fault';
}

/** Whether the kernel ran: it completed or failed on its own account, and executed something. */
function kernelRan(outcome: Outcome, result: SimulateResult): boolean {
  return result.steps > 0 && outcome !== 'unsupported' && outcome !== 'bad-input' && outcome !== 'error';
}

/** 0 completed, 1 the kernel is wrong, 2 the simulator could not run it. */
export function exitCodeFor(result: Pick<SimulateResult, 'status' | 'report'>): number {
  switch (outcomeOf(result)) {
    case 'completed':
      return EXIT_OK;
    case 'unsupported':
    case 'bad-input':
    case 'error':
      return EXIT_ERROR;
    default:
      return EXIT_FINDINGS;
  }
}

// ------------------------------------------------------------------------------------- output

export function formatJson(result: SimulateResult, outcome: Outcome = outcomeOf(result)): string {
  const doc = {
    status: outcome,
    message: result.message,
    details: result.report ?? null,
    phaseFlips: result.phaseFlips,
    cycles: result.cycles,
    steps: result.steps,
    barriers: result.barriers.map((b) => ({
      label: b.label,
      block: b.block,
      phase: b.state.phase,
      pending: b.state.pending,
      expected: b.state.expected,
      tx: b.state.tx,
      initialized: b.state.initialized,
      waiting: b.waiting.map((w) => ({ thread: w.thread, ...(w.parity !== undefined ? { parity: w.parity } : {}), ...(w.token !== undefined ? { token: w.token } : {}) })),
    })),
    buffers: result.buffers.map((b) => ({ name: b.name, dtype: b.dtype, shape: b.shape, checksum: b.checksum })),
    stdout: result.stdout,
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** Rows of the barrier table shown before "… N more". */
const MAX_BARRIER_ROWS = 24;

export function formatText(result: SimulateResult, args: Pick<SimulateRequest, 'kernel' | 'seed' | 'schedule'> & { file?: string }, programOutputShown: boolean): string {
  const n = withCommas;
  const where = [args.file, args.kernel && `kernel ${args.kernel}`, `seed ${args.seed ?? 1}`, `${args.schedule ?? 'round-robin'} schedule`].filter(Boolean).join(', ');
  const lines = [`status: ${outcomeOf(result)} (${where})`, result.message.trimEnd()];
  lines.push(`phase flips: ${n(result.phaseFlips)}   cycles: ${n(result.cycles)}   statements: ${n(result.steps)}`);
  if (result.barriers.length) {
    lines.push(`barriers (${result.barriers.length}):`);
    const rows = result.barriers.slice(0, MAX_BARRIER_ROWS).map(barrierRow);
    lines.push(...table([['block', 'barrier', 'phase', 'pending', 'tx', 'waiting'], ...rows]).map((l) => `  ${l}`));
    if (result.barriers.length > MAX_BARRIER_ROWS) lines.push(`  … ${result.barriers.length - MAX_BARRIER_ROWS} more (--json lists them all)`);
  } else {
    lines.push('barriers: none used');
  }
  if (result.buffers.length) {
    lines.push('buffers:');
    lines.push(...table(result.buffers.map((b) => [b.name, `${b.dtype}[${b.shape.join(',')}]`, `checksum ${b.checksum}`])).map((l) => `  ${l}`));
  }
  if (!programOutputShown && result.stdout) {
    lines.push('program output:');
    lines.push(result.stdout.replace(/\n$/, ''));
  }
  return `${lines.join('\n')}\n`;
}

function barrierRow(b: BarrierSummary): string[] {
  const s = b.state;
  if (!s.initialized) return [`${b.block}`, b.label, '-', 'not initialised', '-', waitingText(b)];
  return [`${b.block}`, b.label, `${s.phase} (parity ${s.phase & 1})`, `${s.pending} of ${s.expected}`, `${s.tx}`, waitingText(b)];
}

/** "threads 0-31 on parity 0; thread 40 on token 3" or "-". */
function waitingText(b: BarrierSummary): string {
  if (!b.waiting.length) return '-';
  const groups = new Map<string, number[]>();
  for (const w of b.waiting) {
    const key = w.token !== undefined ? `token ${w.token}` : w.parity !== undefined ? `parity ${w.parity}` : 'it';
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(w.thread);
  }
  return [...groups].map(([key, threads]) => `thread${threads.length > 1 ? 's' : ''} ${numberRanges(threads)} on ${key}`).join('; ');
}


function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  '));
}

// ------------------------------------------------------------------------------------- files

/** Writes the Chrome trace; false (and a message) when it cannot. */
function writeTrace(file: string, result: SimulateResult, req: SimulateRequest, say: (line: string) => void, verbose: boolean): boolean {
  const events = result.trace ?? [];
  if (!result.trace) say(`the simulator recorded no trace for this run; ${file} will hold no events`);
  const trace = toChromeTrace(events, { thread: threadPlacement(result, req), title: [req.file, req.kernel].filter(Boolean).join(' · ') });
  try {
    writeJsonEvents(file, trace.traceEvents, trace.otherData);
  } catch (e) {
    say(`cannot write ${file}: ${describeError(e)}`);
    return false;
  }
  if (verbose) say(`wrote ${file}: ${withCommas(events.length)} simulator events (open it in ui.perfetto.dev)`);
  return true;
}

/** Writes the barrier timeline page; false (and a message) when it cannot. */
function writeTimeline(file: string, result: SimulateResult, req: SimulateRequest, say: (line: string) => void, verbose: boolean): boolean {
  if (!result.trace) say(`the simulator recorded no trace for this run; ${file} will show no events`);
  const texts = new Map<string, string[] | undefined>([['', req.text.split('\n')]]);
  const sourceLine = (at: { line: number; file?: string }) => {
    const key = at.file ?? '';
    if (!texts.has(key)) {
      let lines: string[] | undefined;
      try {
        lines = Buffer.from(readRegularFile(key, 16 << 20)).toString('utf8').split('\n');
      } catch {
        lines = undefined; // a header that cannot be read again: the tooltips show the line number only
      }
      texts.set(key, lines);
    }
    return texts.get(key)?.[at.line];
  };
  const model = buildTimeline(result.trace ?? [], { thread: threadPlacement(result, req), title: [path.basename(req.file), req.kernel].filter(Boolean).join(' · '), sourceLine });
  try {
    fs.writeFileSync(file, timelineHtml(model));
  } catch (e) {
    say(`cannot write ${file}: ${describeError(e)}`);
    return false;
  }
  if (verbose) say(`wrote ${file}: the barrier timeline of ${withCommas(model.events)} simulator events (open it in a browser)`);
  return true;
}

/**
 * Where each machine thread lives, for the trace. Uses the result's own thread list when the
 * simulator reports one; otherwise the launch geometry (threads are numbered block by block).
 */
function threadPlacement(result: SimulateResult, req: SimulateRequest): ((index: number) => TraceThread | undefined) | undefined {
  const reported = (result as SimulateResult & { threads?: TraceThread[] }).threads;
  if (Array.isArray(reported)) return (i) => reported[i];
  if (!req.block) return undefined;
  const size = req.block[0] * req.block[1] * req.block[2];
  return (i) => ({ block: Math.floor(i / size), warp: (i % size) >> 5, lane: i % size & 31 });
}

/** One event per line, written in chunks, so large traces never become one giant string. */
function writeJsonEvents(file: string, events: readonly ChromeTraceEvent[], otherData: Record<string, string>): void {
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, '{"traceEvents":[\n');
    const CHUNK = 4096;
    for (let i = 0; i < events.length; i += CHUNK) {
      const part = events.slice(i, i + CHUNK).map((e) => JSON.stringify(e));
      fs.writeSync(fd, part.join(',\n') + (i + CHUNK < events.length ? ',\n' : '\n'));
    }
    fs.writeSync(fd, `],\n"otherData":${JSON.stringify(otherData)}}\n`);
  } finally {
    fs.closeSync(fd);
  }
}

function writeDump(dump: { name: string; file: string }, result: SimulateResult, say: (line: string) => void, verbose: boolean): boolean {
  const buf = result.buffers.find((b) => b.name === dump.name);
  if (!buf) {
    const names = result.buffers.map((b) => b.name);
    say(`--dump ${dump.name}=${dump.file}: no buffer named '${dump.name}'; ${names.length ? `the buffers are: ${names.join(', ')}` : 'this run has no buffers'}`);
    return false;
  }
  const bytes = buf.buffer.bytes;
  const declared = buf.shape.reduce((a, b) => a * b, 1) * sizeOf(buf.dtype);
  const shape = declared === bytes.length ? buf.shape : [bytes.length / sizeOf(buf.dtype)];
  try {
    fs.writeFileSync(dump.file, toNpy(buf.dtype, shape, bytes));
  } catch (e) {
    say(`cannot write ${dump.file}: ${describeError(e)}`);
    return false;
  }
  if (buf.dtype === 'bf16') {
    say(`note: ${path.basename(dump.file)} holds bf16 '${buf.name}' as its raw bits in uint16 (<u2), since NumPy has no bf16; ` + 'in NumPy: x.view(ml_dtypes.bfloat16), or (x.astype(numpy.uint32) << 16).view(numpy.float32)');
  }
  if (verbose) say(`wrote ${dump.file}: ${buf.name} ${buf.dtype}[${shape.join(',')}]`);
  return true;
}

// ------------------------------------------------------------------------------------- progress

/** A single `\r` line on a terminal's stderr: statements run, the budget, the rate. */
class Progress {
  private readonly started: number;
  private shown = false;
  constructor(
    private readonly write: (s: string) => void,
    private readonly now: () => number,
  ) {
    this.started = now();
  }
  update(steps: number, max: number): void {
    const seconds = Math.max((this.now() - this.started) / 1000, 1e-3);
    const rate = steps / seconds;
    const rateText = rate >= 1e6 ? `${(rate / 1e6).toFixed(1)}M` : rate >= 1e3 ? `${(rate / 1e3).toFixed(0)}k` : rate.toFixed(0);
    this.write(`\rsimulating: ${withCommas(steps)} of ${withCommas(max)} statements (${rateText}/s)\x1b[K`);
    this.shown = true;
  }
  clear(): void {
    if (this.shown) this.write('\r\x1b[K');
    this.shown = false;
  }
}
