// Croqtile under the debug runtime (core/debug/target.ts): the host runner's launches one after
// another (host code runs in between without stopping), each simulated thread one debugger thread of
// one lane, frames as the constructs a thread is inside, futures, shared tensors, and expressions
// over the scalars in scope (parallel indices, loop variables, host scalars).
import type { DebugProgram, DebugProgramFactory, DebugProgramHooks, DebugProgramResult, DebugTarget, FrameInfo, FutureInfo, LocalInfo, StatementGate } from '../../../debug/target';
import { evaluate } from '../../../debug/expression';
import type { Machine, RunResult, SimThread, SourceLoc } from '../../../sim/machine';
import type { Buffer } from '../../../sim/memory';
import type { TraceThread } from '../../../sim/trace';
import type { SimulateRequest } from '../../../sim/run';
import { CroqtileProgram, type CroqtileLaunch } from './index';
import { deviceLists } from './launch';
import { CROQTILE_DEBUG_THREADS } from './debug-threads';

/** The debug program factory of a Croqtile request (`DebugRuntime`'s constructor argument). */
export function croqtileDebugProgram(request: SimulateRequest): DebugProgramFactory {
  return {
    ...CROQTILE_DEBUG_THREADS,
    async create(hooks) {
      return new CroqtileDebugProgram(request, hooks);
    },
  };
}

class CroqtileDebugProgram implements DebugProgram {
  readonly entryDescription = 'stopped at the first launch of the program';
  readonly noLaunchDescription = 'stopped at the program entry (host code only: no parallel region to debug)';
  readonly unverifiedLineMessage = 'no device statement starts on this line (breakpoints stop inside parallel regions; host code runs without stopping)';
  private readonly program: CroqtileProgram;

  constructor(request: SimulateRequest, hooks: DebugProgramHooks) {
    // Machines keep running after misuse and races: the debugger reports them itself.
    this.program = new CroqtileProgram(request, { onOutput: (text, t) => hooks.output(text, t), continueOnMisuse: true });
  }

  next(): DebugTarget | undefined {
    const l = this.program.next();
    return l && new CroqtileDebugTarget(l, this.program);
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
    const field = this.program.requestField;
    return field ? { ...this.program.result(), field } : this.program.result();
  }

  get steps(): number {
    return this.program.steps;
  }

  get buffers(): CroqtileProgram['buffers'] {
    return this.program.buffers;
  }

  get launches(): Machine[] {
    return this.program.launches;
  }

  /** Device code of every launch host code can reach (host code runs without stopping). */
  *statementCode(): Iterable<readonly { stmt: boolean; loc: SourceLoc }[]> {
    const { fn, interp } = this.program;
    if (!fn || !interp) return;
    for (const list of deviceLists(fn.body)) yield list.map((s) => ({ stmt: true, loc: interp.loc(s, fn.name) }));
  }

  traceThread(t: SimThread): TraceThread {
    return { block: t.block, warp: t.tid, role: t.role?.split(' ')[0] };
  }
}

class CroqtileDebugTarget implements DebugTarget {
  readonly machine: Machine;
  readonly index: number;
  readonly title: string;
  private readonly launch: CroqtileLaunch['launch'];

  constructor(l: CroqtileLaunch, program: CroqtileProgram) {
    this.machine = l.machine;
    this.index = l.index;
    this.launch = l.launch;
    this.title = `the parallel at line ${program.interp!.line(l.launch.root.span) + 1}`;
  }

  threadLabel(t: SimThread): string {
    return this.launch.threadLabel(t);
  }

  arriverLabel(t: SimThread): string {
    return this.launch.threadLabel(t);
  }

  frames(t: SimThread): FrameInfo[] {
    return this.launch.frames(t);
  }

  locals(t: SimThread, frame: number): LocalInfo[] {
    return this.launch.locals(t, frame);
  }

  evaluator(t: SimThread, frame: number): (expr: string) => number {
    const scope = this.launch.scope(t, frame);
    return (expr) => evaluate(expr, scope);
  }

  futures(t: SimThread): FutureInfo[] {
    return this.launch.futures(t);
  }

  /** The shared tensors a block's threads declared. */
  sharedBuffers(block: number): Buffer[] {
    const st = this.machine.blockAt(block)?.state as Map<string, unknown> | undefined;
    if (!st) return [];
    const bufs = new Set<Buffer>();
    const visit = (v: unknown): void => {
      if (!v || typeof v !== 'object') return;
      if ('buf' in v && 'shape' in v) {
        const buf = (v as { buf: Buffer }).buf;
        if (buf.space === 'shared') bufs.add(buf);
      } else if ('items' in v && Array.isArray((v as { items: unknown[] }).items)) for (const x of (v as { items: unknown[] }).items) visit(x);
    };
    for (const [key, v] of st) if (key.startsWith('decl:')) visit(v);
    return [...bufs];
  }

  /**
   * Croqtile threads never re-enter a statement: a thread the hook stopped does not ask again. Only
   * the thread a replay left before its statement asks again, once, and that is no new arrival.
   */
  statementGate(stopped: SimThread | undefined): StatementGate {
    const last: (SourceLoc | undefined)[] = [];
    if (stopped && stopped.status === 'ready' && !this.launch.stoppedByHook(stopped)) last[stopped.index] = stopped.loc;
    return {
      enters(t, loc) {
        const l = last[t.index];
        if (l !== undefined) {
          last[t.index] = undefined;
          if (l === loc) return false;
        }
        return true;
      },
    };
  }
}
