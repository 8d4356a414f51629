// The one catalogue of CUDA barrier and asynchronous APIs: every library function, barrier method and
// inline-PTX mnemonic Phaseflip knows, keyed by name, with the operation it performs, where its
// operands sit, whether the simulator may suspend a thread in it, whether the simulator runs it, and
// the id of its hover doc (the prose lives in api-docs.ts). The front end (api.ts, ptx.ts), the
// simulator (sim/ptx.ts, sim/builtins.ts) and hovers (doc-lookup.ts) all read this list;
// test/core/lang/cuda/catalogue-parity.test.ts fails when one of them knows a name the others do not.
import type { OpKind } from '../../ir/types';

/** Where a call's operands sit. Indices count arguments after cuda::ptx tag arguments are dropped. */
export interface CallShape {
  kind: OpKind;
  /** Argument index of the barrier, or the receiver object of a method call. */
  barrierArg?: number | 'receiver';
  count?: number;
  defaultCount?: number;
  bytes?: number;
  /** Argument index of a bulk store's shared-memory source. */
  src?: number;
  parity?: number;
  token?: number;
  /** The call itself loops until the phase completes (cuda::barrier::wait, cute::wait_barrier). */
  blocking?: boolean;
  /** Argument flipped (`^= 1`) after the wait (wait-and-flip helpers). */
  thenFlip?: number;
  /** arrive_and_wait: an arrive followed by a wait on the returned token. */
  alsoArriveFirst?: boolean;
  /** Generic names (init, arrive, wait) only count when the operand is a known barrier. */
  requiresKnownBarrier?: boolean;
  remote?: (argc: number) => boolean;
  /** Argument that gates the operation: it happens only where that argument is non-zero (CUTLASS's `pred`). */
  predicate?: number;
  /** Only one elected lane of each calling warp performs it (CUTLASS's umma_arrive wraps its commit in elect_one_sync). */
  electOne?: boolean;
}

/** A C++ call as the front end sees it at a call site. */
export interface CallInfo {
  callee: string;
  method: string;
  isMember: boolean;
  receiverType?: string;
  args: string[];
  argIsTokenVar: boolean[];
}

export type SyncScope = 'block' | 'warp' | 'cluster' | 'cluster-arrive' | 'cluster-wait' | 'named';

interface EntryBase {
  /** Hover doc id in api-docs.ts; absent where no doc is written yet (the parity test lists those). */
  doc?: string;
  /** The simulator executes it (for PTX: sim/ptx.ts has a handler under this key). */
  simulated: boolean;
  /** Why the simulator refuses it, appended to its "not supported" message. */
  simNote?: string;
}

/** A free function, by unqualified name (`cuda::ptx::mbarrier_arrive` is `mbarrier_arrive`). */
export interface FunctionEntry extends EntryBase {
  surface: 'function';
  /** The barrier operation it performs and where its operands sit. */
  op?: CallShape;
  /** Operand layout that depends on the call (bulk copies): replaces `op`. */
  shape?: (c: CallInfo) => CallShape | undefined;
  /** A CTA/warp/cluster-wide synchronisation. */
  sync?: SyncScope;
  /** The simulator may suspend the calling thread in it, so a call gets its own instruction. */
  mayBlock?: boolean;
}

/** A method of a barrier object, by method name with a leading dot (`.arrive`). */
export interface MethodEntry extends EntryBase {
  surface: 'method';
  /** The operation for this call (the receiver's type and the arguments pick among forms). */
  resolve: (c: CallInfo) => CallShape | undefined;
}

/** What an operand of a PTX instruction is, by position. Addresses (`[x]`) are read for their base. */
export type PtxRole = 'result' | 'barrier' | 'dst' | 'src' | 'count' | 'bytes' | 'parity' | 'token' | 'mask' | '-';

/** An inline-PTX instruction, by base mnemonic (qualifiers such as `.shared::cta.b64` omitted). */
export interface PtxEntry extends EntryBase {
  surface: 'ptx';
  op?: OpKind;
  sync?: SyncScope;
  /** `bar.sync 0` (or no operand) is the CTA-wide barrier __syncthreads compiles to; otherwise named. */
  ctaWideWhenIdZero?: boolean;
  /** Operand roles by position. */
  operands?: PtxRole[];
  /** Values for operands the instruction leaves out. */
  defaults?: Partial<Record<'count', string>>;
  /** Values that hold whatever is written. */
  fixed?: Partial<Record<'count', string>>;
  /** The operation applies only when the mnemonic contains this qualifier (else the instruction is inert). */
  requires?: string;
  /** The barrier is in another CTA when the mnemonic contains this qualifier. */
  remoteIf?: string;
  /** `mapa dest, src, cta`: dest addresses the same barrier as src, in another CTA. */
  mapa?: boolean;
  /** The simulator may suspend the thread here. */
  mayBlock?: boolean;
}

export type CatalogueEntry = FunctionEntry | MethodEntry | PtxEntry;

const fn = (e: Omit<FunctionEntry, 'surface' | 'simulated'> & { simulated?: boolean }): FunctionEntry => ({ surface: 'function', simulated: false, ...e });
const method = (e: Omit<MethodEntry, 'surface' | 'simulated'> & { simulated?: boolean }): MethodEntry => ({ surface: 'method', simulated: true, ...e });
const ptx = (e: Omit<PtxEntry, 'surface' | 'simulated'> & { simulated?: boolean }): PtxEntry => ({ surface: 'ptx', simulated: true, ...e });

/** Whether the receiver is a CUTLASS-style barrier class rather than cuda::barrier / std::barrier. */
function cutlassReceiver(c: CallInfo): boolean {
  return /Cluster(Transaction)?Barrier|cutlass|Barrier\b/.test(c.receiverType ?? '') && !/cuda::barrier|std::barrier|barrier_t\b/.test(c.receiverType ?? '');
}

/** A ThunderKittens call through a group scope: `warp::`, `warpgroup::`, `group<N>::` (optionally under `kittens::`). */
function tkGroupScoped(c: CallInfo): boolean {
  return /(^|::)(warp|warpgroup|group\s*<[^>]*>)::/.test(c.callee);
}

// Bulk copies: the barrier's position depends on the overload.
function bulkShape(name: string): (c: CallInfo) => CallShape | undefined {
  return (c) => {
    const real = c.args.map((a, i) => (TAG_ARGUMENT.test(a.trim()) ? -1 : i)).filter((i) => i >= 0);
    switch (name) {
      case 'cp_async_bulk':
        // (dst, src, size, bar) for global->shared; the shared->global form (dst, src, size) has no barrier.
        if (real.length === 3 && c.args.some((a) => /space_global/.test(a))) return { kind: 'bulk-store', src: real[1], bytes: real[2] };
        return real.length >= 4 ? { kind: 'bulk-copy', barrierArg: real[3], bytes: real[2] } : undefined;
      case 'cp_async_bulk_tensor':
        // (tensor_map, coords, src) after the space tags is the shared->global store.
        if (real.length === 3 && c.args.some((a) => /space_global/.test(a))) return { kind: 'bulk-store', src: real[2] };
        return real.length >= 4 ? { kind: 'bulk-copy', barrierArg: real[3] } : undefined;
      case 'load_async': {
        // ThunderKittens: the semaphore is the argument whose type is a semaphore; by convention it is
        // the last of (dst, src, coord, sem) or the third of (dst, tmap, sem, coords...).
        const idx = c.args.findIndex((a) => /sem|bar|arrived|full|ready/i.test(a));
        return idx >= 0 ? { kind: 'bulk-copy', barrierArg: idx, requiresKnownBarrier: true } : undefined;
      }
      case 'memcpy_async_tx':
        return c.args.length >= 4 ? { kind: 'bulk-copy', barrierArg: c.args.length - 1, bytes: c.args.length - 2, requiresKnownBarrier: true } : undefined;
      case 'memcpy_async':
        return c.args.length >= 4 ? { kind: 'memcpy-async', barrierArg: c.args.length - 1, bytes: c.args.length - 2, requiresKnownBarrier: true } : undefined;
      default:
        return undefined;
    }
  };
}

/** cuda::ptx::cp_reduce_async_bulk: (dst, src, size) into global memory, (dst, src, size, bar) into shared::cluster. */
function reduceBulkShape(c: CallInfo): CallShape | undefined {
  const real = c.args.map((a, i) => (TAG_ARGUMENT.test(a.trim()) ? -1 : i)).filter((i) => i >= 0);
  if (real.length === 3) return { kind: 'bulk-store', src: real[1], bytes: real[2] };
  return real.length === 4 ? { kind: 'bulk-copy', barrierArg: real[3], bytes: real[2] } : undefined;
}

/** cuda::ptx::cp_reduce_async_bulk_tensor: the shared source is the last argument after the tags. */
function reduceTensorShape(c: CallInfo): CallShape | undefined {
  const real = c.args.map((a, i) => (TAG_ARGUMENT.test(a.trim()) ? -1 : i)).filter((i) => i >= 0);
  return real.length === 3 ? { kind: 'bulk-store', src: real[2] } : undefined;
}

/** cuda::ptx tag arguments (`cuda::ptx::sem_release`, `scope_cta` …), which operand indices skip. */
export const TAG_ARGUMENT = /^(cuda::)?(ptx::)?(sem_|scope_|space_|cta_group_|op_|dot_|n32_t|kind_)/;

const WARP_COLLECTIVE = fn({ mayBlock: true, simulated: true });

/**
 * Every entry, keyed by name: C++ functions by unqualified name, methods as `.name`, PTX by base
 * mnemonic. Adding an API is adding an entry here (plus a doc in api-docs.ts and, for PTX the
 * simulator runs, a handler in sim/ptx.ts).
 */
export const CUDA_CATALOGUE: Readonly<Record<string, CatalogueEntry>> = {
  // ---------------------------------------------------------------- cuda::ptx (and DeepGEMM/DeepEP's own ptx namespaces)
  mbarrier_init: fn({ op: { kind: 'init', barrierArg: 0, count: 1 }, doc: 'cuda.ptx.mbarrier_init', simulated: true }),
  mbarrier_inval: fn({ op: { kind: 'inval', barrierArg: 0 }, doc: 'cuda.ptx.mbarrier_inval' }),
  mbarrier_arrive: fn({ op: { kind: 'arrive', barrierArg: 0, count: 1, defaultCount: 1 }, doc: 'cuda.ptx.mbarrier_arrive', simulated: true }),
  mbarrier_arrive_no_complete: fn({ op: { kind: 'arrive', barrierArg: 0, count: 1 }, doc: 'cuda.ptx.mbarrier_arrive_no_complete', simulated: true }),
  mbarrier_arrive_expect_tx: fn({ op: { kind: 'arrive-expect-tx', barrierArg: 0, bytes: 1, defaultCount: 1 }, doc: 'cuda.ptx.mbarrier_arrive_expect_tx', simulated: true }),
  mbarrier_arrive_and_expect_tx: fn({ op: { kind: 'arrive-expect-tx', barrierArg: 0, bytes: 1, defaultCount: 1 } }),
  mbarrier_arrive_and_set_tx: fn({ op: { kind: 'arrive-expect-tx', barrierArg: 0, bytes: 1, defaultCount: 1 }, doc: 'deepgemm.mbarrier_arrive_and_set_tx' }),
  mbarrier_expect_tx: fn({ op: { kind: 'expect-tx', barrierArg: 0, bytes: 1 }, doc: 'cuda.ptx.mbarrier_expect_tx', simulated: true }),
  mbarrier_complete_tx: fn({ op: { kind: 'complete-tx', barrierArg: 0, bytes: 1 }, doc: 'cuda.ptx.mbarrier_complete_tx' }),
  // Reads the pending count out of a state token; nothing to lower.
  mbarrier_pending_count: fn({}),
  mbarrier_try_wait: fn({ op: { kind: 'wait-token', barrierArg: 0, token: 1 }, doc: 'cuda.ptx.mbarrier_try_wait', mayBlock: true, simulated: true }),
  mbarrier_test_wait: fn({ op: { kind: 'wait-token', barrierArg: 0, token: 1 }, doc: 'cuda.ptx.mbarrier_test_wait', mayBlock: true, simulated: true }),
  mbarrier_try_wait_parity: fn({ op: { kind: 'wait-parity', barrierArg: 0, parity: 1 }, doc: 'cuda.ptx.mbarrier_try_wait_parity', mayBlock: true, simulated: true }),
  mbarrier_test_wait_parity: fn({ op: { kind: 'wait-parity', barrierArg: 0, parity: 1 }, doc: 'cuda.ptx.mbarrier_test_wait_parity', mayBlock: true, simulated: true }),
  mbarrier_wait_and_flip_phase: fn({ op: { kind: 'wait-parity', barrierArg: 0, parity: 1, blocking: true, thenFlip: 1 }, doc: 'deepgemm.mbarrier_wait_and_flip_phase' }),
  fence_mbarrier_init: fn({ op: { kind: 'fence-init' }, doc: 'cuda.ptx.fence_mbarrier_init', simulated: true }),
  fence_barrier_init: fn({ op: { kind: 'fence-init' }, doc: 'cutlass.fence_barrier_init' }),
  fence_proxy_async: fn({ op: { kind: 'fence-proxy-async' }, doc: 'cuda.ptx.fence_proxy_async', simulated: true }),
  fence_view_async_shared: fn({ op: { kind: 'fence-proxy-async' }, doc: 'cutlass.fence_view_async_shared', simulated: true }),
  // CuTe's fence before a TMA store (`fence.proxy.async.shared::cta` in cute/arch/copy_sm90_tma.hpp).
  // libcu++ cuda::pipeline (<cuda/pipeline>): barriers and cp.async groups underneath, not a barrier operation of its own here.
  make_pipeline: fn({ doc: 'cuda.make_pipeline', mayBlock: true, simulated: true }),
  pipeline_consumer_wait_prior: fn({ doc: 'cuda.pipeline_consumer_wait_prior', mayBlock: true, simulated: true }),
  pipeline_producer_commit: fn({ doc: 'cuda.pipeline_producer_commit', simulated: true }),
  // Lane election (elect.sync underneath): no barrier operation, but an arrive under it counts once per warp.
  elect_sync: fn({ doc: 'cuda.ptx.elect_sync', mayBlock: true, simulated: true }),
  elect_one_sync: fn({ doc: 'cute.elect_one_sync', mayBlock: true, simulated: true }),
  tma_store_fence: fn({ op: { kind: 'fence-proxy-async' }, doc: 'cutlass.fence_view_async_shared', simulated: true }),
  cp_async_mbarrier_arrive: fn({ op: { kind: 'cp-async-arrive', barrierArg: 0 }, doc: 'cuda.ptx.cp_async_mbarrier_arrive' }),
  cp_async_mbarrier_arrive_noinc: fn({ op: { kind: 'cp-async-arrive-noinc', barrierArg: 0 }, doc: 'cuda.ptx.cp_async_mbarrier_arrive_noinc' }),
  cpasync_barrier_arrive: fn({ op: { kind: 'cp-async-arrive', barrierArg: 0 }, doc: 'cutlass.cpasync_barrier_arrive' }),
  cpasync_barrier_arrive_noinc: fn({ op: { kind: 'cp-async-arrive-noinc', barrierArg: 0 }, doc: 'cutlass.cpasync_barrier_arrive_noinc' }),
  tcgen05_commit: fn({ op: { kind: 'mma-commit-arrive', barrierArg: 0 }, doc: 'cuda.ptx.tcgen05_commit' }),
  tcgen05_commit_multicast: fn({ op: { kind: 'mma-commit-arrive', barrierArg: 0, remote: () => true }, doc: 'cuda.ptx.tcgen05_commit' }),
  umma_arrive: fn({ op: { kind: 'mma-commit-arrive', barrierArg: 0, electOne: true }, doc: 'cutlass.umma_arrive' }),
  umma_arrive_2x1SM: fn({ op: { kind: 'mma-commit-arrive', barrierArg: 0, electOne: true, remote: () => true }, doc: 'cutlass.umma_arrive' }),
  umma_arrive_multicast: fn({ op: { kind: 'mma-commit-arrive', barrierArg: 0, electOne: true, remote: () => true }, doc: 'cutlass.umma_arrive' }),
  umma_arrive_multicast_2x1SM: fn({ op: { kind: 'mma-commit-arrive', barrierArg: 0, electOne: true, remote: () => true }, doc: 'cutlass.umma_arrive' }),
  tcgen05_mma: fn({ op: { kind: 'mma' } }),
  tcgen05_mma_ws: fn({ op: { kind: 'mma' } }),
  tcgen05_mma_sp: fn({ op: { kind: 'mma' } }),
  cp_async_bulk: fn({ shape: bulkShape('cp_async_bulk'), doc: 'cuda.ptx.cp_async_bulk', simulated: true }),
  cp_async_bulk_tensor: fn({ shape: bulkShape('cp_async_bulk_tensor'), doc: 'cuda.ptx.cp_async_bulk_tensor', simulated: true }),
  // (op tag, tensor_map, coords, src) after the space tags: reads the shared source like a store.
  cp_reduce_async_bulk_tensor: fn({ shape: (c) => reduceTensorShape(c), doc: 'cuda.ptx.cp_reduce_async_bulk_tensor', simulated: true }),
  // (op tag, dst, src, size[, rdsmem_bar]) after the space tags: into global memory it reads the shared source like a
  // bulk store; into shared::cluster memory it completes bytes on the barrier, like a bulk copy.
  cp_reduce_async_bulk: fn({ shape: (c) => reduceBulkShape(c), doc: 'cuda.ptx.cp_reduce_async_bulk', simulated: true }),
  // ---------------------------------------------------------------- cuda_pipeline_primitives.h: cp.async underneath
  __pipeline_memcpy_async: fn({ op: { kind: 'cp-async', bytes: 2 }, simulated: true }),
  __pipeline_wait_prior: fn({ op: { kind: 'cp-async-wait', count: 0 }, mayBlock: true, simulated: true }),
  __pipeline_commit: fn({ op: { kind: 'cp-async-commit' }, simulated: true }),
  __pipeline_arrive_on: fn({ op: { kind: 'cp-async-arrive', barrierArg: 0 } }),
  // ---------------------------------------------------------------- __mbarrier_* primitives (cuda_awbarrier_primitives.h)
  __mbarrier_init: fn({ op: { kind: 'init', barrierArg: 0, count: 1 }, doc: 'prim.__mbarrier_init', simulated: true }),
  __mbarrier_inval: fn({ op: { kind: 'inval', barrierArg: 0 }, doc: 'prim.__mbarrier_inval', simulated: true }),
  __mbarrier_arrive: fn({ op: { kind: 'arrive', barrierArg: 0, defaultCount: 1 }, doc: 'prim.__mbarrier_arrive', simulated: true }),
  __mbarrier_arrive_and_drop: fn({ op: { kind: 'arrive-drop', barrierArg: 0, defaultCount: 1 }, doc: 'prim.__mbarrier_arrive_and_drop', simulated: true }),
  __mbarrier_try_wait: fn({ op: { kind: 'wait-token', barrierArg: 0, token: 1 }, doc: 'prim.__mbarrier_try_wait', mayBlock: true, simulated: true }),
  __mbarrier_test_wait: fn({ op: { kind: 'wait-token', barrierArg: 0, token: 1 }, doc: 'prim.__mbarrier_test_wait', mayBlock: true, simulated: true }),
  __mbarrier_try_wait_parity: fn({ op: { kind: 'wait-parity', barrierArg: 0, parity: 1 }, doc: 'prim.__mbarrier_try_wait_parity', mayBlock: true, simulated: true }),
  __mbarrier_test_wait_parity: fn({ op: { kind: 'wait-parity', barrierArg: 0, parity: 1 }, doc: 'prim.__mbarrier_test_wait_parity', mayBlock: true, simulated: true }),
  // ---------------------------------------------------------------- cuda::barrier friends and cuda::device
  init: fn({ op: { kind: 'init', barrierArg: 0, count: 1, requiresKnownBarrier: true }, doc: 'cuda.barrier.init', mayBlock: true, simulated: true }),
  barrier_arrive_tx: fn({ op: { kind: 'arrive-expect-tx', barrierArg: 0, count: 1, bytes: 2 }, doc: 'cuda.device.barrier_arrive_tx', simulated: true }),
  barrier_expect_tx: fn({ op: { kind: 'expect-tx', barrierArg: 0, bytes: 1 }, doc: 'cuda.device.barrier_expect_tx', simulated: true }),
  memcpy_async: fn({ shape: bulkShape('memcpy_async'), doc: 'cuda.memcpy_async', simulated: true }),
  memcpy_async_tx: fn({ shape: bulkShape('memcpy_async_tx'), doc: 'cuda.device.memcpy_async_tx', simulated: true }),
  // cuda::device::experimental (libcu++ <cuda/barrier>): the shared->global bulk and tensor stores.
  cp_async_bulk_shared_to_global: fn({ op: { kind: 'bulk-store', src: 1, bytes: 2 }, doc: 'cuda.device.cp_async_bulk_shared_to_global' }),
  ...Object.fromEntries(
    [1, 2, 3, 4, 5].map((d) => [`cp_async_bulk_tensor_${d}d_shared_to_global`, fn({ op: { kind: 'bulk-store', src: d + 1 }, doc: 'cuda.device.cp_async_bulk_shared_to_global', simulated: true })]),
  ),
  // (dest, tensor_map, c0 … c{d-1}, cuda::barrier&): a tensor load completing on the barrier.
  ...Object.fromEntries(
    [1, 2, 3, 4, 5].map((d) => [`cp_async_bulk_tensor_${d}d_global_to_shared`, fn({ op: { kind: 'bulk-copy', barrierArg: d + 2 }, doc: 'cuda.device.cp_async_bulk_tensor_global_to_shared', simulated: true })]),
  ),
  // ---------------------------------------------------------------- CuTe / CUTLASS free functions
  initialize_barrier: fn({ op: { kind: 'init', barrierArg: 0, count: 1 }, doc: 'cute.initialize_barrier' }),
  set_barrier_transaction_bytes: fn({ op: { kind: 'arrive-expect-tx', barrierArg: 0, bytes: 1, defaultCount: 1 }, doc: 'cute.set_barrier_transaction_bytes' }),
  wait_barrier: fn({ op: { kind: 'wait-parity', barrierArg: 0, parity: 1, blocking: true }, doc: 'cute.wait_barrier' }),
  arrive_barrier: fn({ op: { kind: 'arrive', barrierArg: 0, defaultCount: 1 }, doc: 'cute.arrive_barrier' }),
  // ---------------------------------------------------------------- ThunderKittens
  init_semaphore: fn({ op: { kind: 'init', barrierArg: 0, count: 1 }, doc: 'tk.init_semaphore' }),
  // A group-scoped call (`warp::arrive`, `warpgroup::tma::expect_bytes`, `group<N>::...`) runs on every thread
  // of the group, and lane 0 of each warp performs the operation (ThunderKittens' ops/group/util).
  expect_bytes: fn({ shape: (c) => ({ kind: 'arrive-expect-tx', barrierArg: 0, bytes: 1, defaultCount: 1, ...(tkGroupScoped(c) ? { electOne: true } : {}) }), doc: 'tk.tma.expect_bytes' }),
  arrive: fn({ shape: (c) => ({ kind: 'arrive', barrierArg: 0, ...(c.args.length > 1 ? { count: 1 } : {}), defaultCount: 1, requiresKnownBarrier: true, ...(tkGroupScoped(c) ? { electOne: true } : {}) }), doc: 'tk.arrive' }),
  wait: fn({ op: { kind: 'wait-parity', barrierArg: 0, parity: 1, blocking: true, requiresKnownBarrier: true }, doc: 'tk.wait' }),
  load_async: fn({ shape: bulkShape('load_async'), doc: 'tk.tma.load_async' }),
  // ---------------------------------------------------------------- CTA, warp and cluster synchronisation
  __syncthreads: fn({ sync: 'block', doc: 'sync.__syncthreads', mayBlock: true, simulated: true }),
  __syncthreads_and: fn({ sync: 'block' }),
  __syncthreads_or: fn({ sync: 'block' }),
  __syncthreads_count: fn({ sync: 'block' }),
  __syncwarp: fn({ sync: 'warp', doc: 'sync.__syncwarp', mayBlock: true, simulated: true }),
  __barrier_sync: fn({ sync: 'named' }),
  __cluster_barrier_arrive: fn({ sync: 'cluster-arrive', doc: 'sync.__cluster_barrier_arrive', simulated: true }),
  __cluster_barrier_arrive_relaxed: fn({ sync: 'cluster-arrive', doc: 'sync.__cluster_barrier_arrive', simulated: true }),
  __cluster_barrier_wait: fn({ sync: 'cluster-wait', doc: 'sync.__cluster_barrier_wait', simulated: true }),
  cluster_sync: fn({ sync: 'cluster' }),
  cluster_sync_with_relaxed_arrive: fn({ sync: 'cluster' }),
  cluster_barrier_sync: fn({ sync: 'cluster' }),
  cluster_arrive: fn({ sync: 'cluster-arrive' }),
  cluster_arrive_relaxed: fn({ sync: 'cluster-arrive' }),
  pipeline_init_arrive_relaxed: fn({ sync: 'cluster-arrive' }),
  cluster_barrier_arrive: fn({ sync: 'cluster-arrive' }),
  cluster_barrier_arrive_relaxed: fn({ sync: 'cluster-arrive' }),
  cluster_wait: fn({ sync: 'cluster-wait' }),
  pipeline_init_wait: fn({ sync: 'cluster-wait' }),
  cluster_barrier_wait: fn({ sync: 'cluster-wait' }),
  named_barrier_sync: fn({ sync: 'named' }),
  sync_threads: fn({ sync: 'block' }),
  syncthreads: fn({ sync: 'block' }),
  /** cooperative_groups::sync(g): which scope depends on the group, so it is resolved by syncForCall. */
  sync: fn({ mayBlock: true, simulated: true }),
  // Warp collectives are not barrier operations, but the simulator suspends a lane until its warp arrives.
  __shfl_sync: WARP_COLLECTIVE,
  __shfl_up_sync: WARP_COLLECTIVE,
  __shfl_down_sync: WARP_COLLECTIVE,
  __shfl_xor_sync: WARP_COLLECTIVE,
  __all_sync: WARP_COLLECTIVE,
  __any_sync: WARP_COLLECTIVE,
  __ballot_sync: WARP_COLLECTIVE,
  __reduce_add_sync: WARP_COLLECTIVE,
  __reduce_min_sync: WARP_COLLECTIVE,
  __reduce_max_sync: WARP_COLLECTIVE,
  __reduce_and_sync: WARP_COLLECTIVE,
  __reduce_or_sync: WARP_COLLECTIVE,
  __reduce_xor_sync: WARP_COLLECTIVE,

  // ---------------------------------------------------------------- known to the simulator, nothing for the front end to lower
  // Memory fences and bulk-group commits/waits carry no barrier operand, barrier_native_handle only
  // converts, and __mbarrier_arrive_no_complete is not lowered yet (lint behaviour stays as it was).
  __threadfence: fn({ simulated: true }),
  __threadfence_block: fn({ simulated: true }),
  __threadfence_system: fn({ simulated: true }),
  fence_proxy_async_shared_cta: fn({ op: { kind: 'fence-proxy-async' }, simulated: true }),
  barrier_native_handle: fn({ doc: 'cuda.device.barrier_native_handle', simulated: true }),
  __mbarrier_arrive_no_complete: fn({ simulated: true }),
  cp_async_bulk_commit_group: fn({ simulated: true }),
  cp_async_bulk_wait_group: fn({ op: { kind: 'bulk-wait' }, simulated: true }),
  cp_async_bulk_wait_group_read: fn({ op: { kind: 'bulk-wait' }, simulated: true }),
  // ---------------------------------------------------------------- methods (cuda::barrier, CUTLASS ClusterBarrier & co.)
  '.init': method({ resolve: () => ({ kind: 'init', barrierArg: 'receiver', count: 0, requiresKnownBarrier: true }), doc: 'cutlass.ClusterBarrier.init', simulated: false }),
  '.arrive': method({
    resolve: (c) =>
      cutlassReceiver(c)
        ? { kind: 'arrive', barrierArg: 'receiver', defaultCount: 1, requiresKnownBarrier: true, remote: (n) => n >= 1, ...(c.args.length >= 2 ? { predicate: 1 } : {}) }
        : { kind: 'arrive', barrierArg: 'receiver', count: c.args.length ? 0 : undefined, defaultCount: 1, requiresKnownBarrier: true },
    doc: 'cuda.barrier.arrive',
  }),
  '.wait': method({
    resolve: (c) => {
      if (c.argIsTokenVar[0]) return { kind: 'wait-token', barrierArg: 'receiver', token: 0, blocking: true, requiresKnownBarrier: true };
      if (c.args.length === 1) return { kind: 'wait-parity', barrierArg: 'receiver', parity: 0, blocking: true, requiresKnownBarrier: true };
      return undefined;
    },
    doc: 'cuda.barrier.wait',
  }),
  '.arrive_and_wait': method({ resolve: () => ({ kind: 'wait-token', barrierArg: 'receiver', alsoArriveFirst: true, defaultCount: 1, requiresKnownBarrier: true }), doc: 'cuda.barrier.arrive_and_wait' }),
  '.arrive_and_drop': method({ resolve: () => ({ kind: 'arrive-drop', barrierArg: 'receiver', defaultCount: 1, requiresKnownBarrier: true }), doc: 'cuda.barrier.arrive_and_drop' }),
  '.arrive_and_expect_tx': method({ resolve: () => ARRIVE_AND_EXPECT_TX, doc: 'cutlass.ClusterTransactionBarrier.arrive_and_expect_tx', simulated: false }),
  '.arrive_and_reset_bytes': method({ resolve: () => ARRIVE_AND_EXPECT_TX, doc: 'cutlass.ClusterTransactionBarrier.arrive_and_expect_tx', simulated: false }),
  '.expect_transaction': method({ resolve: () => EXPECT_TRANSACTION, doc: 'cutlass.ClusterTransactionBarrier.expect_transaction', simulated: false }),
  '.reset_bytes': method({ resolve: () => EXPECT_TRANSACTION, doc: 'cutlass.ClusterTransactionBarrier.expect_transaction', simulated: false }),
  // (bytes[, pred]) or (dst_cta, bytes, pred): the bytes, and the predicate that gates the decrement.
  '.complete_transaction': method({
    resolve: (c) => ({ kind: 'complete-tx', barrierArg: 'receiver', requiresKnownBarrier: true, bytes: c.args.length >= 3 ? 1 : 0, remote: (n) => n >= 3, ...(c.args.length >= 2 ? { predicate: c.args.length - 1 } : {}) }),
    doc: 'cutlass.ClusterTransactionBarrier.complete_transaction',
    simulated: false,
  }),
  '.try_wait': method({ resolve: probeMethod, doc: 'cutlass.ClusterBarrier.try_wait' }),
  '.test_wait': method({ resolve: probeMethod, doc: 'cutlass.ClusterBarrier.test_wait', simulated: false }),
  '.wait_parity': method({ resolve: () => ({ kind: 'wait-parity', barrierArg: 'receiver', parity: 0, blocking: true, requiresKnownBarrier: true }) }),
  '.try_wait_parity': method({ resolve: () => PARITY_PROBE }),
  '.try_wait_parity_for': method({ resolve: () => PARITY_PROBE, simulated: false }),
  '.invalidate': method({ resolve: () => ({ kind: 'inval', barrierArg: 'receiver', requiresKnownBarrier: true }), doc: 'cutlass.ClusterBarrier.invalidate', simulated: false }),

  // ---------------------------------------------------------------- PTX: mbarrier
  'mbarrier.init': ptx({ op: 'init', operands: ['barrier', 'count'], doc: 'ptx.mbarrier.init' }),
  'mbarrier.inval': ptx({ op: 'inval', operands: ['barrier'], doc: 'ptx.mbarrier.inval' }),
  'mbarrier.arrive': ptx({ op: 'arrive', operands: ['result', 'barrier', 'count'], defaults: { count: '1' }, remoteIf: '.shared::cluster', doc: 'ptx.mbarrier.arrive' }),
  'mbarrier.arrive.noComplete': ptx({ op: 'arrive', operands: ['result', 'barrier', 'count'], defaults: { count: '1' }, remoteIf: '.shared::cluster', doc: 'ptx.mbarrier.arrive.noComplete' }),
  'mbarrier.arrive.expect_tx': ptx({ op: 'arrive-expect-tx', operands: ['result', 'barrier', 'bytes'], fixed: { count: '1' }, remoteIf: '.shared::cluster', doc: 'ptx.mbarrier.arrive.expect_tx' }),
  'mbarrier.arrive_drop': ptx({ op: 'arrive-drop', operands: ['result', 'barrier', 'count'], defaults: { count: '1' }, remoteIf: '.shared::cluster', doc: 'ptx.mbarrier.arrive_drop' }),
  'mbarrier.arrive_drop.expect_tx': ptx({ op: 'arrive-drop', operands: ['result', 'barrier', 'bytes'], fixed: { count: '1' }, remoteIf: '.shared::cluster', doc: 'ptx.mbarrier.arrive_drop' }),
  'mbarrier.expect_tx': ptx({ op: 'expect-tx', operands: ['barrier', 'bytes'], remoteIf: '.shared::cluster', doc: 'ptx.mbarrier.expect_tx' }),
  'mbarrier.complete_tx': ptx({ op: 'complete-tx', operands: ['barrier', 'bytes'], remoteIf: '.shared::cluster', doc: 'ptx.mbarrier.complete_tx' }),
  'mbarrier.try_wait': ptx({ op: 'wait-token', operands: ['result', 'barrier', 'token'], mayBlock: true, doc: 'ptx.mbarrier.try_wait' }),
  'mbarrier.try_wait.parity': ptx({ op: 'wait-parity', operands: ['result', 'barrier', 'parity'], mayBlock: true, doc: 'ptx.mbarrier.try_wait.parity' }),
  'mbarrier.test_wait': ptx({ op: 'wait-token', operands: ['result', 'barrier', 'token'], mayBlock: true, doc: 'ptx.mbarrier.test_wait' }),
  'mbarrier.test_wait.parity': ptx({ op: 'wait-parity', operands: ['result', 'barrier', 'parity'], mayBlock: true, doc: 'ptx.mbarrier.test_wait.parity' }),
  // Reads a state token, not the barrier: nothing to lower. The simulator's tokens hold only the phase.
  'mbarrier.pending_count': ptx({ operands: ['result', 'token'], doc: 'ptx.mbarrier.pending_count', simulated: false, simNote: "the simulator's arrival tokens carry the phase, not the pending count" }),
  // ---------------------------------------------------------------- PTX: bulk and non-bulk asynchronous copies
  'cp.async.bulk': ptx({ op: 'bulk-copy', requires: 'mbarrier::complete_tx', operands: ['dst', '-', 'bytes', 'barrier', 'mask'], remoteIf: '.multicast::cluster', doc: 'ptx.cp.async.bulk' }),
  'cp.async.bulk.tensor': ptx({ op: 'bulk-copy', requires: 'mbarrier::complete_tx', operands: ['-', '-', 'barrier'], remoteIf: '.multicast::cluster', doc: 'ptx.cp.async.bulk.tensor' }),
  // The shared->global forms: the async proxy reads the shared-memory source (operand 1) after the instruction issues.
  'cp.async.bulk.global.shared::cta': ptx({ op: 'bulk-store', operands: ['-', 'src', 'bytes'], doc: 'ptx.cp.async.bulk' }),
  'cp.async.bulk.tensor.global.shared::cta': ptx({ op: 'bulk-store', operands: ['-', 'src'], doc: 'ptx.cp.async.bulk.tensor' }),
  // A tensor reduction reads its shared-memory source (operand 1) through the async proxy, like a store.
  'cp.reduce.async.bulk.tensor': ptx({ op: 'bulk-store', operands: ['-', 'src'], doc: 'ptx.cp.reduce.async.bulk.tensor' }),
  // The full tensor form, so that it outranks the non-tensor global form below (the longest key wins).
  'cp.reduce.async.bulk.tensor.global.shared::cta': ptx({ op: 'bulk-store', operands: ['-', 'src'], doc: 'ptx.cp.reduce.async.bulk.tensor' }),
  // Non-tensor bulk reductions: into global memory they read the shared source like a bulk store; into
  // shared::cluster memory they complete bytes on the destination CTA's mbarrier, like a bulk copy.
  'cp.reduce.async.bulk.global.shared::cta': ptx({ op: 'bulk-store', operands: ['-', 'src', 'bytes'], doc: 'ptx.cp.reduce.async.bulk' }),
  'cp.reduce.async.bulk': ptx({ op: 'bulk-copy', requires: 'mbarrier::complete_tx', operands: ['dst', '-', 'bytes', 'barrier'], doc: 'ptx.cp.reduce.async.bulk' }),
  'cp.async.bulk.prefetch.tensor': ptx({ doc: 'ptx.cp.async.bulk.prefetch.tensor' }),
  'prefetch.tensormap': ptx({ doc: 'ptx.prefetch.tensormap' }),
  'fence.proxy.tensormap::generic': ptx({ doc: 'ptx.fence.proxy.tensormap' }),
  'cp.async.bulk.commit_group': ptx({ doc: 'ptx.cp.async.bulk.commit_group' }),
  'cp.async.bulk.wait_group': ptx({ op: 'bulk-wait', operands: ['count'], mayBlock: true, doc: 'ptx.cp.async.bulk.wait_group' }),
  'cp.async.bulk.prefetch': ptx({}),
  'cp.async.mbarrier.arrive': ptx({ op: 'cp-async-arrive', operands: ['barrier'], doc: 'ptx.cp.async.mbarrier.arrive' }),
  'cp.async.mbarrier.arrive.noinc': ptx({ op: 'cp-async-arrive-noinc', operands: ['barrier'], doc: 'ptx.cp.async.mbarrier.arrive.noinc' }),
  'cp.async.ca': ptx({ op: 'cp-async', operands: ['-', '-', 'bytes'], doc: 'ptx.cp.async' }),
  'cp.async.cg': ptx({ op: 'cp-async', operands: ['-', '-', 'bytes'], doc: 'ptx.cp.async' }),
  'cp.async.commit_group': ptx({ op: 'cp-async-commit', doc: 'ptx.cp.async.commit_group' }),
  'cp.async.wait_group': ptx({ op: 'cp-async-wait', operands: ['count'], mayBlock: true, doc: 'ptx.cp.async.wait_group' }),
  'cp.async.wait_all': ptx({ op: 'cp-async-wait', mayBlock: true, doc: 'ptx.cp.async.wait_group' }),
  // ---------------------------------------------------------------- PTX: tcgen05 and wgmma
  'tcgen05.mma': ptx({ op: 'mma', doc: 'ptx.tcgen05.mma' }),
  'tcgen05.commit': ptx({ op: 'mma-commit-arrive', requires: 'mbarrier::arrive', operands: ['barrier'], remoteIf: '.multicast', doc: 'ptx.tcgen05.commit' }),
  'tcgen05.alloc': ptx({ op: 'tmem-alloc' }),
  'tcgen05.dealloc': ptx({ op: 'tmem-dealloc' }),
  'tcgen05.relinquish_alloc_permit': ptx({}),
  'tcgen05.ld': ptx({ op: 'tmem-access' }),
  'tcgen05.st': ptx({ op: 'tmem-access' }),
  'tcgen05.cp': ptx({ op: 'tmem-access' }),
  'tcgen05.shift': ptx({ op: 'tmem-access', simulated: false, simNote: 'tensor-memory shifts are not modelled' }),
  'tcgen05.wait::ld': ptx({ op: 'tmem-wait' }),
  'tcgen05.wait::st': ptx({ op: 'tmem-wait' }),
  'tcgen05.fence::before_thread_sync': ptx({ op: 'tcgen05-fence-before', doc: 'ptx.tcgen05.fence::before_thread_sync' }),
  'tcgen05.fence::after_thread_sync': ptx({ op: 'tcgen05-fence-after', doc: 'ptx.tcgen05.fence::after_thread_sync' }),
  'wgmma.fence': ptx({ doc: 'ptx.wgmma.fence' }),
  'wgmma.mma_async': ptx({ doc: 'ptx.wgmma.mma_async' }),
  ldmatrix: ptx({ doc: 'ptx.ldmatrix' }),
  stmatrix: ptx({ doc: 'ptx.stmatrix' }),
  'wgmma.commit_group': ptx({ doc: 'ptx.wgmma.commit_group' }),
  'wgmma.wait_group': ptx({ mayBlock: true, doc: 'ptx.wgmma.wait_group' }),
  // ---------------------------------------------------------------- PTX: fences, CTA/cluster barriers, cluster addressing
  'fence.mbarrier_init': ptx({ op: 'fence-init', doc: 'ptx.fence.mbarrier_init' }),
  'fence.proxy.async': ptx({ op: 'fence-proxy-async', doc: 'ptx.fence.proxy.async' }),
  'barrier.cluster.arrive': ptx({ sync: 'cluster-arrive', doc: 'ptx.barrier.cluster.arrive' }),
  'barrier.cluster.wait': ptx({ sync: 'cluster-wait', mayBlock: true, doc: 'ptx.barrier.cluster.wait' }),
  'bar.sync': ptx({ sync: 'named', ctaWideWhenIdZero: true, mayBlock: true, doc: 'ptx.bar.sync' }),
  'barrier.sync': ptx({ sync: 'named', ctaWideWhenIdZero: true, mayBlock: true, doc: 'ptx.bar.sync' }),
  'bar.red': ptx({ sync: 'named', ctaWideWhenIdZero: true, simulated: false }),
  'barrier.red': ptx({ sync: 'named', ctaWideWhenIdZero: true, simulated: false }),
  'bar.arrive': ptx({ sync: 'named', doc: 'ptx.bar.arrive' }),
  'barrier.arrive': ptx({ sync: 'named', doc: 'ptx.bar.arrive' }),
  'elect.sync': ptx({ doc: 'ptx.elect.sync' }),
  // ---------------------------------------------------------------- PTX: timing, dependent launches, register budgets
  nanosleep: ptx({ doc: 'ptx.nanosleep' }),
  'griddepcontrol.launch_dependents': ptx({ doc: 'ptx.griddepcontrol' }),
  'griddepcontrol.wait': ptx({ doc: 'ptx.griddepcontrol' }),
  setmaxnreg: ptx({ doc: 'ptx.setmaxnreg' }),
  mapa: ptx({ mapa: true, doc: 'ptx.mapa' }),
};

const ARRIVE_AND_EXPECT_TX: CallShape = { kind: 'arrive-expect-tx', barrierArg: 'receiver', bytes: 0, defaultCount: 1, requiresKnownBarrier: true, remote: (n) => n >= 2 };
const EXPECT_TRANSACTION: CallShape = { kind: 'expect-tx', barrierArg: 'receiver', bytes: 0, requiresKnownBarrier: true };
const PARITY_PROBE: CallShape = { kind: 'wait-parity', barrierArg: 'receiver', parity: 0, requiresKnownBarrier: true };

function probeMethod(c: CallInfo): CallShape {
  if (c.argIsTokenVar[0]) return { kind: 'wait-token', barrierArg: 'receiver', token: 0, requiresKnownBarrier: true };
  return PARITY_PROBE;
}

// ------------------------------------------------------------------ queries

function own(name: string): CatalogueEntry | undefined {
  return Object.prototype.hasOwnProperty.call(CUDA_CATALOGUE, name) ? CUDA_CATALOGUE[name] : undefined;
}

/** The free-function entry for an unqualified name. */
export function functionEntry(name: string): FunctionEntry | undefined {
  const e = own(name);
  return e?.surface === 'function' ? e : undefined;
}

/** The method entry for a method name (without the dot). */
export function methodEntry(name: string): MethodEntry | undefined {
  const e = own(`.${name}`);
  return e?.surface === 'method' ? e : undefined;
}

/**
 * Builtins in whose call the simulator may suspend the thread (waits, syncs, warp collectives): a
 * call to one is hoisted into its own instruction.
 */
export function isBlockingApi(name: string): boolean {
  const e = own(name);
  return e?.surface === 'function' && !!e.mayBlock;
}

/** PTX entries with their keys split into parts, longest first (the most specific match wins). */
const PTX_FORMS: { key: string; entry: PtxEntry; parts: string[] }[] = Object.entries(CUDA_CATALOGUE)
  .filter((kv): kv is [string, PtxEntry] => kv[1].surface === 'ptx')
  .map(([key, entry]) => ({ key, entry, parts: key.split('.') }))
  .sort((a, b) => b.parts.length - a.parts.length);

/**
 * The catalogue key of a PTX instruction as written (`mbarrier.try_wait.parity.shared::cta.b64` is
 * `mbarrier.try_wait.parity`): the longest key whose first two parts are the instruction's first two
 * and whose further parts appear in order among the rest; qualifiers in between are skipped.
 */
export function ptxKey(mnemonic: string): string | undefined {
  const input = mnemonic.split('.');
  for (const form of PTX_FORMS) {
    const p = form.parts;
    if (p[0] !== input[0] || (p.length > 1 && p[1] !== input[1])) continue;
    let k = Math.min(2, p.length);
    for (let i = 2; i < input.length && k < p.length; i++) if (input[i] === p[k]) k++;
    if (k === p.length) return form.key;
  }
  return undefined;
}

/** The PTX entry of an instruction as written, if the catalogue knows it. */
export function ptxEntry(mnemonic: string): PtxEntry | undefined {
  const key = ptxKey(mnemonic);
  return key ? (CUDA_CATALOGUE[key] as PtxEntry) : undefined;
}
