// The machine's rendezvous services: block syncs (`__syncthreads`, `bar.sync`/`bar.arrive` on named
// barriers), warp syncs, the grid-wide sync and warp collectives (shuffle, vote, match, reduce). Each
// rendezvous is idempotent on re-entry: a thread woken after a completed round passes at once.
import { SimError, type SimThread, type Wait } from './machine-types';
import type { RaceDetector } from './races';

/** What the services need from the machine that owns them. */
export interface SyncHost {
  readonly blockSize: number;
  readonly races?: RaceDetector;
  blockOn(t: SimThread, wait: Wait): boolean;
  notify(on: object): void;
  /** Set to end the running quantum after the current statement. */
  yieldNow: boolean;
  readonly options: { readonly lockstep?: boolean };
  readonly executor: { readonly runLanes?: unknown };
}

type SyncState = {
  gen: number;
  /** Arrivals in the current generation (a thread arrives once per generation: its `pendingSync` says it did). */
  arrived: number;
  expected: number;
  /** Its key in `syncs` (`b<block>:<id>`, `w<block>:<warp>`, `grid`), and the race detector's. */
  key: string;
  raceKey: string;
};
type ExchangeState = { gen: number; values: number[]; arrived: number; mask: number };

/**
 * A thread's pending rendezvous (`SimThread.pendingSync`) and its wait in one object: each thread of
 * each block meets at `__syncthreads`, so this is made once per thread and sync instead of a record,
 * a wait and its two closures.
 */
class RendezvousWait implements Wait {
  constructor(
    readonly kind: Wait['kind'],
    readonly on: SyncState,
    readonly key: string,
    /** The generation the thread arrived in: it passes once the rendezvous is past it. */
    readonly gen: number,
    private readonly what: string,
  ) {}
  ready(): boolean {
    return this.on.gen > this.gen;
  }
  describe(): string {
    return `${this.what} (${this.on.arrived} of ${this.on.expected} arrived)`;
  }
}

/** Block, warp and grid rendezvous and warp exchanges of one machine. */
export class SyncServices {
  /** Block-level sync rendezvous: key → generation and arrivals. */
  private readonly syncs = new Map<string, SyncState>();
  /** The same block and warp syncs by block, then by number (bar id, or -1 - warp): no key strings per call. */
  private readonly localSyncs = new Map<number, Map<number, SyncState>>();
  /** Warp exchanges: key → values deposited by the lanes of one round. */
  private readonly exchanges = new Map<string, ExchangeState>();
  private readonly exchangeResults = new Map<string, { values: number[]; readers: number }>();
  private readonly blockSize: number;
  private readonly races?: RaceDetector;

  /** Warps run in lockstep (see `rendezvous`). */
  private readonly lockstep: boolean;

  constructor(private readonly m: SyncHost) {
    this.blockSize = m.blockSize;
    this.races = m.races;
    this.lockstep = !!m.executor.runLanes && m.options.lockstep !== false;
  }

  /**
   * `__syncthreads` / `bar.sync id, count` / named barriers: a rendezvous of `count` threads of the
   * block (all of them by default). Idempotent on re-entry after wake-up.
   */
  syncBlock(t: SimThread, id = 0, count = this.blockSize, what = id === 0 && count === this.blockSize ? '__syncthreads' : `bar.sync ${id}, ${count}`): boolean {
    this.checkNamedBarrier(id, count, what);
    return this.rendezvous(t, this.localSync(t, id, count), count, what, 'block-sync');
  }

  /** `bar.arrive id, count`: counts toward the rendezvous without waiting. */
  arriveBlock(t: SimThread, id: number, count: number): void {
    this.checkNamedBarrier(id, count, `bar.arrive ${id}, ${count}`);
    const s = this.localSync(t, id, count);
    s.expected = count;
    s.arrived++; // anonymous arrival
    this.races?.arrive(s.raceKey, t.index);
    this.maybeCompleteSync(s);
  }

  /** Counts the rendezvous can never reach (or ids that are not ids) are program errors, reported as such. */
  private checkNamedBarrier(id: number, count: number, what: string): void {
    if (!Number.isInteger(id) || id < 0) throw new SimError(`${what}: barrier id ${id} is not a non-negative integer`);
    if (!Number.isInteger(count) || count < 1 || count > this.blockSize) throw new SimError(`${what}: thread count ${count} is outside 1..${this.blockSize} (the block size)`);
  }

  /** `__syncwarp(mask)`: the lanes in `mask` meet. */
  syncWarp(t: SimThread, mask = 0xffffffff): boolean {
    const n = popcount(this.warpMask(t, mask));
    return this.rendezvous(t, this.localSync(t, -1 - t.warp, n), n, `__syncwarp(0x${(mask >>> 0).toString(16)})`, 'warp-sync');
  }

  /** `mask` limited to the lanes the warp has (the last warp of a block may be partial). */
  private warpMask(t: SimThread, mask: number): number {
    const lanes = Math.min(32, this.blockSize - t.warp * 32);
    return (lanes >= 32 ? mask : mask & ((1 << lanes) - 1)) >>> 0;
  }

  /** A rendezvous of every thread of `blocks` blocks (cooperative groups' grid.sync()). */
  syncGrid(t: SimThread, blocks: number): boolean {
    return this.rendezvous(t, this.syncState('grid', blocks * this.blockSize), blocks * this.blockSize, 'grid.sync()', 'cluster-sync');
  }

  private syncState(key: string, expected: number): SyncState {
    let s = this.syncs.get(key);
    if (!s) this.syncs.set(key, (s = { gen: 0, arrived: 0, expected, key, raceKey: `sync:${key}` }));
    return s;
  }

  /** Block sync `local` ≥ 0 (a bar id) or warp sync `-1 - warp` of `t`'s block. */
  private localSync(t: SimThread, local: number, expected: number): SyncState {
    let byNumber = this.localSyncs.get(t.block);
    if (!byNumber) this.localSyncs.set(t.block, (byNumber = new Map()));
    let s = byNumber.get(local);
    if (!s) byNumber.set(local, (s = this.syncState(local >= 0 ? `b${t.block}:${local}` : `w${t.block}:${-1 - local}`, expected)));
    return s;
  }

  private maybeCompleteSync(s: SyncState): void {
    if (s.arrived < s.expected) return;
    this.races?.release(s.raceKey, []);
    s.gen++;
    s.arrived = 0;
    this.m.notify(s);
  }

  private rendezvous(t: SimThread, s: SyncState, expected: number, what: string, kind: Wait['kind']): boolean {
    const key = s.key;
    const pend = t.pendingSync;
    if (pend && pend.key === key) {
      if (s.gen > pend.gen) {
        t.pendingSync = undefined;
        this.races?.acquire(s.raceKey, t.index);
        return true;
      }
      return this.m.blockOn(t, pend instanceof RendezvousWait && pend.on === s ? pend : new RendezvousWait(kind, s, key, pend.gen, what));
    }
    s.expected = expected;
    s.arrived++;
    this.races?.arrive(s.raceKey, t.index);
    const gen = s.gen;
    const w = new RendezvousWait(kind, s, key, gen, what);
    t.pendingSync = w;
    this.maybeCompleteSync(s);
    if (s.gen > gen) {
      t.pendingSync = undefined;
      this.races?.acquire(s.raceKey, t.index);
      // The last thread in does not run ahead of the ones it released: its warp leaves the barrier
      // converged (a lane alone past a __syncthreads would arrive on an mbarrier before its
      // warp-mates, which a converged warp never does).
      if (expected > 1 && this.lockstep) this.m.yieldNow = true;
      return true;
    }
    return this.m.blockOn(t, w);
  }

  /**
   * Warp collective (shuffle, vote, match, reduce): every lane in `mask` deposits `value`; once all
   * have, each gets the 32 deposited values (undefined for absent lanes). Returns undefined while the
   * thread must wait (it is blocked; re-execute after wake-up).
   */
  warpExchange(t: SimThread, mask: number, value: number): number[] | undefined {
    const key = `w${t.block}:${t.warp}:x`;
    let s = this.exchanges.get(key);
    if (!s) this.exchanges.set(key, (s = { gen: 0, values: new Array(32), arrived: 0, mask: this.warpMask(t, mask) }));
    const st = s;
    const pend = t.pendingSync;
    if (pend && pend.key === key) {
      if (st.gen > pend.gen) {
        t.pendingSync = undefined;
        const rk = `${key}:${pend.gen}`;
        const r = this.exchangeResults.get(rk)!;
        if (--r.readers === 0) this.exchangeResults.delete(rk);
        return r.values;
      }
      this.m.blockOn(t, { kind: 'warp-sync', on: st, ready: () => st.gen > pend.gen, describe: () => `warp collective (mask 0x${st.mask.toString(16)}, ${st.arrived} of ${popcount(st.mask)} lanes)` });
      return undefined;
    }
    st.mask = this.warpMask(t, mask);
    st.values[t.lane] = value;
    st.arrived++;
    const gen = st.gen;
    const need = popcount(st.mask);
    if (st.arrived >= need) {
      const values = st.values;
      if (need > 1) this.exchangeResults.set(`${key}:${gen}`, { values, readers: need - 1 });
      st.gen++;
      st.values = new Array(32);
      st.arrived = 0;
      this.m.notify(st);
      return values;
    }
    t.pendingSync = { key, gen };
    this.m.blockOn(t, { kind: 'warp-sync', on: st, ready: () => st.gen > gen, describe: () => `warp collective (mask 0x${st.mask.toString(16)}, ${st.arrived} of ${need} lanes)` });
    return undefined;
  }

  /** Forgets a finished block's rendezvous; `forget` drops the machine's waiter lists on each. */
  releaseBlock(block: number, forget: (on: object) => void): void {
    // Its block and warp syncs are the ones `localSyncs` lists for it (no walk over every block's).
    const own = this.localSyncs.get(block);
    if (own) {
      for (const s of own.values()) {
        forget(s);
        this.syncs.delete(s.key);
      }
      this.localSyncs.delete(block);
    }
    if (!this.exchanges.size && !this.exchangeResults.size) return;
    const mine = (key: string) => key.startsWith(`w${block}:`);
    for (const [key, s] of this.exchanges) if (mine(key)) (forget(s), this.exchanges.delete(key));
    for (const key of this.exchangeResults.keys()) if (mine(key)) this.exchangeResults.delete(key);
  }
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
