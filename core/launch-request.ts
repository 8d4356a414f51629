// Launch-request validation: turns a launch description (launch.json's fields, or the CLI's flags as
// typed) into the request the simulator and the debug runtime run. Every check lives here once; a
// problem names the launch field it is about, and each face words it in its own terms (`grid: …` in
// the debugger, `--grid …` on the command line). Reading files (the program, `.npy` inputs) is the
// faces' business: core does no I/O.
import type { LanguageId } from './api';
import { languageForHeader, languageForPath } from './languages';
import { bindNpyInput, parseArg, parseDim3 } from './sim/args';
import { validateCluster } from './sim/cluster';
import { type Dim3, type SchedulePolicy, SimError, validateGeometry } from './sim/machine';
import { NpyError, parseNpy } from './sim/npy';
import type { ArgSpec, SimulateRequest } from './sim/run';

/** How the simulator may interleave threads. */
export const SCHEDULES: readonly SchedulePolicy[] = ['round-robin', 'random', 'adversarial'];

/** Dynamic shared memory per block, in bytes: Hopper's 227 KiB. */
export const MAX_DYNAMIC_SMEM = 227 * 1024;

export type IntegerLaunchField = 'dynamicSmem' | 'seed' | 'maxSteps';

/** The range of every integer launch field (inclusive). */
export const LAUNCH_INTEGERS: Readonly<Record<IntegerLaunchField, { min: number; max: number }>> = {
  dynamicSmem: { min: 0, max: MAX_DYNAMIC_SMEM },
  seed: { min: 0, max: 0xffffffff },
  maxSteps: { min: 1, max: Number.MAX_SAFE_INTEGER },
};

/**
 * What a launch may say, before validation. Values are as the user wrote them (launch.json's JSON,
 * or the CLI's flag texts): dimensions are a number, `[x, y, z]` or `"x,y,z"`; `args` is a list of
 * `NAME=SPEC` strings.
 */
export interface LaunchDescription {
  /** Path of the program: its extension says the language. */
  file: string;
  kernel?: unknown;
  grid?: unknown;
  block?: unknown;
  /** Thread-block cluster dims (CUDA): like grid and block. */
  cluster?: unknown;
  args?: unknown;
  dynamicSmem?: unknown;
  seed?: unknown;
  schedule?: unknown;
  maxSteps?: unknown;
  /** A whole program (no kernel named, the file defines main): its launches come from its host code. */
  program?: boolean;
}

/** A validated launch: everything the simulator needs except the program's text. */
export type LaunchRequest = Omit<SimulateRequest, 'text'> & { language: LanguageId; args: ArgSpec[] };

/** One thing wrong with a launch description, with the field it is about. */
export type LaunchProblem =
  /** `linted`: the file is of a language Phaseflip lints but does not simulate (a tilus `.py`). */
  | { kind: 'language'; field: 'program'; file: string; linted?: LanguageId }
  /** A CUDA launch without grid or block; `missing` lists every missing one. */
  | { kind: 'required'; field: 'grid' | 'block'; missing: ('grid' | 'block')[] }
  | { kind: 'dims'; field: 'grid' | 'block' | 'cluster'; value: unknown }
  /** Dimensions that are well formed but that no GPU launches (`detail` says which limit). */
  | { kind: 'geometry'; field: 'grid' | 'block' | 'cluster' | 'dynamicSmem'; detail: string }
  | { kind: 'integer'; field: IntegerLaunchField; value: unknown }
  | { kind: 'choice'; field: 'schedule'; value: unknown }
  | { kind: 'name'; field: 'kernel'; value: unknown }
  | { kind: 'list'; field: 'args'; value: unknown }
  /** An argument that is not a string, or whose SPEC does not parse (`detail` says why). */
  | { kind: 'spec'; field: 'args'; index: number; value: unknown; detail?: string }
  | { kind: 'duplicate'; field: 'args'; index: number; name: string };

/** A launch description that cannot run: `field` is `grid`, `args[1]` …, `detail` the rest. */
export class LaunchRequestError extends Error {
  readonly field: string;
  readonly detail: string;
  constructor(readonly problem: LaunchProblem) {
    const field = problem.kind === 'spec' || problem.kind === 'duplicate' ? `args[${problem.index}]` : problem.field;
    const detail = describeLaunchProblem(problem);
    super(`${field}: ${detail}`);
    this.field = field;
    this.detail = detail;
  }
}

/** The problem in launch.json's terms, without the field name (`expected …, got …`). */
export function describeLaunchProblem(p: LaunchProblem): string {
  switch (p.kind) {
    case 'language':
      return p.linted ? `${p.linted} files are linted, not simulated; expected a .cu, .cuh or .co file, got ${p.file}` : `expected a .cu, .cuh or .co file, got ${p.file}`;
    case 'required':
      return p.field === 'grid' ? 'required for a CUDA kernel, e.g. "grid": 1 or [2, 1, 1]' : 'required for a CUDA kernel, e.g. "block": 128 or [32, 4, 1]';
    case 'dims':
      return `expected a positive integer, [x, y, z] or "x,y,z", got ${JSON.stringify(p.value)}`;
    case 'geometry':
      return p.detail;
    case 'integer': {
      const { min, max } = LAUNCH_INTEGERS[p.field];
      return `expected an integer in ${min}..${max}, got ${JSON.stringify(p.value)}`;
    }
    case 'choice':
      return `expected one of ${SCHEDULES.join(', ')}, got ${JSON.stringify(p.value)}`;
    case 'name':
      return `expected a function name, got ${JSON.stringify(p.value)}`;
    case 'list':
      return 'expected an array of NAME=SPEC strings, e.g. ["n=64", "out=f32[128]:zeros"]';
    case 'spec':
      return p.detail ?? `expected a NAME=SPEC string, got ${JSON.stringify(p.value)}`;
    case 'duplicate':
      return `'${p.name}' is given twice`;
  }
}

export function isSchedule(value: unknown): value is SchedulePolicy {
  return (SCHEDULES as readonly unknown[]).includes(value);
}

/** The simulator's language for a program path; throws a `program` problem for other files. */
export function launchLanguage(file: string): LanguageId {
  const language = languageForPath(file);
  if (!language) {
    const linted = languageForHeader(file);
    throw new LaunchRequestError({ kind: 'language', field: 'program', file, ...(linted && linted !== 'cuda' ? { linted } : {}) });
  }
  return language;
}

/** Launch dimensions from a number, `[x, y, z]` (1 to 3 entries) or `"x,y,z"` / `"XxYxZ"`; undefined when not that. */
export function toDim3(value: unknown): Dim3 | undefined {
  if (typeof value === 'string') return parseDim3(value);
  const list = typeof value === 'number' ? [value] : value;
  if (!Array.isArray(list) || list.length < 1 || list.length > 3) return undefined;
  if (list.some((v) => typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 0x7fffffff)) return undefined;
  return [list[0], list[1] ?? 1, list[2] ?? 1];
}

/** Whether an integer field's value is in range (the settings that default a field check it too). */
export function isLaunchInteger(field: IntegerLaunchField, value: unknown): value is number {
  const { min, max } = LAUNCH_INTEGERS[field];
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
}

/** A function name, or a template kernel's instantiation (`k<float, 1024>`: the simulator reads the arguments). */
const KERNEL_NAME = /^\s*[A-Za-z_]\w*(\s*<[^;{}\n]*>)?\s*$/;

/**
 * Validates a launch description. Checks each field on its own first (kernel, dimensions, args,
 * dynamicSmem, seed, schedule, maxSteps), then what depends on several (a CUDA launch needs grid and
 * block; the geometry must be launchable). Throws LaunchRequestError for the first problem.
 */
export function validateLaunch(desc: LaunchDescription): LaunchRequest {
  const fail = (p: LaunchProblem): never => {
    throw new LaunchRequestError(p);
  };
  const language = launchLanguage(desc.file);
  if (desc.kernel !== undefined && (typeof desc.kernel !== 'string' || !KERNEL_NAME.test(desc.kernel))) fail({ kind: 'name', field: 'kernel', value: desc.kernel });
  const dims = (field: 'grid' | 'block' | 'cluster'): Dim3 | undefined => {
    const value = desc[field];
    if (value === undefined) return undefined;
    return toDim3(value) ?? fail({ kind: 'dims', field, value });
  };
  const grid = dims('grid');
  const block = dims('block');
  const cluster = dims('cluster');
  // The upper bound of dynamicSmem is checked after the geometry, whose message says why it is one.
  const dynamicSmem = desc.dynamicSmem;
  if (dynamicSmem !== undefined && !(typeof dynamicSmem === 'number' && Number.isSafeInteger(dynamicSmem) && dynamicSmem >= 0)) fail({ kind: 'integer', field: 'dynamicSmem', value: dynamicSmem });
  const args = launchArgs(desc.args);
  const integer = (field: 'seed' | 'maxSteps'): number | undefined => {
    const value = desc[field];
    if (value === undefined) return undefined;
    return isLaunchInteger(field, value) ? value : fail({ kind: 'integer', field, value });
  };
  const seed = integer('seed');
  if (desc.schedule !== undefined && !isSchedule(desc.schedule)) fail({ kind: 'choice', field: 'schedule', value: desc.schedule });
  const maxSteps = integer('maxSteps');

  if (language === 'cuda' && !desc.program) {
    const missing = (['grid', 'block'] as const).filter((f) => desc[f] === undefined);
    if (missing.length) fail({ kind: 'required', field: missing[0], missing });
  }
  if (grid && block) {
    try {
      validateGeometry({ grid, block, dynamicSmem: dynamicSmem as number | undefined });
    } catch (e) {
      const field = e instanceof SimError ? e.field?.kind : undefined;
      if (field !== 'grid' && field !== 'block' && field !== 'dynamicSmem') throw e;
      fail({ kind: 'geometry', field, detail: (e as SimError).message.replace(/^bad launch configuration: /, '') });
    }
  }
  if (cluster) {
    try {
      validateCluster(grid ?? [1, 1, 1], cluster);
    } catch (e) {
      if (!(e instanceof SimError) || e.field?.kind !== 'cluster') throw e;
      fail({ kind: 'geometry', field: 'cluster', detail: e.message.replace(/^bad launch configuration: /, '') });
    }
  }
  if (dynamicSmem !== undefined && !isLaunchInteger('dynamicSmem', dynamicSmem)) fail({ kind: 'integer', field: 'dynamicSmem', value: dynamicSmem });

  return {
    file: desc.file,
    language,
    kernel: desc.kernel as string | undefined,
    grid,
    block,
    ...(cluster ? { cluster } : {}),
    dynamicSmem: dynamicSmem as number | undefined,
    args,
    seed,
    schedule: desc.schedule as SchedulePolicy | undefined,
    maxSteps,
  };
}

/** Parses the `NAME=SPEC` strings (as `phaseflip sim --arg` takes them); a name may appear once. */
function launchArgs(value: unknown): ArgSpec[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new LaunchRequestError({ kind: 'list', field: 'args', value });
  const specs: ArgSpec[] = [];
  value.forEach((text: unknown, index) => {
    if (typeof text !== 'string') throw new LaunchRequestError({ kind: 'spec', field: 'args', index, value: text });
    let spec: ArgSpec;
    try {
      spec = parseArg(text);
    } catch (e) {
      // The SPEC parser words its errors for `--arg`; the field name replaces that prefix.
      throw new LaunchRequestError({ kind: 'spec', field: 'args', index, value: text, detail: (e as Error).message.replace(/^--arg /, '') });
    }
    if (specs.some((s) => s.name === spec.name)) throw new LaunchRequestError({ kind: 'duplicate', field: 'args', index, name: spec.name });
    specs.push(spec);
  });
  return specs;
}

/**
 * Binds the bytes of a `:file(PATH)` input, read by the face from `file`, to its argument, checking
 * the file's element type and shape against the argument's. Returns what is wrong as a sentence that
 * names the file (the face adds which argument), or undefined when bound.
 */
export function bindNpyFile(spec: Extract<ArgSpec, { kind: 'buffer' }>, file: string, bytes: Uint8Array): string | undefined {
  let npy;
  try {
    npy = parseNpy(bytes);
  } catch (e) {
    if (e instanceof NpyError) return `${file}: ${e.message}`;
    throw e;
  }
  return bindNpyInput(spec, file, npy);
}
