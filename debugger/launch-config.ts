// The `phaseflip` launch configuration (launch.json, request `launch`): its fields, and their
// validation into the SimulateRequest the debug runtime runs. Every problem is a LaunchConfigError
// whose message starts with the field it is about (`grid: …`, `args[1]: …`), so the user sees what to
// fix. File reading (the program, `:file(x.npy)` inputs) happens here, in the face, never in core/.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bindNpyInput, parseArg, parseDim3 } from '../core/sim/args';
import { type Dim3, type SchedulePolicy, validateGeometry } from '../core/sim/machine';
import { NpyError, parseNpy } from '../core/sim/npy';
import type { ArgSpec, SimulateRequest } from '../core/sim/run';

/** What a user writes in launch.json (type `phaseflip`, request `launch`). */
export interface PhaseflipLaunchArguments {
  /** The .cu/.cuh (or .co) file; relative to `cwd`. */
  program?: unknown;
  /** The `__global__` kernel; optional when the file has exactly one. */
  kernel?: unknown;
  /** `1`, `[2, 1, 1]` or `"2,1,1"`. */
  grid?: unknown;
  block?: unknown;
  /** The CLI's `NAME=SPEC` strings (`n=64`, `out=f32[128]:zeros`). */
  args?: unknown;
  dynamicSmem?: unknown;
  seed?: unknown;
  schedule?: unknown;
  stopOnEntry?: unknown;
  maxSteps?: unknown;
  /** Write a Chrome trace of the run here when the kernel ends. */
  trace?: unknown;
  /** Directory for relative paths (defaults to the adapter's working directory). */
  cwd?: unknown;
  /** Print every phase flip to the Debug Console (without stopping). */
  logPhaseFlips?: unknown;
}

export interface LaunchPlan {
  request: SimulateRequest;
  stopOnEntry: boolean;
  /** Absolute path of the Chrome trace to write at the end, when asked for. */
  tracePath?: string;
  /** Absolute path of the program (what stack frames and breakpoints name). */
  programPath: string;
  /** One Debug Console line per phase flip. */
  logPhaseFlips: boolean;
}

export class LaunchConfigError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

const SCHEDULES: readonly SchedulePolicy[] = ['round-robin', 'random', 'adversarial'];

/** Validates the launch arguments and reads the files they name. Throws LaunchConfigError. */
export function planLaunch(args: PhaseflipLaunchArguments, defaultCwd: string = process.cwd()): LaunchPlan {
  const cwd = resolveCwd(args.cwd, defaultCwd);
  if (typeof args.program !== 'string' || !args.program.trim()) throw new LaunchConfigError('program', 'missing: give the .cu or .co file to debug, e.g. "program": "${file}"');
  const programPath = path.resolve(cwd, args.program);
  const language = /\.co$/i.test(programPath) ? 'croqtile' : /\.(cu|cuh)$/i.test(programPath) ? 'cuda' : undefined;
  if (!language) throw new LaunchConfigError('program', `expected a .cu, .cuh or .co file, got ${args.program}`);
  let text: string;
  try {
    text = fs.readFileSync(programPath, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new LaunchConfigError('program', code === 'ENOENT' ? `file not found: ${programPath}` : `cannot read ${programPath}: ${(e as Error).message}`);
  }

  if (args.kernel !== undefined && (typeof args.kernel !== 'string' || !/^[A-Za-z_]\w*$/.test(args.kernel))) {
    throw new LaunchConfigError('kernel', `expected a function name, got ${JSON.stringify(args.kernel)}`);
  }
  const grid = args.grid === undefined ? undefined : dim3('grid', args.grid);
  const block = args.block === undefined ? undefined : dim3('block', args.block);
  if (language === 'cuda') {
    if (!grid) throw new LaunchConfigError('grid', 'required for a CUDA kernel, e.g. "grid": 1 or [2, 1, 1]');
    if (!block) throw new LaunchConfigError('block', 'required for a CUDA kernel, e.g. "block": 128 or [32, 4, 1]');
  }
  const dynamicSmem = integer('dynamicSmem', args.dynamicSmem, 0, 227 * 1024);
  if (grid && block) {
    try {
      validateGeometry({ grid, block, dynamicSmem });
    } catch (e) {
      const message = (e as Error).message.replace(/^bad launch configuration: /, '');
      throw new LaunchConfigError(/block|threads per block/.test(message) ? 'block' : /dynamic shared/.test(message) ? 'dynamicSmem' : 'grid', message);
    }
  }
  const specs = kernelArgs(args.args, cwd);
  const seed = integer('seed', args.seed, 0, 0xffffffff);
  if (args.schedule !== undefined && !(SCHEDULES as readonly unknown[]).includes(args.schedule)) {
    throw new LaunchConfigError('schedule', `expected one of ${SCHEDULES.join(', ')}, got ${JSON.stringify(args.schedule)}`);
  }
  const maxSteps = integer('maxSteps', args.maxSteps, 1, Number.MAX_SAFE_INTEGER);
  if (args.stopOnEntry !== undefined && typeof args.stopOnEntry !== 'boolean') throw new LaunchConfigError('stopOnEntry', `expected true or false, got ${JSON.stringify(args.stopOnEntry)}`);
  if (args.logPhaseFlips !== undefined && typeof args.logPhaseFlips !== 'boolean') throw new LaunchConfigError('logPhaseFlips', `expected true or false, got ${JSON.stringify(args.logPhaseFlips)}`);
  if (args.trace !== undefined && (typeof args.trace !== 'string' || !args.trace.trim())) throw new LaunchConfigError('trace', 'expected a file path for the Chrome trace, e.g. "trace": "kernel.trace.json"');
  const tracePath = typeof args.trace === 'string' ? path.resolve(cwd, args.trace) : undefined;
  if (tracePath && !isDirectory(path.dirname(tracePath))) throw new LaunchConfigError('trace', `the directory of ${tracePath} does not exist`);

  return {
    programPath,
    stopOnEntry: args.stopOnEntry === true,
    logPhaseFlips: args.logPhaseFlips === true,
    tracePath,
    request: {
      file: programPath,
      text,
      language,
      kernel: args.kernel as string | undefined,
      grid,
      block,
      dynamicSmem,
      args: specs,
      seed,
      schedule: args.schedule as SchedulePolicy | undefined,
      maxSteps,
      trace: tracePath !== undefined,
    },
  };
}

/**
 * Names the launch field a simulator error is about (its message says which kernel or argument),
 * so an error from building the launch reads like a configuration error.
 */
export function fieldOfSimError(message: string, specs: readonly ArgSpec[]): string | undefined {
  if (/no __global__ kernel|kernels; choose one|is a template|no __co__|function named/.test(message)) return 'kernel';
  const arg = /(?:argument|parameter) '(\w+)'/.exec(message);
  if (arg) {
    const i = specs.findIndex((s) => s.name === arg[1]);
    return i >= 0 ? `args[${i}]` : 'args';
  }
  if (/bad launch configuration/.test(message)) return 'grid';
  return undefined;
}

function resolveCwd(value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !value.trim()) throw new LaunchConfigError('cwd', `expected a directory path, got ${JSON.stringify(value)}`);
  const dir = path.resolve(fallback, value);
  if (!isDirectory(dir)) throw new LaunchConfigError('cwd', `not a directory: ${dir}`);
  return dir;
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** A number, `[x, y, z]` (1 to 3 entries) or what the CLI's `--grid` takes (`"2,1,1"`, `"2x1x1"`). */
function dim3(field: string, value: unknown): Dim3 {
  const bad = () => new LaunchConfigError(field, `expected a positive integer, [x, y, z] or "x,y,z", got ${JSON.stringify(value)}`);
  const list = typeof value === 'number' ? [value] : value;
  if (Array.isArray(list)) {
    if (list.length < 1 || list.length > 3 || list.some((v) => typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 0x7fffffff)) throw bad();
    return [list[0], list[1] ?? 1, list[2] ?? 1];
  }
  if (typeof value !== 'string') throw bad();
  const d = parseDim3(value);
  if (!d) throw bad();
  return d;
}

function integer(field: string, value: unknown, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new LaunchConfigError(field, `expected an integer in ${min}..${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Parses the SPEC strings like `phaseflip sim --arg` does, reading `:file(x.npy)` relative to `cwd`. */
function kernelArgs(value: unknown, cwd: string): ArgSpec[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new LaunchConfigError('args', 'expected an array of NAME=SPEC strings, e.g. ["n=64", "out=f32[128]:zeros"]');
  const specs: ArgSpec[] = [];
  value.forEach((text, i) => {
    const field = `args[${i}]`;
    if (typeof text !== 'string') throw new LaunchConfigError(field, `expected a NAME=SPEC string, got ${JSON.stringify(text)}`);
    let spec: ArgSpec;
    try {
      spec = parseArg(text);
    } catch (e) {
      throw new LaunchConfigError(field, (e as Error).message.replace(/^--arg /, ''));
    }
    if (specs.some((s) => s.name === spec.name)) throw new LaunchConfigError(field, `'${spec.name}' is given twice`);
    if (spec.kind === 'buffer' && spec.init.kind === 'file') readNpyInput(field, spec, cwd);
    specs.push(spec);
  });
  return specs;
}

/** Reads a `:file(PATH)` input, checking element type and shape against the argument's. */
function readNpyInput(field: string, spec: Extract<ArgSpec, { kind: 'buffer' }>, cwd: string): void {
  if (spec.init.kind !== 'file') return;
  const file = path.resolve(cwd, spec.init.path);
  let npy;
  try {
    npy = parseNpy(new Uint8Array(fs.readFileSync(file)));
  } catch (e) {
    if (e instanceof NpyError) throw new LaunchConfigError(field, `${file}: ${e.message}`);
    const code = (e as NodeJS.ErrnoException).code;
    throw new LaunchConfigError(field, code === 'ENOENT' ? `file not found: ${file}` : `cannot read ${file}: ${(e as Error).message}`);
  }
  const mismatch = bindNpyInput(spec, file, npy);
  if (mismatch) throw new LaunchConfigError(field, mismatch);
}
