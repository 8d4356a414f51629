// A tiny scripted executor for testing the simulator runtime without a language front end: each
// thread runs a list of instructions (arrive, waits, syncs, warp exchanges, async work, shared
// accesses, prints) and calls the machine's services exactly as the executor contract says.
import { type Executor, Machine, type MachineOptions, type SimBarrier, type SimBlock, type SimThread, SimError } from '../../../core/sim/machine';
import { Buffer } from '../../../core/sim/memory';

export type Op =
  | { op: 'init'; bar: string; count: number }
  | { op: 'arrive'; bar: string; count?: number; tx?: number; drop?: boolean; save?: string }
  | { op: 'expectTx'; bar: string; bytes: number }
  | { op: 'waitParity'; bar: string; parity: number }
  | { op: 'waitToken'; bar: string; token: string }
  | { op: 'testParity'; bar: string; parity: number; save: string }
  | { op: 'sync'; id?: number; count?: number }
  | { op: 'arriveBlock'; id: number; count: number }
  | { op: 'syncWarp'; mask?: number }
  | { op: 'exchange'; mask?: number; value: (t: SimThread) => number; save: string }
  | { op: 'async'; engine: string; latency: number; label?: string; complete?: (m: Machine, t: SimThread) => void; writes?: [number, number]; reads?: [number, number]; tx?: string; txBytes?: number; save?: string; proxy?: 'async' | 'generic' }
  | { op: 'fenceProxyAsync' }
  | { op: 'inval'; bar: string }
  | { op: 'commit'; engine: string }
  | { op: 'waitGroups'; engine: string; n: number }
  | { op: 'waitAll'; engine: string }
  | { op: 'afterAll'; engine: string; bar: string }
  | { op: 'waitOp'; saved: string }
  | { op: 'read' | 'write'; offset: number; size?: number }
  | { op: 'print'; text: string }
  | { op: 'nop' }
  | { op: 'fault'; error: () => Error }
  | { op: 'call'; fn: (m: Machine, t: SimThread) => void };

export interface ThreadState {
  pc: number;
  prog: Op[];
  vars: Map<string, unknown>;
}

export interface BlockState {
  /** Shared memory holding the barriers (8 bytes each, by name). */
  barriers: Buffer;
  /** Shared data buffer the `read`/`write` ops touch (race tests). */
  data: Buffer;
}

export interface ScriptOptions {
  /** Barrier name → init count, initialised when each block starts, before any of its threads runs (ordered before all of them). */
  barriers?: Record<string, number>;
  /** Line for each op: defaults to the op's index in the thread's program. */
  lineOf?: (t: SimThread, pc: number) => number;
  /** Every executed op as `thread:pc` (for determinism tests). */
  log?: string[];
}

export function repeat(n: number, body: (i: number) => Op[]): Op[] {
  const out: Op[] = [];
  for (let i = 0; i < n; i++) out.push(...body(i));
  return out;
}

/** The executor: `program(t)` gives each thread its instruction list. */
export class ScriptExecutor implements Executor {
  private nextBuf = 0;
  private readonly blocks = new Map<number, SimBlock>();
  readonly names = new Map<string, number>();
  ended: number[] = [];
  constructor(
    readonly program: (t: SimThread) => Op[],
    readonly opts: ScriptOptions = {},
  ) {}

  private offsetOf(name: string): number {
    let o = this.names.get(name);
    if (o === undefined) this.names.set(name, (o = this.names.size * 8));
    return o;
  }

  barrier(m: Machine, block: SimBlock | number, name: string): SimBarrier {
    const b = typeof block === 'number' ? this.blocks.get(block)! : block;
    const st = b.state as BlockState;
    return m.mbarrierAt(st.barriers, this.offsetOf(name), name);
  }

  startBlock(m: Machine, block: SimBlock): void {
    const st: BlockState = {
      barriers: new Buffer(this.nextBuf++, 'bars', 'shared', 512, block.index),
      data: new Buffer(this.nextBuf++, 'smem', 'shared', 1024, block.index),
    };
    block.state = st;
    this.blocks.set(block.index, block);
    for (const [name, count] of Object.entries(this.opts.barriers ?? {})) m.mbInit(undefined, this.barrier(m, block, name), count);
  }

  startThread(_m: Machine, t: SimThread): void {
    const prog = this.program(t);
    t.state = { pc: 0, prog, vars: new Map() } satisfies ThreadState;
    if (!prog.length) t.status = 'done';
  }

  endBlock(_m: Machine, block: SimBlock): void {
    this.ended.push(block.index);
    this.blocks.delete(block.index);
  }

  run(m: Machine, t: SimThread, budget: number): number {
    const s = t.state as ThreadState;
    const bst = this.blocks.get(t.block)!.state as BlockState;
    const bar = (name: string) => m.mbarrierAt(bst.barriers, this.offsetOf(name), name);
    let ran = 0;
    while (ran < budget && t.status === 'ready') {
      if (s.pc >= s.prog.length) {
        t.status = 'done';
        break;
      }
      const line = this.opts.lineOf ? this.opts.lineOf(t, s.pc) : s.pc;
      t.loc = { line };
      if (m.lineHook && m.atStatement(t, t.loc)) return ran;
      const o = s.prog[s.pc];
      let ok = true;
      switch (o.op) {
        case 'init':
          m.mbInit(t, bar(o.bar), o.count);
          break;
        case 'arrive': {
          const tok = m.mbArrive(t, bar(o.bar), o.count ?? 1, o.tx ?? 0, o.drop ?? false);
          if (o.save) s.vars.set(o.save, tok);
          break;
        }
        case 'fenceProxyAsync':
          m.fenceProxyAsync(t);
          break;
        case 'inval':
          m.mbInval(t, bar(o.bar));
          break;
        case 'expectTx':
          m.mbExpectTx(t, bar(o.bar), o.bytes);
          break;
        case 'waitParity':
          ok = m.mbWaitParity(t, bar(o.bar), o.parity);
          break;
        case 'waitToken':
          ok = m.mbWaitToken(t, bar(o.bar), s.vars.get(o.token) as number);
          break;
        case 'testParity':
          s.vars.set(o.save, m.mbTestParity(t, bar(o.bar), o.parity));
          break;
        case 'sync':
          ok = m.syncBlock(t, o.id, o.count);
          break;
        case 'arriveBlock':
          m.arriveBlock(t, o.id, o.count);
          break;
        case 'syncWarp':
          ok = m.syncWarp(t, o.mask);
          break;
        case 'exchange': {
          const r = m.warpExchange(t, o.mask ?? 0xffffffff, o.value(t));
          if (r) s.vars.set(o.save, r);
          ok = r !== undefined;
          break;
        }
        case 'async': {
          const me = t;
          const op = m.asyncIssue(t, o.engine, o.label ?? o.engine, o.latency, (mm) => {
            if (o.reads) mm.accessAsync(op, bst.data, o.reads[0], o.reads[1], false, o.proxy);
            if (o.writes) mm.accessAsync(op, bst.data, o.writes[0], o.writes[1], true, o.proxy);
            if (o.tx) mm.mbCompleteTx(bar(o.tx), o.txBytes ?? 0, op);
            o.complete?.(mm, me);
          });
          m.asyncEffects(op, { signals: o.tx ? [bar(o.tx)] : undefined, writesShared: !!o.writes });
          if (o.save) s.vars.set(o.save, op);
          break;
        }
        case 'commit':
          m.asyncCommit(t, o.engine);
          break;
        case 'waitGroups':
          ok = m.asyncWaitGroups(t, o.engine, o.n);
          break;
        case 'waitAll':
          ok = m.asyncWaitAll(t, o.engine);
          break;
        case 'afterAll': {
          const b = bar(o.bar);
          m.asyncAfterAll(t, o.engine, `${o.engine} commit`, (mm) => mm.mbArrive(undefined, b));
          break;
        }
        case 'waitOp':
          ok = m.asyncWait(t, s.vars.get(o.saved) as never, `future ${o.saved}`);
          break;
        case 'read':
        case 'write':
          m.access(t, bst.data, o.offset, o.size ?? 4, o.op === 'write');
          break;
        case 'print':
          m.print(o.text, t);
          break;
        case 'nop':
          break;
        case 'fault':
          throw o.error();
        case 'call':
          o.fn(m, t);
          break;
      }
      if (!ok) return ran;
      this.opts.log?.push(`${t.index}:${s.pc}`);
      s.pc++;
      ran++;
      if (s.pc >= s.prog.length) t.status = 'done';
      if (m.yieldNow) return ran;
    }
    return ran;
  }
}

export function machine(program: (t: SimThread) => Op[], options: Partial<MachineOptions> & ScriptOptions = {}): { m: Machine; ex: ScriptExecutor } {
  const { barriers, lineOf, log, ...mo } = options;
  const ex = new ScriptExecutor(program, { barriers, lineOf, log });
  const m = new Machine(ex, { grid: [1, 1, 1], block: [1, 1, 1], ...mo });
  return { m, ex };
}

export { SimError };
