// PF202: barrier initialisation not made visible before other threads (or other CTAs) use it.
import type { BarrierOp } from '../../ir/types';
import type { Site } from '../../analysis/facts';
import type { RuleDef } from '../types';
import { barrierName, line1 } from '../naming';
import { enclosingRoleIf } from '../roles';
import { insertLineAfter } from '../fix-edits';

export const initNotVisible: RuleDef = {
  meta: {
    id: 'init-not-visible',
    code: 'PF202',
    family: 'bootstrap',
    defaultSeverity: 'error',
    summary: 'A barrier is used by other threads before its initialisation is made visible to them.',
    languages: ['cuda'],
    fix: 'safe',
  },
  docs: {
    whatItDoes:
      'Replays the kernel per thread and checks that every thread other than the initialising one reaches a block-wide sync (`__syncthreads`, `block.sync()`, `bar.sync 0`, a cluster sync) after the init and before its first arrive or wait. For barriers used across the cluster (remote arrives, multicast copies, `.shared::cluster` operands) it also requires `fence.mbarrier_init` by the initialising thread followed by a cluster sync. The replay runs at the kernel\'s block size, read from the translation unit ([launch shapes](../launch-shapes.md)); when nothing gives it, a finding that does not hold at every plausible size is reported as an information note instead. A library class read alone (a pipeline header) is checked as a whole: when a member initialises barriers (through its helpers\' inline PTX) that another member arrives on from another CTA (`.shared::cluster` after `mapa`), some initialising member must issue `fence.mbarrier_init.release.cluster` (or `fence.proxy.async`): the relaxed cluster arrive that callers use after construction does not release the init. A class whose calls cannot be resolved to a remote arrive stays silent. A barrier of one CTA that a bulk/TMA copy completes needs no fence when the initialising thread issues the copy itself (its own program order); when other threads issue it, the initialising thread must fence the init (`fence.mbarrier_init.release.cluster` or `fence.proxy.async`) before the sync that hands it over, since the copy\'s complete_tx comes from the async proxy, which the sync does not order.',
    whyIsThisBad: 'Without the sync, another thread can arrive on or wait for a barrier whose memory still holds garbage: the arrival is lost or the wait reads a random phase. The kernel then hangs or passes a wait early, depending on timing; it often works in tests.',
    bad: `#include <cuda/ptx>
__global__ void k() {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, blockDim.x);
  (void)cuda::ptx::mbarrier_arrive(&bar);
  while (!cuda::ptx::mbarrier_try_wait_parity(&bar, 0)) {}
}`,
    good: `#include <cuda/ptx>
__global__ void k() {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, blockDim.x);
  __syncthreads();
  (void)cuda::ptx::mbarrier_arrive(&bar);
  while (!cuda::ptx::mbarrier_try_wait_parity(&bar, 0)) {}
}`,
    fixSafety: 'Adding `__syncthreads()` after the initialising block is safe when every thread of the block reaches that point (no thread returned earlier).',
    references: ['CUDA C++ Programming Guide, 4.9.1 Initialization', 'CUDA C++ Programming Guide, TMA: "make initialized barrier visible in async proxy"', 'PTX ISA, fence.mbarrier_init; fence.proxy.async'],
  },
  check(ctx) {
    // A library class read alone: a member initialises barriers that another member arrives on from another CTA,
    // and nothing in the class fences the initialisation (the caller's cluster sync may be the relaxed one, which
    // does not release it).
    for (const c of ctx.module.classBarrierInits ?? []) {
      ctx.report({
        range: c.init,
        message: `\`${c.className}\` initialises its barriers here and never fences the initialisation, but \`${c.useName}\` (line ${line1(c.use)}) arrives on them from other CTAs of the cluster: a peer may observe the barrier before its initialisation (a lost arrival, a hang or an arrival on garbage), since a relaxed cluster arrive after construction does not release the init. Issue \`fence.mbarrier_init.release.cluster\` (cutlass::arch::fence_barrier_init()) after the init.`,
        related: [{ range: c.use, message: 'arrives on these barriers from another CTA' }],
      });
    }
    for (const k of ctx.kernels) {
      const runs = k.runs();
      if (!runs) continue;
      const siteOf = new Map<BarrierOp, Site>(k.sites.map((s) => [s.op, s]));
      // Block-level visibility: first use by a non-initialising thread at a sync count <= init's.
      // Async-proxy visibility: a TMA copy issued by another thread completes its bytes on the barrier from the
      // async proxy, which a block sync does not order after the generic-proxy init; the initialising thread
      // must fence the init (fence.mbarrier_init or fence.proxy.async) before the sync that hands it over.
      let bad: Map<BarrierOp, BarrierOp> | undefined;
      let unfenced: Map<BarrierOp, BarrierOp> | undefined;
      const keepCommon = (all: Map<BarrierOp, BarrierOp> | undefined, here: Map<BarrierOp, BarrierOp>): Map<BarrierOp, BarrierOp> => {
        if (all) for (const op of [...all.keys()]) if (!here.has(op)) all.delete(op);
        return all ?? here;
      };
      for (const run of runs) {
        const here = new Map<BarrierOp, BarrierOp>();
        const unfencedHere = new Map<BarrierOp, BarrierOp>();
        const initAt = new Map<string, { syncs: number; threads: Set<number>; op: BarrierOp }>();
        // Barriers some initialising thread reaches a sync (or the end) for without fencing its init first.
        const notFenced = new Set<string>();
        for (const a of run.actors) {
          let syncs = 0;
          let pending = new Set<string>();
          for (const e of a.events) {
            if (e.kind === 'sync') {
              syncs++;
              pending.forEach((key) => notFenced.add(key));
              pending = new Set();
            } else if (e.kind === 'fence-init' || e.kind === 'fence-proxy') pending = new Set();
            if (e.kind === 'init') pending.add(e.key);
            if (e.kind === 'init' && !initAt.has(e.key)) initAt.set(e.key, { syncs, threads: new Set(a.threads), op: e.op });
            else if (e.kind === 'init') {
              const cur = initAt.get(e.key)!;
              if (cur.op === e.op) a.threads.forEach((t) => cur.threads.add(t));
            }
          }
          pending.forEach((key) => notFenced.add(key));
        }
        for (const a of run.actors) {
          let syncs = 0;
          const seen = new Set<string>();
          for (const e of a.events) {
            if (e.kind === 'sync') syncs++;
            if (e.kind !== 'arrive' && e.kind !== 'wait' && e.kind !== 'use') continue;
            const init = initAt.get(e.key);
            if (!init || a.threads.every((t) => init.threads.has(t)) || run.uncertain.has(e.key)) continue;
            if (e.kind === 'use' && e.op.kind === 'bulk-copy' && notFenced.has(e.key) && !unfencedHere.has(init.op)) unfencedHere.set(init.op, e.op);
            if (seen.has(e.key)) continue;
            seen.add(e.key);
            if (syncs <= init.syncs && !here.has(e.op)) here.set(e.op, init.op);
          }
        }
        bad = keepCommon(bad, here);
        unfenced = keepCommon(unfenced, unfencedHere);
      }
      const reportedInits = new Set<BarrierOp>();
      for (const [use, init] of bad ?? []) {
        if (reportedInits.has(init)) continue;
        reportedInits.add(init);
        const initSite = siteOf.get(init);
        const role = initSite ? enclosingRoleIf(k, initSite) : undefined;
        const fixes = role?.lines ? [{ title: 'Insert __syncthreads() after the initialisation', preferred: true, edits: [insertLineAfter(role.lines, '__syncthreads();')] }] : [];
        ctx.report({
          range: init.range,
          message: `This initialisation of \`${barrierName(init)}\` is not made visible before other threads use it (line ${line1(use.range)}): with no block-wide sync in between they may arrive on or wait for uninitialised memory (lost arrivals, hangs or early returns). Put a __syncthreads() between the init and the first use.`,
          related: [{ range: use.range, message: 'first use by a thread that did not synchronise with the init' }],
          fixes,
        });
      }
      for (const [init, copy] of unfenced ?? []) {
        if (reportedInits.has(init)) continue;
        ctx.report({
          range: init.range,
          message: `\`${barrierName(init)}\` is completed by a bulk/TMA copy that other threads issue (line ${line1(copy.range)}), but the thread that initialises it here issues no fence.mbarrier_init or fence.proxy.async after the init: the block sync makes the init visible to the other threads, not to the async proxy, so the copy's complete_tx may reach the barrier before its initialisation (lost bytes: a hang, or a phase completing early). Issue \`fence.mbarrier_init.release.cluster\` (cutlass::arch::fence_barrier_init()) or \`fence.proxy.async.shared::cta\` after the init, before the sync.`,
          related: [{ range: copy.range, message: 'a copy issued by another thread completes on this barrier' }],
        });
      }
      // Cluster-level visibility: remote users need fence.mbarrier_init + a cluster sync.
      for (const s of k.sites) {
        if (s.op.kind !== 'init' || !s.op.barrier) continue;
        const base = s.op.barrier.base;
        const remote = k.sites.find((u) => u.op.barrier?.base === base && u.op.remote);
        if (!remote) continue;
        // The cluster arrive(release)/wait(acquire) is what publishes the init; real kernels (CuTe's
        // own tutorials) rely on it without fence.mbarrier_init, so only its absence is reported.
        if (hasClusterSyncBetween(k.kernel.body, s.op, remote.op)) continue;
        ctx.report({
          range: s.op.range,
          message: `\`${barrierName(s.op)}\` is used by other CTAs of the cluster (line ${line1(remote.op.range)}), but no cluster-wide sync follows its initialisation: remote arrivals may reach it before it is initialised (lost arrivals, hang or launch failure). Issue fence.mbarrier_init after the init, then a cluster arrive/wait (cute::cluster_sync()).`,
          related: [{ range: remote.op.range, message: 'remote use of this barrier' }],
        });
      }
    }
  },
};

/** Is there a cluster-wide sync after `from` and before `to` in program order? */
function hasClusterSyncBetween(body: import('../../ir/types').Stmt[], from: BarrierOp, to: BarrierOp): boolean {
  let state: 'before' | 'between' | 'done' = 'before';
  let found = false;
  const visit = (list: import('../../ir/types').Stmt[]): void => {
    for (const s of list) {
      if (state === 'done') return;
      if (s.kind === 'op' && s.op === from) state = 'between';
      else if (s.kind === 'op' && s.op === to && state === 'between') state = 'done';
      else if (state === 'between' && s.kind === 'sync' && (s.scope === 'cluster' || s.scope === 'cluster-wait')) found = true;
      if (s.kind === 'if') {
        visit(s.then);
        visit(s.else);
      } else if (s.kind === 'loop') visit(s.body);
    }
  };
  visit(body);
  return found;
}
