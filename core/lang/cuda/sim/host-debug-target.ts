// A whole program under the debug runtime: its segments (host-program.ts) are the launches the runtime
// drives one after another. Host code is one debugger thread, `host`, with main's frames and locals, so
// breakpoints in main stop and host statements step; each kernel launch hands over its warps as
// debugger threads (the CUDA debug target), and host code resumes after it.
import type { DebugProgram, DebugProgramFactory, DebugProgramHooks, DebugProgramResult, DebugTarget } from '../../../debug/target';
import type { Machine, RunResult, SimThread, SourceLoc } from '../../../sim/machine';
import type { TraceThread } from '../../../sim/trace';
import type { SimulateRequest } from '../../../sim/run';
import { CudaDebugTarget, cudaDebugProgram } from './debug-target';
import { CudaProgram, isWholeProgram } from './host-program';

/** The host segment's one thread shows as `host`. */
class HostDebugTarget extends CudaDebugTarget {
  override threadLabel(): string {
    return 'host';
  }

  override arriverLabel(): string {
    return 'host';
  }

  override sharedBuffers(): [] {
    return [];
  }
}

/** The debug program factory of a CUDA request: a whole program when the request names no kernel and the file has main. */
export function cudaProgramDebugFactory(request: SimulateRequest): DebugProgramFactory {
  const kernel = cudaDebugProgram(request);
  if (!isWholeProgram(request)) return kernel;
  return { ...kernel, create: (hooks) => programDebugProgram(request, hooks) };
}

async function programDebugProgram(request: SimulateRequest, hooks: DebugProgramHooks): Promise<DebugProgram> {
  // Kernels keep running after misuse and races: the debugger reports them itself.
  const program = await CudaProgram.create(request, { onOutput: (text, _stream, t) => hooks.output(text, t), continueOnMisuse: true });
  return new ProgramDebugProgram(program);
}

class ProgramDebugProgram implements DebugProgram {
  readonly entryDescription = 'stopped at the entry of main (host code; each kernel launch shows its warps)';
  readonly noLaunchDescription = 'stopped at the entry of main';
  readonly unverifiedLineMessage = 'no statement of main, the host functions it calls or a kernel starts on this line';

  constructor(private readonly program: CudaProgram) {}

  next(): DebugTarget | undefined {
    const s = this.program.next();
    if (!s) return undefined;
    return s.kind === 'host' ? new HostDebugTarget(s.machine, s.index, s.title) : new CudaDebugTarget(s.machine, s.index, s.title);
  }

  endLaunch(r: RunResult): void {
    this.program.endLaunch(r);
  }

  get launchRunning(): boolean {
    return this.program.launchRunning;
  }

  get done(): boolean {
    return this.program.done;
  }

  result(): DebugProgramResult {
    const r = this.program.result();
    return { status: r.status, message: r.message, report: r.report };
  }

  get steps(): number {
    return this.program.steps;
  }

  /** Device allocations (cudaMalloc) by the variable each was made for: the Globals view. */
  get buffers(): CudaProgram['buffers'] {
    return this.program.buffers;
  }

  get launches(): readonly Machine[] {
    return this.program.launches;
  }

  /** Host functions, kernels and lambdas compiled so far (kernels compile with the host code that launches them). */
  *statementCode(): Iterable<readonly { stmt: boolean; loc: SourceLoc }[]> {
    const c = this.program.compiler;
    if (!c) return;
    for (const inst of c.instances.values()) yield inst.fn.code;
    for (const l of c.lambdas.values()) yield l.fn.code;
  }

  traceThread(t: SimThread): TraceThread {
    return { block: t.block, warp: t.warp, lane: t.lane, role: t.role };
  }
}
