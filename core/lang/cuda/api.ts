// Library API tables: which C++ calls are barrier operations and where their operands sit.
// Covers cuda::barrier / cuda::device, cuda::ptx, the __mbarrier_* primitives, cooperative groups,
// and the common wrapper layers of CUTLASS/CuTe, ThunderKittens and DeepGEMM. Functions defined in
// the file being linted are inlined instead and never reach these tables.
import type { OpKind } from '../../ir/types';

export interface ApiOp {
  name: string;
  kind: OpKind;
  /** Argument index (after dropping cuda::ptx tag arguments) of the barrier, or the receiver object. */
  barrierArg?: number | 'receiver';
  count?: number;
  defaultCount?: number;
  bytes?: number;
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
}

export interface CallInfo {
  callee: string;
  method: string;
  isMember: boolean;
  receiverType?: string;
  args: string[];
  argIsTokenVar: boolean[];
}

export function isBarrierType(type: string): boolean {
  return /barrier|semaphore|__mbarrier_t|\bmbar|Barrier/.test(type) && !/arrival_token|token_t/.test(type);
}

const TAG = /^(cuda::)?(ptx::)?(sem_|scope_|space_|cta_group_|op_|dot_|n32_t|kind_)/;

type Entry = Omit<ApiOp, 'name'>;

/** Free functions by unqualified name. Indices count non-tag arguments. */
const FREE: Record<string, Entry> = {
  // cuda::ptx and DeepGEMM/DeepEP's own ptx namespaces share these spellings.
  mbarrier_init: { kind: 'init', barrierArg: 0, count: 1 },
  mbarrier_inval: { kind: 'inval', barrierArg: 0 },
  mbarrier_arrive: { kind: 'arrive', barrierArg: 0, count: 1, defaultCount: 1 },
  mbarrier_arrive_no_complete: { kind: 'arrive', barrierArg: 0, count: 1 },
  mbarrier_arrive_expect_tx: { kind: 'arrive-expect-tx', barrierArg: 0, bytes: 1, defaultCount: 1 },
  mbarrier_arrive_and_expect_tx: { kind: 'arrive-expect-tx', barrierArg: 0, bytes: 1, defaultCount: 1 },
  mbarrier_arrive_and_set_tx: { kind: 'arrive-expect-tx', barrierArg: 0, bytes: 1, defaultCount: 1 },
  mbarrier_expect_tx: { kind: 'expect-tx', barrierArg: 0, bytes: 1 },
  mbarrier_try_wait: { kind: 'wait-token', barrierArg: 0, token: 1 },
  mbarrier_test_wait: { kind: 'wait-token', barrierArg: 0, token: 1 },
  mbarrier_try_wait_parity: { kind: 'wait-parity', barrierArg: 0, parity: 1 },
  mbarrier_test_wait_parity: { kind: 'wait-parity', barrierArg: 0, parity: 1 },
  mbarrier_wait_and_flip_phase: { kind: 'wait-parity', barrierArg: 0, parity: 1, blocking: true, thenFlip: 1 },
  fence_mbarrier_init: { kind: 'fence-init' },
  fence_barrier_init: { kind: 'fence-init' },
  fence_proxy_async: { kind: 'fence-proxy-async' },
  fence_view_async_shared: { kind: 'fence-proxy-async' },
  cp_async_mbarrier_arrive: { kind: 'cp-async-arrive', barrierArg: 0 },
  cp_async_mbarrier_arrive_noinc: { kind: 'cp-async-arrive-noinc', barrierArg: 0 },
  cpasync_barrier_arrive: { kind: 'cp-async-arrive', barrierArg: 0 },
  cpasync_barrier_arrive_noinc: { kind: 'cp-async-arrive-noinc', barrierArg: 0 },
  tcgen05_commit: { kind: 'mma-commit-arrive', barrierArg: 0 },
  tcgen05_commit_multicast: { kind: 'mma-commit-arrive', barrierArg: 0, remote: () => true },
  umma_arrive: { kind: 'mma-commit-arrive', barrierArg: 0 },
  umma_arrive_2x1SM: { kind: 'mma-commit-arrive', barrierArg: 0, remote: () => true },
  umma_arrive_multicast: { kind: 'mma-commit-arrive', barrierArg: 0, remote: () => true },
  umma_arrive_multicast_2x1SM: { kind: 'mma-commit-arrive', barrierArg: 0, remote: () => true },
  tcgen05_mma: { kind: 'mma' },
  tcgen05_mma_ws: { kind: 'mma' },
  tcgen05_mma_sp: { kind: 'mma' },
  // cuda_pipeline_primitives.h: cp.async underneath.
  __pipeline_memcpy_async: { kind: 'cp-async', bytes: 2 },
  __pipeline_wait_prior: { kind: 'cp-async-wait' },
  __pipeline_arrive_on: { kind: 'cp-async-arrive', barrierArg: 0 },
  // __mbarrier_* primitives (cuda_awbarrier_primitives.h).
  __mbarrier_init: { kind: 'init', barrierArg: 0, count: 1 },
  __mbarrier_inval: { kind: 'inval', barrierArg: 0 },
  __mbarrier_arrive: { kind: 'arrive', barrierArg: 0, defaultCount: 1 },
  __mbarrier_arrive_and_drop: { kind: 'arrive-drop', barrierArg: 0, defaultCount: 1 },
  __mbarrier_try_wait: { kind: 'wait-token', barrierArg: 0, token: 1 },
  __mbarrier_test_wait: { kind: 'wait-token', barrierArg: 0, token: 1 },
  __mbarrier_try_wait_parity: { kind: 'wait-parity', barrierArg: 0, parity: 1 },
  __mbarrier_test_wait_parity: { kind: 'wait-parity', barrierArg: 0, parity: 1 },
  // cuda::barrier friends and cuda::device.
  init: { kind: 'init', barrierArg: 0, count: 1, requiresKnownBarrier: true },
  barrier_arrive_tx: { kind: 'arrive-expect-tx', barrierArg: 0, count: 1, bytes: 2 },
  barrier_expect_tx: { kind: 'expect-tx', barrierArg: 0, bytes: 1 },
  // CuTe / CUTLASS free functions.
  initialize_barrier: { kind: 'init', barrierArg: 0, count: 1 },
  set_barrier_transaction_bytes: { kind: 'arrive-expect-tx', barrierArg: 0, bytes: 1, defaultCount: 1 },
  wait_barrier: { kind: 'wait-parity', barrierArg: 0, parity: 1, blocking: true },
  arrive_barrier: { kind: 'arrive', barrierArg: 0, defaultCount: 1 },
  // ThunderKittens.
  init_semaphore: { kind: 'init', barrierArg: 0, count: 1 },
  expect_bytes: { kind: 'arrive-expect-tx', barrierArg: 0, bytes: 1, defaultCount: 1 },
  arrive: { kind: 'arrive', barrierArg: 0, count: 1, defaultCount: 1, requiresKnownBarrier: true },
  wait: { kind: 'wait-parity', barrierArg: 0, parity: 1, blocking: true, requiresKnownBarrier: true },
};

/** Member functions on barrier objects (cuda::barrier, CUTLASS ClusterBarrier & co.). */
function member(c: CallInfo): Entry | undefined {
  const cutlass = /Cluster(Transaction)?Barrier|cutlass|Barrier\b/.test(c.receiverType ?? '') && !/cuda::barrier|std::barrier|barrier_t\b/.test(c.receiverType ?? '');
  const argc = c.args.length;
  switch (c.method) {
    case 'init':
      return { kind: 'init', barrierArg: 'receiver', count: 0, requiresKnownBarrier: true };
    case 'arrive':
      if (cutlass) return { kind: 'arrive', barrierArg: 'receiver', defaultCount: 1, requiresKnownBarrier: true, remote: (n) => n >= 1 };
      return { kind: 'arrive', barrierArg: 'receiver', count: argc ? 0 : undefined, defaultCount: 1, requiresKnownBarrier: true };
    case 'wait':
      if (c.argIsTokenVar[0]) return { kind: 'wait-token', barrierArg: 'receiver', token: 0, blocking: true, requiresKnownBarrier: true };
      if (argc === 1) return { kind: 'wait-parity', barrierArg: 'receiver', parity: 0, blocking: true, requiresKnownBarrier: true };
      return undefined;
    case 'arrive_and_wait':
      return { kind: 'wait-token', barrierArg: 'receiver', alsoArriveFirst: true, defaultCount: 1, requiresKnownBarrier: true };
    case 'arrive_and_drop':
      return { kind: 'arrive-drop', barrierArg: 'receiver', defaultCount: 1, requiresKnownBarrier: true };
    case 'arrive_and_expect_tx':
    case 'arrive_and_reset_bytes':
      return { kind: 'arrive-expect-tx', barrierArg: 'receiver', bytes: 0, defaultCount: 1, requiresKnownBarrier: true, remote: (n) => n >= 2 };
    case 'expect_transaction':
    case 'reset_bytes':
      return { kind: 'expect-tx', barrierArg: 'receiver', bytes: 0, requiresKnownBarrier: true };
    case 'complete_transaction':
      return { kind: 'complete-tx', barrierArg: 'receiver', requiresKnownBarrier: true };
    case 'try_wait':
    case 'test_wait':
      if (c.argIsTokenVar[0]) return { kind: 'wait-token', barrierArg: 'receiver', token: 0, requiresKnownBarrier: true };
      return { kind: 'wait-parity', barrierArg: 'receiver', parity: 0, requiresKnownBarrier: true };
    case 'wait_parity':
      return { kind: 'wait-parity', barrierArg: 'receiver', parity: 0, blocking: true, requiresKnownBarrier: true };
    case 'try_wait_parity':
    case 'try_wait_parity_for':
      return { kind: 'wait-parity', barrierArg: 'receiver', parity: 0, requiresKnownBarrier: true };
    case 'invalidate':
      return { kind: 'inval', barrierArg: 'receiver', requiresKnownBarrier: true };
    default:
      return undefined;
  }
}

export function apiOpForCall(c: CallInfo): ApiOp | undefined {
  if (c.isMember) {
    const m = member(c);
    return m ? { name: `.${c.method}`, ...m } : undefined;
  }
  const name = c.callee.slice(c.callee.lastIndexOf('::') + 2 > 1 ? c.callee.lastIndexOf('::') + 2 : 0);
  // Special shapes first.
  if (name === 'cp_async_bulk' || name === 'cp_async_bulk_tensor' || name === 'load_async' || name === 'memcpy_async' || name === 'memcpy_async_tx') {
    return bulk(name, c);
  }
  const e = FREE[name];
  if (!e) return undefined;
  // Map non-tag argument positions back to real argument indices.
  const real = c.args.map((a, i) => (TAG.test(a.trim()) ? -1 : i)).filter((i) => i >= 0);
  const at = (k: number | undefined): number | undefined => (k === undefined ? undefined : real[k]);
  const op: ApiOp = {
    name: c.callee,
    ...e,
    barrierArg: typeof e.barrierArg === 'number' ? at(e.barrierArg) : e.barrierArg,
    count: at(e.count),
    bytes: at(e.bytes),
    parity: at(e.parity),
    token: at(e.token),
    thenFlip: at(e.thenFlip),
  };
  if (name === 'init_semaphore' && c.args.length === 3 && c.args[2].trim() !== '0') op.count = undefined;
  if (name === 'barrier_arrive_tx' && op.count === undefined) op.defaultCount = 1;
  return op;
}

function bulk(name: string, c: CallInfo): ApiOp | undefined {
  const real = c.args.map((a, i) => (TAG.test(a.trim()) ? -1 : i)).filter((i) => i >= 0);
  switch (name) {
    case 'cp_async_bulk':
      // (dst, src, size, bar) for global->shared; the shared->global form has no barrier.
      return real.length >= 4 ? { name: c.callee, kind: 'bulk-copy', barrierArg: real[3], bytes: real[2] } : undefined;
    case 'cp_async_bulk_tensor':
      return real.length >= 4 ? { name: c.callee, kind: 'bulk-copy', barrierArg: real[3] } : undefined;
    case 'load_async': {
      // ThunderKittens: the semaphore is the argument whose type is a semaphore; by convention it is
      // the last of (dst, src, coord, sem) or the third of (dst, tmap, sem, coords...).
      const idx = c.args.findIndex((a) => /sem|bar|arrived|full|ready/i.test(a));
      return idx >= 0 ? { name: c.callee, kind: 'bulk-copy', barrierArg: idx, requiresKnownBarrier: true } : undefined;
    }
    case 'memcpy_async_tx':
      return c.args.length >= 4 ? { name: c.callee, kind: 'bulk-copy', barrierArg: c.args.length - 1, bytes: c.args.length - 2, requiresKnownBarrier: true } : undefined;
    case 'memcpy_async':
      return c.args.length >= 4 ? { name: c.callee, kind: 'memcpy-async', barrierArg: c.args.length - 1, bytes: c.args.length - 2, requiresKnownBarrier: true } : undefined;
    default:
      return undefined;
  }
}

/** Block/warp/cluster-wide syncs. `receiver` is the object text for member calls (`block.sync()`). */
export function syncForCall(callee: string, receiver: string): 'block' | 'warp' | 'cluster' | 'cluster-arrive' | 'cluster-wait' | 'named' | undefined {
  const name = callee.slice(callee.lastIndexOf('::') >= 0 ? callee.lastIndexOf('::') + 2 : 0).replace(/^\./, '');
  if (/^__syncthreads(_and|_or|_count)?$/.test(name)) return 'block';
  if (name === '__syncwarp') return 'warp';
  if (name === '__barrier_sync') return 'named';
  if (receiver) {
    const method = callee.slice(callee.lastIndexOf('.') + 1);
    if (method === 'sync' || method === 'barrier_wait') {
      if (/cluster/i.test(receiver)) return 'cluster';
      if (/grid/i.test(receiver)) return undefined;
      if (/warp|tile|tiled_partition|coalesced/i.test(receiver)) return 'warp';
      if (/block|cta|\btb\b|this_thread_block|group|g\b/i.test(receiver)) return 'block';
      if (/NamedBarrier|named/i.test(receiver)) return 'named';
    }
    if (method === 'barrier_arrive' && /cluster/i.test(receiver)) return 'cluster-arrive';
    if (method === 'arrive_and_wait' && /NamedBarrier|named/i.test(receiver)) return 'named';
    return undefined;
  }
  if (callee.includes('.')) {
    const [obj, method] = [callee.slice(0, callee.lastIndexOf('.')), callee.slice(callee.lastIndexOf('.') + 1)];
    if (method === 'sync') return syncForCall(`.${method}`, obj);
  }
  if (name === 'sync' && /cluster/.test(callee)) return 'cluster';
  if (/^(cluster_sync|cluster_sync_with_relaxed_arrive|cluster_barrier_sync)$/.test(name)) return 'cluster';
  if (/^(cluster_arrive(_relaxed)?|pipeline_init_arrive_relaxed|cluster_barrier_arrive(_relaxed)?)$/.test(name)) return 'cluster-arrive';
  if (/^(cluster_wait|pipeline_init_wait|cluster_barrier_wait)$/.test(name)) return 'cluster-wait';
  if (/^(named_barrier_sync|sync_threads|syncthreads)$/.test(name)) return name === 'named_barrier_sync' ? 'named' : 'block';
  if (name === 'sync' && /NamedBarrier|warpgroup|everyone|group/.test(callee)) return 'named';
  if (name === 'sync' && /^(cg|cooperative_groups)::/.test(callee)) return 'block';
  return undefined;
}
