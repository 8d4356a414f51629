// Shared-memory race detection with vector clocks (FastTrack-style epochs). Every barrier arrival
// releases the arriver's clock into the barrier; a completed phase publishes it; a waiter that sees
// the phase acquires it. Asynchronous copies and MMAs get one clock lane per issuing thread (their
// issue number), so a TMA write is ordered before a consumer's read only through the mbarrier it
// completes, and two async ops of one thread are ordered only when the thread saw the first complete.
// Ordering is over-approximated where the model is coarse (never under-), so a report is always a
// real race.
// A block's clocks, shadows and op clocks are dropped when the machine says it finished, so memory
// stays bounded by the resident blocks however large the grid.
// Speed: a published phase is an immutable snapshot, and a thread's clock is "a snapshot plus the
// few entries it knows better" (ThreadClock), so arrivals and acquires in barrier-heavy code touch
// a few entries instead of all 2 × blockDim of them; the results are exactly the dense joins'.
import type { Buffer } from './memory';
import type { SourceLoc } from './machine-types';

/**
 * A published clock (a barrier phase's): immutable once made, so thread clocks can share it as a
 * base. `covers` lists snapshots it is known to dominate (a bounded hint that lets joins skip the
 * entries they would not change).
 */
interface Snapshot {
  /** Unique: covers name snapshots by id, so a snapshot never keeps older ones alive. */
  id: number;
  /** A plain array: cheaper to make and collect than a typed one, and there is one per phase. */
  v: number[];
  covers: number[];
}

let nextSnapshotId = 0;

/** A barrier's (or sync's) clock accumulated from arrivals; it only grows. */
interface Accum {
  v: number[];
  /** Ids of snapshots `v` dominates. */
  covers: number[];
}

/**
 * A thread's vector clock: max(snap.v, over) where `over` is nonzero only at the `delta` indices
 * (the entries where the thread knows more than its base), or `over` alone when there is no base.
 * In barrier-heavy code every thread's clock is "the last phase it saw plus its own entry", so an
 * arrival or an acquire touches a few entries instead of all of them.
 */
class ThreadClock {
  snap: Snapshot | null = null;
  delta: number[] = [];
  constructor(
    /** Views into the block's one allocation (see `addBlock`). */
    readonly over: Int32Array,
    readonly inDelta: Uint8Array,
  ) {}

  at(i: number): number {
    const s = this.snap;
    if (!s) return this.over[i];
    const a = s.v[i];
    const b = this.over[i];
    return a > b ? a : b;
  }

  /** Sets entry `i` to `v` (not below its current value). */
  raise(i: number, v: number): void {
    this.over[i] = v;
    if (this.snap && !this.inDelta[i]) {
      this.inDelta[i] = 1;
      this.delta.push(i);
    }
  }

  /** Drops the base: `over` becomes the whole clock. */
  materialize(width: number): void {
    const s = this.snap;
    if (!s) return;
    const o = this.over;
    const v = s.v;
    for (let i = 0; i < width; i++) if (v[i] > o[i]) o[i] = v[i];
    for (const i of this.delta) this.inDelta[i] = 0;
    this.delta.length = 0;
    this.snap = null;
  }

  /** A dense copy of the clock. */
  copy(): Int32Array {
    const c = this.over.slice();
    const s = this.snap;
    if (s) for (let i = 0; i < c.length; i++) if (s.v[i] > c[i]) c[i] = s.v[i];
    return c;
  }

  /** clock = max(clock, d): rebases on `d`, touching only the delta when `d` dominates the old base. */
  acquire(d: Snapshot, width: number): void {
    const old = this.snap;
    if (old === d) return;
    const o = this.over;
    const dv = d.v;
    if (old && d.covers.includes(old.id)) {
      // max(old, over, d) = max(d, over) since d ≥ old; keep only the entries over still leads.
      const delta = this.delta;
      let kept = 0;
      for (let j = 0; j < delta.length; j++) {
        const i = delta[j];
        if (o[i] > dv[i]) delta[kept++] = i;
        else {
          o[i] = 0;
          this.inDelta[i] = 0;
        }
      }
      if (kept !== delta.length) delta.length = kept;
      this.snap = d;
      return;
    }
    const ov = old?.v;
    const keep: number[] = this.delta;
    keep.length = 0;
    for (let i = 0; i < width; i++) {
      let x = o[i];
      if (ov && ov[i] > x) x = ov[i];
      if (x > dv[i]) {
        o[i] = x;
        this.inDelta[i] = 1;
        keep.push(i);
      } else {
        o[i] = 0;
        this.inDelta[i] = 0;
      }
    }
    this.delta = keep;
    this.snap = d;
  }

  /** a = max(a, clock). */
  joinInto(a: Accum, width: number): void {
    const s = this.snap;
    const av = a.v;
    const o = this.over;
    if (s && a.covers.includes(s.id)) {
      for (const i of this.delta) if (o[i] > av[i]) av[i] = o[i];
      return;
    }
    if (!s) {
      join(av, o, width);
      return;
    }
    const sv = s.v;
    for (let i = 0; i < width; i++) {
      const x = sv[i] > o[i] ? sv[i] : o[i];
      if (x > av[i]) av[i] = x;
    }
    addCover(a.covers, s.id);
  }
}

/** Cover hints kept per clock: enough for the phases of a few barriers in flight. */
const MAX_COVERS = 8;

function addCover(covers: number[], s: number): void {
  if (covers.includes(s)) return;
  if (covers.length >= MAX_COVERS) covers.shift();
  covers.push(s);
}

interface BlockClocks {
  /** Machine thread index of local slot i (slots bs..2bs-1 are the async lanes of thread i-bs). */
  base: number;
  size: number;
  clocks: ThreadClock[];
  /** Per barrier/sync key: clock accumulated from arrivals, and the clock published by the last completed phase. */
  accum: Map<number | string, Accum>;
  done: Map<number | string, Snapshot>;
  /** Async ops issued by this block's threads (freed with the block). */
  ops: Set<number>;
  /** Per thread slot: async ops issued so far (the async lane's clock). */
  asyncSeq: Int32Array;
  /** Shared buffers this block touched. */
  buffers: Set<Buffer>;
  /** Clock entries in use: the threads, plus async lanes up to the highest one used (joins skip the rest). */
  width: number;
}

interface Epoch {
  slot: number;
  clock: number;
  loc?: SourceLoc;
  async: boolean;
  /** The async op that made the access (distinct ops of one thread share a slot but are unordered). */
  op?: number;
}

interface OpClocks {
  ctx: BlockClocks;
  /** What the issuer knew at issue: orders the op's own accesses. */
  clock: Int32Array;
  /** `clock` plus the op itself: what observing its completion publishes. */
  release: Int32Array;
  slot: number;
  seq: number;
}

interface Shadow {
  ctx: BlockClocks;
  writes: (Epoch | undefined)[];
  reads: (Epoch[] | undefined)[];
}

export interface RaceHit {
  thread: number;
  loc?: SourceLoc;
  write: boolean;
  async?: boolean;
}

export class RaceDetector {
  /** By machine thread index. */
  private readonly byThread: (BlockClocks | undefined)[] = [];
  private readonly contexts = new Set<BlockClocks>();
  private readonly shadows = new Map<Buffer, Shadow>();
  private readonly ops = new Map<number, OpClocks>();

  /** Live blocks tracked (for tests of memory release). */
  get liveBlocks(): number {
    return this.contexts.size;
  }

  /** Async op clocks held (for tests of memory release). */
  get liveOps(): number {
    return this.ops.size;
  }

  /** A block's threads (consecutive machine indices) start; for a cluster launch, all the threads of one cluster. */
  addBlock(threads: number[]): void {
    const size = threads.length;
    const ctx: BlockClocks = { base: threads[0], size, clocks: [], accum: new Map(), done: new Map(), ops: new Set(), asyncSeq: new Int32Array(size), buffers: new Set(), width: size };
    this.contexts.add(ctx);
    // One allocation per block for all its thread clocks (typed arrays are costly to make one by one).
    const n = 2 * size;
    const overs = new Int32Array(size * n);
    const marks = new Uint8Array(size * n);
    for (let i = 0; i < size; i++) {
      const c = new ThreadClock(overs.subarray(i * n, (i + 1) * n), marks.subarray(i * n, (i + 1) * n));
      c.over[i] = 1;
      ctx.clocks.push(c);
      this.byThread[threads[i]] = ctx;
    }
  }

  /** The block whose first thread is `firstThread` finished: forget its clocks, shadows and ops. */
  removeBlock(firstThread: number): void {
    const ctx = this.byThread[firstThread];
    if (!ctx) return;
    this.contexts.delete(ctx);
    for (let i = 0; i < ctx.size; i++) this.byThread[ctx.base + i] = undefined;
    for (const op of ctx.ops) this.ops.delete(op);
    for (const buf of ctx.buffers) if (this.shadows.get(buf)?.ctx === ctx) this.shadows.delete(buf);
  }

  private slotOf(ctx: BlockClocks, thread: number): number {
    return thread - ctx.base;
  }

  private accum(ctx: BlockClocks, k: number | string): Accum {
    let a = ctx.accum.get(k);
    if (!a) ctx.accum.set(k, (a = { v: new Array<number>(2 * ctx.size).fill(0), covers: [] }));
    return a;
  }

  initBarrier(barrier: number, _thread: number): void {
    for (const ctx of this.contexts) {
      ctx.accum.delete(barrier);
      ctx.done.delete(barrier);
    }
  }

  arrive(k: number | string, thread: number): void {
    const ctx = this.byThread[thread];
    if (!ctx) return;
    const s = this.slotOf(ctx, thread);
    const c = ctx.clocks[s];
    c.joinInto(this.accum(ctx, k), ctx.width);
    c.raise(s, c.at(s) + 1);
  }

  /** A phase of barrier `k` completed: publish what its arrivals released. */
  release(k: number | string, arrivers: number[]): void {
    // The blocks involved: the arrivers' (usually one), and for syncs, which have no arriver list
    // here, every block that accumulated under this key.
    let first: BlockClocks | undefined;
    let more: Set<BlockClocks> | undefined;
    for (const t of arrivers) {
      const ctx = this.byThread[t];
      if (!ctx || ctx === first) continue;
      if (!first) first = ctx;
      else (more ??= new Set()).add(ctx);
    }
    for (const ctx of this.contexts) {
      if (ctx === first || !ctx.accum.has(k)) continue;
      if (!first) first = ctx;
      else (more ??= new Set()).add(ctx);
    }
    if (first) this.publish(first, k);
    if (more) for (const ctx of more) this.publish(ctx, k);
  }

  /** Publishes the accumulated clock of `k` in `ctx` as a new immutable snapshot. */
  private publish(ctx: BlockClocks, k: number | string): void {
    const a = this.accum(ctx, k);
    const prev = ctx.done.get(k);
    const covers = a.covers.slice();
    if (prev) addCover(covers, prev.id);
    ctx.done.set(k, { id: nextSnapshotId++, v: a.v.slice(), covers });
  }

  acquire(k: number | string, thread: number): void {
    const ctx = this.byThread[thread];
    if (!ctx) return;
    const d = ctx.done.get(k);
    if (d) ctx.clocks[this.slotOf(ctx, thread)].acquire(d, ctx.width);
  }

  asyncIssue(op: number, thread: number): void {
    const ctx = this.byThread[thread];
    if (!ctx) return;
    const s = this.slotOf(ctx, thread);
    const slot = ctx.size + s;
    ctx.width = Math.max(ctx.width, slot + 1);
    const seq = ++ctx.asyncSeq[s];
    const tc = ctx.clocks[s];
    const clock = tc.copy();
    const release = clock.slice();
    release[slot] = Math.max(release[slot], seq);
    this.ops.set(op, { ctx, clock, release, slot, seq });
    ctx.ops.add(op);
    tc.raise(s, tc.at(s) + 1);
  }

  /** Op `op` completes only after `prior` did (tcgen05.commit, cp.async.mbarrier.arrive): it carries their ordering. */
  asyncJoin(op: number, prior: number[]): void {
    const o = this.ops.get(op);
    if (!o) return;
    for (const p of prior) {
      const q = this.ops.get(p);
      if (q && q.ctx === o.ctx) join(o.release, q.release, o.ctx.width);
    }
  }

  asyncArrive(barrier: number, op: number): void {
    const o = this.ops.get(op);
    if (o) join(this.accum(o.ctx, barrier).v, o.release, o.ctx.width);
  }

  asyncAcquire(op: number, thread: number): void {
    const o = this.ops.get(op);
    const ctx = this.byThread[thread];
    if (o && ctx === o.ctx) {
      const tc = ctx.clocks[this.slotOf(ctx, thread)];
      tc.materialize(ctx.width);
      join(tc.over, o.release, ctx.width);
    }
  }

  access(thread: number, buf: Buffer, offset: number, size: number, write: boolean, loc: SourceLoc): RaceHit | undefined {
    const ctx = this.byThread[thread];
    if (!ctx) return undefined;
    const s = this.slotOf(ctx, thread);
    const tc = ctx.clocks[s];
    return this.check(ctx, buf, offset, size, write, tc.snap?.v ?? null, tc.over, s, tc.at(s), loc);
  }

  asyncAccess(op: number, buf: Buffer, offset: number, size: number, write: boolean, loc: SourceLoc): RaceHit | undefined {
    const o = this.ops.get(op);
    if (!o) return undefined;
    return this.check(o.ctx, buf, offset, size, write, null, o.clock, o.slot, o.seq, loc, op);
  }

  /**
   * max(`base`, `vc`) orders the accessor (`base` may be null); (`slot`, `clock`) is its epoch; `op`
   * is set for an async op's access.
   */
  private check(ctx: BlockClocks, buf: Buffer, offset: number, size: number, write: boolean, base: number[] | null, vc: Int32Array, slot: number, clock: number, loc: SourceLoc, op?: number): RaceHit | undefined {
    const async = op !== undefined;
    const at = (i: number) => (base && base[i] > vc[i] ? base[i] : vc[i]);
    // Program order: a thread's own earlier accesses, or the same op's.
    const mine = (e: Epoch) => e.slot === slot && (async ? e.op === op : !e.async);
    let sh = this.shadows.get(buf);
    if (!sh) {
      this.shadows.set(buf, (sh = { ctx, writes: [], reads: [] }));
      ctx.buffers.add(buf);
    }
    if (sh.ctx !== ctx) return undefined;
    const first = offset >> 2;
    const last = (offset + Math.max(size, 1) - 1) >> 2;
    let hit: RaceHit | undefined;
    for (let w = first; w <= last; w++) {
      const lw = sh.writes[w];
      if (lw && !mine(lw) && at(lw.slot) < lw.clock) hit ??= this.hit(ctx, lw, true);
      if (write) {
        const rs = sh.reads[w];
        if (rs) for (const r of rs) if (!mine(r) && at(r.slot) < r.clock) hit ??= this.hit(ctx, r, false);
        sh.writes[w] = { slot, clock, loc, async, op };
        sh.reads[w] = undefined;
      } else {
        let rs = sh.reads[w];
        if (!rs) sh.reads[w] = rs = [];
        // One read epoch per slot: a later op of the same thread stands for the earlier ones (a writer
        // ordered after it is ordered after them), so read lists stay bounded.
        const prev = rs.find((r) => r.slot === slot && r.async === async);
        if (prev) {
          if (clock >= prev.clock) Object.assign(prev, { clock, loc, op });
        } else rs.push({ slot, clock, loc, async, op });
      }
    }
    return hit;
  }

  private hit(ctx: BlockClocks, e: Epoch, write: boolean): RaceHit {
    const local = e.slot >= ctx.size ? e.slot - ctx.size : e.slot;
    return { thread: ctx.base + local, loc: e.loc, write, async: e.async };
  }
}

/** into = max(into, from) over the first `width` entries (the rest are zero in both). */
function join(into: Int32Array | number[], from: Int32Array, width: number): void {
  for (let i = 0; i < width; i++) if (from[i] > into[i]) into[i] = from[i];
}
