// PF313: a bulk/TMA store issued by every lane of a warp whose bulk-group wait only some lanes run.
import type { BarrierOp } from '../../ir/types';
import { analysedBlockSizes, blockSizeKnown, type Site } from '../../analysis/facts';
import { describeThreads } from '../../analysis/barrier-protocol';
import { line1 } from '../naming';
import { branchesOf, threadsOnPath } from '../roles';
import type { RuleDef } from '../types';
import { ProgramOrder } from '../tmem-order';

export const bulkStoreNotWaited: RuleDef = {
  meta: {
    id: 'bulk-store-not-waited',
    code: 'PF313',
    family: 'commit',
    defaultSeverity: 'warning',
    summary: 'Threads issue a bulk/TMA store but never wait for its bulk group, while other threads of the same warp do.',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'For each bulk or TMA store from shared to global memory (`cp.async.bulk[.tensor].global.shared::cta`, `cuda::ptx::cp_async_bulk(space_global, ...)`, wrappers that inline to them), evaluates the thread-identity branches around it and around the bulk-group waits after it (`cp.async.bulk.wait_group[.read] N`, CuTe `tma_store_wait<N>()`) for every thread of the block, and reports a store that lanes issue while only other lanes of their warp ever wait: typically the store sits outside the `if (lane == 0)` or `elect_one_sync()` that guards the wait. It needs the block size from the source ([launch shapes](../launch-shapes.md)) or, when none is given, branches that fold for every thread of the largest block; data-dependent branches keep it silent, and so does a kernel with no bulk-group wait at all.',
    whyIsThisBad:
      "A bulk async-group belongs to the thread that committed it, and `cp.async.bulk.wait_group` waits only for the calling thread's own groups. Lanes that issue the store but never wait leave it reading the shared-memory source after the warp has moved on: when that buffer is refilled (the next TMA load, the next tile's results), the store can copy the new contents to the old destination (a race between the refill and the async proxy's reads). Every lane also writes the same bytes, so the store is issued 32 times instead of once. It usually works in tests and corrupts data under load.",
    bad: `#include <cstdint>
__global__ void __launch_bounds__(32) k(float* out) {
  __shared__ alignas(128) float tile[256];
  for (int i = threadIdx.x; i < 256; i += 32) tile[i] = i;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncwarp();
  uint32_t src = (uint32_t)__cvta_generic_to_shared(tile);
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;" :: "l"(out), "r"(src) : "memory");
  asm volatile("cp.async.bulk.commit_group;");
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  __syncwarp();
}`,
    good: `#include <cstdint>
__global__ void __launch_bounds__(32) k(float* out) {
  __shared__ alignas(128) float tile[256];
  for (int i = threadIdx.x; i < 256; i += 32) tile[i] = i;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncwarp();
  if (threadIdx.x == 0) {
    uint32_t src = (uint32_t)__cvta_generic_to_shared(tile);
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;" :: "l"(out), "r"(src) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
  __syncwarp();
}`,
    references: ['PTX ISA, cp.async.bulk.commit_group / cp.async.bulk.wait_group (per-thread bulk async-groups)', 'DeepEP #399 (scale TMA store issued by every lane of the warp)'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const stores = k.sites.filter((s) => s.op.kind === 'bulk-store');
      if (!stores.length || !k.sites.some((s) => s.op.kind === 'bulk-wait')) continue;
      const siteOf = new Map<BarrierOp, Site>(k.sites.map((s) => [s.op, s]));
      const order = new ProgramOrder(k.kernel);
      const sizes = analysedBlockSizes(k.kernel).sizes;
      for (const { op: store, stmt: at } of stores) {
        const later = new Set<BarrierOp>();
        for (const s of order.after(at)) if (s.kind === 'op' && s.op.kind === 'bulk-wait' && siteOf.has(s.op)) later.add(s.op);
        if (!later.size) continue;
        // With the block size unknown, the finding must hold at every candidate size.
        const known = blockSizeKnown(k.kernel);
        let found: { stray: number[]; waiting: number[]; wait: BarrierOp } | undefined;
        for (const blockSize of sizes) {
          const issuing = threadsOnPath(k, branchesOf(siteOf.get(store)!), blockSize);
          const waiting = new Set<number>();
          let unknown = !issuing?.length;
          for (const w of later) {
            const t = unknown ? undefined : threadsOnPath(k, branchesOf(siteOf.get(w)!), blockSize);
            if (!t) unknown = true;
            else t.forEach((x) => waiting.add(x));
          }
          // Only lanes whose own warp has a waiting lane: a role that never waits at all is another question.
          const stray = unknown ? [] : issuing!.filter((t) => !waiting.has(t) && [...waiting].some((w) => w >> 5 === t >> 5));
          if (!stray.length) {
            if (known) continue;
            found = undefined;
            break;
          }
          found = { stray, waiting: [...waiting].filter((w) => stray.some((t) => w >> 5 === t >> 5)), wait: [...later][0] };
          if (known) break;
        }
        if (!found) continue;
        const { stray, waiting, wait } = found;
        ctx.report({
          range: store.range,
          message: `${describeThreads(stray)} issue this bulk store but never wait for its bulk group: the bulk-group wait after it (line ${line1(wait.range)}) is run only by ${describeThreads(waiting)}, and cp.async.bulk.wait_group waits for the calling thread's own groups. Their stores may still be reading the shared-memory source when it is refilled, copying new data to the old destination; each lane also stores the same bytes again. Issue the store from the lane that waits (inside its \`if\`/elect_one_sync).`,
          related: [{ range: wait.range, message: 'the bulk-group wait only some lanes run' }],
        });
      }
    }
  },
};
