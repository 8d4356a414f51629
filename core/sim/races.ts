// Shared-memory race detection with vector clocks (FastTrack-style epochs). Every barrier arrival
// releases the arriver's clock into the barrier; a completed phase publishes it; a waiter that sees
// the phase acquires it. Asynchronous copies and MMAs get one clock lane per issuing thread (their
// issue number), so a TMA write is ordered before a consumer's read only through the mbarrier it
// completes, and two async ops of one thread are ordered only when the thread saw the first complete.
// Ordering is over-approximated where the model is coarse (never under-), so a report is always a
// real race.
// Proxies (PTX ISA, memory consistency model, "proxies"): shared memory written by threads (the generic
// proxy) and read by an async-proxy operation (bulk/TMA store, WGMMA/UMMA operand) must be ordered
// through a `fence.proxy.async` as well as by happens-before. Each thread has a third clock lane, its
// fence lane, counting its proxy fences; a fence records the fencer's whole clock (cumulative: what
// the fencer had observed is covered too, the conservative reading). An async op's "fenced clock" is
// the join of the records of the fences that happen before its issue; a generic write is visible to
// its async read only when that clock covers it. Generic reads and async writes (a TMA refilling a
// slot the consumer released after reading) need only happens-before, as do async-to-generic
// hand-overs through an mbarrier's complete_tx or a wait_group.
// An mbarrier's init is a write of the barrier word, every use (arrive, expect_tx, wait, test, an
// async complete_tx) a read-modify-write: a use not ordered after the init is a race in every
// schedule, even when the init happened to run first.
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
  /**
   * A plain array: cheaper to make and collect than a typed one, and there is one per phase. Its
   * length is the block's clock width when published; entries past it are zero (read `?? 0` where
   * a missing entry would compare as anything but zero).
   */
  v: number[];
  covers: number[];
}

let nextSnapshotId = 0;

/**
 * The zero clock as a base: a thread starts as "zero plus its own entry", so its first acquire and
 * arrival touch its few entries (every published snapshot dominates it) instead of the whole width.
 */
const ZERO: Snapshot = { id: -1, v: [], covers: [] };

/** A barrier's (or sync's) clock accumulated from arrivals; it only grows. */
interface Accum {
  v: number[];
  /** Ids of snapshots `v` dominates. */
  covers: number[];
}

/**
 * A thread's vector clock: max(snap.v, over) where `over` is nonzero only at the `delta` indices
 * (the entries where the thread knows more than its base), or `over` alone when there is no base.
 * Its own entry (`slot`) is `own` instead, a field beside `snap`: in barrier-heavy code every
 * thread's clock is "the last phase it saw plus its own entry", so an arrival or an acquire touches
 * this object and the phase, not the thread's row of the block's clock memory (a cache line per
 * thread, for thousands of live threads). `over[slot]` stays zero and `slot` is never in `delta`.
 */
class ThreadClock {
  snap: Snapshot | null = null;
  /** The thread's own entry, beyond its base's (the clock's entry `slot` is max(snap.v[slot], own)). */
  own = 0;
  delta: number[] = [];
  /** Whether `over` may hold a nonzero entry (a restart then clears it; most clocks never write it). */
  wrote = false;
  constructor(
    /** Views into the block's one allocation (see `addBlock`). */
    readonly over: Int32Array,
    readonly inDelta: Uint8Array,
    /** The thread's slot in its block: its own entry. */
    readonly slot: number,
  ) {}

  /**
   * Back to the zero clock, then `start()`: a finished block's clock reused for a new block's thread.
   * Entries at and past `width` (the finished block's) were never written, and `inDelta` marks only
   * `delta`'s.
   */
  restart(width: number): void {
    if (this.wrote) {
      this.over.fill(0, 0, width);
      this.wrote = false;
    }
    const delta = this.delta;
    if (delta.length) {
      for (const i of delta) this.inDelta[i] = 0;
      delta.length = 0;
    }
    this.start();
  }

  /** The thread starts: zero except its own entry, 1 (the clock must be the zero clock). */
  start(): void {
    this.snap = ZERO;
    this.own = 1;
  }

  at(i: number): number {
    const s = this.snap;
    if (i === this.slot) {
      const a = s ? (s.v[i] ?? 0) : 0;
      return a > this.own ? a : this.own;
    }
    if (!s) return this.over[i];
    const a = s.v[i];
    const b = this.over[i];
    return a > b ? a : b;
  }

  /** Sets entry `i` to `v` (not below its current value). */
  raise(i: number, v: number): void {
    if (i === this.slot) {
      this.own = v;
      return;
    }
    this.over[i] = v;
    this.wrote = true;
    if (this.snap && !this.inDelta[i]) {
      this.inDelta[i] = 1;
      this.delta.push(i);
    }
  }

  /** Drops the base: `over` (and `own`) becomes the whole clock. */
  materialize(width: number): void {
    const s = this.snap;
    if (!s) return;
    const o = this.over;
    const v = s.v;
    for (let i = 0; i < width; i++) if (v[i] > o[i]) o[i] = v[i];
    this.wrote = true;
    this.foldOwn();
    for (const i of this.delta) this.inDelta[i] = 0;
    this.delta.length = 0;
    this.snap = null;
  }

  /** clock = max(clock, `src`), dense (the clock has no base: `materialize` first). */
  joinDense(src: Int32Array, width: number): void {
    join(this.over, src, width);
    this.wrote = true;
    this.foldOwn();
  }

  /** Moves a value written into `over[slot]` to `own`. */
  private foldOwn(): void {
    const x = this.over[this.slot];
    if (x > this.own) this.own = x;
    this.over[this.slot] = 0;
  }

  /** A dense copy of the clock. */
  copy(): Int32Array {
    const c = this.over.slice();
    const s = this.snap;
    if (s) for (let i = 0; i < c.length; i++) if (s.v[i] > c[i]) c[i] = s.v[i];
    if (this.slot < c.length) c[this.slot] = this.at(this.slot);
    return c;
  }

  /** clock = max(clock, d): rebases on `d`, touching only the delta when `d` dominates the old base. */
  acquire(d: Snapshot, width: number): void {
    const old = this.snap;
    if (old === d) return;
    const o = this.over;
    const dv = d.v;
    if (old && (old === ZERO || d.covers.includes(old.id))) {
      this.rebaseCovered(d);
      return;
    }
    const ov = old?.v;
    const slot = this.slot;
    // The old base's own entry stays known (the new base may not have it).
    if (ov && ov[slot] > this.own) this.own = ov[slot];
    const keep: number[] = this.delta;
    keep.length = 0;
    this.wrote = true;
    for (let i = 0; i < width; i++) {
      if (i === slot) continue;
      let x = o[i];
      if (ov && ov[i] > x) x = ov[i];
      if (x > (dv[i] ?? 0)) {
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

  /** clock = max(clock, d) where `d` dominates the base: max(old, over, d) = max(d, over); keep only the entries over still leads. */
  rebaseCovered(d: Snapshot): void {
    const delta = this.delta;
    if (delta.length) {
      const o = this.over;
      const dv = d.v;
      let kept = 0;
      for (let j = 0; j < delta.length; j++) {
        const i = delta[j];
        if (o[i] > (dv[i] ?? 0)) delta[kept++] = i;
        else {
          o[i] = 0;
          this.inDelta[i] = 0;
        }
      }
      if (kept !== delta.length) delta.length = kept;
    }
    this.snap = d;
  }

  /** a = max(a, clock). */
  joinInto(a: Accum, width: number): void {
    const s = this.snap;
    const av = a.v;
    if (!s) join(av, this.over, width);
    else if (s !== ZERO && !a.covers.includes(s.id)) {
      // The base (`over` is zero outside the delta: its row is not read), once per accumulator.
      const sv = s.v;
      const n = sv.length < width ? sv.length : width;
      for (let i = 0; i < n; i++) if (sv[i] > av[i]) av[i] = sv[i];
      addCover(a.covers, s.id);
    }
    this.joinAbove(av);
  }

  /** av = max(av, what the clock knows beyond its base): its own entry and the delta's entries. */
  joinAbove(av: number[]): void {
    const slot = this.slot;
    if (this.own > av[slot]) av[slot] = this.own;
    const delta = this.delta;
    if (!delta.length) return;
    const o = this.over;
    for (let q = 0; q < delta.length; q++) {
      const i = delta[q];
      if (o[i] > av[i]) av[i] = o[i];
    }
  }

  /** The thread's own entry moves past its current value (an arrival, an async issue, a proxy fence): raise(slot, at(slot) + 1). */
  tick(): void {
    const s = this.snap;
    const v = s === null ? 0 : (s.v[this.slot] ?? 0);
    const own = this.own;
    this.own = (v > own ? v : own) + 1;
  }
}

/** Finished blocks' clock sets kept for reuse: enough for the blocks that finish between two launches. */
const MAX_SPARE_CLOCKS = 4;

/** Finished blocks' accumulated clocks kept for reuse: a few blocks' barriers and syncs. */
const MAX_SPARE_ACCUMS = 64;

/** Cover hints kept per clock: enough for the phases of a few barriers in flight. */
const MAX_COVERS = 8;

function addCover(covers: number[], s: number): void {
  if (covers.includes(s)) return;
  if (covers.length >= MAX_COVERS) covers.shift();
  covers.push(s);
}

/** A proxy fence: the fencer's clock when it fenced, and its fence count then. */
interface FenceRecord {
  seq: number;
  clock: Int32Array;
}

/** Fence records kept per thread: a waiter that knows only an older one gets the oldest kept (more ordering, never less). */
const MAX_FENCE_RECORDS = 8;

/** Where and by whom a barrier was initialised (its init is a write of the barrier word). */
interface InitEpoch {
  ctx: BlockClocks;
  slot: number;
  clock: number;
  loc?: SourceLoc;
  /** A race on this barrier was reported already (one report per barrier and init). */
  reported?: boolean;
  /** Per thread slot: its uses are known to be ordered after the init (clocks only grow, so for good). */
  ordered: Uint8Array;
  /** Slots not yet known ordered (0: every use is, and the check is one comparison). */
  unordered: number;
}

interface BlockClocks {
  /**
   * Machine thread index of local slot i (slots bs..2bs-1 are the async lanes of thread i-bs, slots
   * 2bs..3bs-1 their fence lanes).
   */
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
  /** Clock entries in use: the threads, plus async and fence lanes up to the highest one used (joins skip the rest). */
  width: number;
  /** Per thread slot that fenced: its last proxy fences, oldest first. */
  fences: Map<number, FenceRecord[]>;
  /** Barriers initialised by its threads (their init epochs go with the block). */
  initIds: number[];
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
  /** What the op's proxy fences cover (made on first need; see `fencedClock`). */
  fenced?: Int32Array;
}

interface Shadow {
  ctx: BlockClocks;
  /** Indexed by 4-byte word, or by byte once `fine` (after the buffer's first access of part of a word). */
  writes: (Epoch | undefined)[];
  reads: (Epoch[] | undefined)[];
  /**
   * Byte granularity: threads storing neighbouring 8- or 16-bit elements (an f16 tile, one element per
   * thread) touch disjoint bytes of a word and do not race.
   */
  fine?: boolean;
}

/** Switches a shadow from word to byte granularity (each byte starts with its word's epochs). */
function refine(sh: Shadow): void {
  const writes: (Epoch | undefined)[] = [];
  const reads: (Epoch[] | undefined)[] = [];
  sh.writes.forEach((e, w) => {
    if (e) for (let b = 0; b < 4; b++) writes[4 * w + b] = e;
  });
  // Read epochs are updated in place, so every byte gets its own copies.
  sh.reads.forEach((rs, w) => {
    if (rs) for (let b = 0; b < 4; b++) reads[4 * w + b] = rs.map((r) => ({ ...r }));
  });
  Object.assign(sh, { writes, reads, fine: true });
}

export interface RaceHit {
  thread: number;
  loc?: SourceLoc;
  write: boolean;
  async?: boolean;
  /** Ordered by happens-before but through no `fence.proxy.async`: a generic write read by the async proxy. */
  proxy?: boolean;
}

export class RaceDetector {
  /** By machine thread index. */
  private readonly byThread: (BlockClocks | undefined)[] = [];
  private readonly contexts = new Set<BlockClocks>();
  private readonly shadows = new Map<Buffer, Shadow>();
  private readonly ops = new Map<number, OpClocks>();
  /** By barrier id (small and dense): the init every use must be ordered after. */
  private readonly inits: (InitEpoch | undefined)[] = [];
  /**
   * Per barrier/sync key: the blocks that accumulated a clock under it (one, except for a grid-wide
   * sync): what a phase completion publishes and an init resets, without a walk over every live block.
   */
  private readonly accumulating = new Map<number | string, BlockClocks[]>();
  /** Accumulated clocks of finished blocks, for the barriers and syncs of the next blocks (see `accum`). */
  private readonly spareAccums: number[][] = [];
  /** Thread clocks of finished blocks, for the next blocks of the same size (see `addBlock`). */
  private readonly spareClocks: { clocks: ThreadClock[]; width: number }[] = [];

  /** Live blocks tracked (for tests of memory release). */
  get liveBlocks(): number {
    return this.contexts.size;
  }

  /** Async op clocks held (for tests of memory release). */
  get liveOps(): number {
    return this.ops.size;
  }

  /** A block's `size` threads, machine indices `first` onwards, start; for a cluster launch, all the threads of one cluster. */
  addBlock(first: number, size: number): void {
    const ctx: BlockClocks = { base: first, size, clocks: [], accum: new Map(), done: new Map(), ops: new Set(), asyncSeq: new Int32Array(size), buffers: new Set(), width: size, fences: new Map(), initIds: [] };
    this.contexts.add(ctx);
    // One allocation per block for all its thread clocks (typed arrays are costly to make one by one), or the
    // zeroed clocks of a finished block of the same size: a big grid's blocks then allocate none, and the
    // long-lived (promoted) buffers of finished blocks do not pile up for the major collector.
    const spare = this.spareClocks.findIndex((c) => c.clocks.length === size);
    if (spare >= 0) {
      const { clocks, width } = this.spareClocks.splice(spare, 1)[0];
      for (let i = 0; i < size; i++) {
        const c = clocks[i];
        c.restart(width);
        ctx.clocks.push(c);
        this.byThread[first + i] = ctx;
      }
      return;
    }
    const n = 3 * size;
    const overs = new Int32Array(size * n);
    const marks = new Uint8Array(size * n);
    for (let i = 0; i < size; i++) {
      const c = new ThreadClock(overs.subarray(i * n, (i + 1) * n), marks.subarray(i * n, (i + 1) * n), i);
      c.start();
      ctx.clocks.push(c);
      this.byThread[first + i] = ctx;
    }
  }

  /** The block whose first thread is `firstThread` finished: forget its clocks, shadows and ops. */
  removeBlock(firstThread: number): void {
    const ctx = this.byThread[firstThread];
    if (!ctx) return;
    this.contexts.delete(ctx);
    for (let i = 0; i < ctx.size; i++) this.byThread[ctx.base + i] = undefined;
    for (const [k, a] of ctx.accum) {
      this.stopAccumulating(k, ctx);
      // Published phases are copies: nothing else reads an accumulated clock.
      if (this.spareAccums.length < MAX_SPARE_ACCUMS) this.spareAccums.push(a.v);
    }
    for (const op of ctx.ops) this.ops.delete(op);
    for (const buf of ctx.buffers) if (this.shadows.get(buf)?.ctx === ctx) this.shadows.delete(buf);
    for (const id of ctx.initIds) if (this.inits[id]?.ctx === ctx) this.inits[id] = undefined;
    // Nothing reads a removed block's thread clocks (ops, shadows and init epochs of it are gone): keep a few for reuse.
    if (this.spareClocks.length < MAX_SPARE_CLOCKS) this.spareClocks.push({ clocks: ctx.clocks, width: ctx.width });
  }

  private slotOf(ctx: BlockClocks, thread: number): number {
    return thread - ctx.base;
  }

  private accum(ctx: BlockClocks, k: number | string): Accum {
    let a = ctx.accum.get(k);
    if (!a) {
      const n = 3 * ctx.size;
      const spare = this.spareAccums.length && this.spareAccums[this.spareAccums.length - 1].length === n ? this.spareAccums.pop()!.fill(0) : undefined;
      ctx.accum.set(k, (a = { v: spare ?? new Array<number>(n).fill(0), covers: [] }));
      const blocks = this.accumulating.get(k);
      if (blocks) blocks.push(ctx);
      else this.accumulating.set(k, [ctx]);
    }
    return a;
  }

  /** `ctx` no longer has a clock under `k` (its block finished). */
  private stopAccumulating(k: number | string, ctx: BlockClocks): void {
    const blocks = this.accumulating.get(k);
    if (!blocks) return;
    const i = blocks.indexOf(ctx);
    if (i >= 0) blocks.splice(i, 1);
    if (!blocks.length) this.accumulating.delete(k);
  }

  /**
   * `thread` initialised (or invalidated) `barrier` at `loc`: its phases start afresh, and the init is
   * the write every later use must be ordered after. Without a thread, the barrier was set up before
   * the block's threads started (ordered before all of them).
   */
  initBarrier(barrier: number, thread: number | undefined, loc?: SourceLoc): void {
    // A published phase exists only where a clock accumulated (`publish` goes through `accum`).
    const blocks = this.accumulating.get(barrier);
    if (blocks) {
      for (const ctx of blocks) {
        ctx.accum.delete(barrier);
        ctx.done.delete(barrier);
      }
      this.accumulating.delete(barrier);
    }
    this.inits[barrier] = undefined;
    const ctx = thread === undefined ? undefined : this.byThread[thread];
    if (!ctx || thread === undefined) return;
    const s = this.slotOf(ctx, thread);
    this.inits[barrier] = { ctx, slot: s, clock: ctx.clocks[s].at(s), loc, ordered: new Uint8Array(ctx.size), unordered: ctx.size };
    ctx.initIds.push(barrier);
  }

  /**
   * `thread` uses `barrier` (arrive, expect_tx, wait, test): the init, by another thread, must happen
   * before. Reports once per init.
   */
  barrierUse(barrier: number, thread: number): RaceHit | undefined {
    if (this.barrierUseOrdered(barrier, thread)) return undefined;
    const e = this.inits[barrier]!;
    e.reported = true;
    return this.hit(e.ctx, { slot: e.slot, clock: e.clock, loc: e.loc, async: false }, true);
  }

  /** Whether a use of `barrier` by `thread` now would report nothing (barrierUse without the report). */
  barrierUseOrdered(barrier: number, thread: number): boolean {
    const e = this.inits[barrier];
    if (!e || e.reported || e.unordered === 0) return true;
    const ctx = this.byThread[thread];
    if (ctx !== e.ctx) return true;
    const s = this.slotOf(ctx, thread);
    if (e.ordered[s]) return true;
    if (s === e.slot || ctx.clocks[s].at(e.slot) >= e.clock) {
      e.ordered[s] = 1;
      e.unordered--;
      return true;
    }
    return false;
  }

  /**
   * Whether uses of `barrier` by threads `ts[0..n)` now would all report nothing: `barrierUseOrdered`
   * for each, decided once when every use of the barrier is already known to be ordered (the common
   * case once each thread has used it: a warp's row then checks nothing per lane).
   */
  barrierUsesOrdered(barrier: number, ts: readonly { index: number }[], n: number): boolean {
    const e = this.inits[barrier];
    if (!e || e.reported || e.unordered === 0) return true;
    for (let j = 0; j < n; j++) if (!this.barrierUseOrdered(barrier, ts[j].index)) return false;
    return true;
  }

  /** Async op `op` signals `barrier` (complete_tx, a commit's arrival): its issue must be ordered after the init. */
  asyncBarrierUse(barrier: number, op: number): RaceHit | undefined {
    const e = this.inits[barrier];
    const o = this.ops.get(op);
    if (!e || e.reported || !o || o.ctx !== e.ctx) return undefined;
    if (o.slot - o.ctx.size === e.slot || o.clock[e.slot] >= e.clock) return undefined;
    e.reported = true;
    return this.hit(o.ctx, { slot: e.slot, clock: e.clock, loc: e.loc, async: false }, true);
  }

  /**
   * `fence.proxy.async` by `thread`: the generic accesses that happen before it (its own and those
   * it observed) become visible to async-proxy operations issued after it in happens-before order.
   */
  fenceProxyAsync(thread: number): void {
    const ctx = this.byThread[thread];
    if (!ctx) return;
    const s = this.slotOf(ctx, thread);
    const lane = 2 * ctx.size + s;
    ctx.width = Math.max(ctx.width, lane + 1);
    const tc = ctx.clocks[s];
    const seq = tc.at(lane) + 1;
    tc.raise(lane, seq);
    let log = ctx.fences.get(s);
    if (!log) ctx.fences.set(s, (log = []));
    if (log.length >= MAX_FENCE_RECORDS) log.shift();
    log.push({ seq, clock: tc.copy() });
    // Accesses after the fence are not covered by it.
    tc.tick();
  }

  /** The join of the fence records that happen before `o`'s issue (see the header). */
  private fencedClock(o: OpClocks): Int32Array {
    if (o.fenced) return o.fenced;
    const ctx = o.ctx;
    const f = new Int32Array(o.clock.length);
    for (const [s, log] of ctx.fences) {
      const known = o.clock[2 * ctx.size + s];
      if (!known) continue;
      let rec = log[0];
      for (const r of log) if (r.seq <= known) rec = r;
      join(f, rec.clock, ctx.width);
    }
    return (o.fenced = f);
  }

  arrive(k: number | string, thread: number): void {
    const ctx = this.byThread[thread];
    if (!ctx) return;
    const s = this.slotOf(ctx, thread);
    const c = ctx.clocks[s];
    c.joinInto(this.accum(ctx, k), ctx.width);
    c.tick();
  }

  /**
   * `arrive(k, …)` for threads `ts[0..n)` in order (a converged warp's lanes): the block's accumulated
   * clock is found once, and lanes based on the snapshot the previous lane joined (so it is covered
   * now) join only their few entries.
   */
  arriveLanes(k: number | string, ts: readonly { index: number }[], n: number): void {
    const ctx = this.byThread[ts[0].index];
    if (!ctx) return;
    const a = this.accum(ctx, k);
    const av = a.v;
    const width = ctx.width;
    const base = ctx.base;
    const size = ctx.size;
    const clocks = ctx.clocks;
    let covered: Snapshot | null = null;
    for (let j = 0; j < n; j++) {
      const thread = ts[j].index;
      const s = thread - base;
      // Outside this block's range of threads (another CTA of a cluster): the general path.
      if (s < 0 || s >= size) {
        this.arrive(k, thread);
        continue;
      }
      const c = clocks[s];
      const snap = c.snap;
      if (snap !== null && snap === covered) c.joinAbove(av);
      else {
        c.joinInto(a, width);
        covered = snap;
      }
      c.tick();
    }
  }

  /** A phase of barrier `k` completed: publish what its arrivals released. */
  release(k: number | string, arrivers: { readonly length: number; at(i: number): number | undefined; readonly lo?: number; readonly hi?: number }): void {
    // The blocks involved: the arrivers' (usually one), and for syncs, which have no arriver list
    // here, every block that accumulated under this key.
    let first: BlockClocks | undefined;
    let more: Set<BlockClocks> | undefined;
    // Arrivers all within one block's range of threads (the list knows its lowest and highest): that block.
    const lo = arrivers.lo;
    const one = lo !== undefined && arrivers.length ? this.byThread[lo] : undefined;
    if (one && arrivers.hi! < one.base + one.size) first = one;
    else for (let i = 0; i < arrivers.length; i++) {
      const ctx = this.byThread[arrivers.at(i)!];
      if (!ctx || ctx === first) continue;
      if (!first) first = ctx;
      else (more ??= new Set()).add(ctx);
    }
    const accumulated = this.accumulating.get(k);
    if (accumulated)
      for (const ctx of accumulated) {
        if (ctx === first) continue;
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
    // Only the entries in use (clock lanes past the block's width are zero; a snapshot shorter than a
    // later width reads as zero there): a phase's copy is blockDim entries, not 3 × blockDim.
    ctx.done.set(k, { id: nextSnapshotId++, v: a.v.slice(0, ctx.width), covers });
  }

  acquire(k: number | string, thread: number): void {
    const ctx = this.byThread[thread];
    if (!ctx) return;
    const d = ctx.done.get(k);
    if (d) ctx.clocks[this.slotOf(ctx, thread)].acquire(d, ctx.width);
  }

  /**
   * `acquire(k, …)` for the threads `ts[j]` with `take[j]` set (a converged warp's lanes whose waits
   * passed): the published phase is found once, and lanes based on the snapshot the previous lane
   * was (the usual case: the warp's lanes acquired the same phases) skip the cover check.
   */
  acquireLanes(k: number | string, ts: readonly { index: number }[], n: number, take: ArrayLike<unknown>): void {
    let ctx: BlockClocks | undefined;
    let d: Snapshot | undefined;
    let covered: Snapshot | null = null;
    for (let j = 0; j < n; j++) {
      if (!take[j]) continue;
      const thread = ts[j].index;
      // The previous lane's block, when the thread is in its range (the usual case: no lookup per lane).
      let s = ctx ? thread - ctx.base : -1;
      if (!ctx || s < 0 || s >= ctx.size) {
        const tctx = this.byThread[thread];
        if (!tctx) continue;
        ctx = tctx;
        d = ctx.done.get(k);
        covered = null;
        s = thread - ctx.base;
      }
      if (!d) continue;
      const c = ctx.clocks[s];
      const old = c.snap;
      if (old === d) continue;
      if (old !== null && old === covered) c.rebaseCovered(d);
      else {
        if (old !== null && (old === ZERO || d.covers.includes(old.id))) covered = old;
        c.acquire(d, ctx.width);
      }
    }
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
    tc.tick();
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
      tc.joinDense(o.release, ctx.width);
    }
  }

  access(thread: number, buf: Buffer, offset: number, size: number, write: boolean, loc: SourceLoc): RaceHit | undefined {
    const ctx = this.byThread[thread];
    if (!ctx) return undefined;
    const s = this.slotOf(ctx, thread);
    const tc = ctx.clocks[s];
    return this.check(ctx, buf, offset, size, write, tc.snap?.v ?? null, tc.over, s, tc.at(s), loc);
  }

  /**
   * An access by async op `op`. `proxy` is the proxy it goes through: 'async' (bulk/TMA copies,
   * WGMMA/UMMA operands) reads generic writes only through a `fence.proxy.async`; 'generic' (the
   * non-bulk cp.async, a language whose compiler places the fences itself) needs only happens-before.
   */

  asyncAccess(op: number, buf: Buffer, offset: number, size: number, write: boolean, loc: SourceLoc, proxy: 'async' | 'generic' = 'async'): RaceHit | undefined {
    const o = this.ops.get(op);
    if (!o) return undefined;
    return this.check(o.ctx, buf, offset, size, write, null, o.clock, o.slot, o.seq, loc, op, proxy === 'async' && !write ? o : undefined);
  }

  /**
   * max(`base`, `vc`) orders the accessor (`base` may be null); (`slot`, `clock`) is its epoch; `op`
   * is set for an async op's access; `asyncRead` for an async-proxy read (generic writes need a proxy fence).
   */
  private check(ctx: BlockClocks, buf: Buffer, offset: number, size: number, write: boolean, base: number[] | null, vc: Int32Array, slot: number, clock: number, loc: SourceLoc, op?: number, asyncRead?: OpClocks): RaceHit | undefined {
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
    if (!sh.fine && ((offset & 3) !== 0 || (size & 3) !== 0)) refine(sh);
    const unit = sh.fine ? 0 : 2;
    const first = offset >> unit;
    const last = (offset + Math.max(size, 1) - 1) >> unit;
    let hit: RaceHit | undefined;
    for (let w = first; w <= last; w++) {
      const lw = sh.writes[w];
      if (lw && !mine(lw)) {
        if (at(lw.slot) < lw.clock) hit ??= this.hit(ctx, lw, true);
        else if (asyncRead && !lw.async && this.fencedClock(asyncRead)[lw.slot] < lw.clock) hit ??= { ...this.hit(ctx, lw, true), proxy: true };
      }
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
