// Thread-block clusters (PTX ISA 5.2.1, 9.7.13.3 barrier.cluster, 9.7.9.x mapa/.shared::cluster): the
// launch's cluster shape and each CTA's place in it (the cluster special registers), the order in which
// the machine makes CTAs resident (a cluster is launched whole, never split across waves), the
// simulator's encoding of shared::cluster addresses, the cluster barrier with split arrive/wait, and
// multicast delivery of asynchronous copies (one copy landing in every CTA of a mask, each CTA's
// barrier at the same offset getting its own complete_tx). Language-free: executors resolve their
// variables; this module knows CTAs, ranks, offsets and barriers.
import { type AsyncOp, type Dim3, SimError, type SimBarrier, type SimThread, type SourceLoc, type Wait } from './machine-types';
import type { Pointer } from './memory';
import type { RaceDetector } from './races';
import { lineOf } from './reports';

/** CTAs per cluster every launch may use (cudaOccupancyMaxPotentialClusterSize's portable limit). */
export const MAX_PORTABLE_CLUSTER_SIZE = 8;
/** Hopper's non-portable maximum (cudaFuncAttributeNonPortableClusterSizeAllowed). */
export const MAX_CLUSTER_SIZE = 16;

/**
 * A shared::cluster address, numbered as the H200 numbers them (test/fixtures/sim/gpu-probes/
 * cluster-addresses): the CTA's rank in the bits from 24 up, its shared-window address below.
 * A CTA's own shared::cta addresses (`__cvta_generic_to_shared`, `cvta.shared`) carry its rank too
 * (rank 1's first variable is 0x01000400), so a shared::cta address is the shared::cluster address of
 * the same byte, as the PTX ISA guarantees, and clearing bit 24 names the even CTA of a pair
 * (CUTLASS's Sm100MmaPeerBitMask).
 */
export const CLUSTER_RANK_SHIFT = 24;
/** The shared-window address below a shared::cluster address's rank bits. */
export const WINDOW_MASK = (1 << CLUSTER_RANK_SHIFT) - 1;

export function clusterAddress(rank: number, local: number): number {
  return (rank * 2 ** CLUSTER_RANK_SHIFT + (local & WINDOW_MASK)) >>> 0;
}

/** The CTA rank an address names and its address inside that CTA's window. */
export function decodeClusterAddress(a: number): { rank: number; local: number } {
  return { rank: Math.floor((a >>> 0) / 2 ** CLUSTER_RANK_SHIFT), local: (a >>> 0) & WINDOW_MASK };
}

/** Where one CTA sits: its cluster (linear id and 3-D index), its rank and its 3-D index inside the cluster. */
export interface ClusterPlace {
  cluster: number;
  clusterIdx: Dim3;
  rank: number;
  ctaid: Dim3;
}

/** The launch's clusters: dims (1x1x1 when the launch names none: every CTA is an implicit cluster of one). */
export class ClusterLayout {
  readonly size: number;
  /** %nclusterid: clusters per grid dimension. */
  readonly clusterGrid: Dim3;
  readonly count: number;

  constructor(
    readonly grid: Dim3,
    readonly dims: Dim3,
    /** %is_explicit_cluster: the launch asked for clusters (`__cluster_dims__`, a cluster attribute), even of size 1. */
    readonly explicit: boolean,
  ) {
    this.size = dims[0] * dims[1] * dims[2];
    this.clusterGrid = [grid[0] / dims[0], grid[1] / dims[1], grid[2] / dims[2]];
    this.count = this.clusterGrid[0] * this.clusterGrid[1] * this.clusterGrid[2];
  }

  /** A CTA's place from its blockIdx. The rank is x-fastest over the cluster's dims (%cluster_ctarank). */
  placeOf(idx: Dim3): ClusterPlace {
    const [dx, dy, dz] = this.dims;
    const clusterIdx: Dim3 = [Math.floor(idx[0] / dx), Math.floor(idx[1] / dy), Math.floor(idx[2] / dz)];
    const ctaid: Dim3 = [idx[0] % dx, idx[1] % dy, idx[2] % dz];
    const [cx, cy] = this.clusterGrid;
    return { cluster: clusterIdx[0] + cx * (clusterIdx[1] + cy * clusterIdx[2]), clusterIdx, rank: ctaid[0] + dx * (ctaid[1] + dy * ctaid[2]), ctaid };
  }

  /** The linear block index of CTA `rank` of cluster `cluster`. */
  blockOf(cluster: number, rank: number): number {
    const [dx, dy] = this.dims;
    const [cx, cy] = this.clusterGrid;
    const c: Dim3 = [cluster % cx, Math.floor(cluster / cx) % cy, Math.floor(cluster / (cx * cy))];
    const r: Dim3 = [rank % dx, Math.floor(rank / dx) % dy, Math.floor(rank / (dx * dy))];
    const [gx, gy] = this.grid;
    return c[0] * dx + r[0] + gx * (c[1] * dy + r[1] + gy * (c[2] * this.dims[2] + r[2]));
  }

  /** The linear block index launched `n`-th: clusters one after the other, each cluster's CTAs by rank. */
  blockLaunched(n: number): number {
    return this.size === 1 ? n : this.blockOf(Math.floor(n / this.size), n % this.size);
  }

  /** The CTA ranks of a multicast CTA mask; a bit for a rank the cluster does not have is an error. */
  ranksOfMask(mask: number, what: string): number[] {
    const m = mask >>> 0;
    if (m >>> this.size !== 0 || m > 0xffff) throw new SimError(`${what}: CTA mask 0x${m.toString(16)} names CTA ranks beyond the cluster's ${this.size} (ranks 0..${this.size - 1})`);
    const ranks: number[] = [];
    for (let r = 0; r < this.size; r++) if (m & (1 << r)) ranks.push(r);
    if (ranks.length === 0) throw new SimError(`${what}: CTA mask 0 names no CTA (the operation would reach none)`);
    return ranks;
  }
}

/** Checks the launch's cluster dims against its grid; the problem names the `cluster` field. */
export function validateCluster(grid: Dim3, cluster: Dim3): void {
  const bad = (detail: string) => SimError.ofRequest({ kind: 'cluster' }, `bad launch configuration: ${detail}`);
  if (!Array.isArray(cluster) || cluster.length !== 3 || cluster.some((v) => !Number.isInteger(v) || v < 1)) throw bad(`cluster dimensions must be three positive integers, got ${String(cluster)}`);
  const size = cluster[0] * cluster[1] * cluster[2];
  if (size > MAX_CLUSTER_SIZE)
    throw bad(`a cluster of ${cluster.join('x')} = ${size} CTAs exceeds the hardware maximum of ${MAX_CLUSTER_SIZE} (${MAX_PORTABLE_CLUSTER_SIZE} portable; 9..16 need cudaFuncAttributeNonPortableClusterSizeAllowed)`);
  for (let i = 0; i < 3; i++) if (grid[i] % cluster[i] !== 0) throw bad(`grid ${grid.join(',')} is not a whole number of ${cluster.join('x')} clusters (gridDim.${'xyz'[i]} = ${grid[i]} is not divisible by ${cluster[i]})`);
}

// ------------------------------------------------------------------ the cluster barrier

/** What the cluster barrier needs from the machine. */
export interface ClusterBarrierHost {
  readonly blockSize: number;
  readonly races?: RaceDetector;
  readonly clusters: ClusterLayout;
  blockOn(t: SimThread, wait: Wait): boolean;
  notify(on: object): void;
  /** The linear id of thread `t`'s cluster. */
  clusterOf(t: SimThread): number;
}

interface ClusterBarrierState {
  gen: number;
  /** Threads that arrived in the current phase. */
  arrived: Set<number>;
  /** Threads that exited (a count: an exited thread never arrives): they count as arrived in every phase (PTX: "all non-exited threads"). */
  exited: number;
  /** arrived ∪ exited. */
  count: number;
  expected: number;
  cluster: number;
}

/**
 * `barrier.cluster.arrive` / `barrier.cluster.wait` (and cooperative groups' cluster.sync()): every
 * non-exited thread of every CTA of the cluster arrives, then waits for the phase. A thread may do
 * independent work between its arrive and its wait; arriving twice without a wait, or waiting without
 * an arrival, is an error (undefined in the PTX ISA). A release arrive orders the thread's earlier
 * memory accesses before every acquire wait of the phase; a relaxed one orders nothing.
 */
export class ClusterBarriers {
  private readonly states = new Map<number, ClusterBarrierState>();
  /** Per thread: the generation it arrived in and has not yet waited for. */
  private readonly pending = new Map<number, number>();

  constructor(private readonly m: ClusterBarrierHost) {}

  private stateOf(cluster: number): ClusterBarrierState {
    let s = this.states.get(cluster);
    if (!s) this.states.set(cluster, (s = { gen: 0, arrived: new Set(), exited: 0, count: 0, expected: this.m.clusters.size * this.m.blockSize, cluster }));
    return s;
  }

  arrive(t: SimThread, release: boolean, what: string): void {
    if (this.pending.has(t.index)) throw new SimError(`${what}: ${t.label} arrives on the cluster barrier again without a barrier.cluster.wait since its last arrive (undefined in the PTX ISA)`);
    const s = this.stateOf(this.m.clusterOf(t));
    this.pending.set(t.index, s.gen);
    s.arrived.add(t.index);
    s.count++;
    if (release) this.m.races?.arrive(raceKey(s.cluster), t.index);
    this.maybeComplete(s);
  }

  /** True: the phase the thread arrived in completed (it passes). False: blocked; re-execute after wake-up. */
  wait(t: SimThread, acquire: boolean, what: string): boolean {
    const gen = this.pending.get(t.index);
    if (gen === undefined) throw new SimError(`${what}: ${t.label} waits on the cluster barrier without having arrived (barrier.cluster.arrive) since its last wait`);
    const s = this.stateOf(this.m.clusterOf(t));
    if (s.gen > gen) {
      this.pending.delete(t.index);
      if (acquire) this.m.races?.acquire(raceKey(s.cluster), t.index);
      return true;
    }
    return this.m.blockOn(t, { kind: 'cluster-sync', on: s, ready: () => s.gen > gen, describe: () => `${what} (cluster ${s.cluster}: ${s.count} of ${s.expected} threads arrived)` });
  }

  /** arrive + wait (cooperative groups' cluster.sync()); the arrive is not repeated when the thread re-executes after a wake-up. */
  sync(t: SimThread, what: string): boolean {
    if (!this.pending.has(t.index)) this.arrive(t, true, what);
    return this.wait(t, true, what);
  }

  /** A thread exited: it no longer holds back any phase. */
  threadExited(t: SimThread): void {
    const s = this.stateOf(this.m.clusterOf(t));
    this.pending.delete(t.index);
    s.exited++;
    if (!s.arrived.has(t.index)) s.count++;
    this.maybeComplete(s);
  }

  private maybeComplete(s: ClusterBarrierState): void {
    if (s.count < s.expected) return;
    s.gen++;
    s.arrived.clear();
    s.count = s.exited;
    // The cluster's vector clocks are one set (machine.ts): the phase publishes every release arrival of its CTAs.
    this.m.races?.release(raceKey(s.cluster), []);
    this.m.notify(s);
  }

  /** Forgets a cluster whose CTAs all finished; `forget` drops the machine's waiter list on it. */
  releaseCluster(cluster: number, forget: (on: object) => void): void {
    const s = this.states.get(cluster);
    if (!s) return;
    forget(s);
    this.states.delete(cluster);
  }
}

function raceKey(cluster: number): string {
  return `cluster-barrier:${cluster}`;
}

// ------------------------------------------------------------------ multicast delivery

/** One CTA a multicast copy lands in: the destination there and the barrier at the same offset. */
export interface MulticastTarget {
  rank: number;
  dst: Pointer;
  barrier?: SimBarrier;
}

/** What multicast delivery needs from the machine. */
export interface MulticastHost {
  accessAsync(op: AsyncOp, buf: Pointer['buf'], offset: number, size: number, write: boolean): void;
  mbCompleteTx(b: SimBarrier, bytes: number, op?: AsyncOp): void;
  /** Throws when the CTA owning `block` has exited (a delivery into freed shared memory). */
  checkCtaAlive(block: number, access: string, loc?: SourceLoc): void;
}

/**
 * Delivers one multicast copy at its completion (inside the op's `complete` callback): for every
 * target CTA, `write` puts the data at its destination (a contiguous copy, or a tensor box the
 * caller lays out), the write is race-checked as the op's, and that CTA's barrier gets its own
 * complete_tx of `bytes` (PTX: "the mbarrier signal is also multicast to the same CTA-relative offset").
 */
export function deliverMulticast(m: MulticastHost, op: AsyncOp, targets: readonly MulticastTarget[], bytes: number, write: (target: MulticastTarget) => void): void {
  for (const target of targets) {
    m.checkCtaAlive(target.dst.buf.block ?? -1, `its delivery into CTA rank ${target.rank}`, op.loc);
    write(target);
    m.accessAsync(op, target.dst.buf, target.dst.offset, bytes, true);
    if (target.barrier) m.mbCompleteTx(target.barrier, bytes, op);
  }
}

/** "CTA rank 1 exited at line 40" for the message of an access to an exited CTA. */
export function exitedMessage(access: string, rank: number, exitLoc: SourceLoc | undefined, loc?: SourceLoc): string {
  return `${access}${loc ? ` at ${lineOf(loc)}` : ''} targets CTA rank ${rank} of its cluster, which already exited${exitLoc ? ` (its last thread ended at ${lineOf(exitLoc)})` : ''}: distributed shared memory and barriers of a CTA must not be accessed after it exits (undefined behaviour; an "unspecified launch failure" on the GPU). Keep the CTA alive with a final cluster barrier or by waiting for the last remote arrival`;
}
