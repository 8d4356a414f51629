// Tests for the CUDA barrier API hover table (core/lang/cuda/api-docs.ts) and its lookups (core/lang/cuda/doc-lookup.ts).
import { describe, expect, it } from 'vitest';
import { API_DOCS } from '../../../core/lang/cuda/api-docs';
import { findApiDoc, findMemberDoc, findMemberDocs, findPtxDoc, getApiDoc, renderApiDoc } from '../../../core/lang/cuda/doc-lookup';

/** [spelling at a call site, expected entry id]. Covers every API the hover table promises. */
const FREE_NAMES: [string, string][] = [
  // cuda::barrier / cuda::device / libcu++
  ['cuda::barrier', 'cuda.barrier'],
  ['cuda::barrier<cuda::thread_scope_block>', 'cuda.barrier'],
  ['init', 'cuda.barrier.init'],
  ['cuda::barrier::barrier', 'cuda.barrier.ctor'],
  ['cuda::barrier<cuda::thread_scope_block>::arrival_token', 'cuda.barrier.arrival_token'],
  ['arrival_token', 'cuda.barrier.arrival_token'],
  ['cuda::barrier<cuda::thread_scope_block>::max', 'cuda.barrier.max'],
  ['barrier_arrive_tx', 'cuda.device.barrier_arrive_tx'],
  ['cuda::device::barrier_arrive_tx', 'cuda.device.barrier_arrive_tx'],
  ['barrier_expect_tx', 'cuda.device.barrier_expect_tx'],
  ['cuda::device::barrier_expect_tx', 'cuda.device.barrier_expect_tx'],
  ['barrier_native_handle', 'cuda.device.barrier_native_handle'],
  ['cuda::device::barrier_native_handle', 'cuda.device.barrier_native_handle'],
  ['cuda::memcpy_async', 'cuda.memcpy_async'],
  ['memcpy_async', 'cuda.memcpy_async'],
  ['cuda::device::memcpy_async_tx', 'cuda.device.memcpy_async_tx'],
  ['cuda::std::barrier', 'cuda.std.barrier'],
  ['cuda::std::barrier<>', 'cuda.std.barrier'],
  // cuda::ptx
  ['cuda::ptx::mbarrier_init', 'cuda.ptx.mbarrier_init'],
  ['mbarrier_init', 'cuda.ptx.mbarrier_init'],
  ['cuda::ptx::mbarrier_arrive', 'cuda.ptx.mbarrier_arrive'],
  ['ptx::mbarrier_arrive', 'cuda.ptx.mbarrier_arrive'],
  ['::cuda::ptx::mbarrier_arrive', 'cuda.ptx.mbarrier_arrive'],
  ['mbarrier_arrive', 'cuda.ptx.mbarrier_arrive'],
  ['mbarrier_arrive_no_complete', 'cuda.ptx.mbarrier_arrive_no_complete'],
  ['cuda::ptx::mbarrier_arrive_expect_tx', 'cuda.ptx.mbarrier_arrive_expect_tx'],
  ['mbarrier_expect_tx', 'cuda.ptx.mbarrier_expect_tx'],
  ['mbarrier_try_wait', 'cuda.ptx.mbarrier_try_wait'],
  ['cuda::ptx::mbarrier_try_wait_parity', 'cuda.ptx.mbarrier_try_wait_parity'],
  ['mbarrier_try_wait_parity', 'cuda.ptx.mbarrier_try_wait_parity'],
  ['mbarrier_test_wait', 'cuda.ptx.mbarrier_test_wait'],
  ['mbarrier_test_wait_parity', 'cuda.ptx.mbarrier_test_wait_parity'],
  ['mbarrier_inval', 'cuda.ptx.mbarrier_inval'],
  ['fence_mbarrier_init', 'cuda.ptx.fence_mbarrier_init'],
  ['cuda::ptx::fence_proxy_async', 'cuda.ptx.fence_proxy_async'],
  ['cp_async_bulk', 'cuda.ptx.cp_async_bulk'],
  ['cuda::ptx::cp_async_bulk_tensor', 'cuda.ptx.cp_async_bulk_tensor'],
  ['cuda::ptx::cp_reduce_async_bulk', 'cuda.ptx.cp_reduce_async_bulk'],
  ['cp_async_mbarrier_arrive', 'cuda.ptx.cp_async_mbarrier_arrive'],
  ['cp_async_mbarrier_arrive_noinc', 'cuda.ptx.cp_async_mbarrier_arrive_noinc'],
  ['cuda::ptx::tcgen05_commit', 'cuda.ptx.tcgen05_commit'],
  ['elect_sync', 'cuda.ptx.elect_sync'],
  // primitives
  ['__mbarrier_init', 'prim.__mbarrier_init'],
  ['__mbarrier_inval', 'prim.__mbarrier_inval'],
  ['__mbarrier_arrive', 'prim.__mbarrier_arrive'],
  ['__mbarrier_arrive_and_drop', 'prim.__mbarrier_arrive_and_drop'],
  ['__mbarrier_test_wait', 'prim.__mbarrier_test_wait'],
  ['__mbarrier_test_wait_parity', 'prim.__mbarrier_test_wait_parity'],
  ['__mbarrier_try_wait', 'prim.__mbarrier_try_wait'],
  ['__mbarrier_try_wait_parity', 'prim.__mbarrier_try_wait_parity'],
  ['__mbarrier_token_pending_count', 'prim.__mbarrier_token_pending_count'],
  ['__mbarrier_maximum_count', 'prim.__mbarrier_maximum_count'],
  ['__mbarrier_t', 'prim.__mbarrier_t'],
  ['__mbarrier_token_t', 'prim.__mbarrier_token_t'],
  // sync and cooperative groups
  ['__syncthreads', 'sync.__syncthreads'],
  ['__syncwarp', 'sync.__syncwarp'],
  ['this_thread_block', 'cg.this_thread_block'],
  ['cooperative_groups::this_thread_block', 'cg.this_thread_block'],
  ['cg::this_thread_block', 'cg.this_thread_block'],
  ['cooperative_groups::thread_block::sync', 'cg.thread_block.sync'],
  ['thread_block::thread_rank', 'cg.thread_rank'],
  ['thread_block::size', 'cg.size'],
  ['cluster_group::sync', 'cg.cluster_group.sync'],
  ['this_cluster', 'cg.this_cluster'],
  ['cooperative_groups::this_cluster', 'cg.this_cluster'],
  // CUTLASS / CuTe
  ['cutlass::arch::ClusterBarrier::init', 'cutlass.ClusterBarrier.init'],
  ['ClusterBarrier::arrive', 'cutlass.ClusterBarrier.arrive'],
  ['ClusterTransactionBarrier::wait', 'cutlass.ClusterBarrier.wait'],
  ['cutlass::arch::ClusterBarrier::try_wait', 'cutlass.ClusterBarrier.try_wait'],
  ['ClusterBarrier::test_wait', 'cutlass.ClusterBarrier.test_wait'],
  ['ClusterBarrier::invalidate', 'cutlass.ClusterBarrier.invalidate'],
  ['cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx', 'cutlass.ClusterTransactionBarrier.arrive_and_expect_tx'],
  ['ClusterTransactionBarrier::expect_transaction', 'cutlass.ClusterTransactionBarrier.expect_transaction'],
  ['ClusterTransactionBarrier::complete_transaction', 'cutlass.ClusterTransactionBarrier.complete_transaction'],
  ['fence_barrier_init', 'cutlass.fence_barrier_init'],
  ['cutlass::arch::fence_barrier_init', 'cutlass.fence_barrier_init'],
  ['fence_view_async_shared', 'cutlass.fence_view_async_shared'],
  ['umma_arrive', 'cutlass.umma_arrive'],
  ['cutlass::arch::umma_arrive_multicast_2x1SM', 'cutlass.umma_arrive'],
  ['cute::initialize_barrier', 'cute.initialize_barrier'],
  ['cute::set_barrier_transaction_bytes', 'cute.set_barrier_transaction_bytes'],
  ['set_barrier_transaction_bytes', 'cute.set_barrier_transaction_bytes'],
  ['cute::wait_barrier', 'cute.wait_barrier'],
  ['cute::arrive_barrier', 'cute.arrive_barrier'],
  ['PipelineState', 'cutlass.PipelineState'],
  ['cutlass::PipelineState<Stages>', 'cutlass.PipelineState'],
  ['MainloopPipeline::PipelineState', 'cutlass.PipelineState'],
  ['make_producer_start_state', 'cutlass.make_producer_start_state'],
  ['cutlass::make_producer_start_state<MainloopPipeline>', 'cutlass.make_producer_start_state'],
  // ThunderKittens
  ['init_semaphore', 'tk.init_semaphore'],
  ['kittens::init_semaphore', 'tk.init_semaphore'],
  ['arrive', 'tk.arrive'],
  ['kittens::arrive', 'tk.arrive'],
  ['wait', 'tk.wait'],
  ['kittens::wait', 'tk.wait'],
  ['tma::expect_bytes', 'tk.tma.expect_bytes'],
  ['kittens::tma::expect_bytes', 'tk.tma.expect_bytes'],
  ['tma::expect<st_bf<64, 64>>', 'tk.tma.expect_bytes'],
  ['tma::cluster::expect_bytes', 'tk.tma.expect_bytes'],
  ['tma::load_async', 'tk.tma.load_async'],
  ['kittens::tma::load_async<dim::ROW, cache_policy::NORMAL>', 'tk.tma.load_async'],
  // DeepGEMM
  ['mbarrier_wait_and_flip_phase', 'deepgemm.mbarrier_wait_and_flip_phase'],
  ['ptx::mbarrier_wait_and_flip_phase', 'deepgemm.mbarrier_wait_and_flip_phase'],
  ['deep_gemm::ptx::mbarrier_arrive_and_set_tx', 'deepgemm.mbarrier_arrive_and_set_tx'],
  ['mbarrier_arrive_and_set_tx', 'deepgemm.mbarrier_arrive_and_set_tx'],
];

/** [method as written after `.` or `->`, receiver type hint or undefined, expected id]. */
const MEMBER_CALLS: [string, string | undefined, string][] = [
  ['.arrive', undefined, 'cuda.barrier.arrive'],
  ['arrive', 'cuda::barrier<cuda::thread_scope_block>', 'cuda.barrier.arrive'],
  ['->wait', undefined, 'cuda.barrier.wait'],
  ['.wait', 'cuda::std::barrier<>', 'cuda.barrier.wait'],
  ['.arrive_and_wait', undefined, 'cuda.barrier.arrive_and_wait'],
  ['.arrive_and_drop', undefined, 'cuda.barrier.arrive_and_drop'],
  ['.max', undefined, 'cuda.barrier.max'],
  ['->arrive', 'cutlass::arch::ClusterTransactionBarrier*', 'cutlass.ClusterBarrier.arrive'],
  ['->wait', 'cutlass::arch::ClusterTransactionBarrier*', 'cutlass.ClusterBarrier.wait'],
  ['->wait', 'Barrier*', 'cutlass.ClusterBarrier.wait'],
  ['.wait', 'ClusterBarrier&', 'cutlass.ClusterBarrier.wait'],
  ['->init', undefined, 'cutlass.ClusterBarrier.init'],
  ['.try_wait', undefined, 'cutlass.ClusterBarrier.try_wait'],
  ['.test_wait', undefined, 'cutlass.ClusterBarrier.test_wait'],
  ['invalidate', undefined, 'cutlass.ClusterBarrier.invalidate'],
  ['->arrive_and_expect_tx', undefined, 'cutlass.ClusterTransactionBarrier.arrive_and_expect_tx'],
  ['.arrive_and_reset_bytes', undefined, 'cutlass.ClusterTransactionBarrier.arrive_and_expect_tx'],
  ['->expect_transaction', undefined, 'cutlass.ClusterTransactionBarrier.expect_transaction'],
  ['.complete_transaction', undefined, 'cutlass.ClusterTransactionBarrier.complete_transaction'],
  ['.sync', undefined, 'cg.thread_block.sync'],
  ['.sync', 'cooperative_groups::thread_block', 'cg.thread_block.sync'],
  ['.sync', 'cooperative_groups::cluster_group', 'cg.cluster_group.sync'],
  ['.thread_rank', undefined, 'cg.thread_rank'],
  ['.size', undefined, 'cg.size'],
  ['ConsumerBarType::wait', undefined, 'cutlass.ClusterBarrier.wait'],
  ['cuda::barrier<cuda::thread_scope_block>::arrive', undefined, 'cuda.barrier.arrive'],
  ['full_barriers[s]->wait', 'cutlass::arch::ClusterTransactionBarrier*', 'cutlass.ClusterBarrier.wait'],
];

/** [mnemonic or full instruction token, expected id]. */
const PTX_TOKENS: [string, string][] = [
  ['mbarrier.init', 'ptx.mbarrier.init'],
  ['mbarrier.init.shared::cta.b64', 'ptx.mbarrier.init'],
  ['mbarrier.init.shared.b64 [%0], %1;', 'ptx.mbarrier.init'],
  ['mbarrier.arrive', 'ptx.mbarrier.arrive'],
  ['mbarrier.arrive.release.cta.shared::cta.b64', 'ptx.mbarrier.arrive'],
  ['mbarrier.arrive.shared::cluster.b64', 'ptx.mbarrier.arrive'],
  ['mbarrier.arrive.noComplete.shared.b64', 'ptx.mbarrier.arrive.noComplete'],
  ['mbarrier.arrive.expect_tx', 'ptx.mbarrier.arrive.expect_tx'],
  ['mbarrier.arrive.expect_tx.release.cta.shared::cta.b64', 'ptx.mbarrier.arrive.expect_tx'],
  ['mbarrier.arrive.expect_tx.shared::cluster.b64', 'ptx.mbarrier.arrive.expect_tx'],
  ['mbarrier.expect_tx', 'ptx.mbarrier.expect_tx'],
  ['mbarrier.expect_tx.relaxed.cta.shared::cta.b64', 'ptx.mbarrier.expect_tx'],
  ['mbarrier.complete_tx.shared::cluster.relaxed.cluster.b64', 'ptx.mbarrier.complete_tx'],
  ['mbarrier.arrive_drop.shared.b64', 'ptx.mbarrier.arrive_drop'],
  ['mbarrier.arrive_drop.expect_tx.release.cta.shared::cta.b64', 'ptx.mbarrier.arrive_drop'],
  ['mbarrier.try_wait', 'ptx.mbarrier.try_wait'],
  ['mbarrier.try_wait.acquire.cta.shared::cta.b64', 'ptx.mbarrier.try_wait'],
  ['mbarrier.try_wait.parity', 'ptx.mbarrier.try_wait.parity'],
  ['mbarrier.try_wait.parity.acquire.cta.shared::cta.b64', 'ptx.mbarrier.try_wait.parity'],
  ['mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64', 'ptx.mbarrier.try_wait.parity'],
  ['@!p mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1, %2;', 'ptx.mbarrier.try_wait.parity'],
  ['mbarrier.test_wait.shared.b64', 'ptx.mbarrier.test_wait'],
  ['mbarrier.test_wait.parity.shared::cta.b64', 'ptx.mbarrier.test_wait.parity'],
  ['mbarrier.inval.shared::cta.b64', 'ptx.mbarrier.inval'],
  ['mbarrier.pending_count.b64', 'ptx.mbarrier.pending_count'],
  ['cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes', 'ptx.cp.async.bulk'],
  ['cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes', 'ptx.cp.async.bulk'],
  ['cp.async.bulk.global.shared::cta.bulk_group', 'ptx.cp.async.bulk'],
  ['cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes', 'ptx.cp.async.bulk.tensor'],
  ['cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster', 'ptx.cp.async.bulk.tensor'],
  ['cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16', 'ptx.cp.reduce.async.bulk'],
  ['cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32', 'ptx.cp.reduce.async.bulk'],
  ['cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group', 'ptx.cp.reduce.async.bulk.tensor'],
  ['cp.async.bulk.commit_group', 'ptx.cp.async.bulk.commit_group'],
  ['cp.async.bulk.wait_group.read', 'ptx.cp.async.bulk.wait_group'],
  ['cp.async.mbarrier.arrive.shared::cta.b64', 'ptx.cp.async.mbarrier.arrive'],
  ['cp.async.mbarrier.arrive.b64', 'ptx.cp.async.mbarrier.arrive'],
  ['cp.async.mbarrier.arrive.noinc.shared::cta.b64', 'ptx.cp.async.mbarrier.arrive.noinc'],
  ['cp.async.cg.shared.global', 'ptx.cp.async'],
  ['cp.async.ca.shared.global.L2::128B', 'ptx.cp.async'],
  ['cp.async.commit_group', 'ptx.cp.async.commit_group'],
  ['cp.async.wait_group', 'ptx.cp.async.wait_group'],
  ['cp.async.wait_all', 'ptx.cp.async.wait_group'],
  ['tcgen05.mma.cta_group::1.kind::f16', 'ptx.tcgen05.mma'],
  ['tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64', 'ptx.tcgen05.commit'],
  ['tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64', 'ptx.tcgen05.commit'],
  ['tcgen05.fence::before_thread_sync', 'ptx.tcgen05.fence::before_thread_sync'],
  ['tcgen05.fence::after_thread_sync', 'ptx.tcgen05.fence::after_thread_sync'],
  ['fence.mbarrier_init.release.cluster', 'ptx.fence.mbarrier_init'],
  ['fence.proxy.async', 'ptx.fence.proxy.async'],
  ['fence.proxy.async.shared::cta', 'ptx.fence.proxy.async'],
  ['bar.sync', 'ptx.bar.sync'],
  ['barrier.sync.aligned', 'ptx.bar.sync'],
  ['bar.cta.sync', 'ptx.bar.sync'],
  ['bar.arrive', 'ptx.bar.arrive'],
  ['barrier.arrive', 'ptx.bar.arrive'],
  ['barrier.cluster.arrive', 'ptx.barrier.cluster.arrive'],
  ['barrier.cluster.arrive.release.aligned', 'ptx.barrier.cluster.arrive'],
  ['barrier.cluster.arrive.relaxed.aligned', 'ptx.barrier.cluster.arrive'],
  ['barrier.cluster.wait', 'ptx.barrier.cluster.wait'],
  ['barrier.cluster.wait.acquire.aligned', 'ptx.barrier.cluster.wait'],
  ['wgmma.commit_group.sync.aligned', 'ptx.wgmma.commit_group'],
  ['wgmma.wait_group.sync.aligned', 'ptx.wgmma.wait_group'],
  ['elect.sync', 'ptx.elect.sync'],
  ['mapa.shared::cluster.u32', 'ptx.mapa'],
  ['mapa', 'ptx.mapa'],
];

describe('API_DOCS table', () => {
  it('has unique ids and no name listed by two entries', () => {
    const ids = new Set<string>();
    const owner = new Map<string, string>();
    for (const doc of API_DOCS) {
      expect(ids.has(doc.id), `duplicate id ${doc.id}`).toBe(false);
      ids.add(doc.id);
      for (const name of doc.names) {
        expect(owner.get(name), `name ${name} listed by ${owner.get(name)} and ${doc.id}`).toBeUndefined();
        owner.set(name, doc.id);
      }
    }
  });

  it('gives every entry names, a signature and a one-line summary and semantics', () => {
    for (const doc of API_DOCS) {
      expect(doc.names.length, doc.id).toBeGreaterThan(0);
      expect(doc.signature.trim().length, doc.id).toBeGreaterThan(0);
      expect(doc.signature, doc.id).not.toContain('```');
      expect(doc.summary, doc.id).not.toContain('\n');
      expect(doc.summary.length, doc.id).toBeLessThanOrEqual(160);
      expect(doc.semantics.trim().length, doc.id).toBeGreaterThan(0);
    }
  });

  it('gives PTX entries their base mnemonic, also listed as a name, and no other entry a ptx field', () => {
    for (const doc of API_DOCS) {
      if (doc.surface === 'ptx') {
        expect(doc.ptx, doc.id).toBeDefined();
        expect(doc.names, doc.id).toContain(doc.ptx);
        expect(findPtxDoc(doc.ptx!)?.id, doc.id).toBe(doc.id);
      } else {
        expect(doc.ptx, doc.id).toBeUndefined();
      }
    }
  });

  it('points every seeAlso at an existing entry other than itself', () => {
    for (const doc of API_DOCS) {
      for (const id of doc.seeAlso ?? []) {
        expect(getApiDoc(id), `${doc.id} -> ${id}`).toBeDefined();
        expect(id).not.toBe(doc.id);
      }
    }
  });

  it('resolves every listed name back to its own entry', () => {
    for (const doc of API_DOCS) {
      for (const name of doc.names) {
        const found = doc.surface === 'ptx' ? findPtxDoc(name) : findApiDoc(name);
        expect(found?.id, name).toBe(doc.id);
        if (doc.member) expect(findMemberDocs(name).map((d) => d.id), name).toContain(doc.id);
      }
    }
  });
});

describe('findApiDoc', () => {
  it.each(FREE_NAMES)('%s -> %s', (name, id) => {
    expect(findApiDoc(name)?.id).toBe(id);
  });

  it('accepts call-site noise: whitespace, a call suffix, a leading ::', () => {
    expect(findApiDoc('  cuda :: ptx :: mbarrier_arrive ( ')?.id).toBe('cuda.ptx.mbarrier_arrive');
    expect(findApiDoc('::__syncthreads()')?.id).toBe('sync.__syncthreads');
  });

  it('passes dotted PTX mnemonics to findPtxDoc', () => {
    expect(findApiDoc('mbarrier.try_wait.parity')?.id).toBe('ptx.mbarrier.try_wait.parity');
    expect(findApiDoc('tcgen05.fence::after_thread_sync')?.id).toBe('ptx.tcgen05.fence::after_thread_sync');
  });

  it('returns undefined for unknown names', () => {
    for (const name of ['', 'foo', 'printf', 'cudaMalloc', 'mbarrier_frobnicate', 'cuda::ptx::nope', 'std::vector', 'bar.flip']) {
      expect(findApiDoc(name), name).toBeUndefined();
    }
  });

  it('does not resolve generic words reached only by dropping an unknown qualifier', () => {
    for (const name of ['std::wait', 'foo::init', 'std::barrier', 'ProducerBarType::init', 'cooperative_groups::memcpy_async', 'std::size']) {
      expect(findApiDoc(name), name).toBeUndefined();
    }
  });
});

describe('findMemberDoc', () => {
  it.each(MEMBER_CALLS)('%s on %s -> %s', (name, receiver, id) => {
    expect(findMemberDoc(name, receiver)?.id).toBe(id);
  });

  it('lists every class that has a method of that name', () => {
    const ids = findMemberDocs('->wait').map((d) => d.id);
    expect(ids).toEqual(['cuda.barrier.wait', 'cutlass.ClusterBarrier.wait']);
    expect(findMemberDocs('.sync').map((d) => d.id)).toEqual(['cg.thread_block.sync', 'cg.cluster_group.sync']);
  });

  it('returns undefined for methods that are not barrier APIs', () => {
    for (const name of ['.push_back', '->data', 'size_bytes', '.arrive_later']) {
      expect(findMemberDoc(name), name).toBeUndefined();
    }
    expect(findMemberDocs('.push_back')).toEqual([]);
  });
});

describe('findPtxDoc', () => {
  it.each(PTX_TOKENS)('%s -> %s', (token, id) => {
    expect(findPtxDoc(token)?.id).toBe(id);
  });

  it('prefers the longest base: arrive.expect_tx over arrive, try_wait.parity over try_wait, bulk.tensor over bulk', () => {
    expect(findPtxDoc('mbarrier.arrive.expect_tx.release.cta.shared::cta.b64')?.ptx).toBe('mbarrier.arrive.expect_tx');
    expect(findPtxDoc('mbarrier.try_wait.parity.acquire.cta.shared::cta.b64')?.ptx).toBe('mbarrier.try_wait.parity');
    expect(findPtxDoc('cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes')?.ptx).toBe('cp.async.bulk.tensor');
    expect(findPtxDoc('cp.async.mbarrier.arrive.noinc.shared::cta.b64')?.ptx).toBe('cp.async.mbarrier.arrive.noinc');
    expect(findPtxDoc('barrier.cluster.arrive.relaxed.aligned')?.ptx).toBe('barrier.cluster.arrive');
  });

  it('returns undefined for instructions it does not document', () => {
    for (const token of ['', 'add.s32', 'ld.shared.b32', 'mov.u32', 'bar.warp.sync', 'mbarrier', 'tcgen05.ld.sync.aligned.32x32b.x8', 'fence.acq_rel.cta', 'selp.b32']) {
      expect(findPtxDoc(token), token).toBeUndefined();
    }
  });
});

describe('naming traps: which calls count as an arrival', () => {
  const traps: [string, (s: string) => ReturnType<typeof findApiDoc>, boolean][] = [
    ['mbarrier.expect_tx.relaxed.cta.shared::cta.b64', findPtxDoc, false],
    ['mbarrier.arrive.expect_tx.shared::cta.b64', findPtxDoc, true],
    ['mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64', findPtxDoc, false],
    ['cp.async.mbarrier.arrive.shared::cta.b64', findPtxDoc, false],
    ['cp.async.mbarrier.arrive.noinc.shared::cta.b64', findPtxDoc, true],
    ['tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64', findPtxDoc, true],
    ['tcgen05.mma.cta_group::1.kind::f16', findPtxDoc, false],
    ['cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes', findPtxDoc, false],
    ['cute::set_barrier_transaction_bytes', findApiDoc, true],
    ['barrier_expect_tx', findApiDoc, false],
    ['cuda::device::barrier_arrive_tx', findApiDoc, true],
    ['cuda::ptx::mbarrier_expect_tx', findApiDoc, false],
    ['cuda::ptx::mbarrier_arrive_expect_tx', findApiDoc, true],
    ['tma::expect_bytes', findApiDoc, true],
    ['tma::expect', findApiDoc, true],
    ['tma::load_async', findApiDoc, false],
    ['ptx::mbarrier_arrive_and_set_tx', findApiDoc, true],
    ['mbarrier_wait_and_flip_phase', findApiDoc, false],
    ['cuda::memcpy_async', findApiDoc, false],
    ['umma_arrive', findApiDoc, true],
  ];
  it.each(traps)('%s', (name, find, arrives) => {
    expect(find(name)?.arrives).toBe(arrives);
  });

  it('member forms: arrive_and_expect_tx arrives, expect_transaction and complete_transaction do not', () => {
    expect(findMemberDoc('->arrive_and_expect_tx')?.arrives).toBe(true);
    expect(findMemberDoc('->expect_transaction')?.arrives).toBe(false);
    expect(findMemberDoc('.complete_transaction')?.arrives).toBe(false);
    expect(findMemberDoc('.arrive_and_drop')?.arrives).toBe(true);
    expect(findMemberDoc('.wait')?.arrives).toBe(false);
  });

  it('says so in the text of the trap entries', () => {
    expect(findApiDoc('cute::set_barrier_transaction_bytes')?.phaseRules).toMatch(/ARRIVES/);
    expect(findApiDoc('tma::expect_bytes')?.phaseRules).toMatch(/ARRIVES/);
    expect(findPtxDoc('mbarrier.expect_tx')?.phaseRules).toMatch(/NOT an arrival/);
    expect(findApiDoc('init_semaphore')?.semantics).toMatch(/thread_count \+ transaction_count/);
  });
});

describe('renderApiDoc', () => {
  it('renders every entry with its signature fenced, summary and barrier effect', () => {
    for (const doc of API_DOCS) {
      const md = renderApiDoc(doc);
      const lang = doc.surface === 'ptx' ? 'ptx' : 'cuda';
      expect(md.startsWith('```' + lang + '\n' + doc.signature + '\n```'), doc.id).toBe(true);
      expect(md).toContain(doc.summary);
      expect(md).toContain(`**Barrier effect:** ${doc.semantics}`);
      if (doc.phaseRules) expect(md).toContain(`**Phase rules:** ${doc.phaseRules}`);
      else expect(md).not.toContain('**Phase rules:**');
      if (doc.arrives === undefined) expect(md).not.toContain('Counts as an arrival');
      else expect(md).toContain(`Counts as an arrival: ${doc.arrives ? 'yes' : 'no'}`);
    }
  });

  it('renders a concrete hover', () => {
    const md = renderApiDoc(findPtxDoc('mbarrier.try_wait.parity.acquire.cta.shared::cta.b64')!);
    expect(md).toContain('```ptx\nmbarrier.try_wait.parity');
    expect(md).toContain('Counts as an arrival: no');
    expect(md).toContain('**Phase rules:** It can return false');
    expect(md).toContain('See also: `mbarrier.try_wait`, `mbarrier.test_wait.parity`');

    const cpp = renderApiDoc(findApiDoc('cuda::device::barrier_arrive_tx')!);
    expect(cpp).toContain('```cuda\n[[nodiscard]] cuda::barrier<cuda::thread_scope_block>::arrival_token');
    expect(cpp).toContain('Counts as an arrival: yes');
  });
});
