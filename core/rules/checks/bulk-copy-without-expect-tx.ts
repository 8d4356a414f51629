// PF302: TMA/bulk copies completing on a barrier whose phase is armed by a plain arrive.
import type { RuleDef } from '../types';
import { barrierName, line1 } from '../naming';

export const bulkCopyWithoutExpectTx: RuleDef = {
  meta: {
    id: 'bulk-copy-without-expect-tx',
    code: 'PF302',
    family: 'commit',
    defaultSeverity: 'error',
    summary: 'A bulk/TMA copy completes on a barrier whose phase is armed with a plain arrive, not expect_tx.',
    languages: ['cuda', 'tilus'],
    fix: 'none',
  },
  docs: {
    whatItDoes: 'Reports `cp.async.bulk…mbarrier::complete_tx::bytes` copies (PTX, `cuda::ptx::cp_async_bulk*`, TMA wrappers) on a barrier that is only ever arrived on with plain arrives, never with `arrive.expect_tx` / `expect_tx` (or their wrappers).',
    whyIsThisBad: 'The copy reports its bytes as transaction completions. If nobody announced them with expect_tx, the phase completes as soon as the plain arrivals are in, before the data landed: consumers read a half-written tile (data race). When the bytes arrive after the phase flipped, they underflow the next phase\'s tx-count, which is undefined behaviour.',
    bad: `#include <cuda/ptx>
__global__ void k(const float* src) {
  __shared__ alignas(128) float tile[256];
  __shared__ uint64_t full;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, tile, src, 1024, &full);
    (void)cuda::ptx::mbarrier_arrive(&full);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&full, 0)) {}
}`,
    good: `#include <cuda/ptx>
__global__ void k(const float* src) {
  __shared__ alignas(128) float tile[256];
  __shared__ uint64_t full;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, tile, src, 1024, &full);
    (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &full, 1024);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&full, 0)) {}
}`,
    references: ['mbarrier tutorial, The mbarrier (tx-count arrivals)', 'PTX ISA, cp.async.bulk and mbarrier.expect_tx'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const bases = new Set(k.sites.filter((s) => s.op.kind === 'bulk-copy' && s.op.barrier).map((s) => s.op.barrier!.base));
      for (const base of bases) {
        if (k.escapes(base)) continue;
        const ops = k.opsOn(base);
        if (ops.some((s) => s.op.kind === 'arrive-expect-tx' || s.op.kind === 'expect-tx')) continue;
        const plain = ops.find((s) => s.op.kind === 'arrive');
        if (!plain) continue;
        const copy = ops.find((s) => s.op.kind === 'bulk-copy')!;
        ctx.report({
          range: copy.op.range,
          message: `This bulk copy completes its bytes on \`${barrierName(copy.op)}\`, but that barrier's phases are armed only by plain arrives (line ${line1(plain.op.range)}), never by arrive.expect_tx/expect_tx: the phase completes before the data lands (data race) and the late bytes underflow the next phase's tx-count.`,
          related: [{ range: plain.op.range, message: 'plain arrive: use arrive.expect_tx with the copy size' }],
        });
      }
    }
  },
};
