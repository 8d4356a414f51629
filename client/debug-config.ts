// The VS Code side of launching the simulator, as plain functions (no `vscode` import, so they are
// unit-tested): reading the `phaseflip.simulator.*` defaults, completing a launch configuration
// from the kernel templates of its program (F5 without launch.json, a configuration without args),
// and adding a configuration to launch.json's list without clobbering the user's.
import {
  DEFAULT_MAX_STEPS,
  LAUNCH_INTEGERS,
  type LaunchConfiguration,
  type LaunchTemplate,
  SCHEDULES,
  type SchedulePolicy,
  isLaunchInteger,
  isSchedule,
  LAUNCH_PROVENANCE_KEYS,
  launchConfiguration,
} from '../core/index';

export const DEBUG_TYPE = 'phaseflip';
// The schedules are core's launch vocabulary; re-exported for this module's users.
export { SCHEDULES };
export type Schedule = SchedulePolicy;

/** `phaseflip.simulator.*`: what a launch gets when its configuration does not say. */
export interface SimulatorDefaults {
  schedule: Schedule;
  seed: number;
  maxSteps: number;
  stopOnEntry: boolean;
}

export const SIMULATOR_DEFAULTS: SimulatorDefaults = { schedule: 'round-robin', seed: 1, maxSteps: DEFAULT_MAX_STEPS, stopOnEntry: false };

/**
 * Reads the settings through `get(key)` (a `WorkspaceConfiguration.get` on the `phaseflip`
 * section); invalid values fall back to the defaults and are reported through `warn`.
 */
export function readSimulatorDefaults(get: (key: string) => unknown, warn: (message: string) => void = () => {}): SimulatorDefaults {
  const out: SimulatorDefaults = { ...SIMULATOR_DEFAULTS };
  const schedule = get('simulator.schedule');
  if (schedule !== undefined) {
    if (isSchedule(schedule)) out.schedule = schedule;
    else warn(`phaseflip.simulator.schedule must be one of ${SCHEDULES.join(', ')}, got ${JSON.stringify(schedule)}; using ${out.schedule}`);
  }
  const seed = get('simulator.seed');
  if (seed !== undefined) {
    if (isLaunchInteger('seed', seed)) out.seed = seed;
    else warn(`phaseflip.simulator.seed must be an integer in ${LAUNCH_INTEGERS.seed.min}..${LAUNCH_INTEGERS.seed.max}, got ${JSON.stringify(seed)}; using ${out.seed}`);
  }
  const maxSteps = get('simulator.maxSteps');
  if (maxSteps !== undefined) {
    if (isLaunchInteger('maxSteps', maxSteps)) out.maxSteps = maxSteps;
    else warn(`phaseflip.simulator.maxSteps must be a positive integer, got ${JSON.stringify(maxSteps)}; using ${out.maxSteps}`);
  }
  const stopOnEntry = get('simulator.stopOnEntry');
  if (stopOnEntry !== undefined) {
    if (typeof stopOnEntry === 'boolean') out.stopOnEntry = stopOnEntry;
    else warn(`phaseflip.simulator.stopOnEntry must be true or false, got ${JSON.stringify(stopOnEntry)}; using ${out.stopOnEntry}`);
  }
  return out;
}

/** A debug configuration as VS Code hands it over: anything may be missing or of the wrong type. */
export type DebugConfigurationLike = { type?: string; request?: string; name?: string; [key: string]: unknown };

export type Resolution =
  | { config: DebugConfigurationLike; message?: undefined }
  /** Launching makes no sense; `message` says why and what to do. */
  | { config?: undefined; message: string };

export interface ResolveContext {
  /** Path of the active editor's document, when it is a CUDA or Croqtile file. */
  activeProgram?: string;
  /** Templates of the configuration's program (or the active document), by kernel. */
  templatesOf: (program: string) => Promise<LaunchTemplate[]>;
  /** Whether the program is a whole CUDA program (it defines main): without a kernel it runs from main. */
  isWholeProgram?: (program: string) => Promise<boolean>;
  defaults: SimulatorDefaults;
}

/**
 * Completes a configuration before launch: an empty one (F5 without launch.json) becomes a launch of
 * the active file's first kernel; `kernel`, `grid`, `block`, `args` and `dynamicSmem` missing from a
 * configuration come from its kernel's template (unless the program defines main and no kernel is
 * named: the whole program runs); simulator settings fill `schedule`, `seed`,
 * `maxSteps` and `stopOnEntry`. Values the user wrote are never replaced; the session validates them.
 */
export async function resolveConfiguration(input: DebugConfigurationLike, ctx: ResolveContext): Promise<Resolution> {
  const config: DebugConfigurationLike = { ...input };
  const empty = !config.type && !config.request && !config.name;
  if (empty) {
    if (!ctx.activeProgram) return { message: 'Phaseflip: open a .cu or .co file to debug, or add a "phaseflip" configuration to launch.json.' };
    Object.assign(config, { type: DEBUG_TYPE, request: 'launch', name: 'Debug kernel', program: ctx.activeProgram });
  }
  config.type ??= DEBUG_TYPE;
  config.request ??= 'launch';
  config.name ??= 'Debug kernel';
  if (config.program === undefined && ctx.activeProgram) config.program = ctx.activeProgram;
  // A whole program (main, no kernel named) runs from main(): its launches come from its host code.
  const launch = config.kernel !== undefined || config.grid !== undefined || config.block !== undefined || config.args !== undefined;
  const whole = typeof config.program === 'string' && !launch && ctx.isWholeProgram ? await ctx.isWholeProgram(config.program) : false;
  if (typeof config.program === 'string' && config.program.trim() && !whole) {
    const templates = (await ctx.templatesOf(config.program)).filter((t) => !t.unsupported);
    const wanted = typeof config.kernel === 'string' ? config.kernel : undefined;
    const template = wanted ? templates.find((t) => t.kernel === wanted) : templates[0];
    if (template) {
      const derived = launchConfiguration(template, config.program);
      // A kernel chosen by the template only when the file has more than one would surprise nobody,
      // but argument lists are per kernel: never mix a template's args into another kernel's launch.
      if (wanted === undefined) config.kernel = template.kernel;
      // Where the block came from travels with a block taken from the template (the session says it).
      const fromTemplate = config.block === undefined && derived.block !== undefined;
      for (const key of ['grid', 'block', 'args', 'dynamicSmem'] as const) {
        if (config[key] === undefined && derived[key] !== undefined) config[key] = derived[key];
      }
      if (fromTemplate) for (const key of LAUNCH_PROVENANCE_KEYS) if (derived[key] !== undefined) config[key] = derived[key];
    }
  }
  config.schedule ??= ctx.defaults.schedule;
  config.seed ??= ctx.defaults.seed;
  config.maxSteps ??= ctx.defaults.maxSteps;
  config.stopOnEntry ??= ctx.defaults.stopOnEntry;
  return { config };
}

/** A configuration as launch.json keeps it: without what only says where its shape came from. */
export function forLaunchJson<T extends DebugConfigurationLike>(config: T): T {
  const out: DebugConfigurationLike = { ...config };
  for (const key of LAUNCH_PROVENANCE_KEYS) delete out[key];
  return out as T;
}

/** The block of a configuration whose block is a default rather than derived from the file, if it is. */
export function defaultBlock(config: DebugConfigurationLike): number | number[] | undefined {
  if (config.blockDefault !== true) return undefined;
  return typeof config.block === 'number' || Array.isArray(config.block) ? (config.block as number | number[]) : undefined;
}

/** The button of the notice that a launch ran with a default block. */
export const EDIT_BLOCK = 'Edit Block Size…';

/** The notice shown after "Debug kernel" started a launch whose block is a default (`defaultBlock`). */
export function defaultBlockNotice(config: DebugConfigurationLike, block: number | number[]): string {
  const shown = Array.isArray(block) ? block.join(',') : String(block);
  return `Phaseflip: ${String(config.kernel ?? 'the kernel')} runs with block ${shown}, a default: nothing in the file says how it is launched (no launch, __launch_bounds__ or blockDim check).`;
}

/** Most threads a block may have (the launch is refused past it). */
const MAX_BLOCK_THREADS = 1024;

/** A block size the user typed (`X` or `X,Y,Z`): its dimensions, or why it is not one (for the input box). */
export function parseBlockSize(text: string): number[] | { problem: string } {
  const problem = { problem: `a positive size X or X,Y,Z with X·Y·Z ≤ ${MAX_BLOCK_THREADS}` };
  if (!/^\s*\d+\s*(,\s*\d+\s*){0,2}$/.test(text)) return problem;
  const dims = text.split(',').map((d) => Number(d.trim()));
  if (dims.some((d) => d <= 0) || dims.reduce((n, d) => n * d, 1) > MAX_BLOCK_THREADS) return problem;
  return dims;
}

/** `config` run again with the block the user typed: no longer a default, so no notice follows it. */
export function withEditedBlock(config: DebugConfigurationLike, dims: number[]): DebugConfigurationLike {
  const edited: DebugConfigurationLike = { ...config, block: dims.length === 1 ? dims[0] : dims, blockSource: 'the size you typed' };
  delete edited.blockDefault;
  return edited;
}

/** One configuration per launchable kernel, for launch.json's initial and dynamic lists. */
export function configurationsFor(templates: LaunchTemplate[], program: string): LaunchConfiguration[] {
  return templates.filter((t) => !t.unsupported).map((t) => launchConfiguration(t, program));
}

/**
 * launch.json's `configurations` with `config` added: a configuration of the same name is replaced
 * (clicking the lens twice must not pile up copies), anything else is kept in order.
 */
export function withConfiguration(existing: unknown, config: DebugConfigurationLike): DebugConfigurationLike[] {
  const list = Array.isArray(existing) ? (existing.filter((c) => c && typeof c === 'object') as DebugConfigurationLike[]) : [];
  const i = list.findIndex((c) => c.name === config.name);
  if (i >= 0) return [...list.slice(0, i), config, ...list.slice(i + 1)];
  return [...list, config];
}

/** `program` relative to the workspace folder as `${workspaceFolder}/…`, so launch.json stays portable. */
export function portableProgram(program: string, workspaceFolder: string | undefined, sep = '/'): string {
  if (!workspaceFolder) return program;
  const root = workspaceFolder.endsWith(sep) ? workspaceFolder : workspaceFolder + sep;
  if (!program.startsWith(root)) return program;
  return '${workspaceFolder}/' + program.slice(root.length).split(sep).join('/');
}

/** What a debug launch in Restricted Mode asks, and the button that opens the trust editor. */
export const RESTRICTED_MODE_PROMPT =
  'Phaseflip: this workspace is in Restricted Mode. Debugging a kernel runs it on the simulator with the files its launch configuration names (the program, .npy inputs, the trace it writes). Trust the workspace to debug; linting, hovers and symbols work without it.';
export const MANAGE_TRUST = 'Manage Workspace Trust';

/** The workspace's trust as the launch needs it: whether it is trusted, and a way to ask the user (true: open the trust editor). */
export interface TrustPrompt {
  isTrusted(): boolean;
  ask(message: string, button: string): Promise<boolean>;
  manage(): Promise<void>;
}

/**
 * Whether a debug launch may go ahead: always in a trusted workspace; in Restricted Mode only after the user
 * has trusted it (asked once; the launch is cancelled otherwise, and may be started again once trusted).
 */
export async function launchAllowed(trust: TrustPrompt): Promise<boolean> {
  if (trust.isTrusted()) return true;
  if (await trust.ask(RESTRICTED_MODE_PROMPT, MANAGE_TRUST)) await trust.manage();
  return trust.isTrusted();
}
