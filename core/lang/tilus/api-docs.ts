// Hover documentation for tilus's synchronisation and asynchronous-copy API: every instruction of the
// mbarrier, tma, tcgen05 and wgmma groups, the fence/cluster/clc instructions that touch barriers, the
// thread-group constructs and the launch attributes. Written for this project from tilus's sources
// (python/tilus/lang/instructions/, backends/emitters/); each entry says how many threads act, since
// that is where tilus pipelines go wrong. Plain data plus lookup and rendering.

export interface TilusDoc {
  /** Spelling after `self.` (`mbarrier.arrive`, `thread_group`, `attrs.warps`). */
  name: string;
  signature: string;
  /** One line. */
  summary: string;
  /** Who executes it and what it does to barriers. */
  details: string;
  /** The PTX it becomes, when one instruction. */
  ptx?: string;
}

const EVERY_THREAD = 'Every thread of the current thread group executes it: in a group of N threads that is N arrivals (times `count`). Wrap it in `with self.single_thread():` when the barrier expects one arrival.';

export const TILUS_DOCS: readonly TilusDoc[] = [
  // ---- mbarrier
  {
    name: 'mbarrier.alloc',
    signature: 'self.mbarrier.alloc(counts: int | Sequence[int | None]) -> RegisterTensor',
    summary: 'Allocates mbarriers in shared memory and initialises each with its expected arrival count.',
    details:
      'One barrier per element of `counts` (a single int allocates one). Wherever the call is written, tilus hoists the initialisation to the start of the kernel: thread 0 runs `mbarrier.init` for every barrier, then a `fence.mbarrier_init` and `__syncthreads()`. Each barrier starts in phase 0 with `counts[i]` pending arrivals and no transaction bytes. A count of `None` stands for the number of threads of the thread group that allocates it. Returns a register tensor of barrier addresses: index it (`bars[i]`) or unpack it with `.tolist()`.',
    ptx: 'mbarrier.init.shared::cta.b64',
  },
  {
    name: 'mbarrier.arrive',
    signature: "self.mbarrier.arrive(barrier, count=1, sem='release', scope='cta')",
    summary: 'Each thread of the current group arrives on the barrier, lowering its pending count by `count`.',
    details: `${EVERY_THREAD} When the pending count and the transaction bytes both reach zero the phase completes and the barrier moves to the next phase. With \`sem='release'\` the arriving threads' earlier writes are visible to threads whose acquire \`wait\` sees the phase complete.`,
    ptx: 'mbarrier.arrive.shared::cta.b64',
  },
  {
    name: 'mbarrier.arrive_and_expect_tx',
    signature: "self.mbarrier.arrive_and_expect_tx(barrier, transaction_bytes, sem='release', scope='cta')",
    summary: 'Each thread of the current group arrives once and adds `transaction_bytes` to the bytes the phase waits for.',
    details: `${EVERY_THREAD} The bytes are counted down by the asynchronous copies (TMA, \`clc.try_cancel\`) that name this barrier, so the sum declared per phase must equal the bytes those copies deliver. The usual form arms a stage from one thread: \`with self.single_thread(): self.mbarrier.arrive_and_expect_tx(full[s], sa[s].nbytes + sb[s].nbytes)\`.`,
    ptx: 'mbarrier.arrive.expect_tx.shared::cta.b64',
  },
  {
    name: 'mbarrier.arrive_and_expect_tx_multicast',
    signature: "self.mbarrier.arrive_and_expect_tx_multicast(barrier, transaction_bytes, multicast_mask, sem='release', scope='cluster')",
    summary: 'Arms the barrier at the same shared-memory offset in every CTA of `multicast_mask`: one arrival and `transaction_bytes` each.',
    details: 'Not every thread arrives: one thread of the group is elected per CTA of the mask (thread i for CTA rank i), so the group needs at least 16 threads. Each targeted CTA receives exactly one arrival. Used with multicast TMA loads that fill several CTAs\' shared memory.',
    ptx: 'mbarrier.arrive.expect_tx.shared::cluster.b64 (with mapa)',
  },
  {
    name: 'mbarrier.arrive_and_expect_tx_remote',
    signature: "self.mbarrier.arrive_and_expect_tx_remote(barrier, transaction_bytes, target_rank, sem='release', scope='cluster')",
    summary: 'Each thread of the current group arrives on the barrier at the same offset in CTA `target_rank` of the cluster, adding `transaction_bytes`.',
    details: `${EVERY_THREAD} The barrier lives in a peer CTA, so this CTA's own barrier at that offset is not touched.`,
    ptx: 'mbarrier.arrive.expect_tx.shared::cluster.b64 (with mapa)',
  },
  {
    name: 'mbarrier.wait',
    signature: "self.mbarrier.wait(barrier, phase, sem='acquire', scope='cta')",
    summary: 'Blocks the threads of the current group until the barrier has completed the phase with parity `phase`.',
    details:
      'Returns at once when the barrier\'s current phase parity already differs from `phase`. A barrier starts in phase 0, so a wait with phase 1 on a fresh barrier does not block: that is why a producer that waits on "slot free" barriers starts at `producer_initial_phase` (1) and a consumer at `consumer_initial_phase` (0). Flip the phase variable each time the ring of stages wraps around (`phase ^= 1`, or `phase ^= (stage == 0)` after advancing). Waiting does not arrive.',
    ptx: 'mbarrier.try_wait.parity.shared::cta.b64 (in a retry loop)',
  },
  {
    name: 'mbarrier.producer_initial_phase',
    signature: 'self.mbarrier.producer_initial_phase  # == 1',
    summary: 'The phase a producer waits with first on its "slot free" barriers: 1.',
    details: 'A fresh barrier is in phase 0, so a wait with parity 1 passes at once: the producer fills every stage of the ring once before it waits for a consumer to release one. Starting a producer at 0 instead makes its first wait block on a release that only comes after the consumer got data, which the producer has not sent yet: a deadlock, unless someone arrives on the empty barriers first.',
  },
  {
    name: 'mbarrier.consumer_initial_phase',
    signature: 'self.mbarrier.consumer_initial_phase  # == 0',
    summary: 'The phase a consumer waits with first on its "data ready" barriers: 0.',
    details: 'The consumer\'s first wait blocks until the producer completes phase 0 of the stage (its arrivals plus the TMA bytes).',
  },
  // ---- tma
  {
    name: 'tma.global_to_shared',
    signature: 'self.tma.global_to_shared(*, src, dst, offsets, dims=None, mbarrier, cta_group=1, multicast_mask=None, cache_policy=None)',
    summary: 'Starts an asynchronous TMA copy of a tile of `src` into the shared tensor `dst`; its bytes complete on `mbarrier`.',
    details:
      'Issued by one elected lane: the group must be one warp (32 threads, warp-aligned) or one thread. The copy does not arrive; it only counts the transaction bytes of `dst` down on the barrier, so some thread must arm the phase with `arrive_and_expect_tx` for the same total (a plain `arrive` completes the phase before the data lands). With `multicast_mask` the tile lands in every CTA of the mask; with `cta_group=2` the barrier may be in the peer CTA.',
    ptx: 'cp.async.bulk.tensor.*.shared::cluster.global.mbarrier::complete_tx::bytes',
  },
  {
    name: 'tma.shared_to_global',
    signature: 'self.tma.shared_to_global(src, dst, offsets, dims=None)',
    summary: 'Starts an asynchronous TMA store of the shared tensor `src` into a tile of global `dst`.',
    details: 'Issued by one elected lane of a warp. No barrier is involved: commit it with `tma.commit_group()` and wait with `tma.wait_group(n, read=True)` before the shared memory is written again. Write the shared tile, then `self.fence.proxy_async(space="shared")` and a sync, before the store reads it.',
    ptx: 'cp.async.bulk.tensor.*.global.shared::cta',
  },
  {
    name: 'tma.commit_group',
    signature: 'self.tma.commit_group()',
    summary: 'Closes the TMA stores issued so far by this thread into one bulk async-group.',
    details: 'Groups are per thread: only the thread that issued the stores can wait for them.',
    ptx: 'cp.async.bulk.commit_group',
  },
  {
    name: 'tma.wait_group',
    signature: 'self.tma.wait_group(n, read=False)',
    summary: 'Waits until at most `n` of this thread\'s committed bulk async-groups are still pending.',
    details: 'With `read=True` it only waits until the stores have read their shared-memory source (enough to overwrite it), not until the global writes are visible.',
    ptx: 'cp.async.bulk.wait_group[.read] n',
  },
  // ---- tcgen05
  {
    name: 'tcgen05.alloc',
    signature: 'self.tcgen05.alloc(dtype, shape, cta_group=1) -> TMemoryTensor',
    summary: 'Allocates tensor memory (TMEM) columns for a tensor of `shape`.',
    details: 'Executed by one warp. Release it with `tcgen05.dealloc` before the kernel ends, after every MMA that writes it has completed (wait on the barrier its `tcgen05.commit` arrives on).',
    ptx: 'tcgen05.alloc',
  },
  {
    name: 'tcgen05.dealloc',
    signature: 'self.tcgen05.dealloc(tensor)',
    summary: 'Frees the tensor memory of `tensor`.',
    details: 'Executed by one warp. Only safe once no tcgen05 operation still reads or writes it.',
    ptx: 'tcgen05.dealloc',
  },
  {
    name: 'tcgen05.slice',
    signature: 'self.tcgen05.slice(tensor, offsets, shape, dims) -> TMemoryTensor',
    summary: 'A view of a rectangular part of a tensor-memory tensor; no data moves.',
    details: 'No synchronisation: it only names columns and lanes.',
  },
  {
    name: 'tcgen05.view',
    signature: 'self.tcgen05.view(tensor, dtype, shape) -> TMemoryTensor',
    summary: 'Reinterprets a tensor-memory tensor with another dtype and shape; no data moves.',
    details: 'No synchronisation.',
  },
  {
    name: 'tcgen05.relinquish_alloc_permit',
    signature: 'self.tcgen05.relinquish_alloc_permit(cta_group)',
    summary: 'Declares that this CTA will allocate no more tensor memory, so other CTAs on the SM may.',
    details: 'Executed once per CTA, after its last `tcgen05.alloc`.',
    ptx: 'tcgen05.relinquish_alloc_permit',
  },
  {
    name: 'tcgen05.load',
    signature: 'self.tcgen05.load(tensor) -> RegisterTensor',
    summary: 'Starts loading a tensor-memory tensor into registers (warp-aligned group).',
    details: 'Asynchronous: call `tcgen05.wait_load()` before using the registers. Before loading an accumulator, wait on the barrier the MMA\'s `tcgen05.commit` arrives on.',
    ptx: 'tcgen05.ld',
  },
  {
    name: 'tcgen05.store',
    signature: 'self.tcgen05.store(tensor, src)',
    summary: 'Starts storing registers into a tensor-memory tensor (warp-aligned group).',
    details: 'Asynchronous: call `tcgen05.wait_store()` before an MMA reads the tensor.',
    ptx: 'tcgen05.st',
  },
  {
    name: 'tcgen05.wait_load',
    signature: 'self.tcgen05.wait_load()',
    summary: 'Waits for this thread\'s outstanding `tcgen05.load`s.',
    details: 'Per thread; no barrier involved.',
    ptx: 'tcgen05.wait::ld',
  },
  {
    name: 'tcgen05.wait_store',
    signature: 'self.tcgen05.wait_store()',
    summary: 'Waits for this thread\'s outstanding `tcgen05.store`s.',
    details: 'Per thread; no barrier involved.',
    ptx: 'tcgen05.wait::st',
  },
  {
    name: 'tcgen05.copy',
    signature: 'self.tcgen05.copy(src, dst)',
    summary: 'Starts an asynchronous copy from a shared tensor into tensor memory.',
    details: 'Completes like an MMA: a later `tcgen05.commit` arrives on a barrier once it (and every earlier uncommitted tcgen05 operation of the thread) has finished.',
    ptx: 'tcgen05.cp',
  },
  {
    name: 'tcgen05.commit',
    signature: 'self.tcgen05.commit(mbarrier, cta_group=1, multicast_mask=None)',
    summary: 'Makes the barrier receive one arrival when every earlier uncommitted tcgen05 operation (MMA, copy) of the issuing thread has completed.',
    details:
      'Must run in a group of exactly one warp; one elected lane issues it, so the barrier gets one arrival per commit (allocate it with count 1 per committing warp). This is how MMA completion reaches a barrier: a consumer that releases a stage with a plain `arrive` after `tcgen05.mma` lets the producer overwrite operands the tensor core may still be reading. With `multicast_mask`, the barrier at the same offset in each CTA of the mask receives the arrival.',
    ptx: 'tcgen05.commit.cta_group::N.mbarrier::arrive::one.shared::cluster.b64',
  },
  {
    name: 'tcgen05.mma',
    signature: 'self.tcgen05.mma(a, b, d, enable_input_d=True, cta_group=1, ...)',
    summary: 'Starts a tensor-core MMA `d = a @ b (+ d)` with the accumulator in tensor memory.',
    details: 'Issued by one elected lane of a single warp. Asynchronous: nothing signals its completion until a `tcgen05.commit` attaches it to a barrier, and the shared-memory operands must stay untouched until then.',
    ptx: 'tcgen05.mma.cta_group::N.kind::*',
  },
  // ---- wgmma
  {
    name: 'wgmma.fence',
    signature: 'self.wgmma.fence()',
    summary: 'Orders earlier register and shared-memory accesses before the following `wgmma.mma` (warp group of 4 warps).',
    details: 'Needed before the first MMA that reads registers written by ordinary instructions.',
    ptx: 'wgmma.fence.sync.aligned',
  },
  {
    name: 'wgmma.commit_group',
    signature: 'self.wgmma.commit_group()',
    summary: 'Closes the warp group\'s outstanding `wgmma.mma`s into one group.',
    details: 'wgmma completion is tracked per warp group with `wgmma.wait_group`, not with an mbarrier.',
    ptx: 'wgmma.commit_group.sync.aligned',
  },
  {
    name: 'wgmma.wait_group',
    signature: 'self.wgmma.wait_group(n)',
    summary: 'Waits until at most `n` committed wgmma groups of the warp group are still running.',
    details: 'Release a shared-memory stage (arrive on its "empty" barrier) only after the groups that read it have been waited: `wait_group(0)` for all, `wait_group(1)` to keep one MMA in flight and release the previous stage.',
    ptx: 'wgmma.wait_group.sync.aligned n',
  },
  {
    name: 'wgmma.mma',
    signature: 'self.wgmma.mma(a, b, d)',
    summary: 'Starts a warp-group MMA `d += a @ b` reading `a` (registers or shared) and `b` (shared).',
    details: 'Executed by a warp group (4 warps, 128 threads). Asynchronous until committed and waited with `wgmma.commit_group` / `wgmma.wait_group`.',
    ptx: 'wgmma.mma_async.sync.aligned',
  },
  // ---- fences, cluster, cluster launch control
  {
    name: 'fence.proxy_async',
    signature: 'self.fence.proxy_async(space="shared")',
    summary: 'Makes the thread\'s ordinary (generic-proxy) writes visible to the async proxy (TMA, tcgen05).',
    details: 'Write a shared tile, `fence.proxy_async`, then a sync, before a TMA store or an MMA reads the tile.',
    ptx: 'fence.proxy.async.shared::cta',
  },
  {
    name: 'fence.proxy_async_release',
    signature: 'self.fence.proxy_async_release()',
    summary: 'A release fence between the generic and the async proxy.',
    details: 'Orders the thread\'s earlier memory accesses before later async-proxy operations, with release semantics.',
  },
  {
    name: 'cluster.sync',
    signature: 'self.cluster.sync()',
    summary: 'Synchronises every thread of every CTA of the cluster.',
    details: 'Also needed before a CTA exits while peers may still arrive on its barriers, and after barrier initialisation before peers use them.',
    ptx: 'barrier.cluster.arrive + barrier.cluster.wait',
  },
  {
    name: 'cluster.map_shared_addr',
    signature: 'self.cluster.map_shared_addr(addr, target_rank) -> RegisterTensor',
    summary: 'The address of the same shared-memory location (a barrier) in CTA `target_rank` of the cluster.',
    details: 'Operations on the result act on the peer CTA\'s barrier, not this CTA\'s.',
    ptx: 'mapa.shared::cluster',
  },
  {
    name: 'clc.try_cancel',
    signature: 'self.clc.try_cancel(response, mbarrier, multicast)',
    summary: 'Asks the hardware to cancel a cluster not yet launched; the 16-byte answer lands in `response` and completes 16 bytes on `mbarrier`.',
    details: 'The answer completes transaction bytes like a copy; arm the phase first with `arrive_and_expect_tx(mbarrier, 16)` from one thread.',
    ptx: 'clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes',
  },
  {
    name: 'clc.query_response',
    signature: 'self.clc.query_response(response) -> (is_valid, blockIdx)',
    summary: 'Decodes a `try_cancel` answer: whether a cluster was cancelled, and its first block index.',
    details: 'Read it only after waiting on the barrier the answer completes on.',
    ptx: 'clusterlaunchcontrol.query_cancel',
  },
  // ---- thread groups, loops, launch attributes
  {
    name: 'thread_group',
    signature: 'with self.thread_group(thread_begin, num_threads):',
    summary: 'Runs the body on threads [thread_begin, thread_begin + num_threads) of the current group only.',
    details: 'Groups nest: `thread_begin` counts from the first thread of the enclosing group. Every instruction in the body runs on every thread of the group, including `mbarrier.arrive`: a barrier the whole group arrives on needs a count equal to the group\'s size.',
  },
  {
    name: 'single_thread',
    signature: 'with self.single_thread(thread=-1):',
    summary: 'Runs the body on one thread of the current group (any elected thread by default).',
    details: 'The way to arrive once per phase from a group, e.g. `arrive_and_expect_tx` that arms a TMA stage.',
  },
  {
    name: 'single_warp',
    signature: 'with self.single_warp(warp=0):',
    summary: 'Runs the body on warp `warp` (32 threads) of the current group.',
    details: 'Equivalent to `thread_group(32 * warp, 32)`. `tcgen05.mma`/`commit` and TMA need a single warp.',
  },
  {
    name: 'warp_group',
    signature: 'with self.warp_group(warp_begin, num_warps):',
    summary: 'Runs the body on warps [warp_begin, warp_begin + num_warps) of the current group.',
    details: 'Equivalent to `thread_group(32 * warp_begin, 32 * num_warps)`.',
  },
  {
    name: 'range',
    signature: 'for i in self.range(start, end=None, step=None, *, unroll=None):',
    summary: 'A loop of the kernel, like Python\'s `range`, with an unrolling hint.',
    details: '`unroll=k` unrolls by k and `unroll="all"` completely; the trip count is the same as without it, so phase bookkeeping is unchanged.',
  },
  {
    name: 'sync',
    signature: 'self.sync()',
    summary: 'Synchronises the threads of the current thread group (the whole block at the top level).',
    details: 'At the top level it is `__syncthreads()`; inside a thread group only that group\'s threads take part.',
  },
  {
    name: 'attrs.warps',
    signature: 'self.attrs.warps = N',
    summary: 'The number of warps per thread block: the block has 32 × N threads.',
    details: 'A compile-time constant. Thread groups partition these threads; the analysis replays the kernel at this block size.',
  },
  {
    name: 'attrs.blocks',
    signature: 'self.attrs.blocks = n | [x, y, z]',
    summary: 'The grid: the number of thread blocks (up to three dimensions).',
    details: 'May depend on the kernel\'s arguments.',
  },
  {
    name: 'attrs.cluster_blocks',
    signature: 'self.attrs.cluster_blocks = n | [x, y, z]',
    summary: 'The cluster shape: blocks per cluster (default 1).',
    details: 'With more than one block per cluster, barriers can be arrived on from peer CTAs (`arrive_and_expect_tx_remote`, multicast).',
  },
];

const BY_NAME = new Map(TILUS_DOCS.map((d) => [d.name, d]));

/** The entry for a dotted word under the cursor (`self.mbarrier.arrive`, `mbarrier.arrive`, `producer_initial_phase`). */
export function findTilusDoc(dotted: string): TilusDoc | undefined {
  const word = dotted.replace(/^self\./, '');
  const direct = BY_NAME.get(word);
  // `range`, `sync` … are tilus's only as methods of the Script (`self.range`), not Python's `range`.
  if (direct && (word.includes('.') || dotted.startsWith('self.'))) return direct;
  // `producer_initial_phase` alone, or `x.mbarrier.arrive` through another receiver.
  const parts = word.split('.');
  for (let i = 1; i < parts.length; i++) {
    const hit = BY_NAME.get(parts.slice(i).join('.'));
    if (hit) return hit;
  }
  if (parts.length === 1) return TILUS_DOCS.find((d) => d.name.endsWith(`.${word}`) && /initial_phase$/.test(word));
  return undefined;
}

export function renderTilusDoc(d: TilusDoc): string {
  const lines = ['```python', d.signature, '```', '', `**${d.summary}**`, '', d.details];
  if (d.ptx) lines.push('', `PTX: \`${d.ptx}\``);
  return lines.join('\n');
}
