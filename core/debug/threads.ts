// Debugger threads over machine threads: a debugger thread groups `lanes` machine threads of one block
// (a CUDA warp of 32 lanes, one simulated Croqtile thread), ids 1, 2, … in launch order
// (`block * threadsPerBlock + group + 1`), each with a shown lane whose frames, locals, breakpoints
// and steps the debugger follows. Names come from the launch's debug target.
import type { Machine, SimThread } from '../sim/machine';
import type { DebugTarget } from './target';
import type { DebugThread } from './types';

export class ThreadMap {
  private readonly shown = new Map<number, number>();

  constructor(
    /** Machine threads per debugger thread. */
    readonly lanes: number,
    private readonly machine: () => Machine,
    private readonly target: () => DebugTarget | undefined,
  ) {}

  /** Debugger threads per block (warps for CUDA, simulated threads for Croqtile). */
  get perBlock(): number {
    return Math.ceil(this.machine().blockSize / this.lanes);
  }

  id(t: SimThread): number {
    return t.block * this.perBlock + Math.floor(t.tid / this.lanes) + 1;
  }

  /** A machine thread's lane in its debugger thread (0 when a debugger thread is one machine thread). */
  laneIndex(t: SimThread): number {
    return t.tid % this.lanes;
  }

  /** The debugger thread's name for a machine thread (its warp for CUDA). */
  label(t: SimThread): string {
    return this.target()!.threadLabel(t);
  }

  /** Who arrived last: a CUDA lane (`block 0 · warp 1 · lane 3 · producer`) or a Croqtile thread. */
  arriver(t: SimThread): string {
    return this.target()!.arriverLabel(t);
  }

  laneOf(thread: number): number {
    return this.shown.get(thread) ?? 0;
  }

  /** Shows (and follows) lane `lane` of debugger thread `thread` (checked by the caller). */
  show(thread: number, lane: number): void {
    this.shown.set(thread, lane);
  }

  /** The shown lane's machine thread of debugger thread `id` (undefined when it does not exist). */
  displayed(id: number): SimThread | undefined {
    return this.lane(id, this.laneOf(id)) ?? this.lane(id, 0);
  }

  lane(id: number, lane: number): SimThread | undefined {
    if (!this.target() || !Number.isInteger(id) || id < 1) return undefined;
    const w = this.perBlock;
    return this.machine().blocks[Math.floor((id - 1) / w)]?.threads[((id - 1) % w) * this.lanes + lane];
  }

  /** The machine threads of debugger thread `id`. */
  lanesOf(id: number): SimThread[] {
    const out: SimThread[] = [];
    for (let lane = 0; lane < this.lanes; lane++) {
      const t = this.lane(id, lane);
      if (t) out.push(t);
    }
    return out;
  }

  all(): DebugThread[] {
    if (!this.target()) return [];
    const out: DebugThread[] = [];
    for (const b of this.machine().blocks) {
      for (let w = 0; w * this.lanes < b.threads.length; w++) out.push(this.describe(b.index * this.perBlock + w + 1)!);
    }
    return out;
  }

  describe(id: number): DebugThread | undefined {
    const t = this.displayed(id);
    if (!t) return undefined;
    const g = this.lanes;
    const w = Math.floor(t.tid / g);
    const lanes = this.machine().blocks[Math.floor((id - 1) / this.perBlock)].threads.slice(w * g, w * g + g);
    const status = lanes.every((l) => l.status === 'done' || l.status === 'faulted') ? 'exited' : lanes.every((l) => l.status !== 'ready') ? 'blocked' : 'running';
    return { id, block: t.block, warp: w, lane: this.laneIndex(t), lanes: lanes.length, role: t.role, label: this.label(t), status };
  }
}
