// A stand-in for core/sim/run.ts `simulate` while the language executors are being built: a real
// Machine driven by a tiny scripted executor, so barrier states, checksums, reports and trace
// events are the runtime's own. The kernel is picked by name (`req.kernel`); the "source" is ignored.
//
// Every kernel runs 64-thread blocks: warp 0 are consumers, warp 1 producers, on one mbarrier `full`.
// Thread 0 initialises it, everyone meets at __syncthreads, the producers arrive, thread 0 also
// arrives announcing 128 transaction bytes and issues a 600-cycle "TMA" copy that completes them,
// and the consumers wait for phase 0 then write out[tid] = in[tid] * scale (in defaults to iota).
import { materialize } from '../../core/sim/args';
import { type Executor, Machine, type SimBlock, SimError, type SimThread } from '../../core/sim/machine';
import { Buffer, read, write } from '../../core/sim/memory';
import { type NamedBuffer, type SimulateRequest, type SimulateResult, runLaunch } from '../../core/sim/run';

export type FakeKernel = 'pipeline' | 'hang' | 'overarrive' | 'race' | 'spin' | 'oob' | 'unsupported';

type Step = (m: Machine, t: SimThread) => boolean;

interface ThreadState {
  pc: number;
  prog: Step[];
}

interface BlockState {
  bars: Buffer;
  data: Buffer;
}

class FakeExecutor implements Executor {
  constructor(
    readonly kernel: FakeKernel,
    readonly buffers: Map<string, NamedBuffer>,
    readonly scalars: Map<string, number>,
  ) {}

  startBlock(_m: Machine, block: SimBlock): void {
    block.state = { bars: new Buffer(1000 + block.index, 'bars', 'shared', 8, block.index), data: new Buffer(2000 + block.index, 'stage', 'shared', 16, block.index) };
  }

  startThread(_m: Machine, t: SimThread): void {
    t.role = t.warp === 0 ? 'consumer' : 'producer';
    t.state = { pc: 0, prog: this.program(t) } satisfies ThreadState;
  }

  run(m: Machine, t: SimThread, budget: number): number {
    const s = t.state as ThreadState;
    let ran = 0;
    while (ran < budget) {
      if (s.pc >= s.prog.length) {
        if (this.kernel === 'spin') s.pc = 0; // loops forever
        else {
          t.status = 'done';
          return ran;
        }
      }
      t.loc = { line: s.pc, func: this.kernel };
      if (!s.prog[s.pc](m, t)) return ran;
      s.pc++;
      ran++;
      if (m.yieldNow) return ran;
    }
    return ran;
  }

  private program(t: SimThread): Step[] {
    const full = (m: Machine) => m.mbarrierAt((m.blocks.find((b) => b.index === t.block)!.state as BlockState).bars, 0, 'full');
    const data = (m: Machine) => (m.blocks.find((b) => b.index === t.block)!.state as BlockState).data;
    const count = this.kernel === 'hang' ? 34 : 33;
    const steps: Step[] = [
      (m) => {
        if (t.tid === 0) m.mbInit(t, full(m), count);
        return true;
      },
      (m) => m.syncBlock(t),
    ];
    if (this.kernel === 'spin') return [() => true];
    if (this.kernel === 'unsupported') return [() => true, () => { throw new SimError('asm("nanosleep.u32")', { line: 1 }, 'unsupported'); }];
    if (this.kernel === 'race') return [(m) => (m.access(t, data(m), 0, 4, t.warp === 1), true)];
    if (t.warp === 1) {
      steps.push((m) => {
        m.mbArrive(t, full(m), this.kernel === 'overarrive' && t.lane === 0 ? 64 : 1);
        return true;
      });
      return steps;
    }
    if (t.tid === 0) {
      steps.push((m) => {
        m.mbArrive(t, full(m), 1, 128);
        return true;
      });
      steps.push((m) => {
        const bar = full(m);
        const op = m.asyncIssue(t, 'tma', 'copy in → stage', 600, (mm) => mm.mbCompleteTx(bar, 128, op));
        return true;
      });
    }
    steps.push((m) => m.mbWaitParity(t, full(m), 0));
    steps.push(() => {
      const out = this.buffers.get('out');
      if (!out) return true;
      const input = this.buffers.get('in');
      const x = input ? read({ buf: input.buffer, offset: t.tid * 4 }, 'f32') : t.tid;
      const offset = this.kernel === 'oob' && t.tid === 31 ? out.buffer.size : t.tid * 4;
      write({ buf: out.buffer, offset }, 'f32', x * (this.scalars.get('scale') ?? 1));
      return true;
    });
    if (t.tid === 0) {
      steps.push((m) => {
        m.print(`block ${t.block}: consumers done\n`, t);
        return true;
      });
    }
    return steps;
  }
}

/** A `simulate` for `runSim`: runs the named fake kernel on a real Machine. */
export function fakeSimulate(options: { streamPrints?: boolean; seen?: SimulateRequest[] } = {}): (req: SimulateRequest) => Promise<SimulateResult> {
  return async (req) => {
    options.seen?.push(req);
    const buffers = new Map<string, NamedBuffer>();
    const scalars = new Map<string, number>();
    (req.args ?? []).forEach((a, i) => {
      if (a.kind === 'buffer') buffers.set(a.name, materialize(a, i));
      else if (a.kind === 'scalar') scalars.set(a.name, a.value);
    });
    const machine = new Machine(new FakeExecutor((req.kernel ?? 'pipeline') as FakeKernel, buffers, scalars), {
      grid: req.grid ?? [1, 1, 1],
      block: req.block ?? [64, 1, 1],
      seed: req.seed,
      schedule: req.schedule,
      maxSteps: req.maxSteps,
      trace: req.trace,
    });
    // runLaunch streams prints through onPrint; without streamPrints the fake behaves like an
    // executor that only reports output in the result.
    return runLaunch({ machine, buffers: [...buffers.values()] }, options.streamPrints ? req : { ...req, onPrint: undefined });
  };
}
