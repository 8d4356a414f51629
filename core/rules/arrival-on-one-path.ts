// PF403: a pipeline loop arrives on a barrier on one control path but not on another.
import { loopAssigned, type LoopStmt } from '../analysis/facts';
import type { BarrierOp, Stmt } from '../ir/types';
import { threadVarying } from './early-exit-without-drop';
import type { RuleDef } from './types';
import { ARRIVE_KINDS, barrierName, line1 } from './util';

function arrivesIn(list: Stmt[], base: string): boolean {
  return list.some((s) => (s.kind === 'op' && ARRIVE_KINDS.has(s.op.kind) && s.op.barrier?.base === base) || (s.kind === 'if' && (arrivesIn(s.then, base) || arrivesIn(s.else, base))) || (s.kind === 'loop' && arrivesIn(s.body, base)));
}

function jumps(list: Stmt[]): boolean {
  return list.some((s) => s.kind === 'continue' || s.kind === 'break' || s.kind === 'return');
}

export const arrivalOnOnePath: RuleDef = {
  meta: {
    id: 'arrival-on-one-path',
    code: 'PF403',
    family: 'count',
    defaultSeverity: 'warning',
    summary: 'Inside a pipeline loop, a barrier is arrived on along one control path but not another.',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes: 'In loops that arrive on a barrier, reports data-dependent branches (not role branches on thread identity) where one side arrives and the other does not, and `continue` statements that skip the loop\'s arrive.',
    whyIsThisBad: 'Each phase needs the same number of arrivals. When an iteration takes the path without the arrive (an empty tile, a masked block), the phase misses an arrival and the partner waits forever (hang); or the arrive lands in the next phase and everything after runs one phase out of step.',
    bad: `#include <cuda/ptx>
__global__ void k(int n, const int* skip) {
  __shared__ uint64_t empty;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&empty, blockDim.x);
  __syncthreads();
  for (int i = 0; i < n; ++i) {
    if (skip[i]) continue;
    (void)cuda::ptx::mbarrier_arrive(&empty);
    while (!cuda::ptx::mbarrier_try_wait_parity(&empty, i & 1)) {}
  }
}`,
    good: `#include <cuda/ptx>
__global__ void k(int n, const int* skip) {
  __shared__ uint64_t empty;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&empty, blockDim.x);
  __syncthreads();
  for (int i = 0; i < n; ++i) {
    if (!skip[i]) {
      /* work */
    }
    (void)cuda::ptx::mbarrier_arrive(&empty);
    while (!cuda::ptx::mbarrier_try_wait_parity(&empty, i & 1)) {}
  }
}`,
    references: ['mbarrier-semantics notes: per-path balance (early-continue and empty-tile branches)'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const visitLoop = (loop: LoopStmt): void => {
        const uniform = loopAssigned(loop);
        const bases = new Set<string>();
        const collect = (list: Stmt[]): void => {
          for (const s of list) {
            if (s.kind === 'op' && ARRIVE_KINDS.has(s.op.kind) && s.op.barrier) bases.add(s.op.barrier.base);
            else if (s.kind === 'if') {
              collect(s.then);
              collect(s.else);
            }
          }
        };
        collect(loop.body);
        for (const base of bases) {
          const body = loop.body;
          for (let i = 0; i < body.length; i++) {
            const s = body[i];
            if (s.kind !== 'if' || !threadVarying(s.cond, k, uniform) || k.isThreadDependent(s.cond)) continue;
            const later = body.slice(i + 1);
            const inThen = arrivesIn(s.then, base);
            const inElse = arrivesIn(s.else, base);
            const skipper = [...s.then, ...s.else].find((t) => t.kind === 'continue');
            if (skipper && arrivesIn(later, base) && !(inThen || inElse)) {
              const arrive = firstArrive(later, base)!;
              ctx.report({
                range: skipper.range,
                message: `This continue skips the arrive on \`${barrierName(arrive)}\` (line ${line1(arrive.range)}) for the iterations that take it: that phase misses an arrival and its waiters hang, or every later phase runs out of step.`,
                related: [{ range: arrive.range, message: 'the arrive that is skipped' }],
              });
              continue;
            }
            if (inThen !== inElse && !jumps(s.then) && !jumps(s.else) && !arrivesIn(later, base) && !arrivesIn(body.slice(0, i), base)) {
              const arrive = firstArrive(inThen ? s.then : s.else, base)!;
              ctx.report({
                range: arrive.range,
                message: `\`${barrierName(arrive)}\` is arrived on only when \`${s.cond.text}\` is ${inThen ? 'true' : 'false'}: on the other path this iteration does not arrive, so the phase misses an arrival (hang) or later arrivals land one phase off.`,
              });
            }
          }
        }
      };
      const visit = (list: Stmt[]): void => {
        for (const s of list) {
          if (s.kind === 'loop') {
            visitLoop(s);
            visit(s.body);
          } else if (s.kind === 'if') {
            visit(s.then);
            visit(s.else);
          }
        }
      };
      visit(k.kernel.body);
    }
  },
};

function firstArrive(list: Stmt[], base: string): BarrierOp | undefined {
  for (const s of list) {
    if (s.kind === 'op' && ARRIVE_KINDS.has(s.op.kind) && s.op.barrier?.base === base) return s.op;
    if (s.kind === 'if') {
      const r = firstArrive(s.then, base) ?? firstArrive(s.else, base);
      if (r) return r;
    }
    if (s.kind === 'loop') {
      const r = firstArrive(s.body, base);
      if (r) return r;
    }
  }
  return undefined;
}
