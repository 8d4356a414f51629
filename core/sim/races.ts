// Shared-memory race detection with vector clocks (FastTrack-style epochs). Every barrier arrival
// releases the arriver's clock into the barrier; a completed phase publishes it; a waiter that sees
// the phase acquires it. Asynchronous copies and MMAs get one clock lane per issuing thread, so a TMA
// write is ordered before a consumer's read only through the mbarrier it completes. Ordering is
// over-approximated where the model is coarse (never under-), so a report is always a real race.
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
}

interface Epoch {
  slot: number;
  clock: number;
  loc?: SourceLoc;
  async: boolean;
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
  private readonly contexts: BlockClocks[] = [];
  private readonly shadows = new Map<Buffer, Shadow>();
  private readonly ops = new Map<number, { ctx: BlockClocks; clock: Int32Array; slot: number }>();
  private readonly asyncSeq = new Map<number, number>();

  addBlock(threads: number[]): void {
    const size = threads.length;
    const ctx: BlockClocks = { base: threads[0], size, clocks: [], accum: new Map(), done: new Map() };
    this.contexts.push(ctx);
    for (let i = 0; i < size; i++) {
      const c = new Int32Array(2 * size);
      c[i] = 1;
      ctx.clocks.push(c);
      this.byThread.set(threads[i], ctx);
    }
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
    join(this.key(ctx, k, 'accum'), ctx.clocks[s]);
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
    if (d) join(ctx.clocks[this.slotOf(ctx, thread)], d);
  }

  asyncIssue(op: number, thread: number): void {
    const ctx = this.byThread.get(thread);
    if (!ctx) return;
    const s = this.slotOf(ctx, thread);
    const slot = ctx.size + s;
    const seq = (this.asyncSeq.get(thread) ?? 0) + 1;
    this.asyncSeq.set(thread, seq);
    const clock = ctx.clocks[s].slice();
    clock[slot] = seq;
    this.ops.set(op, { ctx, clock, slot });
    ctx.clocks[s][s]++;
  }

  asyncArrive(barrier: number, op: number): void {
    const o = this.ops.get(op);
    if (o) join(this.key(o.ctx, barrier, 'accum'), o.clock);
  }

  asyncAcquire(op: number, thread: number): void {
    const o = this.ops.get(op);
    const ctx = this.byThread.get(thread);
    if (o && ctx === o.ctx) join(ctx.clocks[this.slotOf(ctx, thread)], o.clock);
  }

  access(thread: number, buf: Buffer, offset: number, size: number, write: boolean, loc: SourceLoc): RaceHit | undefined {
    const ctx = this.byThread.get(thread);
    if (!ctx) return undefined;
    const s = this.slotOf(ctx, thread);
    return this.check(ctx, buf, offset, size, write, ctx.clocks[s], s, loc, false);
  }

  asyncAccess(op: number, buf: Buffer, offset: number, size: number, write: boolean, loc: SourceLoc): RaceHit | undefined {
    const o = this.ops.get(op);
    if (!o) return undefined;
    return this.check(o.ctx, buf, offset, size, write, o.clock, o.slot, loc, true);
  }

  private check(ctx: BlockClocks, buf: Buffer, offset: number, size: number, write: boolean, vc: Int32Array, slot: number, loc: SourceLoc, async: boolean): RaceHit | undefined {
    let sh = this.shadows.get(buf);
    if (!sh) this.shadows.set(buf, (sh = { ctx, writes: [], reads: [] }));
    if (sh.ctx !== ctx) return undefined;
    const first = offset >> 2;
    const last = (offset + Math.max(size, 1) - 1) >> 2;
    const clock = vc[slot];
    let hit: RaceHit | undefined;
    for (let w = first; w <= last; w++) {
      const lw = sh.writes[w];
      if (lw && lw.slot !== slot && vc[lw.slot] < lw.clock) hit ??= this.hit(ctx, lw, true);
      if (write) {
        const rs = sh.reads[w];
        if (rs) for (const r of rs) if (r.slot !== slot && vc[r.slot] < r.clock) hit ??= this.hit(ctx, r, false);
        sh.writes[w] = { slot, clock, loc, async };
        sh.reads[w] = undefined;
      } else {
        let rs = sh.reads[w];
        if (!rs) sh.reads[w] = rs = [];
        const mine = rs.find((r) => r.slot === slot);
        if (mine) {
          mine.clock = clock;
          mine.loc = loc;
        } else rs.push({ slot, clock, loc, async });
      }
    }
    return hit;
  }

  private hit(ctx: BlockClocks, e: Epoch, write: boolean): RaceHit {
    const local = e.slot >= ctx.size ? e.slot - ctx.size : e.slot;
    return { thread: ctx.base + local, loc: e.loc, write, async: e.async };
  }
}

function join(into: Int32Array, from: Int32Array): void {
  for (let i = 0; i < into.length; i++) if (from[i] > into[i]) into[i] = from[i];
}
