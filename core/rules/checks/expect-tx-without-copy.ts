// PF311: a phase armed with expect_tx on a path where the copy that would deliver those bytes is skipped.
import type { Expr, Stmt } from '../../ir/types';
import { sameIndex, type KernelFacts, type Site } from '../../analysis/facts';
import { barrierName, exprText, line1 } from '../naming';
import type { RuleDef } from '../types';

const EXPECTS = new Set(['arrive-expect-tx', 'expect-tx']);

/** Reads the CTA's place in its cluster: a peer CTA may then deliver the bytes (multicast). */
const PLACE_IN_GRID = /\b(cluster_ctarank|block_rank_in_cluster|cluster_id_in_cluster|is_leader_cta|leader_cta)\b/;

function readsPlaceInGrid(e: Expr, facts: KernelFacts): boolean {
  return facts.dependsOn(e, (x) => PLACE_IN_GRID.test(x.text) && (x.kind === 'var' || x.kind === 'member' || x.kind === 'call'));
}

function touches(list: Stmt[], base: string): boolean {
  return list.some(
    (s) =>
      (s.kind === 'op' && s.op.barrier?.base === base) ||
      (s.kind === 'if' && (touches(s.then, base) || touches(s.else, base))) ||
      (s.kind === 'loop' && touches(s.body, base)) ||
      s.kind === 'return' ||
      s.kind === 'break' ||
      s.kind === 'continue',
  );
}

/** The branch that holds `copy` but not `arm`, whose other side does nothing about the barrier: the copy's skip path. */
function skippingBranch(copy: Site, arm: Site, facts: KernelFacts): { stmt: Extract<Stmt, { kind: 'if' }>; taken: 'then' | 'else' } | undefined {
  const shared = new Set(arm.ancestors.map((a) => a.stmt));
  for (const a of copy.ancestors) {
    if (shared.has(a.stmt)) continue;
    const s = a.stmt;
    // A loop of copies (one per sub-tile) may run zero times only when its bounds say so: not this rule's business.
    if (s.kind !== 'if') return undefined;
    if (facts.isThreadDependent(s.cond) || readsPlaceInGrid(s.cond, facts) || facts.value(s.cond) !== undefined) return undefined;
    const other = a.branch === 'then' ? s.else : s.then;
    if (touches(other, arm.op.barrier!.base)) return undefined;
    return { stmt: s, taken: a.branch ?? 'then' };
  }
  return undefined;
}

export const expectTxWithoutCopy: RuleDef = {
  meta: {
    id: 'expect-tx-without-copy',
    code: 'PF311',
    family: 'commit',
    defaultSeverity: 'error',
    summary: 'expect_tx arms a phase on a path where the copy that delivers those bytes is skipped.',
    languages: ['cuda', 'tilus'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Pairs each `expect_tx` / `arrive.expect_tx` with the bulk/TMA copies that complete on the same barrier slot in the same iteration. When every such copy sits under a data-dependent branch that the expect_tx is not under (a tail tile, a masked block, a skipped expert) and the other side of the branch does nothing about the barrier, reports the expect_tx. Branches on thread identity (the elected lane) and on the CTA\'s place in the grid or cluster (multicast copies from a peer) are not skips.',
    whyIsThisBad:
      'expect_tx raises the phase\'s tx-count; only the copy\'s complete_tx brings it back to zero. On the path where the copy is skipped the tx-count stays positive, the phase never completes and every waiter hangs; if a later copy does complete on it, the bytes land one phase late.',
    bad: `#include <cuda/ptx>
__global__ void k(const float* src, const int* valid) {
  __shared__ alignas(128) float tile[256];
  __shared__ uint64_t full;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &full, 1024);
    if (valid[blockIdx.x])
      cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, tile, src, 1024, &full);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&full, 0)) {}
}`,
    good: `#include <cuda/ptx>
__global__ void k(const float* src, const int* valid) {
  __shared__ alignas(128) float tile[256];
  __shared__ uint64_t full;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    if (valid[blockIdx.x]) {
      (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &full, 1024);
      cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, tile, src, 1024, &full);
    } else {
      (void)cuda::ptx::mbarrier_arrive(&full);
    }
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&full, 0)) {}
}`,
    references: ['PTX ISA, mbarrier.expect_tx and phase completion (pending arrivals and tx-count both zero)', 'issue 13: transaction accounting on real paths'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const copiesOn = new Map<string, Site[]>();
      for (const s of k.sites) if (s.op.kind === 'bulk-copy' && s.op.barrier) copiesOn.set(s.op.barrier.base, [...(copiesOn.get(s.op.barrier.base) ?? []), s]);
      for (const arm of k.sites) {
        if (!EXPECTS.has(arm.op.kind) || !arm.op.barrier) continue;
        const all = copiesOn.get(arm.op.barrier.base) ?? [];
        if (!all.length || all.some((c) => c.op.remote) || k.escapes(arm.op.barrier.base)) continue;
        // The copies of the same slot in the same iteration: they share the arm's innermost loop.
        const loop = k.innermostLoop(arm);
        const mine = all.filter((c) => k.innermostLoop(c) === loop || (loop && k.loops(c).includes(loop)));
        const slot = mine.filter((c) => sameIndex(c.op.barrier!.index, arm.op.barrier!.index));
        if (!slot.length) continue;
        const skips = slot.map((c) => skippingBranch(c, arm, k));
        if (skips.some((s) => !s)) continue;
        const branch = skips[0]!;
        ctx.report({
          range: arm.op.range,
          message: `expect_tx on \`${barrierName(arm.op)}\` announces ${exprText(arm.op.bytes)}${k.value(arm.op.bytes) !== undefined && arm.op.bytes?.kind !== 'num' ? ` (${k.value(arm.op.bytes)})` : ''} bytes on every path, but the copy that delivers them (line ${slot.map((c) => line1(c.op.range)).join(', ')}) runs only when \`${exprText(branch.stmt.cond)}\` is ${branch.taken === 'then' ? 'true' : 'false'} (line ${line1(branch.stmt.range)}): on the other path the tx-count never returns to zero, so the phase never completes and its waiters hang.`,
          related: [...slot.map((c) => ({ range: c.op.range, message: 'the copy that is skipped' })), { range: branch.stmt.range, message: 'the branch that skips it' }],
        });
      }
    }
  },
};
