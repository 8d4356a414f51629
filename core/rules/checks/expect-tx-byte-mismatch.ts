// PF304: constant expect_tx byte counts that differ from the bytes the copies deliver.
import type { KernelFacts, Site } from '../../analysis/facts';
import type { RuleDef } from '../types';
import { barrierName, line1 } from '../naming';

export const expectTxByteMismatch: RuleDef = {
  meta: {
    id: 'expect-tx-byte-mismatch',
    code: 'PF304',
    family: 'commit',
    defaultSeverity: 'error',
    summary: 'The bytes announced with expect_tx differ from the bytes the copies on that barrier deliver.',
    languages: ['cuda', 'tilus'],
    fix: 'unsafe',
  },
  docs: {
    whatItDoes: 'Within one block of straight-line code (one loop iteration, one role), adds up the constant byte counts of the bulk copies that complete on a barrier and compares them with the constant `expect_tx` / `arrive.expect_tx` bytes for that barrier. A multicast copy (`.multicast::cluster`) that every CTA of the cluster issues to all of them (a full CTA mask, cluster size from `__cluster_dims__` or the launch) lands once from each CTA, so each CTA receives its size times the cluster size; a multicast copy with an unknown mask or cluster, or one only some CTAs issue, leaves the barrier alone.',
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
          const sizes = copies.map((c) => deliveredBytes(c, k));
          if (expected === undefined || sizes.some((v) => v === undefined)) continue;
          const total = (sizes as number[]).reduce((a, v) => a + v, 0);
          if (total === expected) continue;
          const e = expects[0];
          ctx.report({
            range: e.op.range,
            message: `expect_tx announces ${expected} bytes on \`${barrierName(e.op)}\`, but the ${copies.length} copies completing on it here deliver ${total} bytes${multicastNote(copies, k)}: ${expected > total ? 'the tx-count never returns to zero and the phase never completes (hang)' : 'the phase completes before the last copy lands (data race) and the surplus bytes corrupt the next phase'}.`,
            related: copies.map((c) => ({ range: c.op.range, message: `copy of ${k.value(c.op.bytes)} bytes${c.op.remote ? `, multicast: ${deliveredBytes(c, k)} bytes reach each CTA` : ''} (line ${line1(c.op.range)})` })),
            // tilus folds trace-time expressions (`sa[s].nbytes`) into numbers: only a literal is rewritten there.
            fixes: e.op.bytes && e.op.bytes.kind === 'num' && (ctx.module.language !== 'tilus' || e.op.bytes.text.trim() === String(expected)) ? [{ title: `Announce ${total} bytes`, edits: [{ range: e.op.bytes.range, newText: String(total) }] }] : [],
          });
        }
      }
    }
  },
};

/** The CTAs of the kernel's cluster (from `__cluster_dims__` or the launch), when known. */
function clusterSize(k: KernelFacts): number | undefined {
  const c = k.kernel.launchShape?.cluster;
  return c ? c[0] * c[1] * c[2] : undefined;
}

/**
 * The bytes one copy brings to each receiving CTA's barrier. A plain copy brings its size. A multicast copy that
 * every CTA of the cluster issues (no branch on the CTA's place in the grid around it) to every CTA (a full mask)
 * lands once from each of them: size x cluster size. Anything else (a partial mask, a copy only some CTAs issue,
 * an unknown mask or cluster) is not known.
 */
function deliveredBytes(c: Site, k: KernelFacts): number | undefined {
  const bytes = k.value(c.op.bytes);
  if (bytes === undefined || !c.op.remote) return bytes;
  const n = clusterSize(k);
  const mask = c.op.ctaMask ? k.value(c.op.ctaMask) : undefined;
  if (n === undefined || n > 16 || mask === undefined) return undefined;
  const all = (1 << n) - 1;
  if ((mask & all) !== all) return undefined;
  const perCta = c.ancestors.some((a) => a.stmt.kind === 'if' && !k.isThreadDependent(a.stmt.cond));
  return perCta ? undefined : bytes * n;
}

function multicastNote(copies: Site[], k: KernelFacts): string {
  const n = clusterSize(k);
  return copies.some((c) => c.op.remote) ? ` (each of the ${n} CTAs of the cluster multicasts its copy to all of them, so every CTA receives each copy ${n} times)` : '';
}

/** Copies deliver their bytes to the tx-count; `mbarrier.complete_tx` settles bytes from a thread the same way. */
function completesTx(s: Site): boolean {
  return s.op.kind === 'bulk-copy' || s.op.kind === 'complete-tx';
}
