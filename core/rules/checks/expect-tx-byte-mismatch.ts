// PF304: constant expect_tx byte counts that differ from the bytes the copies deliver.
import type { Site } from '../../analysis/facts';
import type { RuleDef } from '../types';
import { barrierName, line1 } from '../naming';

export const expectTxByteMismatch: RuleDef = {
  meta: {
    id: 'expect-tx-byte-mismatch',
    code: 'PF304',
    family: 'commit',
    defaultSeverity: 'error',
    summary: 'The bytes announced with expect_tx differ from the bytes the copies on that barrier deliver.',
    languages: ['cuda'],
    fix: 'unsafe',
  },
  docs: {
    whatItDoes: 'Within one block of straight-line code (one loop iteration, one role), adds up the constant byte counts of the bulk copies that complete on a barrier and compares them with the constant `expect_tx` / `arrive.expect_tx` bytes for that barrier.',
    whyIsThisBad: 'The phase completes when the tx-count returns to zero. Announcing more bytes than the copies deliver leaves the phase pending forever (hang); announcing fewer completes it before the last copy lands (data race) and the leftover bytes corrupt the next phase.',
    bad: `#include <cuda/ptx>
__global__ void k(const float* src) {
  __shared__ alignas(128) float tile[512];
  __shared__ uint64_t full;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &full, 4096);
    cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, tile, src, 1024, &full);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&full, 0)) {}
}`,
    good: `#include <cuda/ptx>
__global__ void k(const float* src) {
  __shared__ alignas(128) float tile[512];
  __shared__ uint64_t full;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &full, 2048);
    cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, tile, src, 1024, &full);
    cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, tile + 256, src + 256, 1024, &full);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&full, 0)) {}
}`,
    fixSafety: 'Replacing the announced byte count with the sum of the copies is right only if no other copy (outside this block) completes on the same phase.',
    references: ['mbarrier tutorial, Transaction Tracking (tx-count)', 'PTX ISA, mbarrier.expect_tx'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const byList = new Map<unknown, Site[]>();
      for (const s of k.sites) {
        if (!s.op.barrier || !(completesTx(s) || s.op.kind === 'arrive-expect-tx' || s.op.kind === 'expect-tx')) continue;
        const list = byList.get(s.list) ?? [];
        list.push(s);
        byList.set(s.list, list);
      }
      for (const group of byList.values()) {
        const bases = new Set(group.map((s) => `${s.op.barrier!.base}|${s.op.barrier!.index?.text ?? ''}`));
        for (const b of bases) {
          const sites = group.filter((s) => `${s.op.barrier!.base}|${s.op.barrier!.index?.text ?? ''}` === b);
          const expects = sites.filter((s) => !completesTx(s));
          const copies = sites.filter(completesTx);
          if (expects.length !== 1 || !copies.length) continue;
          // Every copy on this barrier anywhere in the kernel must be in this block and constant.
          const allCopies = k.sites.filter((s) => completesTx(s) && s.op.barrier?.base === expects[0].op.barrier!.base);
          if (allCopies.length !== copies.length) continue;
          const expected = k.value(expects[0].op.bytes);
          const sizes = copies.map((c) => k.value(c.op.bytes));
          if (expected === undefined || sizes.some((v) => v === undefined)) continue;
          const total = (sizes as number[]).reduce((a, v) => a + v, 0);
          if (total === expected) continue;
          const e = expects[0];
          ctx.report({
            range: e.op.range,
            message: `expect_tx announces ${expected} bytes on \`${barrierName(e.op)}\`, but the ${copies.length} copies completing on it here deliver ${total} bytes: ${expected > total ? 'the tx-count never returns to zero and the phase never completes (hang)' : 'the phase completes before the last copy lands (data race) and the surplus bytes corrupt the next phase'}.`,
            related: copies.map((c) => ({ range: c.op.range, message: `copy of ${k.value(c.op.bytes)} bytes (line ${line1(c.op.range)})` })),
            fixes: e.op.bytes && e.op.bytes.kind === 'num' ? [{ title: `Announce ${total} bytes`, edits: [{ range: e.op.bytes.range, newText: String(total) }] }] : [],
          });
        }
      }
    }
  },
};

/** Copies deliver their bytes to the tx-count; `mbarrier.complete_tx` settles bytes from a thread the same way. */
function completesTx(s: Site): boolean {
  return s.op.kind === 'bulk-copy' || s.op.kind === 'complete-tx';
}
