// The catalogue's hand-written models of library barrier calls (CUTLASS ClusterBarrier & co., CuTe's barrier
// functions, ThunderKittens' semaphores, the CUTLASS fences) checked against the libraries' own headers: each
// call is lowered twice in a kernel of its own, once through the model and once through its definition in the
// real header (`--no-library-models`), and the two IRs must agree. Where the header defeats the analysis or the
// model deliberately differs, the difference is listed below with the reason, and must still be exactly that.
// Needs PHASEFLIP_CORPUS (checkouts of cutlass/ and ThunderKittens/); says why it skipped otherwise.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEngine } from '../../core/index';
import { Project } from '../../core/project/project';

const corpus = process.env.PHASEFLIP_CORPUS ? path.resolve(process.env.PHASEFLIP_CORPUS) : undefined;

interface Library {
  name: string;
  /** The checkout under PHASEFLIP_CORPUS and its include directories, relative to it. */
  repo: string;
  includeDirs: string[];
  defines?: string[];
  cudaArch: number;
  prelude: string;
  /**
   * Per model: the declarations a call needs and the call itself, one kernel each. `header` is the call the
   * header mode lowers instead, where the model's method only forwards to a static overload the header defines
   * (CUTLASS's `bar.arrive()` is `ClusterBarrier::arrive(&this->barrier_)`): the header's own asm is then
   * what the model is compared with, on the barrier word `word` (renamed `bar` for the comparison).
   */
  calls: { model: string; setup: string; call: string; header?: string }[];
}

const CUTLASS_SETUP = '__shared__ cutlass::arch::ClusterTransactionBarrier bar; __shared__ uint64_t raw; __shared__ uint64_t word;';
const LIBRARIES: Library[] = [
  {
    name: 'CUTLASS/CuTe',
    repo: 'cutlass',
    includeDirs: ['include'],
    cudaArch: 1000,
    prelude: '#include <cutlass/arch/barrier.h>\n#include <cute/arch/copy_sm90_desc.hpp>\n#include <cute/arch/cluster_sm90.hpp>',
    calls: [
      { model: 'ClusterBarrier.init', setup: CUTLASS_SETUP, call: 'bar.init(2);', header: 'cutlass::arch::ClusterBarrier::init(&word, 2);' },
      { model: 'ClusterBarrier.arrive', setup: CUTLASS_SETUP, call: 'bar.arrive();', header: 'cutlass::arch::ClusterBarrier::arrive(&word);' },
      { model: 'ClusterBarrier.arrive (remote)', setup: CUTLASS_SETUP, call: 'bar.arrive(1u, threadIdx.x == 0);', header: 'cutlass::arch::ClusterBarrier::arrive(&word, 1u, threadIdx.x == 0);' },
      { model: 'ClusterBarrier.wait', setup: CUTLASS_SETUP, call: 'bar.wait(0);', header: 'cutlass::arch::ClusterBarrier::wait(&word, 0);' },
      { model: 'ClusterBarrier.invalidate', setup: CUTLASS_SETUP, call: 'bar.invalidate();', header: 'cutlass::arch::ClusterBarrier::invalidate(&word);' },
      { model: 'ClusterTransactionBarrier.arrive_and_expect_tx', setup: CUTLASS_SETUP, call: 'bar.arrive_and_expect_tx(1024);', header: 'cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&word, 1024);' },
      { model: 'ClusterTransactionBarrier.expect_transaction', setup: CUTLASS_SETUP, call: 'bar.expect_transaction(1024);', header: 'cutlass::arch::ClusterTransactionBarrier::expect_transaction(&word, 1024);' },
      { model: 'ClusterTransactionBarrier.complete_transaction', setup: CUTLASS_SETUP, call: 'bar.complete_transaction(1024);', header: 'cutlass::arch::ClusterTransactionBarrier::complete_transaction(&word, cute::block_rank_in_cluster(), 1024u, 1u);' },
      { model: 'ClusterTransactionBarrier.complete_transaction (remote, gated)', setup: CUTLASS_SETUP, call: 'bar.complete_transaction(1u, 1024u, threadIdx.x == 0);', header: 'cutlass::arch::ClusterTransactionBarrier::complete_transaction(&word, 1u, 1024u, threadIdx.x == 0);' },
      { model: 'NamedBarrier::sync', setup: '', call: 'cutlass::arch::NamedBarrier::sync(128, 1);' },
      { model: 'NamedBarrier::arrive', setup: '', call: 'cutlass::arch::NamedBarrier::arrive(128, 1);' },
      { model: 'cute::initialize_barrier', setup: CUTLASS_SETUP, call: 'cute::initialize_barrier(raw, 2);' },
      { model: 'cute::set_barrier_transaction_bytes', setup: CUTLASS_SETUP, call: 'cute::set_barrier_transaction_bytes(raw, 512);' },
      { model: 'cute::wait_barrier', setup: CUTLASS_SETUP, call: 'cute::wait_barrier(raw, 1);' },
      { model: 'cutlass::arch::fence_barrier_init', setup: '', call: 'cutlass::arch::fence_barrier_init();' },
      { model: 'cutlass::arch::fence_view_async_shared', setup: '', call: 'cutlass::arch::fence_view_async_shared();' },
      { model: 'cutlass::arch::umma_arrive', setup: CUTLASS_SETUP, call: 'cutlass::arch::umma_arrive(&raw);' },
      { model: 'cutlass::arch::umma_arrive_multicast', setup: CUTLASS_SETUP, call: 'cutlass::arch::umma_arrive_multicast(&raw, 3);' },
      { model: 'cute::cluster_sync', setup: '', call: 'cute::cluster_sync();' },
      { model: 'cute::cluster_arrive_relaxed', setup: '', call: 'cute::cluster_arrive_relaxed();' },
      { model: 'cute::cluster_wait', setup: '', call: 'cute::cluster_wait();' },
    ],
  },
  {
    name: 'ThunderKittens',
    repo: 'ThunderKittens',
    includeDirs: ['include'],
    defines: ['KITTENS_HOPPER'],
    cudaArch: 900,
    prelude: '#include "kittens.cuh"\nusing namespace kittens;',
    calls: [
      { model: 'kittens::init_semaphore', setup: '__shared__ semaphore bar;', call: 'init_semaphore(bar, 1, 0);' },
      { model: 'kittens::arrive', setup: '__shared__ semaphore bar;', call: 'arrive(bar);' },
      { model: 'kittens::arrive (count)', setup: '__shared__ semaphore bar;', call: 'arrive(bar, 2);' },
      { model: 'kittens::wait', setup: '__shared__ semaphore bar;', call: 'wait(bar, 0);' },
      { model: 'kittens::tma::expect_bytes', setup: '__shared__ semaphore bar;', call: 'tma::expect_bytes(bar, 4096);' },
      { model: 'kittens::warp::arrive', setup: '__shared__ semaphore bar;', call: 'warp::arrive(bar);' },
      { model: 'kittens::warpgroup::arrive', setup: '__shared__ semaphore bar;', call: 'warpgroup::arrive(bar);' },
      { model: 'kittens::warpgroup::tma::expect_bytes', setup: '__shared__ semaphore bar;', call: 'warpgroup::tma::expect_bytes(bar, 4096);' },
    ],
  },
];

/**
 * Where model and header disagree on purpose or the header defeats the analysis, by model name: why, and the
 * two IRs (model first) as they are today, so a change on either side shows up here.
 */
const TK_GROUP_SCOPE =
  "the header's group<N>::arrive/expect_bytes runs on lane 0 of each warp (`if (laneid() == 0)`), as the model says; the header mode reaches the thread-scope kittens:: function instead, because `warp`/`warpgroup` are namespace-scope aliases of the class group<N> and qualified calls do not follow class aliases yet";
const KNOWN_DIFFERENCES: Record<string, string> = {
  'kittens::warp::arrive': TK_GROUP_SCOPE,
  'kittens::warpgroup::arrive': TK_GROUP_SCOPE,
  'kittens::warpgroup::tma::expect_bytes': TK_GROUP_SCOPE,
  'ClusterTransactionBarrier.complete_transaction':
    "the header addresses the barrier through .shared::cluster after set_block_rank to the CTA's own rank, which the IR marks remote; in effect the decrement is local, as the model says",
  'ClusterTransactionBarrier.complete_transaction (remote, gated)':
    'the header gates the instruction inside the asm (`setp` from pred, then `@p mbarrier.complete_tx`), which the asm reader does not turn into a branch; the model gates it on `pred`',
};

/** The kernel's operations and their structure, without the bookkeeping lines, the source lines and the API names. */
function normalise(ir: string): string[] {
  return ir
    .split('\n')
    .slice(1)
    .filter((l) => l.trim() && !/ call\?$| call-arg$|^\s*let |^\s*[\w.]+#\d+ = /.test(l))
    .map((l) => l.replace(/\s+@\d+ via .*$/, '').replace(/\s+$/, '').replace(/\((\d+)([+*])(\d+)\)/g, (_, a: string, op: string, b: string) => String(op === '+' ? +a + +b : +a * +b)));
}

describe.skipIf(!corpus)('library models agree with the real headers', () => {
  for (const lib of LIBRARIES) {
    const root = corpus ? path.join(corpus, lib.repo) : '';
    const present = !!corpus && existsSync(root);
    if (corpus && !present) console.log(`library-models: ${lib.name} skipped: no ${lib.repo}/ under ${corpus}`);
    it.skipIf(!present)(`${lib.name}: each modelled call lowers as its header definition does`, async () => {
      const flags = { includeDirs: lib.includeDirs.map((d) => path.join(root, d)), defines: lib.defines, cudaArch: lib.cudaArch };
      const modelled = await loadEngine({ project: new Project({ explicit: flags }) });
      const fromHeaders = await loadEngine({ project: new Project({ explicit: { ...flags, noLibraryModels: true } }) });
      const file = path.join(root, '__phaseflip_models__.cu');
      const rows: string[] = [];
      const problems: string[] = [];
      for (const c of lib.calls) {
        const kernel = (call: string): string => `${lib.prelude}\n__global__ void __launch_bounds__(128) k() {\n  ${c.setup}\n  ${call}\n}\n`;
        const viaModel = normalise(modelled.openDocument('cuda', kernel(c.call), file).irText());
        const viaHeader = normalise(fromHeaders.openDocument('cuda', kernel(c.header ?? c.call), file).irText()).map((l) => (c.header ? l.replace(/\bbar=word\b/, 'bar=bar') : l));
        const known = KNOWN_DIFFERENCES[c.model];
        const agree = JSON.stringify(viaModel) === JSON.stringify(viaHeader);
        rows.push(`${agree ? 'agree ' : known ? 'known ' : 'DIFFER'} ${c.model}\n    model:  ${viaModel.join(' | ')}\n    header: ${viaHeader.join(' | ')}`);
        // The model lowers to at least one operation: a call it silently drops is not a model.
        if (!viaModel.length) problems.push(`${c.model}: the model gives no operation`);
        if (!known && !agree) problems.push(`${c.model}: the model differs from the header`);
        if (known && agree) problems.push(`${c.model} is listed as differing (${known}) but now agrees: take it off the list`);
      }
      console.log(`library-models: ${lib.name}\n${rows.join('\n')}`);
      expect(problems).toEqual([]);
    }, 120_000);
  }
});

if (!corpus) console.log('library-models test skipped: set PHASEFLIP_CORPUS to a folder holding cutlass/ and ThunderKittens/ checkouts (see test/corpus/README.md)');
