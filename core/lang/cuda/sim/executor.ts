// The CUDA executor the Machine drives: per-block shared memory (one buffer per `__shared__`
// variable, laid out in a 32-bit shared window for `__cvta_generic_to_shared` and inline PTX),
// per-thread frame stacks over the compiled instruction arrays, the statement loop that honours
// the runtime contract (budget, blocking, yieldNow, lineHook), and the debugger's view of a thread:
//   frames(t)         → innermost first: { name, loc } per call frame;
//   locals(t, index)  → the variables in scope in that frame, with their current values.
import type { FrameInfo, LocalInfo } from '../../../debug/target';
import { type Executor, LaneFault, type Machine, type SimBlock, type SimThread, SimError, type SourceLoc } from '../../../sim/machine';
import { Buffer, type Pointer } from '../../../sim/memory';
import type { Compiler, FnInst } from './compile';
import { shapeOf } from './compile';
import { type BlockCtx, BLOCKED, type CompiledFn, type ExecutorLike, Frame, loader, loadPointer, NO_ROW, RunStorage, ThreadCtx } from './runtime';
import { objectArray } from '../../../sim/elements-kinds';
import { bitFieldValue } from './lvalues';
import { alignOfType, type CType, sizeOfType, typeName } from './types';

// The debugger's frame and local shapes belong to the language-neutral debug interface.
export type { FrameInfo, LocalInfo };

export class CudaExecutor implements Executor, ExecutorLike {
  current?: ThreadCtx;
  private readonly registry = new Map<number, Buffer>();

  constructor(
    readonly compiler: Compiler,
    readonly kernel: FnInst,
    /** Kernel argument values, by parameter index. */
    readonly args: unknown[],
    private bufferIds: () => number,
    /** The run's storage; a whole program's host and kernel launches share one. */
    readonly storage: RunStorage = new RunStorage(compiler.globals),
  ) {}

  /** Numbered by the compiler: its instructions (and their `site`) outlive this launch in the compiled-program cache. */
  newSite(): number {
    return this.compiler.newSite();
  }

  nextBufferId(): number {
    return this.bufferIds();
  }

  registerBuffer(buf: Buffer): void {
    this.registry.set(buf.id, buf);
  }

  bufferById(id: number): Buffer | undefined {
    return this.registry.get(id);
  }

  startBlock(m: Machine, block: SimBlock): void {
    const window: { base: number; buf: Buffer }[] = [];
    const baseOf = new Map<Buffer, number>();
    // Shared window starts above 0 so a null address is never a variable.
    let addr = 1024;
    const place = (buf: Buffer, align: number) => {
      addr = Math.ceil(addr / align) * align;
      window.push({ base: addr, buf });
      baseOf.set(buf, addr);
      addr += Math.max(buf.size, 1);
    };
    const shared = this.compiler.shared.map((v) => {
      const et = elemType(v.type);
      const buf = new Buffer(this.nextBufferId(), v.name, 'shared', Math.max(1, sizeOfType(v.type)), block.index, et?.k === 'num' ? et.dt : et?.k === 'barrier' ? 'u64' : undefined, shapeOf(v.type));
      place(buf, Math.max(v.align, 16));
      return buf;
    });
    const dynamic = new Buffer(this.nextBufferId(), 'extern __shared__', 'shared', m.dynamicSmem, block.index);
    // At the alignment its declarations ask for (a swizzled TMA destination needs 1024), at least 128.
    place(dynamic, Math.max(128, this.compiler.dynamicSharedAlign));
    const blk: BlockCtx = { rank: block.rank, shared, dynamic, window, baseOf, tmemNext: 0 };
    if (m.clusters.size > 1)
      blk.peerOf = (buf) => {
        const owner = buf.block === undefined ? undefined : m.blockAt(buf.block);
        if (!owner || owner.cluster !== block.cluster) return undefined;
        m.checkCtaAlive(owner.index, `an access to '${buf.name}' of another CTA`);
        return { rank: owner.rank, ctx: owner.state as BlockCtx };
      };
    block.state = blk;
  }

  /**
   * Reports inside a helper name the calls that led there (the frames' call sites, outermost first).
   * A location in another function than the innermost frame's makes that frame a call site too. One
   * function for every thread (it is called as `t.callSites(at)`): a big grid makes no closure per thread.
   */
  private readonly callSitesOf = ((ex: CudaExecutor) =>
    function (this: SimThread, at: SourceLoc): SourceLoc[] {
      const frames = ex.frames(this);
      const inCallee = at.func !== undefined && frames.length > 0 && frames[0].name !== at.func;
      return (inCallee ? frames : frames.slice(1)).reverse().map((fr) => fr.loc);
    })(this);

  startThread(m: Machine, t: SimThread): void {
    const blk = m.blockAt(t.block)!.state as BlockCtx;
    const ts = new ThreadCtx(t, m, blk, this);
    const f = Frame.enter(this.kernel.fn, ts, null);
    for (let i = 0; i < this.args.length; i++) f.v[i] = this.args[i];
    ts.frame = f;
    t.state = ts;
    t.callSites = this.callSitesOf;
    t.loc = this.kernel.fn.code[0]?.loc ?? this.kernel.fn.loc;
  }

  endBlock(_m: Machine, block: SimBlock): void {
    const blk = block.state as BlockCtx;
    for (const b of [...blk.shared, blk.dynamic]) this.registry.delete(b.id);
  }

  run(m: Machine, t: SimThread, budget: number): number {
    const ts = t.state as ThreadCtx;
    this.current = ts;
    let f = ts.frame;
    let code = f.fn.code;
    let n = 0;
    try {
      while (n < budget) {
        const pc = f.pc;
        const ins = code[pc];
        if (ins.stmt) {
          t.loc = ins.loc;
          if (m.lineHook && m.atStatement(t, ins.loc)) break;
        }
        const r = ins.run(f);
        if (r >= 0) {
          f.pc = r;
          // Jumps are free, except backward ones: every loop iteration costs a statement.
          if (ins.stmt || r <= pc) n++;
        } else if (r === BLOCKED) {
          break;
        } else {
          n++;
          const nf = ts.frame as Frame | null;
          if (!nf) {
            t.status = 'done';
            break;
          }
          f = nf;
          code = f.fn.code;
        }
        if (m.yieldNow) break;
      }
    } finally {
      this.current = undefined;
    }
    return n;
  }

  /** Two lanes are converged when their innermost frames are at the same instruction of the same function. */
  converged(a: SimThread, b: SimThread): boolean {
    const fa = (a.state as ThreadCtx).frame;
    const fb = (b.state as ThreadCtx).frame;
    return fa.fn.code === fb.fn.code && fa.pc === fb.pc;
  }

  // The lanes of a warp quantum (reused: one quantum at a time): their threads and innermost frames,
  // the first `na` entries, and the parked lanes, the first `np`. Counts, not array lengths: V8 gives
  // a shortened array a new, smaller store, so a group that shrinks and grows again every row would
  // allocate every time.
  private readonly laneThreads: SimThread[] = objectArray();
  private readonly laneFrames: Frame[] = objectArray();
  private readonly laneParked: SimThread[] = objectArray();
  private na = 0;
  private np = 0;
  /** Lanes (by position in the group) that left during the current row: blocked or finished. */
  private readonly gone = new Uint8Array(32);
  /** Each lane's next pc after a row that split (Instr.runRow). */
  private readonly rowPcs = new Int32Array(32);

  /**
   * Warp-lockstep execution (the machine's contract for `runLanes`): the converged lanes execute each
   * instruction in turn, the leader first, before any of them goes on. Each lane keeps its own frame,
   * locals and clock, so per-thread semantics (races, syncs, faults, the line hook) are those of
   * single threads interleaved statement by statement. After each instruction the lanes still at
   * the group's next instruction stay; a branch that splits them keeps the part with the lowest pc
   * in the function (the other side of an if, a loop's exit: where the group will arrive later), and
   * the rest wait as parked lanes, which rejoin when the group reaches their instruction. A group
   * that jumps past a parked lane of its function ends its quantum, so the lane behind catches up
   * (reconvergence at the join point, as the GPU's).
   */
  runLanes(m: Machine, lanes: readonly SimThread[], n: number, parked: readonly SimThread[], np: number, perLane: number, total: number, ran: Int32Array): void {
    const act = this.laneThreads;
    const fr = this.laneFrames;
    const park = this.laneParked;
    for (let j = 0; j < n; j++) {
      const t = lanes[j];
      act[j] = t;
      fr[j] = (t.state as ThreadCtx).frame;
    }
    this.na = n;
    for (let j = 0; j < np; j++) park[j] = parked[j];
    this.np = np;
    this.gone.fill(0);
    let left = total;
    let rows = 0;
    let t: SimThread | undefined;
    const pcs = this.rowPcs;
    try {
      outer: while (rows < perLane) {
        const f0 = fr[0];
        const code = f0.fn.code;
        const pc = f0.pc;
        const ins = code[pc];
        const stmt = ins.stmt;
        const hook = stmt ? m.lineHook : undefined;
        let out = false;
        // Whether the lanes may now be at different instructions (a branch taken differently, a call or return).
        let spread = false;
        let r0 = BLOCKED;
        // Statements and backward jumps count against the quantum, as in `run` (forward jumps are free).
        let counted = stmt;
        const rowForm = ins.runRow;
        if (rowForm !== undefined && hook === undefined && left >= this.na) {
          // The instruction's lane-vector form: the whole row in one evaluation. The lanes' locations
          // and statement counts are brought up to date when the group changes or the quantum ends,
          // or before a row with effects (a report or a phase completion may show them).
          const k = this.na;
          if (ins.rowFx) {
            // Its reports and phase completions see each lane's location (its statement counts can wait).
            const loc = stmt ? ins.loc : this.pendingLoc;
            if (loc !== undefined) for (let j = 0; j < k; j++) act[j].loc = loc;
            this.pendingLoc = undefined;
          } else if (stmt) this.pendingLoc = ins.loc;
          const r = rowForm(fr, k, pcs);
          if (r !== NO_ROW) {
            if (r >= 0) {
              for (let j = 0; j < k; j++) fr[j].pc = r;
              if (stmt || r <= pc) {
                this.pendingRows++;
                left -= k;
                rows++;
              }
            } else {
              this.settle(act, ran);
              spread = true;
              for (let j = 0; j < k; j++) {
                const p = pcs[j];
                if (p === BLOCKED) {
                  // Blocked lanes stay at the instruction (it runs again when they wake) and ran no statement.
                  this.gone[j] = 1;
                  out = true;
                  continue;
                }
                fr[j].pc = p;
                if (stmt || p <= pc) {
                  ran[act[j].tid & 31]++;
                  left--;
                  counted = true;
                }
              }
              if (counted) rows++;
              if (out) this.compact(act, fr);
              if (!this.na) break;
            }
            // A row with effects may have raised a report or asked for a pause.
            if (m.yieldNow) break;
            if (spread || this.np) {
              this.settle(act, ran);
              if (!this.regroup(act, fr, park)) break;
            }
            continue;
          }
          // NO_ROW: the lanes run one by one below.
        }
        this.settle(act, ran);
        for (let j = 0; j < this.na; j++) {
          if (left <= 0) break outer;
          t = act[j];
          const f = fr[j];
          const ts = f.ts;
          if (stmt) {
            t.loc = ins.loc;
            if (hook && m.atStatement(t, ins.loc)) break outer;
          }
          this.current = ts;
          const r = ins.run(f);
          if (r >= 0) {
            f.pc = r;
            if (r0 !== r) {
              if (r0 !== BLOCKED) spread = true;
              r0 = r;
            }
            if (stmt || r <= pc) {
              ran[t.tid & 31]++;
              left--;
              counted = true;
            }
          } else if (r === BLOCKED) {
            out = true;
            this.gone[j] = 1;
          } else {
            ran[t.tid & 31]++;
            left--;
            spread = true;
            const nf = ts.frame as Frame | null;
            if (!nf) {
              t.status = 'done';
              out = true;
              this.gone[j] = 1;
            } else fr[j] = nf;
          }
          if (m.yieldNow) {
            if (out) this.compact(act, fr);
            break outer;
          }
        }
        if (counted) rows++;
        if (out) this.compact(act, fr);
        if (!this.na) break;
        if ((spread || this.np) && !this.regroup(act, fr, park)) break;
      }
    } catch (e) {
      // A row with effects names its faulting lane itself.
      throw e instanceof LaneFault ? e : new LaneFault(t ?? lanes[0], e);
    } finally {
      this.settle(act, ran);
      this.current = undefined;
    }
  }

  // What vector rows left to bring up to date in the group's lanes: the statement they reached, and
  // how many statements each ran.
  private pendingLoc: SimThread['loc'] | undefined;
  private pendingRows = 0;

  private settle(act: SimThread[], ran: Int32Array): void {
    const loc = this.pendingLoc;
    const rows = this.pendingRows;
    if (loc === undefined && rows === 0) return;
    for (let j = 0; j < this.na; j++) {
      const t = act[j];
      if (loc !== undefined) t.loc = loc;
      ran[t.tid & 31] += rows;
    }
    this.pendingLoc = undefined;
    this.pendingRows = 0;
  }

  /** Drops the lanes that left (blocked or finished) from the group. */
  private compact(act: SimThread[], fr: Frame[]): void {
    const gone = this.gone;
    let k = 0;
    for (let j = 0; j < this.na; j++) {
      if (gone[j]) {
        gone[j] = 0;
        continue;
      }
      act[k] = act[j];
      fr[k] = fr[j];
      k++;
    }
    this.na = k;
  }

  /**
   * After an instruction: splits the group when its lanes went to different instructions (keeping the
   * part with the lowest pc in the leader's function; the rest are parked), lets parked lanes at the
   * group's instruction join, and returns false when the group passed a parked lane of its function
   * (the quantum ends so that lane catches up).
   */
  private regroup(act: SimThread[], fr: Frame[], park: SimThread[]): boolean {
    const code = fr[0].fn.code;
    let pc = fr[0].pc;
    let split = false;
    for (let j = 1; j < this.na; j++) {
      const f = fr[j];
      if (f.fn.code === code && f.pc === pc) continue;
      split = true;
      if (f.fn.code === code && f.pc < pc) pc = f.pc;
    }
    if (split) {
      // Keep the lanes at (code, pc), leader order preserved; park the others.
      let k = 0;
      for (let j = 0; j < this.na; j++) {
        const f = fr[j];
        if (f.fn.code === code && f.pc === pc) {
          act[k] = act[j];
          fr[k] = f;
          k++;
        } else park[this.np++] = act[j];
      }
      this.na = k;
    }
    if (!this.np) return true;
    let behind = false;
    let kept = 0;
    for (let j = 0; j < this.np; j++) {
      const p = park[j];
      if (p.status !== 'ready') continue;
      const f = (p.state as ThreadCtx).frame;
      if (f.fn.code === code) {
        if (f.pc === pc) {
          act[this.na] = p;
          fr[this.na++] = f;
          continue;
        }
        if (f.pc < pc) behind = true;
      }
      park[kept++] = p;
    }
    this.np = kept;
    return !behind;
  }

  runSync(ts: ThreadCtx, fn: CompiledFn, env: Frame | null): void {
    const saved = ts.frame;
    const savedRace = ts.race;
    // The completion function runs once per phase on behalf of every arriver, before any waiter
    // is released. Its accesses would be stamped with the last arriver's clock *after* its arrival,
    // which the published phase does not include, so they are not race-checked (a known limit).
    ts.race = false;
    const base = new Frame(fn, ts, null);
    base.env = env;
    ts.frame = base;
    let f = base;
    let guard = 0;
    try {
      for (;;) {
        const ins = f.fn.code[f.pc];
        const r = ins.run(f);
        if (r >= 0) f.pc = r;
        else if (r === BLOCKED) throw new SimError(`${fn.name} blocks (it waits or synchronises), but a barrier's completion function must run to the end`, ins.loc);
        else {
          const nf = ts.frame as Frame | null;
          if (!nf) break;
          f = nf;
        }
        if (++guard > 50_000_000) throw new SimError(`${fn.name} does not terminate`, ins.loc);
      }
    } finally {
      ts.frame = saved;
      ts.race = savedRace;
    }
  }

  // -------------------------------------------------------------- debugger view

  /** Call frames of `t`, innermost first. */
  frames(t: SimThread): FrameInfo[] {
    const ts = t.state as ThreadCtx | undefined;
    const out: FrameInfo[] = [];
    let first = true;
    for (let f: Frame | null = ts?.frame ?? null; f; f = f.caller) {
      // A caller's pc is already past its call instruction.
      const ins = f.fn.code[first ? f.pc : f.pc - 1];
      out.push({ name: f.fn.name, loc: ins?.loc ?? f.fn.loc });
      first = false;
    }
    return out;
  }

  /** Variables in scope in frame `index` (0 = innermost) of `t`, with their values. */
  locals(t: SimThread, index = 0): LocalInfo[] {
    const ts = t.state as ThreadCtx | undefined;
    let f: Frame | null = ts?.frame ?? null;
    for (let i = 0; i < index && f; i++) f = f.caller;
    if (!f) return [];
    const pc = index === 0 ? f.pc : f.pc - 1;
    const out: LocalInfo[] = [];
    for (const l of f.fn.locals) {
      if (pc < l.from || pc >= l.to) continue;
      let value: string;
      try {
        if (l.where === 'slot') value = show(f.v[l.index], l.type);
        else if (l.where === 'num') value = show(f.d[l.index], l.type);
        else if (l.where === 'mem') value = showMem({ buf: f.mem[l.index], offset: 0 }, l.type);
        else value = f.v[l.index] ? showMem(f.v[l.index] as Pointer, l.type) : 'null';
      } catch {
        value = '?';
      }
      out.push({ name: l.name, type: typeName(l.type), value });
    }
    return out;
  }
}

function elemType(t: CType): CType | undefined {
  while (t.k === 'arr') t = t.of;
  return t;
}

function show(v: unknown, t: CType): string {
  if (v === undefined) return '?';
  if (v === null) return 'null';
  if (typeof v === 'number') return t.k === 'num' && t.dt === 'bool' ? (v ? 'true' : 'false') : String(v);
  if (typeof v === 'object' && v && 'buf' in v) {
    const p = v as Pointer;
    return `&${p.buf.name}${p.offset ? `+${p.offset}` : ''}`;
  }
  if (typeof v === 'object' && v && 'fn' in v) return `lambda ${(v as { fn: CompiledFn }).fn.name}`;
  return String(v);
}

function showMem(p: Pointer, t: CType, depth = 0): string {
  switch (t.k) {
    case 'num':
      return show(loader(t.dt)(p.buf, p.offset), t);
    case 'ptr':
      return show(loadPointer(p.buf, p.offset), t);
    case 'arr': {
      const es = sizeOfType(t.of);
      const n = Math.min(Math.max(t.n, 0), 16);
      const items: string[] = [];
      for (let i = 0; i < n; i++) items.push(depth > 2 ? '…' : showMem({ buf: p.buf, offset: p.offset + i * es }, t.of, depth + 1));
      return `[${items.join(', ')}${t.n > 16 ? ', …' : ''}]`;
    }
    case 'struct':
      return `{${t.def.fields.filter((fl) => !fl.via).map((fl) => `${fl.name || '<anonymous>'}: ${depth > 2 ? '…' : fl.bits ? String(bitFieldValue(p.buf, p.offset + fl.offset, fl)) : showMem({ buf: p.buf, offset: p.offset + fl.offset }, fl.type, depth + 1)}`).join(', ')}}`;
    case 'barrier':
      return `cuda::barrier @${p.buf.name}+${p.offset}`;
    default:
      void alignOfType;
      return typeName(t);
  }
}

/**
 * The executor of a launch whose kernel could not be compiled: each thread stops at its first step with
 * the compile error, located where the compiler found it, so the run reports it like a fault of the kernel.
 */
export function failingExecutor(e: SimError): Executor {
  return {
    startBlock() {},
    startThread(_m: Machine, t: SimThread) {
      if (e.loc) t.loc = e.loc;
    },
    run(): number {
      throw e;
    },
  };
}
