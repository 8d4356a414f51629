// The state a whole program's host code runs against: its standard streams, glibc's rand(), the heap
// (host buffers), and the CUDA runtime as a harness sees it (device allocations, the last and the
// sticky error, streams, events as simulated time, per-kernel attributes). The builtins that read
// and change it live in host-builtins.ts and cuda-runtime-builtins.ts; the program runner
// (host-program.ts) owns one per run and reaches it from a frame through the host executor.
import { type DType, sizeOf } from '../../../sim/dtypes';
import { Buffer, type Pointer } from '../../../sim/memory';
import { SimError } from '../../../sim/machine';
import type { Frame } from './runtime';

/** `exit(code)`, `return` from main, abort or a failed assert: unwinds host code to the runner. */
export class ProgramExit extends Error {
  constructor(readonly code: number) {
    super(`exit(${code})`);
  }
}

/**
 * glibc's random(): the TYPE_3 additive feedback generator (degree 31, separation 3) that rand()
 * uses, seeded as srandom does (LCG 16807 mod 2^31-1, then 310 outputs discarded), so a program's
 * rand() sequence is the one it prints on Linux.
 */
export class GlibcRand {
  private r: number[] = [];
  private i = 0;
  constructor(seed = 1) {
    this.seed(seed);
  }
  seed(seed: number): void {
    let s = seed >>> 0;
    if (s === 0) s = 1;
    const r = new Array<number>(34);
    r[0] = s | 0;
    for (let i = 1; i < 31; i++) {
      // 16807 * r[i-1] % 2147483647 without overflow (Schrage), kept signed as glibc's int32.
      const hi = Math.trunc(r[i - 1] / 127773);
      const lo = r[i - 1] % 127773;
      let word = 16807 * lo - 2836 * hi;
      if (word < 0) word += 2147483647;
      r[i] = word;
    }
    for (let i = 31; i < 34; i++) r[i] = r[i - 31];
    this.r = r;
    this.i = 34;
    for (let k = 0; k < 310; k++) this.next();
  }
  /** The next rand() value, 0 … RAND_MAX (2^31 - 1). */
  next(): number {
    const r = this.r;
    const v = (r[this.i - 31] + r[this.i - 3]) | 0;
    r.push(v);
    this.i++;
    if (r.length > 4096) {
      this.r = r.slice(r.length - 34);
      this.i = 34;
    }
    return v >>> 1;
  }
}

/** cudaError_t values and their cudaGetErrorString texts (CUDA 12/13 runtime). */
export const CUDA_ERRORS: Record<number, { name: string; text: string }> = {
  0: { name: 'cudaSuccess', text: 'no error' },
  1: { name: 'cudaErrorInvalidValue', text: 'invalid argument' },
  2: { name: 'cudaErrorMemoryAllocation', text: 'out of memory' },
  9: { name: 'cudaErrorInvalidConfiguration', text: 'invalid configuration argument' },
  11: { name: 'cudaErrorInvalidPitchValue', text: 'invalid pitch argument' },
  17: { name: 'cudaErrorInvalidDevicePointer', text: 'invalid device pointer' },
  21: { name: 'cudaErrorInvalidMemcpyDirection', text: 'invalid copy direction for memcpy' },
  98: { name: 'cudaErrorInvalidDeviceFunction', text: 'invalid device function' },
  400: { name: 'cudaErrorInvalidResourceHandle', text: 'invalid resource handle' },
  600: { name: 'cudaErrorNotReady', text: 'device not ready' },
  700: { name: 'cudaErrorIllegalAddress', text: 'an illegal memory access was encountered' },
  701: { name: 'cudaErrorLaunchOutOfResources', text: 'too many resources requested for launch' },
  710: { name: 'cudaErrorAssert', text: 'device-side assert triggered' },
  716: { name: 'cudaErrorMisalignedAddress', text: 'misaligned address' },
  719: { name: 'cudaErrorLaunchFailure', text: 'unspecified launch failure' },
};

export const cudaErrorString = (code: number): string => CUDA_ERRORS[code]?.text ?? 'unrecognized error code';
export const cudaErrorName = (code: number): string => CUDA_ERRORS[code]?.name ?? 'cudaErrorUnknown';

/** The largest single allocation the simulator makes (host or device): JS memory, not the GPU's. */
export const MAX_HOST_ALLOCATION = 1 << 30;

/** Dynamic shared memory a kernel may use without opting in, and the most it may opt in to (sm_90). */
export const DEFAULT_DYNAMIC_SMEM = 48 * 1024;
export const MAX_DYNAMIC_SMEM_OPTIN = 227 * 1024;

/** A kernel launch as host code asked for it, before the configuration is checked. */
export interface KernelLaunch {
  /** The kernel as C++ spells it (`k`, `axpby<float, 128>`) and its declared name (attribute lookups). */
  name: string;
  declName: string;
  /** The kernel's template arguments (empty for a plain kernel). */
  binding: Map<string, unknown>;
  grid: [number, number, number];
  block: [number, number, number];
  dynamicSmem: number;
  cluster?: [number, number, number];
  /** Argument values converted to the parameter types. */
  args: unknown[];
  /** Zero-based line of the launch. */
  line: number;
}

/** What one run of a program has done to its host state. */
export class HostState {
  stdout = '';
  stderr = '';
  readonly rand = new GlibcRand(1);
  /** The error cudaGetLastError returns (and resets, unless it is sticky). */
  lastError = 0;
  /** A launch failure: every later runtime call returns it; the context is unusable. */
  sticky = 0;
  /** A kernel's failure the host has not synchronised with yet (it surfaces at the next synchronising call). */
  pending = 0;
  /** Live device allocations (cudaMalloc) and host allocations (malloc/new), by buffer. */
  readonly device = new Set<Buffer>();
  /** Every device allocation made, freed ones too, in order (what a run's buffers list). */
  readonly allocations: Buffer[] = [];
  readonly heap = new Set<Buffer>();
  /** Host allocations the device may access too (cudaMallocHost, cudaHostAlloc). */
  readonly pinned = new Set<Buffer>();
  /** Handles of streams and events; an event's value is the simulated cycle it was recorded at. */
  private nextHandle = 1;
  readonly streams = new Set<number>();
  readonly events = new Map<number, number | undefined>();
  /** Per kernel (by name): cudaFuncAttributeMaxDynamicSharedMemorySize. */
  readonly maxDynamicSmem = new Map<string, number>();
  /** Simulated cycles of device work so far (events read it). */
  deviceCycles = 0;
  /** Kernel reports (launch failures, races) to show after the program's output. */
  readonly reports: string[] = [];

  constructor(
    private readonly newId: () => number,
    private readonly write: (text: string, stream: 'stdout' | 'stderr') => void,
  ) {}

  out(text: string, stream: 'stdout' | 'stderr' = 'stdout'): void {
    if (stream === 'stdout') this.stdout += text;
    else this.stderr += text;
    this.write(text, stream);
  }

  handle(): number {
    return this.nextHandle++;
  }

  /** A host allocation (zeroed: the simulator's heap holds no garbage, so uninitialised reads are deterministic). */
  malloc(size: number, what: string): Pointer {
    if (!Number.isFinite(size) || size < 0) throw new SimError(`${what}: size ${size}`);
    if (size > MAX_HOST_ALLOCATION) throw new SimError(`${what}: ${size} bytes is more than the simulator's host heap allows (${MAX_HOST_ALLOCATION})`);
    const buf = new Buffer(this.newId(), what, 'host', Math.floor(size));
    this.heap.add(buf);
    return { buf, offset: 0 };
  }

  /** A device allocation, typed by the pointer it is made for (`float* d` → f32), so views and dumps decode it. */
  cudaMalloc(size: number, name: string, dtype?: DType): Pointer {
    if (!Number.isFinite(size) || size < 0 || size > MAX_HOST_ALLOCATION) throw new SimError(`cudaMalloc of ${size} bytes for '${name}': more than the simulator's device memory allows (${MAX_HOST_ALLOCATION})`);
    const bytes = Math.floor(size);
    const es = dtype ? sizeOf(dtype) : 0;
    const typed = es && bytes % es === 0 ? dtype : undefined;
    const buf = new Buffer(this.newId(), name, 'global', bytes, undefined, typed, typed ? [bytes / es] : undefined);
    this.device.add(buf);
    this.allocations.push(buf);
    return { buf, offset: 0 };
  }

  /** argv[0]: the program as a shell would run it (`./harness`). */
  programName = './a.out';
  /** Launches the kernel a host launch names (set by the program runner); returns the launch's error code. */
  launch?: (l: KernelLaunch) => number;

  /** A runtime call's result: the sticky error if there is one, else `code` (which also becomes the last error when it is one). */
  result(code: number): number {
    if (this.sticky) return this.sticky;
    if (code) this.lastError = code;
    return code;
  }

  /**
   * cudaGetLastError: the last error, reset. A launch failure is returned once here (then no error),
   * while every other call keeps returning it, as the H200 did (programs/over_arrive_program.cu).
   */
  takeLastError(): number {
    const e = this.lastError;
    this.lastError = 0;
    return e;
  }

  /** A synchronising call: a kernel failure not seen yet becomes the sticky and the last error. */
  surface(): void {
    if (!this.pending) return;
    this.sticky = this.lastError = this.pending;
    this.pending = 0;
  }
}

/** The host state a frame's program runs against (the host executor carries it). */
export function hostOf(f: Frame): HostState {
  const h = (f.ts.ex as { host?: HostState }).host;
  if (!h) throw new SimError('host code called from a kernel');
  return h;
}
