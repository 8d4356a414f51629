// CUDA under the debug runtime (core/debug/target.ts): a program of exactly one kernel launch whose
// debugger threads are warps of up to 32 lanes, with the executor's frames and locals, `__shared__`
// buffers, and expressions over a lane's locals and coordinates (threadIdx, blockIdx, lane, warp).
import type { DebugProgram, DebugProgramFactory, DebugProgramHooks, DebugProgramResult, DebugTarget, FrameInfo, LocalInfo, StatementGate } from '../../../debug/target';
import { evaluate } from '../../../debug/expression';
import type { Machine, RunResult, SimThread, SourceLoc } from '../../../sim/machine';
import type { Buffer } from '../../../sim/memory';
import type { TraceThread } from '../../../sim/trace';
import type { Launch, SimulateRequest } from '../../../sim/run';
import { CudaExecutor } from './executor';
import { prepareCudaLaunch } from './index';
import { CUDA_DEBUG_THREADS } from './debug-threads';

/** The debug program factory of a CUDA request (`DebugRuntime`'s constructor argument). */
export function cudaDebugProgram(request: SimulateRequest): DebugProgramFactory {
  return {
    ...CUDA_DEBUG_THREADS,
    async create(hooks) {
      return new CudaDebugProgram(await prepareCudaLaunch(request), hooks);
    },
  };
}

class CudaDebugProgram implements DebugProgram {
  readonly entryDescription = 'stopped at the kernel entry';
  readonly noLaunchDescription = 'stopped at the kernel entry';
  readonly unverifiedLineMessage = 'no statement starts on this line in the simulated kernel';
  private readonly target: CudaDebugTarget;
  private handed = false;
  private ended?: RunResult;

  constructor(
    private readonly launch: Launch,
    hooks: DebugProgramHooks,
  ) {
    const m = launch.machine;
    this.target = new CudaDebugTarget(m);
    m.listeners.push((e) => {
      if (e.kind === 'print') hooks.output(e.text, e.thread);
    });
  }

  next(): DebugTarget | undefined {
    if (this.handed) return undefined;
    this.handed = true;
    return this.target;
  }

  endLaunch(r: RunResult): void {
    this.ended = r;
  }

  get launchRunning(): boolean {
    return this.handed && !this.ended;
  }

  get done(): boolean {
    return !!this.ended;
  }

  result(): DebugProgramResult {
    const r = this.ended;
    if (!r || r.status === 'paused') throw new Error('the kernel has not ended');
    const m = this.launch.machine;
    const message = r.status === 'completed' ? `completed: ${m.steps} statements, ${m.phaseFlips} phase flip(s), ${m.cycles} simulated cycles` : (r.report?.message ?? r.status);
    return { status: r.status, message, report: r.report };
  }

  /** The kernel's statements count as the launch's until it ends. */
  get steps(): number {
    return this.ended ? this.launch.machine.steps : 0;
  }

  get buffers(): Launch['buffers'] {
    return this.launch.buffers;
  }

  get launches(): Machine[] {
    return [this.launch.machine];
  }

  *statementCode(): Iterable<readonly { stmt: boolean; loc: SourceLoc }[]> {
    const ex = this.target.executor;
    if (!ex) return;
    for (const inst of ex.compiler.instances.values()) yield inst.fn.code;
    for (const l of ex.compiler.lambdas.values()) yield l.fn.code;
    yield ex.kernel.fn.code;
  }

  traceThread(t: SimThread): TraceThread {
    return { block: t.block, warp: t.warp, lane: t.lane, role: t.role };
  }
}

export class CudaDebugTarget implements DebugTarget {
  constructor(
    readonly machine: Machine,
    /** 0 for the first launch (a whole program's segments count on from there). */
    readonly index = 0,
    readonly title = 'the kernel',
  ) {}

  /** The CUDA executor; undefined when the kernel failed to compile (its launch faults at once). */
  get executor(): CudaExecutor | undefined {
    const e = this.machine.executor;
    return e instanceof CudaExecutor ? e : undefined;
  }

  threadLabel(t: SimThread): string {
    return `block ${t.block} · warp ${t.warp}${t.role ? ` · ${t.role}` : ''}`;
  }

  arriverLabel(t: SimThread): string {
    return t.label;
  }

  frames(t: SimThread): FrameInfo[] {
    return this.executor?.frames(t) ?? [];
  }

  locals(t: SimThread, frame: number): LocalInfo[] {
    return this.executor?.locals(t, frame) ?? [];
  }

  /** Values an expression can name: the lane's locals (innermost binding wins) and its coordinates. */
  evaluator(t: SimThread, frame: number): (expr: string) => number {
    const vars = new Map<string, number>();
    vars.set('threadIdx.x', t.threadIdx[0]).set('threadIdx.y', t.threadIdx[1]).set('threadIdx.z', t.threadIdx[2]);
    vars.set('blockIdx.x', t.blockIdx[0]).set('blockIdx.y', t.blockIdx[1]).set('blockIdx.z', t.blockIdx[2]);
    vars.set('lane', t.lane).set('warp', t.warp);
    // Later entries are inner scopes: they shadow outer ones.
    for (const l of this.executor?.locals(t, frame) ?? []) {
      const v = l.value === 'true' ? 1 : l.value === 'false' ? 0 : Number(l.value);
      if (Number.isFinite(v) && l.value.trim() !== '') vars.set(l.name, v);
    }
    return (expr) => evaluate(expr, vars);
  }

  futures(): [] {
    return [];
  }

  /** Static `__shared__` variables, then dynamic shared memory. */
  sharedBuffers(block: number): Buffer[] {
    const st = this.machine.blockAt(block)?.state as { shared: Buffer[]; dynamic: Buffer } | undefined;
    return st ? [...st.shared, st.dynamic] : [];
  }

  /**
   * Blocked threads re-enter the statement they block in, and so does the lane the hook stopped last
   * (before its statement, the one at its pc): neither is a new arrival.
   */
  statementGate(stopped: SimThread | undefined): StatementGate {
    const last: (SourceLoc | undefined)[] = this.machine.threads.map((x) => (x.status === 'blocked' ? x.loc : undefined));
    if (stopped && stopped.status === 'ready') last[stopped.index] = this.executor?.frames(stopped)[0]?.loc;
    return {
      enters(t, loc) {
        if (last[t.index] === loc) return false;
        last[t.index] = loc;
        return true;
      },
    };
  }
}
