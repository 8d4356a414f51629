// Shared-memory race detection with vector clocks (FastTrack-style epochs). Every barrier arrival
// releases the arriver's clock into the barrier; a completed phase publishes it; a waiter that sees
// the phase acquires it. Asynchronous copies and MMAs get one clock lane per issuing thread (their
// issue number), so a TMA write is ordered before a consumer's read only through the mbarrier it
// completes, and two async ops of one thread are ordered only when the thread saw the first complete.
// Ordering is over-approximated where the model is coarse (never under-), so a report is always a
// real race.
// A block's clocks, shadows and op clocks are dropped when the machine says it finished, so memory
// stays bounded by the resident blocks however large the grid.
import type { Buffer } from './memory';
import type { SourceLoc } from './machine';

interface BlockClocks {
  /** Machine thread index of local slot i (slots bs..2bs-1 are the async lanes of thread i-bs). */
  base: number;
  size: number;
  clocks: Int32Array[];
  /** Per barrier/sync key: clock accumulated from arrivals, and the clock published by the last completed phase. */
  accum: Map<number | string, Int32Array>;
  done: Map<number | string, Int32Array>;
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
  private readonly byThread = new Map<number, BlockClocks>();
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

  /** A block's threads (consecutive machine indices) start. */
  addBlock(threads: number[]): void {
    const size = threads.length;
    const ctx: BlockClocks = { base: threads[0], size, clocks: [], accum: new Map(), done: new Map(), ops: new Set(), asyncSeq: new Int32Array(size), buffers: new Set(), width: size };
    this.contexts.add(ctx);
    for (let i = 0; i < size; i++) {
      const c = new Int32Array(2 * size);
      c[i] = 1;
      ctx.clocks.push(c);
      this.byThread.set(threads[i], ctx);
    }
  }

  /** The block whose first thread is `firstThread` finished: forget its clocks, shadows and ops. */
  removeBlock(firstThread: number): void {
    const ctx = this.byThread.get(firstThread);
    if (!ctx) return;
    this.contexts.delete(ctx);
    for (let i = 0; i < ctx.size; i++) this.byThread.delete(ctx.base + i);
    for (const op of ctx.ops) this.ops.delete(op);
    for (const buf of ctx.buffers) if (this.shadows.get(buf)?.ctx === ctx) this.shadows.delete(buf);
  }

  private slotOf(ctx: BlockClocks, thread: number): number {
    return thread - ctx.base;
  }

  private key(ctx: BlockClocks, k: number | string, map: 'accum' | 'done'): Int32Array {
    let c = ctx[map].get(k);
    if (!c) ctx[map].set(k, (c = new Int32Array(2 * ctx.size)));
    return c;
  }

  initBarrier(barrier: number, _thread: number): void {
    for (const ctx of this.contexts) {
      ctx.accum.delete(barrier);
      ctx.done.delete(barrier);
    }
  }

  arrive(k: number | string, thread: number): void {
    const ctx = this.byThread.get(thread);
    if (!ctx) return;
    const s = this.slotOf(ctx, thread);
    join(this.key(ctx, k, 'accum'), ctx.clocks[s], ctx.width);
    ctx.clocks[s][s]++;
  }

  /** A phase of barrier `k` completed: publish what its arrivals released. */
  release(k: number | string, arrivers: number[]): void {
    const seen = new Set<BlockClocks>();
    for (const t of arrivers) {
      const ctx = this.byThread.get(t);
      if (ctx) seen.add(ctx);
    }
    // Syncs have no arriver list here; publish in every block that accumulated under this key.
    for (const ctx of this.contexts) if (ctx.accum.has(k)) seen.add(ctx);
    for (const ctx of seen) this.key(ctx, k, 'done').set(this.key(ctx, k, 'accum'));
  }

  acquire(k: number | string, thread: number): void {
    const ctx = this.byThread.get(thread);
    if (!ctx) return;
    const d = ctx.done.get(k);
    if (d) join(ctx.clocks[this.slotOf(ctx, thread)], d, ctx.width);
  }

  asyncIssue(op: number, thread: number): void {
    const ctx = this.byThread.get(thread);
    if (!ctx) return;
    const s = this.slotOf(ctx, thread);
    const slot = ctx.size + s;
    ctx.width = Math.max(ctx.width, slot + 1);
    const seq = ++ctx.asyncSeq[s];
    const clock = ctx.clocks[s].slice();
    const release = clock.slice();
    release[slot] = Math.max(release[slot], seq);
    this.ops.set(op, { ctx, clock, release, slot, seq });
    ctx.ops.add(op);
    ctx.clocks[s][s]++;
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
    if (o) join(this.key(o.ctx, barrier, 'accum'), o.release, o.ctx.width);
  }

  asyncAcquire(op: number, thread: number): void {
    const o = this.ops.get(op);
    const ctx = this.byThread.get(thread);
    if (o && ctx === o.ctx) join(ctx.clocks[this.slotOf(ctx, thread)], o.release, ctx.width);
  }

  access(thread: number, buf: Buffer, offset: number, size: number, write: boolean, loc: SourceLoc): RaceHit | undefined {
    const ctx = this.byThread.get(thread);
    if (!ctx) return undefined;
    const s = this.slotOf(ctx, thread);
    const vc = ctx.clocks[s];
    return this.check(ctx, buf, offset, size, write, vc, s, vc[s], loc);
  }

  asyncAccess(op: number, buf: Buffer, offset: number, size: number, write: boolean, loc: SourceLoc): RaceHit | undefined {
    const o = this.ops.get(op);
    if (!o) return undefined;
    return this.check(o.ctx, buf, offset, size, write, o.clock, o.slot, o.seq, loc, op);
  }

  /** `vc` orders the accessor; (`slot`, `clock`) is its epoch; `op` is set for an async op's access. */
  private check(ctx: BlockClocks, buf: Buffer, offset: number, size: number, write: boolean, vc: Int32Array, slot: number, clock: number, loc: SourceLoc, op?: number): RaceHit | undefined {
    const async = op !== undefined;
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
      if (lw && !mine(lw) && vc[lw.slot] < lw.clock) hit ??= this.hit(ctx, lw, true);
      if (write) {
        const rs = sh.reads[w];
        if (rs) for (const r of rs) if (!mine(r) && vc[r.slot] < r.clock) hit ??= this.hit(ctx, r, false);
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
function join(into: Int32Array, from: Int32Array, width: number): void {
  for (let i = 0; i < width; i++) if (from[i] > into[i]) into[i] = from[i];
}
