// Builtins that synchronise threads or exchange values between them: __syncthreads, __syncwarp,
// warp shuffles, votes and reductions, the active-lane mask, fences and prefetches (no-ops here:
// their operands are still evaluated), and cooperative groups (this_thread_block, this_grid,
// this_cluster, tiled_partition and the sync/rank/size/shuffle/vote members of their groups; a
// cluster's map_shared_rank into distributed shared memory).
import type { SyntaxNode } from '../parser';
import { SimError } from '../../../sim/machine';
import { Buffer, type Pointer } from '../../../sim/memory';
import { args, asNum, asPtr, type BuiltinCx, cases, type FreeBuiltin, type MethodBuiltin, noTags, unit, V } from './builtin-operands';
import { mapToRank } from './cluster-runtime';
import type { Ex } from './context';
import { electedLane } from './ptx-misc';
import { type Frame, liveMask } from './runtime';
import { fail, unsupported } from './syntax';
import { BOOL, type CType, isNum, num, S32, typeName, U32, U64, vectorType, VOID } from './types';

/** Free functions: block and warp synchronisation, warp collectives, fences, cooperative groups. */
export const SYNC_BUILTINS: Record<string, FreeBuiltin> = {
  ...cases(['__syncthreads'], (k) => {
    const { c, cx, n } = k;
    return c.emitBlocking(cx, n, VOID, (f) => (f.ts.m.syncBlock(f.ts.t) ? 0 : undefined));
  }),
  ...cases(['__syncwarp'], (k, _name, _ns, a) => {
    const { c, cx, n } = k;
    const mask = a.length ? asNum(k, args(k, a)[0], 'u32') : () => 0xffffffff;
    return c.emitBlocking(cx, n, VOID, (f) => (f.ts.m.syncWarp(f.ts.t, mask(f)) ? 0 : undefined));
  }),
  ...cases(['__threadfence', '__threadfence_block', '__threadfence_system', 'fence_mbarrier_init', '__prefetch_global_l2', 'prefetch'], (k, _name, _ns, a) => {
    const { c, cx } = k;
    for (const x of noTags(k, a)) c.expr(cx, x);
    return V(unit, VOID);
  }),
  // The proxy fence: this thread's generic shared-memory accesses (and those ordered before them)
  // become visible to async-proxy operations (bulk/TMA copies, MMA operand reads) ordered after it.
  ...cases(['fence_proxy_async', 'fence_proxy_async_shared_cta', 'fence_view_async_shared', 'tma_store_fence'], (k, _name, _ns, a) => {
    const { c, cx } = k;
    for (const x of noTags(k, a)) c.expr(cx, x);
    return V((f) => (f.ts.m.fenceProxyAsync(f.ts.t), 0), VOID);
  }),
  // __nanosleep(ns): the thread's simulated time advances by `ns` (one simulated cycle per nanosecond).
  ...cases(['__nanosleep'], (k, _name, _ns, a) => {
    const ns = asNum(k, args(k, a)[0], 'u32');
    return V((f) => {
      f.ts.t.time += Math.max(0, Number(ns(f)));
      return 0;
    }, VOID);
  }),
  ...cases(['__activemask'], () => V((f) => liveMask(f.ts), U32)),
  // elect.sync: true in the lowest lane of the mask, which all execute it together (cute::elect_one_sync: the whole warp).
  ...cases(['elect_sync', 'elect_one_sync'], (k, name, _ns, a) => {
    const mask = name === 'elect_sync' ? asNum(k, args(k, noTags(k, a))[0], 'u32') : () => 0xffffffff;
    return k.c.emitBlocking(k.cx, k.n, BOOL, (f) => {
      const leader = electedLane(f, Number(mask(f)) >>> 0);
      return leader === undefined ? undefined : leader === f.ts.t.lane ? 1 : 0;
    });
  }),
  ...cases(['__lanemask_lt'], () => V((f) => ((1 << f.ts.t.lane) - 1) >>> 0, U32)),
  ...cases(['__shfl_sync', '__shfl_up_sync', '__shfl_down_sync', '__shfl_xor_sync'], (k, name, _ns, a) => shuffle(k, name, a)),
  ...cases(['__all_sync', '__any_sync', '__ballot_sync', '__reduce_add_sync', '__reduce_min_sync', '__reduce_max_sync', '__reduce_and_sync', '__reduce_or_sync', '__reduce_xor_sync'], (k, name, _ns, a) => vote(k, name, a)),
  // CUDA's cluster intrinsics (sm_90_rt.h), what cooperative groups' cluster_group is made of.
  ...cases(['__cluster_barrier_arrive', '__cluster_barrier_arrive_relaxed'], (k, name) =>
    k.c.emitBlocking(k.cx, k.n, VOID, (f) => {
      f.ts.m.clusterArrive(f.ts.t, name === '__cluster_barrier_arrive', `${name}()`);
      return 0;
    }),
  ),
  ...cases(['__cluster_barrier_wait'], (k) => k.c.emitBlocking(k.cx, k.n, VOID, (f) => (f.ts.m.clusterWait(f.ts.t, true, '__cluster_barrier_wait()') ? 0 : undefined))),
  ...cases(['__clusterRelativeBlockRank'], () => V((f) => f.ts.m.blockAt(f.ts.t.block)!.rank, U32)),
  ...cases(['__clusterSizeInBlocks'], () => V((f) => f.ts.m.clusters.size, U32)),
  ...cases(['__clusterDimIsSpecified'], () => V((f) => (f.ts.m.clusters.explicit ? 1 : 0), num('bool'))),
  ...cases(['__clusterDim'], () => V((f) => dim3Value(f, f.ts.m.clusters.dims), { k: 'struct', def: vectorType('uint3')! })),
  ...cases(['__clusterRelativeBlockIdx'], () => V((f) => dim3Value(f, f.ts.m.clusters.placeOf(f.ts.t.blockIdx).ctaid), { k: 'struct', def: vectorType('uint3')! })),
  ...cases(['__clusterIdx'], () => V((f) => dim3Value(f, f.ts.m.clusters.placeOf(f.ts.t.blockIdx).clusterIdx), { k: 'struct', def: vectorType('uint3')! })),
  ...cases(['__clusterGridDimInClusters'], () => V((f) => dim3Value(f, f.ts.m.clusters.clusterGrid), { k: 'struct', def: vectorType('uint3')! })),
  ...cases(['__cluster_map_shared_rank'], (k, _name, _ns, a) => (a.length === 2 ? mapSharedRank(k, a) : undefined)),
  ...cases(['__cluster_query_shared_rank'], (k, _name, _ns, a) => (a.length === 1 ? querySharedRank(k, a) : undefined)),
  // Cooperative groups: free functions of the cg namespace (three of them also unqualified).
  ...cases(['this_thread_block', 'this_grid', 'this_cluster', 'tiled_partition'], (k, name, ns, a, targs) => {
    if (!isGroupNamespace(ns) && ns !== '') return undefined;
    const { c, cx, n } = k;
    switch (name) {
      case 'this_thread_block':
        return V(() => 0, { k: 'obj', obj: 'thread_block' });
      case 'this_grid':
        return V(() => 0, { k: 'obj', obj: 'grid' });
      case 'this_cluster':
        return V(() => 0, { k: 'obj', obj: 'cluster' });
      default: {
        const size = targs?.length ? c.constEval(cx, targs[0]) : a[1] ? c.constEval(cx, a[1]) : 32;
        if (![1, 2, 4, 8, 16, 32].includes(size)) unsupported(`tiled_partition<${size}>`, n);
        return V(() => 0, { k: 'obj', obj: 'tile', n: size });
      }
    }
  }),
};

/** Is `ns` the cooperative groups namespace (or its usual alias)? */
export function isGroupNamespace(ns: string): boolean {
  return /^(cg|cooperative_groups)$/.test(ns);
}

/** Members of cg::thread_block. */
export const THREAD_BLOCK_METHODS: Record<string, MethodBuiltin> = {
  ...cases(['sync', 'barrier_sync'], (k) => k.c.emitBlocking(k.cx, k.n, VOID, (f) => (f.ts.m.syncBlock(f.ts.t) ? 0 : undefined))),
  ...cases(['thread_rank'], () => V((f) => f.ts.t.tid, U32)),
  ...cases(['size', 'num_threads'], () => V((f) => f.ts.m.blockSize, U32)),
};

/** Members of cg::grid_group. */
export const GRID_METHODS: Record<string, MethodBuiltin> = {
  ...cases(['sync'], (k) => k.c.emitBlocking(k.cx, k.n, VOID, (f) => (f.ts.m.syncGrid(f.ts.t, f.ts.m.numBlocks) ? 0 : undefined))),
  ...cases(['thread_rank'], () => V((f) => f.ts.t.block * f.ts.m.blockSize + f.ts.t.tid, U64)),
  ...cases(['size', 'num_threads'], () => V((f) => f.ts.m.numBlocks * f.ts.m.blockSize, U64)),
  ...cases(['block_rank'], () => V((f) => f.ts.t.block, U32)),
};

/** Members of cg::cluster_group: the CTAs of the thread's cluster (core/sim/cluster.ts). */
export const CLUSTER_METHODS: Record<string, MethodBuiltin> = {
  // sync() = barrier.cluster.arrive.release + barrier.cluster.wait.acquire (the arrive is not repeated on re-entry).
  ...cases(['sync', 'barrier_sync'], (k) => k.c.emitBlocking(k.cx, k.n, VOID, (f) => (f.ts.m.clusterSync(f.ts.t, 'cluster.sync()') ? 0 : undefined))),
  // barrier_arrive() returns an arrival token (CUDA 12's cluster_group::arrival_token) that barrier_wait(std::move(token)) takes back.
  ...cases(['barrier_arrive'], (k) =>
    k.c.emitBlocking(k.cx, k.n, U64, (f) => {
      f.ts.m.clusterArrive(f.ts.t, true, 'cluster.barrier_arrive()');
      return 0;
    }),
  ),
  ...cases(['barrier_wait'], (k) => k.c.emitBlocking(k.cx, k.n, VOID, (f) => (f.ts.m.clusterWait(f.ts.t, true, 'cluster.barrier_wait()') ? 0 : undefined))),
  ...cases(['block_rank'], () => V((f) => f.ts.m.blockAt(f.ts.t.block)!.rank, U32)),
  ...cases(['num_blocks'], () => V((f) => f.ts.m.clusters.size, U32)),
  ...cases(['thread_rank'], () => V((f) => f.ts.m.blockAt(f.ts.t.block)!.rank * f.ts.m.blockSize + f.ts.t.tid, U32)),
  ...cases(['size', 'num_threads'], () => V((f) => f.ts.m.clusters.size * f.ts.m.blockSize, U32)),
  ...cases(['is_valid'], () => V(() => 1, num('bool'))),
  ...cases(['dim_blocks'], () => V((f) => dim3Value(f, f.ts.m.clusters.dims), { k: 'struct', def: vectorType('uint3')! })),
  ...cases(['block_index'], () => V((f) => dim3Value(f, f.ts.m.clusters.placeOf(f.ts.t.blockIdx).ctaid), { k: 'struct', def: vectorType('uint3')! })),
  // map_shared_rank(T* p, rank): the same shared variable in CTA `rank` (a generic pointer into its memory).
  ...cases(['map_shared_rank'], (k, _t, _self, _name, a) => (a.length === 2 ? mapSharedRank(k, a) : undefined)),
  ...cases(['query_shared_rank'], (k, _t, _self, _name, a) => (a.length === 1 ? querySharedRank(k, a) : undefined)),
};

/** `map_shared_rank(p, rank)`: the same shared variable as `p` in CTA `rank` of the cluster, as a pointer of p's type. */
function mapSharedRank(k: BuiltinCx, a: SyntaxNode[]): Ex {
  const [pe, re] = args(k, a);
  if (pe.t.k !== 'ptr') fail(`map_shared_rank expects a pointer to shared memory, got ${typeName(pe.t)}`, k.n);
  const p = pe.ev;
  const rank = asNum(k, re, 'u32');
  return V((f) => {
    const ptrValue = p(f) as Pointer | null;
    if (!ptrValue || ptrValue.buf.space !== 'shared') throw new SimError('map_shared_rank: the pointer does not point into shared memory');
    return mapToRank(f.ts, ptrValue, rank(f), 'map_shared_rank');
  }, pe.t);
}

/** `query_shared_rank(p)`: the rank of the CTA whose shared memory `p` points into. */
function querySharedRank(k: BuiltinCx, a: SyntaxNode[]): Ex {
  const p = asPtr(k, args(k, a)[0]);
  return V((f) => {
    const ptrValue = p(f) as Pointer | null;
    const owner = ptrValue?.buf.block === undefined ? undefined : f.ts.m.blockAt(ptrValue.buf.block);
    if (!ptrValue || ptrValue.buf.space !== 'shared' || !owner) throw new SimError('query_shared_rank: the pointer does not point into shared memory');
    return owner.rank;
  }, U32);
}

/** A dim3 result (a struct rvalue lives in storage of its own). */
function dim3Value(f: Frame, d: readonly number[]): Pointer {
  const buf = new Buffer(f.ts.ex.nextBufferId(), 'dim3', 'local', 12);
  for (let i = 0; i < 3; i++) buf.view.setUint32(4 * i, d[i], true);
  return { buf, offset: 0 };
}

/** Members of cg::thread_block_tile<N>. */
export const TILE_METHODS: Record<string, MethodBuiltin> = {
  ...cases(['sync'], (k, t) => {
    const maskOf = tileLanes(tileSize(t));
    return k.c.emitBlocking(k.cx, k.n, VOID, (f) => (f.ts.m.syncWarp(f.ts.t, maskOf(f)) ? 0 : undefined));
  }),
  ...cases(['thread_rank'], (_k, t) => {
    const size = tileSize(t);
    return V((f) => f.ts.t.tid % size, U32);
  }),
  ...cases(['size', 'num_threads'], (_k, t) => {
    const size = tileSize(t);
    return V(() => size, U32);
  }),
  ...cases(['meta_group_rank'], (_k, t) => {
    const size = tileSize(t);
    return V((f) => Math.floor(f.ts.t.tid / size), U32);
  }),
  ...cases(['meta_group_size'], (_k, t) => {
    const size = tileSize(t);
    return V((f) => Math.ceil(f.ts.m.blockSize / size), U32);
  }),
  ...cases(['shfl', 'shfl_up', 'shfl_down', 'shfl_xor'], (k, t, _self, name, a) => {
    const size = tileSize(t);
    return shuffle({ ...k }, `__${name}_sync`, a, tileLanes(size), size);
  }),
  ...cases(['any', 'all', 'ballot'], (k, t, _self, name, a) => vote(k, `__${name}_sync`, a, tileLanes(tileSize(t)))),
};

function tileSize(t: CType): number {
  return (t.k === 'obj' ? t.n : undefined) ?? 32;
}

/** The lanes of the calling thread's tile of `size` lanes. */
function tileLanes(size: number): (f: Frame) => number {
  return (f: Frame) => (size === 32 ? 0xffffffff : ((((1 << size) - 1) << (f.ts.t.lane & ~(size - 1))) >>> 0));
}

/** A thread's rank in a group object (for group-wide operations issued once), if the type is a group. */
export function groupRank(t: CType): ((f: Frame) => number) | undefined {
  if (t.k !== 'obj') return undefined;
  if (t.obj === 'thread_block') return (f) => f.ts.t.tid;
  if (t.obj === 'tile') {
    const size = t.n ?? 32;
    return (f) => f.ts.t.tid % size;
  }
  return undefined;
}

// ------------------------------------------------------------------ warp collectives

function shuffle(k: BuiltinCx, name: string, a: SyntaxNode[], tileMask?: (f: Frame) => number, tileWidth?: number): Ex {
  const { c, cx, n } = k;
  const xs = args(k, a);
  let i = 0;
  const mask = tileMask ? undefined : c.toTemp(cx, n, V(asNum(k, xs[i++], 'u32'), U32));
  const val = c.toTemp(cx, n, xs[i++]);
  const arg = c.toTemp(cx, n, V(asNum(k, xs[i++], 's32'), S32));
  const width = xs[i] ? asNum(k, xs[i], 's32') : () => tileWidth ?? 32;
  const vt = val.t;
  if (!isNum(vt)) unsupported(`${name} of a ${typeName(vt)}`, n);
  const kind = name.replace(/^__shfl_?/, '').replace(/_?sync$/, '');
  return c.emitBlocking(cx, n, vt, (f) => {
    const m = mask ? mask.ev(f) : tileMask!(f);
    const v = val.ev(f);
    const vals = f.ts.m.warpExchange(f.ts.t, m, v);
    if (!vals) return undefined;
    const lane = f.ts.t.lane;
    const w = width(f);
    const seg = lane & ~(w - 1);
    const x = arg.ev(f);
    let src: number;
    switch (kind) {
      case 'up':
        src = lane - x;
        if (src < seg) return v;
        break;
      case 'down':
        src = lane + x;
        if (src >= seg + w) return v;
        break;
      case 'xor':
        src = lane ^ x;
        if (src >= seg + w) return v;
        break;
      default:
        src = seg + (((x % w) + w) % w);
    }
    const r = vals[src];
    return r === undefined ? v : r;
  });
}

function vote(k: BuiltinCx, name: string, a: SyntaxNode[], tileMask?: (f: Frame) => number): Ex {
  const { c, cx, n } = k;
  const xs = args(k, a);
  let i = 0;
  const mask = tileMask ? undefined : c.toTemp(cx, n, V(asNum(k, xs[i++], 'u32'), U32));
  const valEx = xs[i];
  const isReduce = name.startsWith('__reduce');
  const val = c.toTemp(cx, n, isReduce ? valEx : V(c.truth(valEx, n), S32));
  const op = name.replace(/^__(reduce_)?/, '').replace(/_sync$/, '');
  const rt: CType = isReduce ? (isNum(valEx.t) && valEx.t.dt === 's32' ? S32 : U32) : name === '__ballot_sync' ? U32 : S32;
  return c.emitBlocking(cx, n, rt, (f) => {
    const m = mask ? mask.ev(f) : tileMask!(f);
    const raw = val.ev(f);
    const vals = f.ts.m.warpExchange(f.ts.t, m, isReduce ? raw : raw ? 1 : 0);
    if (!vals) return undefined;
    let acc = op === 'all' || op === 'and' ? (op === 'and' ? -1 : 1) : op === 'min' ? Infinity : op === 'max' ? -Infinity : 0;
    for (let l = 0; l < 32; l++) {
      if (!((m >>> l) & 1)) continue;
      const v = vals[l];
      if (v === undefined) continue;
      switch (op) {
        case 'all':
          acc = acc && v ? 1 : 0;
          break;
        case 'any':
          acc = acc || v ? 1 : 0;
          break;
        case 'ballot':
          if (v) acc = (acc | (1 << l)) >>> 0;
          break;
        case 'add':
          acc += v;
          break;
        case 'min':
          acc = Math.min(acc, v);
          break;
        case 'max':
          acc = Math.max(acc, v);
          break;
        case 'and':
          acc &= v;
          break;
        case 'or':
          acc |= v;
          break;
        case 'xor':
          acc ^= v;
          break;
      }
    }
    return rt === S32 ? acc | 0 : acc >>> 0;
  });
}
