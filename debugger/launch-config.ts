// The `phaseflip` launch configuration (launch.json, request `launch`): its fields, and their
// validation into the SimulateRequest the debug runtime runs (the launch fields by core's
// validateLaunch, the session's own fields here). Every problem is a LaunchConfigError
// whose message starts with the field it is about (`grid: …`, `args[1]: …`), so the user sees what to
// fix. File reading (the program, `:file(x.npy)` inputs) happens here, in the face, never in core/.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type ArgSpec, type LaunchField, LaunchRequestError, SimError, type SimulateRequest, bindNpyFile, definesMain, launchLanguage, readRegularFile, readRegularText, validateLaunch } from '../core/index';

/** What a user writes in launch.json (type `phaseflip`, request `launch`). */
export interface PhaseflipLaunchArguments {
  /** The .cu/.cuh (or .co) file; relative to `cwd`. */
  program?: unknown;
  /** The `__global__` kernel; optional when the file has exactly one. */
  kernel?: unknown;
  /** `1`, `[2, 1, 1]` or `"2,1,1"`. */
  grid?: unknown;
  block?: unknown;
  /** Thread-block cluster dims (CUDA), like `grid`; default: the kernel's `__cluster_dims__`. */
  cluster?: unknown;
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
  /** Set by the extension for a block it took from the kernel's launch template: where that block came from. */
  blockSource?: unknown;
  /** Set by the extension when that block is a default rather than derived from the file. */
  blockDefault?: unknown;
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

/** Validates the launch arguments and reads the files they name. Throws LaunchConfigError. */
/** Sizes past which a launch refuses the program or a `:file(...)` argument (never read without limit). */
const MAX_PROGRAM_BYTES = 256 * 1024 * 1024;
const MAX_NPY_BYTES = 1024 * 1024 * 1024;

export function planLaunch(args: PhaseflipLaunchArguments, defaultCwd: string = process.cwd()): LaunchPlan {
  const cwd = resolveCwd(args.cwd, defaultCwd);
  if (typeof args.program !== 'string' || !args.program.trim()) throw new LaunchConfigError('program', 'missing: give the .cu or .co file to debug, e.g. "program": "${file}"');
  const programPath = path.resolve(cwd, args.program);
  fieldChecked(() => launchLanguage(args.program as string));
  let text: string;
  try {
    text = readRegularText(programPath, MAX_PROGRAM_BYTES);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new LaunchConfigError('program', code === 'ENOENT' ? `file not found: ${programPath}` : `cannot read ${programPath}: ${(e as Error).message}`);
  }
  const launch = fieldChecked(() =>
    validateLaunch({
      file: programPath,
      kernel: args.kernel,
      grid: args.grid,
      block: args.block,
      cluster: args.cluster,
      args: args.args,
      dynamicSmem: args.dynamicSmem,
      seed: args.seed,
      schedule: args.schedule,
      maxSteps: args.maxSteps,
      // A CUDA file with main() and no kernel: the whole program, launched by its host code.
      program: args.kernel === undefined && args.grid === undefined && args.block === undefined && args.args === undefined && launchLanguage(programPath) === 'cuda' && definesMain(text),
    }),
  );
  launch.args.forEach((spec, i) => {
    if (spec.kind === 'buffer' && spec.init.kind === 'file') readNpyInput(`args[${i}]`, spec, cwd);
  });
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
    request: { ...launch, text, trace: tracePath !== undefined },
  };
}

/**
 * A simulator error from building the launch, as a configuration error: the field the request got
 * wrong, by the simulator's own account (`program` when the program itself is at fault).
 */
export function simErrorAsConfigError(e: unknown, request: Pick<SimulateRequest, 'args' | 'language'>, programPath: string): LaunchConfigError {
  const message = e instanceof Error ? e.message : String(e);
  const field = e instanceof SimError ? e.field : undefined;
  if (!field) return new LaunchConfigError('program', message);
  // The CUDA message starts with the full path; the field already says what to fix.
  if (field.kind === 'kernel' && field.unknown && request.language === 'cuda') {
    const { name, available } = field.unknown;
    return new LaunchConfigError('kernel', `no __global__ function '${name}' in ${path.basename(programPath)} (kernels: ${available.join(', ')})`);
  }
  return new LaunchConfigError(launchConfigField(field, request.args ?? []), message);
}

/** The launch.json field of a simulator's LaunchField: `kernel`, `grid`, `args[2]` (an argument by its name). */
export function launchConfigField(field: LaunchField, specs: readonly ArgSpec[]): string {
  if (field.kind !== 'arg') return field.kind;
  const i = specs.findIndex((s) => s.name === field.name);
  return i >= 0 ? `args[${i}]` : 'args';
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

/** Runs core's launch validation, rewording its problem as this face's error (`grid: …`). */
function fieldChecked<T>(check: () => T): T {
  try {
    return check();
  } catch (e) {
    if (e instanceof LaunchRequestError) throw new LaunchConfigError(e.field, e.detail);
    throw e;
  }
}

/** Reads a `:file(PATH)` input, checking element type and shape against the argument's. */
function readNpyInput(field: string, spec: Extract<ArgSpec, { kind: 'buffer' }>, cwd: string): void {
  if (spec.init.kind !== 'file') return;
  const file = path.resolve(cwd, spec.init.path);
  let problem;
  try {
    problem = bindNpyFile(spec, file, readRegularFile(file, MAX_NPY_BYTES));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new LaunchConfigError(field, code === 'ENOENT' ? `file not found: ${file}` : `cannot read ${file}: ${(e as Error).message}`);
  }
  if (problem) throw new LaunchConfigError(field, problem);
}
