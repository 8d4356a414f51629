// PF314: ordinary stores to a shared-memory buffer that a bulk/TMA store then reads, with no fence.proxy.async between.
import type { Stmt } from '../../ir/types';
import type { RuleDef } from '../types';
import { line1 } from '../naming';
import { opStatements, ProgramOrder } from '../tmem-order';

type AccessStmt = Extract<Stmt, { kind: 'access' }>;
type OpStmt = Extract<Stmt, { kind: 'op' }>;

export const smemWriteBeforeBulkStore: RuleDef = {
  meta: {
    id: 'smem-write-before-bulk-store',
    code: 'PF314',
    family: 'commit',
    defaultSeverity: 'warning',
    summary: 'A bulk/TMA store reads shared memory written with ordinary stores, with no fence.proxy.async in between.',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Finds each shared-to-global bulk or TMA store (`cp.async.bulk.global.shared::cta`, `cp.async.bulk.tensor.Nd.global.shared::cta`, `cuda::ptx::cp_async_bulk(space_global, space_shared, …)`, `cp_async_bulk_tensor_Nd_shared_to_global`, and library wrappers whose bodies hold that PTX) whose shared-memory source is a buffer the front end can name, then walks back from the store along what the storing thread executes before it (through the syncs that hand the buffer over, and into the branches before it). When the nearest thing on that walk is an ordinary store into the same buffer (`tile[i] = v`, `*reinterpret_cast<T*>(buf + off) = v`) and no `fence.proxy.async` (`cutlass::arch::fence_view_async_shared()`, `cute::tma_store_fence()`, `fence_proxy_async_shared_cta()`, or the PTX) was met, it reports the store. A fence anywhere on the walk, in any branch, silences it; so do stores whose source the front end cannot resolve to a buffer, and writes that provably lie outside the bytes the store reads.',
    whyIsThisBad:
      'The bulk store reads shared memory through the async proxy, which does not see writes made through the generic proxy (ordinary `st.shared`) unless a `fence.proxy.async` orders them: `__syncthreads()` or an mbarrier orders the threads but not the two proxies. The TMA unit may then copy stale shared memory to global memory: wrong values in the output, intermittently, with no hang and no error.',
    bad: `#include <cstdint>
__global__ void k(float* out) {
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x] = threadIdx.x * 2.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t src = (uint32_t)__cvta_generic_to_shared(&tile[0]);
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;" :: "l"(out), "r"(src) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}`,
    good: `#include <cstdint>
__global__ void k(float* out) {
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x] = threadIdx.x * 2.0f;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t src = (uint32_t)__cvta_generic_to_shared(&tile[0]);
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;" :: "l"(out), "r"(src) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}`,
    references: [
      'PTX ISA, Memory Consistency Model: proxies; fence.proxy.async',
      'CUDA C++ Programming Guide, TMA: "Wait for shared memory writes to be visible to TMA engine" (fence_proxy_async_shared_cta before the store)',
      'CUTLASS epilogues: cute::tma_store_fence() before the barrier that precedes SM90_TMA_STORE',
    ],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const stores = opStatements(k.kernel).filter((s) => s.op.kind === 'bulk-store' && s.op.src);
      if (!stores.length) continue;
      const order = new ProgramOrder(k.kernel, (e) => k.value(e));
      for (const store of stores) {
        const src = store.op.src!;
        const write = unfencedWriteBefore(order, store, src.base, (w) => outsideSource(w, k.value(src.offset), k.value(store.op.bytes)));
        if (!write) continue;
        const handoff = write.syncs.length ? ` after the sync at line ${[...new Set(write.syncs.map((s) => line1(s.range)))].join(', ')}` : '';
        ctx.report({
          range: store.op.range,
          message: `This bulk store reads \`${src.base}\` through the async proxy${handoff}, but the ordinary store into \`${src.base}\` at line ${line1(write.access.range)} is not followed by a fence.proxy.async before it: the sync orders the threads, not the proxies, so the copy may send stale shared memory to global memory (wrong values, no error). Issue \`fence.proxy.async.shared::cta\` (cutlass::arch::fence_view_async_shared(), cute::tma_store_fence()) after the writes and before the sync.`,
          related: [
            { range: write.access.range, message: 'ordinary (generic-proxy) store into the buffer the bulk store reads' },
            ...write.syncs.map((s) => ({ range: s.range, message: 'orders the threads but not the proxies' })),
          ],
        });
      }
    }
  },
};

/**
 * The nearest ordinary store into `base` on the walk back from `store`, when no proxy fence comes first, with the
 * syncs and blocking waits passed on the way (what hands the buffer over); undefined when a fence comes first.
 */
function unfencedWriteBefore(
  order: ProgramOrder,
  store: OpStmt,
  base: string,
  outside: (w: AccessStmt) => boolean,
): { access: AccessStmt; syncs: Stmt[] } | undefined {
  const syncs: Stmt[] = [];
  for (const s of order.before(store)) {
    if (s.kind === 'op' && s.op.kind === 'fence-proxy-async') return undefined;
    if (s.kind === 'sync' || (s.kind === 'op' && (s.op.kind === 'wait-parity' || s.op.kind === 'wait-token') && s.op.result === 'blocking')) syncs.unshift(s);
    if (s.kind === 'access' && s.write && (s.address ? s.address.base === base : s.array === base) && !outside(s)) return { access: s, syncs };
  }
  return undefined;
}

/** A pointer store at a constant byte offset that lies outside the constant byte range the bulk store reads. */
function outsideSource(w: AccessStmt, srcOffset: number | undefined, bytes: number | undefined): boolean {
  if (!w.address || srcOffset === undefined || bytes === undefined) return false;
  const at = w.address.offset.kind === 'num' ? w.address.offset.value : undefined;
  return at !== undefined && (at < srcOffset || at >= srcOffset + bytes);
}
