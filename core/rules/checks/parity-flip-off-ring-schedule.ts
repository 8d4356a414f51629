// PF104: the parity changes, but not in step with how often each barrier slot is reused.
import { ringResets } from '../../analysis/ring-position';
import { freeVars } from '../../ir/expr';
import { loopAssigned } from '../../analysis/facts';
import type { BarrierOp } from '../../ir/types';
import type { RuleDef } from '../types';
import { barrierName, exprText, line1 } from '../naming';
import { isBlockingWait } from '../op-kinds';

export const parityFlipOffRingSchedule: RuleDef = {
  meta: {
    id: 'parity-flip-off-ring-schedule',
    code: 'PF104',
    family: 'phase',
    defaultSeverity: 'error',
    summary: 'The waited parity flips on a schedule that does not match how often each slot completes a phase.',
    languages: ['cuda', 'tilus'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Replays the loop for every thread and checks, for each parity wait, that consecutive waits on the same barrier slot ask for alternating parities. The classic case is `phase ^= 1` every iteration (or `i & 1`) while the slot index cycles over a ring of S > 1 barriers: each slot only completes a phase every S iterations. The replay runs at the kernel\'s block size, read from the translation unit ([launch shapes](../launch-shapes.md)); when nothing gives it, a finding that does not hold at every plausible size is reported as an information note instead.',
    whyIsThisBad:
      'With two slots, slot 0 is used in iterations 0, 2, 4 … and must be waited with parity 0, 1, 0 …, but a per-iteration flip asks for 0, 0, 0. The second use of a slot then either passes at once, before the producer refilled it (data race), or hangs. Use `(i / S) & 1`, or flip when the stage index wraps.',
    bad: `#include <cuda/ptx>
#define STAGES 2
__global__ void k(int n) {
  __shared__ uint64_t full[STAGES];
  if (threadIdx.x < STAGES) cuda::ptx::mbarrier_init(&full[threadIdx.x], blockDim.x);
  __syncthreads();
  int phase = 0;
  for (int i = 0; i < n; ++i) {
    (void)cuda::ptx::mbarrier_arrive(&full[i % STAGES]);
    while (!cuda::ptx::mbarrier_try_wait_parity(&full[i % STAGES], phase)) {}
    phase ^= 1;
  }
}`,
    good: `#include <cuda/ptx>
#define STAGES 2
__global__ void k(int n) {
  __shared__ uint64_t full[STAGES];
  if (threadIdx.x < STAGES) cuda::ptx::mbarrier_init(&full[threadIdx.x], blockDim.x);
  __syncthreads();
  for (int i = 0; i < n; ++i) {
    (void)cuda::ptx::mbarrier_arrive(&full[i % STAGES]);
    while (!cuda::ptx::mbarrier_try_wait_parity(&full[i % STAGES], (i / STAGES) & 1)) {}
  }
}`,
    references: ['mbarrier tutorial, Phase Tracking', 'CUTLASS PipelineState (phase flips when the index wraps)'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      // Only parities that do change inside their loop: constant parities are parity-never-flips.
      const candidates = new Set<BarrierOp>();
      for (const s of k.sites) {
        if (s.op.kind !== 'wait-parity' || !isBlockingWait(s.op) || !s.op.parity) continue;
        const loop = k.innermostLoop(s);
        if (!loop) continue;
        const assigned = loopAssigned(loop);
        if ([...freeVars(s.op.parity)].some((v) => assigned.has(v))) candidates.add(s.op);
      }
      // A ring position that restarts per tile is ring-position-reset-per-tile's finding, with the condition it needs.
      for (const r of ringResets(k)) candidates.delete(r.site.op);
      if (!candidates.size) continue;
      const runs = k.runs();
      if (!runs) continue;
      const bad = new Map<BarrierOp, { key: string; parity: number; line: number }>();
      let first = true;
      for (const run of runs) {
        const here = new Map<BarrierOp, { key: string; parity: number; line: number }>();
        for (const actor of run.actors) {
          const last = new Map<string, number>();
          for (const e of actor.events) {
            if (e.kind !== 'wait' || e.parity === undefined || !candidates.has(e.op)) continue;
            const id = `${e.key}`;
            const prev = last.get(id);
            if (prev !== undefined && prev === e.parity && !here.has(e.op)) here.set(e.op, { key: e.key, parity: e.parity, line: e.op.range.start.line });
            last.set(id, e.parity);
          }
        }
        if (first) for (const [op, v] of here) bad.set(op, v);
        else for (const op of [...bad.keys()]) if (!here.has(op)) bad.delete(op);
        first = false;
      }
      for (const [op, v] of bad) {
        ctx.report({
          range: op.range,
          message: `Consecutive waits on \`${v.key}\` ask for the same parity ${v.parity}: \`${exprText(op.parity)}\` changes every iteration, but \`${barrierName(op)}\` is a ring slot that completes a phase only when the ring comes back to it. The second use passes early (data race) or hangs; derive the parity from the ring round, e.g. \`(i / STAGES) & 1\`, or flip it when the stage wraps (line ${line1(op.range)}).`,
        });
      }
    }
  },
};
