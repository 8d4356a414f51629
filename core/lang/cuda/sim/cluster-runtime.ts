// Distributed shared memory for the CUDA executor: shared::cluster addresses (core/sim/cluster.ts's
// encoding: the CTA rank above a 32-bit shared-window address) and generic pointers into a peer CTA
// resolved to buffer + offset, the same variable in another CTA of the cluster (mapa, cooperative
// groups' map_shared_rank), and the window address of any shared pointer. Every CTA lays out its
// `__shared__` variables identically, so a window address names the same variable in each of them.
import { decodeClusterAddress } from '../../../sim/cluster';
import { SimError } from '../../../sim/machine';
import type { Pointer } from '../../../sim/memory';
import { type BlockCtx, fromSharedAddress, type ThreadCtx } from './runtime';

/** The shared window of CTA `rank` of the executing thread's cluster (an error for a rank it lacks or an exited CTA). */
export function peerWindow(ts: ThreadCtx, rank: number, what: string): BlockCtx {
  return ts.m.clusterPeer(ts.t, rank, what).state as BlockCtx;
}

/** A shared::cluster address (a shared::cta one names the executing CTA) as buffer + offset. */
export function fromClusterAddress(ts: ThreadCtx, a: number, what: string): Pointer {
  const { rank, local } = decodeClusterAddress(a);
  return fromSharedAddress(rank === ts.blk.rank ? ts.blk : peerWindow(ts, rank, what), local);
}

/** The operand of a .shared::cluster instruction (a pointer or a shared::cluster address) plus `off` bytes. */
export function clusterPointer(ts: ThreadCtx, v: unknown, off: number, what: string): Pointer {
  if (v && typeof v === 'object' && 'buf' in (v as Pointer)) {
    const p = v as Pointer;
    if (p.buf.space !== 'shared') throw new SimError(`${what}: '${p.buf.name}' is ${p.buf.space} memory, not shared memory`);
    if (p.buf.block !== ts.t.block) ts.blk.peerOf?.(p.buf);
    return { buf: p.buf, offset: p.offset + off };
  }
  if (typeof v === 'number') return fromClusterAddress(ts, v + off, what);
  throw new SimError(`${what}: expected a shared::cluster address`);
}

/** The CTA-relative window address of a shared operand (what multicast replicates in every CTA). */
export function windowAddress(ts: ThreadCtx, v: unknown, off: number, what: string): number {
  if (typeof v === 'number') return decodeClusterAddress(v + off).local;
  const p = clusterPointer(ts, v, off, what);
  const owner = p.buf.block === ts.t.block ? ts.blk : ts.blk.peerOf?.(p.buf)?.ctx;
  const base = owner?.baseOf.get(p.buf);
  if (base === undefined) throw new SimError(`${what}: '${p.buf.name}' is not shared memory of this cluster`);
  return base + p.offset;
}

/** The same shared variable (and offset) as `p`, in CTA `rank` of the cluster: map_shared_rank, generic mapa. */
export function mapToRank(ts: ThreadCtx, p: Pointer, rank: number, what: string): Pointer {
  const local = windowAddress(ts, p, 0, what);
  return fromSharedAddress(peerWindow(ts, rank, what), local);
}
