// Launch templates: a ready-to-run simulator launch for every kernel of a file, derived from its
// signature alone, so "Debug kernel" (code lens, F5 without launch.json, the walkthrough) starts a
// session without the user writing SPEC strings first. This file holds what every language shares:
// the template's shape, the default sizes, which parameter names are outputs, and the launch.json
// form the faces write. Each language derives its templates in its own folder
// (core/lang/<id>/launch-template.ts); `launchTemplates` in core/languages.ts picks the language.

export interface LaunchTemplate {
  /** `__global__` kernel or `__co__` function name (the launch's `kernel`). */
  kernel: string;
  language: 'cuda' | 'croqtile';
  /** Zero-based line where the declaration starts (where the code lens goes). */
  line: number;
  /** CUDA only: Croqtile programs launch their own grids. */
  grid?: [number, number, number];
  block?: [number, number, number];
  /** CUDA: the cluster attribute of the file's launch (a kernel's own `__cluster_dims__` needs none). */
  cluster?: [number, number, number];
  /** `NAME=SPEC` strings, in parameter order, as `phaseflip sim --arg` and launch.json take them. */
  args: string[];
  dynamicSmem?: number;
  /** What a user may want to change before trusting the run (one sentence), if anything. */
  note?: string;
  /** Where `block` comes from (`__launch_bounds__(160)`, `the launch on line 88`, `the default`). */
  blockSource?: string;
  /** Whether `block` is a default rather than derived from the file (the user may want to edit it). */
  blockDefault?: boolean;
  /** Why the simulator cannot run this kernel at all (template kernels); no launch is offered. */
  unsupported?: string;
}

/** Elements of a buffer whose size nothing in the signature says: room for typical tile loops. */
export const DEFAULT_BUFFER_ELEMENTS = 16384;
/** Iteration counts (`num_tiles`, `iterations`): enough to wrap a 2- or 3-stage ring once. */
export const DEFAULT_ITERATIONS = 4;
export const DEFAULT_BLOCK = 128;
/** Dynamic shared memory offered to kernels with `extern __shared__`: the no-opt-in limit. */
export const DEFAULT_DYNAMIC_SMEM = 48 * 1024;
/** Kernels per file that get a template: a generated file with thousands must not stall the server. */
export const MAX_KERNELS = 200;

/** Parameter names that hold results: their buffers start zeroed (inputs get values). */
export const OUTPUT_NAME = /^(out|output|outputs|result|results|res|dst|dest|y|c|d|acc|accum|sum|sums|partial|partials|counter|counters|flags?)(_.*)?$|_out$|^o$/i;

/** A launch.json configuration (type `phaseflip`, request `launch`) as plain data. */
export interface LaunchConfiguration {
  type: 'phaseflip';
  request: 'launch';
  name: string;
  program: string;
  kernel: string;
  grid?: [number, number, number] | number;
  block?: [number, number, number] | number;
  cluster?: [number, number, number] | number;
  args: string[];
  dynamicSmem?: number;
  [key: string]: unknown;
}

/** Keys of a template's configuration that say where its shape came from (never written to launch.json). */
export const LAUNCH_PROVENANCE_KEYS = ['blockSource', 'blockDefault'] as const;

/** The configuration that launches `t` from `program` (a path or `${file}`-style variable). */
export function launchConfiguration(t: LaunchTemplate, program: string): LaunchConfiguration {
  const config: LaunchConfiguration = { type: 'phaseflip', request: 'launch', name: `Debug ${t.kernel}`, program, kernel: t.kernel, args: [...t.args] };
  // One-dimensional launches read best as plain numbers in launch.json.
  const dim = (d: [number, number, number]) => (d[1] === 1 && d[2] === 1 ? d[0] : [...d] as [number, number, number]);
  if (t.grid) config.grid = dim(t.grid);
  if (t.block) config.block = dim(t.block);
  if (t.cluster) config.cluster = dim(t.cluster);
  if (t.dynamicSmem !== undefined) config.dynamicSmem = t.dynamicSmem;
  // Said at the start of the session; not for launch.json (LAUNCH_PROVENANCE_KEYS are dropped there).
  if (t.block && t.blockSource) config.blockSource = t.blockSource;
  if (t.block && t.blockDefault) config.blockDefault = true;
  return config;
}
