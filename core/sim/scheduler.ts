// The machine's scheduler: which ready thread runs next. A heap of warps by (simulated time, thread
// index) for round-robin ("furthest behind first") and adversarial (keep one role running, then switch
// to the role furthest behind), a list for seeded random picks; queues are validated lazily, so a
// thread that stopped being ready is skipped when it comes up instead of being removed at once.
// The heap holds one entry per warp, not per thread: a warp's lanes run together (the machine's warp
// quanta), so 32 lanes waking at one phase cost one heap entry, and popping it yields the warp's lane
// that is furthest behind.
import { type SchedulePolicy, type SimBlock, type SimThread, warpLane } from './machine-types';
import { doubleArray, objectArray } from './elements-kinds';

/** mulberry32: small, fast, deterministic. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Min-heap of ready warps, each entry keyed by (simulated time, thread index) of a lane: round-robin's "furthest behind first". */
class ReadyHeap {
  private readonly items: SimThread[] = objectArray();
  private readonly times: number[] = doubleArray();
  private readonly indices: number[] = [];
  private readonly stamps: number[] = [];
  /** The stamp the thread `pop` returned was pushed with. */
  poppedStamp = 0;

  get size(): number {
    return this.items.length;
  }

  push(t: SimThread, stamp: number): void {
    const items = this.items;
    const times = this.times;
    const indices = this.indices;
    const stamps = this.stamps;
    const time = t.time;
    const index = t.index;
    let i = items.length;
    items.push(t);
    times.push(time);
    indices.push(index);
    stamps.push(stamp);
    // Sift up: move parents down until the new entry's place is found.
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = times[p];
      if (pt < time || (pt === time && indices[p] < index)) break;
      items[i] = items[p];
      times[i] = pt;
      indices[i] = indices[p];
      stamps[i] = stamps[p];
      i = p;
    }
    items[i] = t;
    times[i] = time;
    indices[i] = index;
    stamps[i] = stamp;
  }

  /** Removes the first entry and returns its thread (its stamp is in `poppedStamp`). */
  pop(): SimThread | undefined {
    const items = this.items;
    const n = items.length;
    if (!n) return undefined;
    const times = this.times;
    const indices = this.indices;
    const stamps = this.stamps;
    const top = items[0];
    this.poppedStamp = stamps[0];
    const lt = items.pop()!;
    const ltime = times.pop()!;
    const lindex = indices.pop()!;
    const lstamp = stamps.pop()!;
    const m = n - 1;
    if (m === 0) return top;
    // Sift the last entry down from the root.
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= m) break;
      let c = l;
      const r = l + 1;
      if (r < m && (times[r] < times[l] || (times[r] === times[l] && indices[r] < indices[l]))) c = r;
      const ct = times[c];
      if (ltime < ct || (ltime === ct && lindex < indices[c])) break;
      items[i] = items[c];
      times[i] = ct;
      indices[i] = indices[c];
      stamps[i] = stamps[c];
      i = c;
    }
    items[i] = lt;
    times[i] = ltime;
    indices[i] = lindex;
    stamps[i] = lstamp;
    return top;
  }
}

/** How many same-role ready threads adversarial scheduling skips looking for another role. */
const ADVERSARIAL_SCAN = 256;

/** The ready threads of one machine and its seeded picks. */
export class ReadyQueue {
  /** The thread that ran last (adversarial scheduling keeps it running while it can). */
  lastThread = -1;
  private readonly heap = new ReadyHeap();
  /**
   * Per warp (by `warpKey`, dense so that the arrays stay plain arrays: keyed by a warp's first thread
   * index they were one entry in 32 and V8 made them dictionaries): the stamp of its one valid heap entry.
   */
  private readonly heapStamp: number[] = [];
  /** Per warp: the time its valid heap entry is keyed by, or -1 when it has none. */
  private readonly queuedAt: number[] = doubleArray();
  private readonly readyList: SimThread[] = [];
  private readonly readyPos: number[] = [];

  constructor(
    readonly policy: SchedulePolicy,
    private readonly random: () => number,
    /** The machine's threads by index. */
    private readonly threads: readonly SimThread[],
    /** Warps per block (the last one may be partial). */
    private readonly warpsPerBlock: number,
  ) {}

  /** A warp's number in the grid. */
  private warpKey(t: SimThread): number {
    return t.block * this.warpsPerBlock + (t.tid >> 5);
  }

  /** Statements the picked thread may run before the next pick (random quanta are seeded). */
  budget(quantum: number): number {
    return this.policy === 'adversarial' ? 1 << 20 : this.policy === 'random' ? 1 + Math.floor(this.random() * quantum * 2) : quantum;
  }

  /** Makes `t` (ready) eligible for `pick`. Stale entries are skipped when popped. */
  enqueue(t: SimThread): void {
    if (this.policy === 'random') {
      if ((this.readyPos[t.index] ?? -1) < 0) {
        this.readyPos[t.index] = this.readyList.length;
        this.readyList.push(t);
      }
      return;
    }
    // One entry per warp, keyed no later than its lanes: a lane behind the entry's time re-keys it.
    const w = this.warpKey(t);
    const at = this.queuedAt[w] ?? -1;
    if (at >= 0 && at <= t.time) return;
    this.push(w, t, t.time);
  }

  /** After `t`'s warp ran (its heap entry was consumed): one entry for its lanes still ready, at the earliest of their times. */
  requeueWarp(t: SimThread): void {
    if (this.policy === 'random') {
      for (let k = 0, l = warpLane(this.threads, t, 0); l; l = warpLane(this.threads, t, ++k)) if (l.status === 'ready') this.enqueue(l);
      return;
    }
    const best = this.furthestBehind(t);
    if (best) this.enqueue(best);
  }

  private push(w: number, t: SimThread, time: number): void {
    const stamp = (this.heapStamp[w] ?? 0) + 1;
    this.heapStamp[w] = stamp;
    this.queuedAt[w] = time;
    this.heap.push(t, stamp);
  }

  /** The ready lane of `t`'s warp with the lowest time (ties: the lowest lane). */
  private furthestBehind(t: SimThread): SimThread | undefined {
    let best: SimThread | undefined;
    for (let k = 0, l = warpLane(this.threads, t, 0); l; l = warpLane(this.threads, t, ++k)) if (l.status === 'ready' && (!best || l.time < best.time)) best = l;
    return best;
  }

  private dropReady(i: number): void {
    const t = this.readyList[i];
    const last = this.readyList.pop()!;
    if (last !== t) {
      this.readyList[i] = last;
      this.readyPos[last.index] = i;
    }
    this.readyPos[t.index] = -1;
  }

  /**
   * The next valid heap entry's warp: its ready lane furthest behind (ties: lowest index). The entry's
   * stamp is in `heap.poppedStamp`; the warp has no entry until `restore` or `enqueue`.
   */
  private popReady(): SimThread | undefined {
    for (;;) {
      const e = this.heap.pop();
      if (!e) return undefined;
      const w = this.warpKey(e);
      if (this.heapStamp[w] !== this.heap.poppedStamp) continue;
      this.queuedAt[w] = -1;
      const best = this.furthestBehind(e);
      if (best) return best;
    }
  }

  /** Puts back a popped entry `pick` passed over (adversarial). */
  private restore(t: SimThread, stamp: number): void {
    const w = this.warpKey(t);
    if (this.heapStamp[w] !== stamp) return;
    this.queuedAt[w] = t.time;
    this.heap.push(t, stamp);
  }

  /** The next thread to run under the policy, or undefined when none is ready. */
  pick(): SimThread | undefined {
    if (this.policy === 'random') {
      while (this.readyList.length) {
        const i = Math.floor(this.random() * this.readyList.length);
        const t = this.readyList[i];
        if (t.status === 'ready') return t;
        this.dropReady(i);
      }
      return undefined;
    }
    if (this.policy === 'round-robin') {
      // Lowest simulated time first (ties: lowest thread index) = fair interleaving by time.
      return this.popReady();
    }
    // Adversarial: keep running the thread that ran last (maximal lag between roles); when it blocks,
    // switch to the ready thread of a *different* role (or warp) that is furthest behind.
    const last = this.threads[this.lastThread];
    if (last && last.status === 'ready') return last;
    const lastRole = last ? roleOf(last) : undefined;
    const skipped: [SimThread, number][] = [];
    let best: SimThread | undefined;
    while (!best && skipped.length < ADVERSARIAL_SCAN) {
      const t = this.popReady();
      if (!t) break;
      if (lastRole !== undefined && roleOf(t) === lastRole) skipped.push([t, this.heap.poppedStamp]);
      else best = t;
    }
    if (!best && skipped.length) best = skipped.shift()![0];
    for (const [t, stamp] of skipped) this.restore(t, stamp);
    return best;
  }

  /** Ready threads the queue does not know (made ready behind the machine's back): queue them. */
  rescue(live: readonly SimBlock[]): boolean {
    let found = false;
    for (const b of live) {
      for (const t of b.threads) {
        if (t.status !== 'ready') continue;
        if (this.policy === 'random' ? (this.readyPos[t.index] ?? -1) >= 0 : false) continue;
        this.enqueue(t);
        found = true;
      }
    }
    return found;
  }
}

function roleOf(t: SimThread): string {
  return t.role ?? `warp${t.warp}`;
}
