// PF207: a CTA of a cluster can exit while its peers still arrive on its barriers (no final cluster sync, no drain).
import type { BarrierOp } from '../../ir/types';
import type { RunResult, TraceEvent } from '../../analysis/protocol-run';
import { maxArrivalsPerPhase } from '../../analysis/protocol-run';
import type { RuleDef } from '../types';
import { barrierName, line1 } from '../naming';

export const clusterExitBeforeRemoteArrival: RuleDef = {
  meta: {
    id: 'cluster-exit-before-remote-arrival',
    code: 'PF207',
    family: 'bootstrap',
    defaultSeverity: 'error',
    summary: 'A CTA of a cluster can exit while other CTAs still arrive on its barriers: no thread waits for their last arrivals and no cluster-wide sync ends the kernel.',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      "For every barrier that the kernel arrives on in other CTAs of its cluster (`mapa` + `mbarrier.arrive.shared::cluster`, CuTe's `ClusterBarrier::arrive(cta_id)`), replays one block with the other CTAs assumed to run the same code, so that the arrivals this CTA sends are the arrivals its own copy of the barrier receives. It reports the last remote arrival when no thread of the CTA waits for the phase those arrivals complete (the waits it has follow earlier phases only) and no cluster-wide sync (`barrier.cluster.arrive` + `barrier.cluster.wait`, `cute::cluster_sync()`, cooperative groups' `cluster.sync()`) follows the barrier's use. Barriers whose arrivals the replay cannot count (unknown loop bounds or destinations, predicates, more arrivals per round than the init count, remote `tcgen05.commit`) stay silent.",
    whyIsThisBad:
      "A CTA's shared memory, and the barriers in it, go away when its last thread exits. If a peer is slower, its remote arrival then targets a CTA that no longer exists: the launch fails with \"unspecified launch failure\" (or the peer hangs), depending on timing, so tests often pass. FlashAttention-3 shipped this (CTA 0's producer finished before CTA 1 arrived on its `barrier_O`); CUTLASS's `producer_tail` and DeepGEMM's final empty-barrier waits exist to prevent it.",
    bad: `#include <cstdint>
__device__ void arrive_on(uint64_t* b, uint32_t cta) {
  asm volatile("{\\n .reg .b32 r;\\n mapa.shared::cluster.u32 r, %0, %1;\\n mbarrier.arrive.release.cluster.shared::cluster.b64 _, [r];\\n}" :: "r"((uint32_t)__cvta_generic_to_shared(b)), "r"(cta));
}
__device__ void wait_on(uint64_t* b, uint32_t parity) {
  asm volatile("{\\n .reg .pred p;\\n W: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1;\\n @!p bra W;\\n}" :: "r"((uint32_t)__cvta_generic_to_shared(b)), "r"(parity));
}
__device__ void arrive_here(uint64_t* b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((uint32_t)__cvta_generic_to_shared(b)));
}
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(64) k() {
  __shared__ uint64_t full, done;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"((uint32_t)__cvta_generic_to_shared(&full)));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" :: "r"((uint32_t)__cvta_generic_to_shared(&done)));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  asm volatile("barrier.cluster.arrive;\\nbarrier.cluster.wait;");
  if (threadIdx.x == 0) {
    for (int t = 0; t < 4; ++t) {
      wait_on(&done, (t + 1) & 1);  // the previous tile was released by every CTA
      arrive_here(&full);
    }
  } else if (threadIdx.x == 32) {
    for (int t = 0; t < 4; ++t) {
      wait_on(&full, t & 1);
      for (int cta = 0; cta < 2; ++cta) arrive_on(&done, cta);
    }
  }
}`,
    good: `#include <cstdint>
__device__ void arrive_on(uint64_t* b, uint32_t cta) {
  asm volatile("{\\n .reg .b32 r;\\n mapa.shared::cluster.u32 r, %0, %1;\\n mbarrier.arrive.release.cluster.shared::cluster.b64 _, [r];\\n}" :: "r"((uint32_t)__cvta_generic_to_shared(b)), "r"(cta));
}
__device__ void wait_on(uint64_t* b, uint32_t parity) {
  asm volatile("{\\n .reg .pred p;\\n W: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1;\\n @!p bra W;\\n}" :: "r"((uint32_t)__cvta_generic_to_shared(b)), "r"(parity));
}
__device__ void arrive_here(uint64_t* b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((uint32_t)__cvta_generic_to_shared(b)));
}
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(64) k() {
  __shared__ uint64_t full, done;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"((uint32_t)__cvta_generic_to_shared(&full)));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" :: "r"((uint32_t)__cvta_generic_to_shared(&done)));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  asm volatile("barrier.cluster.arrive;\\nbarrier.cluster.wait;");
  if (threadIdx.x == 0) {
    for (int t = 0; t < 4; ++t) {
      wait_on(&done, (t + 1) & 1);  // the previous tile was released by every CTA
      arrive_here(&full);
    }
    wait_on(&done, 1);  // the last round of arrivals, from every CTA of the cluster
  } else if (threadIdx.x == 32) {
    for (int t = 0; t < 4; ++t) {
      wait_on(&full, t & 1);
      for (int cta = 0; cta < 2; ++cta) arrive_on(&done, cta);
    }
  }
}`,
    references: [
      'PTX ISA, barrier.cluster (arrive/wait); mbarrier.arrive with .shared::cluster; mapa',
      'CUTLASS, PipelineTmaAsync::producer_tail ("avoid early exit of blocks in Cluster")',
      'flash-attention f0b5a6ec, "Wait for barrier_O at load_tail to avoid Cluster error"',
    ],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const remoteBases = new Set(k.sites.filter((s) => s.op.remote && s.op.barrier && isRemoteArrival(s.op)).map((s) => s.op.barrier!.base));
      if (!remoteBases.size) continue;
      const runs = k.clusterSymmetricRuns();
      if (!runs?.length) continue;
      // A finding must hold at every block size the kernel is analysed at.
      let flagged: Map<string, Unobserved> | undefined;
      for (const run of runs) {
        const here = unobservedLastPhases(run, remoteBases);
        if (!flagged) flagged = here;
        else for (const key of [...flagged.keys()]) if (!here.has(key)) flagged.delete(key);
      }
      const reported = new Set<BarrierOp>();
      for (const u of flagged?.values() ?? []) {
        if (reported.has(u.lastRemote)) continue;
        reported.add(u.lastRemote);
        const name = barrierName(u.lastRemote);
        const waits = u.lastWait ? ` (the wait on line ${line1(u.lastWait.range)} follows earlier phases only)` : ' (no thread of the CTA waits on it)';
        ctx.report({
          range: u.lastRemote.range,
          message: `\`${name}\` receives arrivals from the other CTAs of the cluster (this line sends them), but nothing keeps a CTA alive until the last of them have landed: no thread waits for the phase they complete${waits}, and no cluster-wide sync follows. A CTA that finishes first exits while a peer still arrives on its barrier: "unspecified launch failure" or a hang, depending on timing. Wait for that last phase before exiting (CUTLASS producer_tail), or end the kernel with barrier.cluster.arrive + barrier.cluster.wait (cute::cluster_sync()).`,
          related: [
            ...(u.init ? [{ range: u.init.range, message: `\`${name}\` is initialised here, expecting arrivals from the whole cluster` }] : []),
            ...(u.lastWait ? [{ range: u.lastWait.range, message: 'the last wait on it, for an earlier phase' }] : []),
          ],
        });
      }
    }
  },
};

/** Arrivals sent to a peer's barrier through a remote address (remote MMA commits are not counted by the replay). */
function isRemoteArrival(op: BarrierOp): boolean {
  return op.kind === 'arrive' || op.kind === 'arrive-expect-tx' || op.kind === 'arrive-drop';
}

interface Unobserved {
  lastRemote: BarrierOp;
  lastWait?: BarrierOp;
  init?: BarrierOp;
}

/** Barriers (of `bases`) whose last completed phase, reached by remote arrivals, no wait of the run observed. */
function unobservedLastPhases(run: RunResult, bases: ReadonlySet<string>): Map<string, Unobserved> {
  const out = new Map<string, Unobserved>();
  // A run that deadlocked (or that the symmetric model made inconsistent) proves nothing about the end of the kernel.
  if (run.deadlock) return out;
  const baseOf = (key: string): string => key.replace(/\[[\s\S]*$/, '');
  for (const [key, init] of run.initializers) {
    if (!bases.has(baseOf(key)) || run.uncertain.has(key) || run.uncertain.has(baseOf(key)) || !init.count) continue;
    const completed = run.completedPhases.get(key) ?? 0;
    if (completed < 1) continue;
    // Every arrival counted, and no round of one actor larger than a phase: otherwise a predicate or destination the
    // replay cannot see is likely at work, and phases would not line up with the code's rounds.
    let arrivals = 0;
    let lastRemote: BarrierOp | undefined;
    let lastWait: BarrierOp | undefined;
    let clusterSyncAfterUse = false;
    for (const a of run.actors) {
      let used = false;
      for (const e of a.events) {
        if (isOn(e, key)) used = true;
        if (e.kind === 'arrive' && e.key === key) {
          arrivals += e.count * a.threads.length;
          if (e.op.remote) lastRemote = e.op;
        } else if (e.kind === 'wait' && e.key === key) lastWait = e.op;
        else if (e.kind === 'sync' && e.scope === 'cluster' && used) clusterSyncAfterUse = true;
      }
    }
    if (!lastRemote || clusterSyncAfterUse) continue;
    if (arrivals !== completed * init.count || maxArrivalsPerPhase(run, key) > init.count) continue;
    if ((run.observedPhases.get(key) ?? 0) >= completed) continue;
    out.set(key, { lastRemote, lastWait, init: init.op });
  }
  return out;
}

function isOn(e: TraceEvent, key: string): boolean {
  // Not the init: the cluster sync that publishes it comes before any use and keeps no CTA alive at the end.
  return (e.kind === 'arrive' || e.kind === 'wait' || e.kind === 'use') && e.key === key;
}
