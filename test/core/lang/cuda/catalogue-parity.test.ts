// Catalogue parity: every CUDA barrier API and PTX mnemonic in core/lang/cuda/catalogue.ts must be
// known alike to the front end (api.ts, ptx.ts), the hovers (doc-lookup.ts over api-docs.ts) and the
// simulator (sim/ptx.ts handlers; sim/builtins.ts once it exports its builtin table). A name added to
// one of them and not to the others fails here. Known gaps are listed below, by name, on purpose:
// shrinking a list is welcome, growing it is a decision a reviewer sees.
import { describe, expect, it } from 'vitest';
import { apiOpForCall, syncForCall } from '../../../../core/lang/cuda/api';
import { API_DOCS } from '../../../../core/lang/cuda/api-docs';
import { type CatalogueEntry, CUDA_CATALOGUE, isBlockingApi, ptxKey, type PtxEntry } from '../../../../core/lang/cuda/catalogue';
import { findApiDoc, findMemberDoc, findPtxDoc, getApiDoc } from '../../../../core/lang/cuda/doc-lookup';
import { parsePtxAsm } from '../../../../core/lang/cuda/ptx';
import * as simBuiltins from '../../../../core/lang/cuda/sim/builtins';
import { SIM_PTX_HANDLERS } from '../../../../core/lang/cuda/sim/ptx';

const entries = Object.entries(CUDA_CATALOGUE) as [string, CatalogueEntry][];
const ofSurface = <S extends CatalogueEntry['surface']>(s: S) => entries.filter((e): e is [string, Extract<CatalogueEntry, { surface: S }>] => e[1].surface === s);

/** Catalogue entries with no hover doc yet. */
const NO_DOC_YET = [
  'mbarrier_arrive_and_expect_tx', 'mbarrier_pending_count', 'tcgen05_mma', 'tcgen05_mma_ws', 'tcgen05_mma_sp',
  '__pipeline_memcpy_async', '__pipeline_wait_prior', '__pipeline_arrive_on',
  '__syncthreads_and', '__syncthreads_or', '__syncthreads_count', '__barrier_sync',
  'cluster_sync', 'cluster_sync_with_relaxed_arrive', 'cluster_barrier_sync', 'cluster_arrive', 'cluster_arrive_relaxed',
  'pipeline_init_arrive_relaxed', 'cluster_barrier_arrive', 'cluster_barrier_arrive_relaxed', 'cluster_wait', 'pipeline_init_wait',
  'cluster_barrier_wait', 'named_barrier_sync', 'sync_threads', 'syncthreads', 'sync',
  '__shfl_sync', '__shfl_up_sync', '__shfl_down_sync', '__shfl_xor_sync', '__all_sync', '__any_sync', '__ballot_sync',
  '__reduce_add_sync', '__reduce_min_sync', '__reduce_max_sync', '__reduce_and_sync', '__reduce_or_sync', '__reduce_xor_sync',
  '.wait_parity', '.try_wait_parity', '.try_wait_parity_for',
  'cp.async.bulk.prefetch', 'tcgen05.alloc', 'tcgen05.dealloc', 'tcgen05.relinquish_alloc_permit', 'tcgen05.ld', 'tcgen05.st', 'tcgen05.cp', 'tcgen05.shift',
  'tcgen05.wait::ld', 'tcgen05.wait::st', 'bar.red', 'barrier.red',
  '__threadfence', '__threadfence_block', '__threadfence_system', 'fence_proxy_async_shared_cta', '__mbarrier_arrive_no_complete',
  'cp_async_bulk_commit_group', 'cp_async_bulk_wait_group', 'cp_async_bulk_wait_group_read', '__pipeline_commit',
];

/**
 * Docs that describe no operation the catalogue lists: types, constructors, queries, thread-group
 * helpers, and the CUTLASS variants of `.arrive` / `.wait` that hovers pick by receiver type.
 */
const DOCS_OUTSIDE_CATALOGUE = [
  'cuda.barrier', 'cuda.barrier.ctor', 'cuda.barrier.arrival_token', 'cuda.barrier.max', 
  'cuda.std.barrier', 'prim.__mbarrier_token_pending_count', 'prim.__mbarrier_maximum_count',
  'prim.__mbarrier_t', 'prim.__mbarrier_token_t', 'cg.this_thread_block', 'cg.thread_block.sync', 'cg.thread_rank', 'cg.size',
  'cg.cluster_group.sync', 'cg.this_cluster', 'cutlass.ClusterBarrier.arrive', 'cutlass.ClusterBarrier.wait',
  'cutlass.PipelineState', 'cutlass.make_producer_start_state', 'cutlass.NamedBarrier', 'cuda.pipeline',
  'cuda.vector_constructors', 'cuda.half2_arithmetic', 'cuda.timers',
];

/** The builtins sim/builtins.ts hoisted as blocking (its BLOCKING set) when the catalogue took it over. */
const BLOCKING_AT_SPLIT = [
  '__syncthreads', '__syncwarp', '__shfl_sync', '__shfl_up_sync', '__shfl_down_sync', '__shfl_xor_sync', '__all_sync', '__any_sync',
  '__ballot_sync', '__reduce_add_sync', '__reduce_min_sync', '__reduce_max_sync', '__reduce_and_sync', '__reduce_or_sync',
  '__reduce_xor_sync', 'mbarrier_try_wait', 'mbarrier_try_wait_parity', 'mbarrier_test_wait', 'mbarrier_test_wait_parity',
  '__mbarrier_try_wait', '__mbarrier_try_wait_parity', '__mbarrier_test_wait', '__mbarrier_test_wait_parity', '__pipeline_wait_prior',
  'sync', 'init',
  // Added with cuda::pipeline: make_pipeline synchronises the group, the wait-prior form waits on cp.async groups.
  'make_pipeline', 'pipeline_consumer_wait_prior',
  // elect.sync is a warp collective: the lanes of the mask meet.
  'elect_sync', 'elect_one_sync',
];

/** A PTX line that exercises an entry: its key, the qualifier it requires, and enough operands. */
function ptxLine(key: string, e: PtxEntry): string {
  const mnemonic = e.requires ? `${key}.${e.requires}` : key;
  const operands = (e.operands ?? ['-']).map((r, i) => (r === 'barrier' ? `[%${i}]` : `%${i}`));
  return `${mnemonic} ${operands.join(', ')};`;
}

describe('catalogue parity', () => {
  it('every function entry with an operation is recognised by the front end, and no other', () => {
    const wrong: string[] = [];
    for (const [name, e] of ofSurface('function')) {
      const op = apiOpForCall({ callee: `cuda::ptx::${name}`, method: name, isMember: false, args: ['dst', 'src', 'n', 'bar', 'x'], argIsTokenVar: [false, false, false, false, false] });
      const want = e.op?.kind ?? e.shape?.({ callee: name, method: name, isMember: false, args: ['dst', 'src', 'n', 'bar', 'x'], argIsTokenVar: [] })?.kind;
      if (op?.kind !== want) wrong.push(`${name}: front end ${op?.kind}, catalogue ${want}`);
      if (e.sync && syncForCall(name, '') !== e.sync) wrong.push(`${name}: sync ${syncForCall(name, '')}, catalogue ${e.sync}`);
    }
    expect(wrong).toEqual([]);
  });

  it('every method entry is recognised by the front end', () => {
    const missing = ofSurface('method')
      .filter(([key]) => !apiOpForCall({ callee: key, method: key.slice(1), isMember: true, receiverType: 'cuda::barrier<cuda::thread_scope_block>', args: ['x'], argIsTokenVar: [false] }))
      .map(([key]) => key);
    expect(missing).toEqual([]);
  });

  it('every PTX entry is its own key and the front end reads it as the catalogue says', () => {
    const wrong: string[] = [];
    for (const [key, e] of ofSurface('ptx')) {
      if (ptxKey(key) !== key) wrong.push(`${key}: matched as ${ptxKey(key)}`);
      const [ins] = parsePtxAsm(ptxLine(key, e));
      const got = ins?.op ?? (ins?.sync ? `sync ${ins.sync}` : ins?.mapa ? 'mapa' : undefined);
      const want = e.op ?? (e.sync ? `sync ${e.ctaWideWhenIdZero ? 'named' : e.sync}` : e.mapa ? 'mapa' : undefined);
      if (got !== want) wrong.push(`${key}: front end ${got}, catalogue ${want}`);
    }
    expect(wrong).toEqual([]);
  });

  it('every entry with a doc finds that doc through the hover lookup', () => {
    const wrong: string[] = [];
    for (const [key, e] of entries) {
      if (!e.doc) continue;
      if (!getApiDoc(e.doc)) {
        wrong.push(`${key}: no doc '${e.doc}'`);
        continue;
      }
      const found = e.surface === 'ptx' ? findPtxDoc(key) : e.surface === 'method' ? findMemberDoc(key.slice(1)) : findApiDoc(key);
      if (found?.id !== e.doc) wrong.push(`${key}: hover shows ${found?.id}, catalogue says ${e.doc}`);
    }
    expect(wrong).toEqual([]);
  });

  it('entries without a doc are exactly the listed gaps', () => {
    expect(entries.filter(([, e]) => !e.doc).map(([k]) => k).sort()).toEqual([...NO_DOC_YET].sort());
  });

  it('every doc describes a catalogue entry, except the listed types and helpers', () => {
    const used = new Set(entries.map(([, e]) => e.doc));
    expect(API_DOCS.filter((d) => !used.has(d.id)).map((d) => d.id).sort()).toEqual([...DOCS_OUTSIDE_CATALOGUE].sort());
  });

  it('every PTX doc names an instruction (or a family of instructions, `cp.async`) the catalogue knows', () => {
    const known = (n: string) => ptxKey(n) !== undefined || entries.some(([k, e]) => e.surface === 'ptx' && k.startsWith(`${n}.`));
    const unknown = API_DOCS.filter((d) => d.surface === 'ptx').flatMap((d) => d.names.filter((n) => !known(n)));
    expect(unknown).toEqual([]);
  });

  it('the simulator has a PTX handler for exactly the entries marked simulated', () => {
    const simulated = ofSurface('ptx').filter(([, e]) => e.simulated).map(([k]) => k).sort();
    expect(Object.keys(SIM_PTX_HANDLERS).sort()).toEqual(simulated);
  });

  it('blocking builtins are the set the simulator hoisted before the catalogue took it over', () => {
    expect(entries.filter(([k]) => isBlockingApi(k)).map(([k]) => k).sort()).toEqual([...BLOCKING_AT_SPLIT].sort());
    for (const name of BLOCKING_AT_SPLIT) expect(simBuiltins.isKnownPure(name), name).toBe(false);
  });

  // Activates once sim/builtins.ts exports its table of builtins keyed by name (SIMULATED_BUILTINS).
  const simulatedBuiltins = (simBuiltins as Record<string, unknown>).SIMULATED_BUILTINS as Record<string, unknown> | readonly string[] | undefined;
  it.runIf(simulatedBuiltins !== undefined)('the simulator implements exactly the function entries marked simulated', () => {
    const names = new Set(Array.isArray(simulatedBuiltins) ? simulatedBuiltins : Object.keys(simulatedBuiltins ?? {}));
    const catalogued = ofSurface('function');
    expect(catalogued.filter(([k, e]) => e.simulated && !names.has(k)).map(([k]) => k)).toEqual([]);
    expect(catalogued.filter(([k, e]) => !e.simulated && names.has(k)).map(([k]) => k)).toEqual([]);
    // Builtins that look like barrier APIs must be catalogued.
    const barrierish = [...names].filter((n) => /mbarrier|barrier|sync|fence|cp_async|memcpy_async|pipeline/.test(n));
    expect(barrierish.filter((n) => !CUDA_CATALOGUE[n])).toEqual([]);
  });
});
