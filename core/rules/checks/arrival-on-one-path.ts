// PF403: a pipeline loop arrives on a barrier on one control path but not on another.
import { loopAssigned, type LoopStmt, forEachLoop } from '../../analysis/facts';
import type { BarrierOp, Stmt } from '../../ir/types';
import type { Expr } from '../../ir/types';
import type { KernelFacts } from '../../analysis/facts';

/** Depends on data read at run time (array elements, dereferences, opaque calls), not on the schedule. */
function dataDependent(e: Expr, facts: KernelFacts): boolean {
  return facts.dependsOn(
    e,
    (x) =>
      x.kind === 'index' ||
      (x.kind === 'unary' && x.op === '*') ||
      (x.kind === 'call' && !x.callee.startsWith('.') && !/(^|::)(min|max|cdiv|ceil_div)$/.test(x.callee)) ||
      // Croqtile tensor element reads (`mask.at(bm, iv)`) are data too.
      (x.kind === 'call' && /^\.(at|data)$/.test(x.callee)),
  );
}

/** The condition with loop-variable names blanked, to compare the producer's and consumer's skips. */
function condShape(e: Expr, loopVars: Set<string>): string {
  return e.text.replace(/\s+/g, '').replace(/[A-Za-z_]\w*/g, (w) => (loopVars.has(w) ? '#' : w));
}
import type { RuleDef } from '../types';
import { ARRIVE_KINDS } from '../op-kinds';
import { barrierName, line1 } from '../naming';

function arrivesIn(list: Stmt[], base: string): boolean {
  return list.some((s) => (s.kind === 'op' && ARRIVE_KINDS.has(s.op.kind) && s.op.barrier?.base === base) || (s.kind === 'if' && (arrivesIn(s.then, base) || arrivesIn(s.else, base))) || (s.kind === 'loop' && arrivesIn(s.body, base)));
}

function waitsIn(list: Stmt[], base: string): boolean {
  return list.some((s) => (s.kind === 'op' && (s.op.kind === 'wait-parity' || s.op.kind === 'wait-token') && s.op.barrier?.base === base) || (s.kind === 'if' && (waitsIn(s.then, base) || waitsIn(s.else, base))) || (s.kind === 'loop' && waitsIn(s.body, base)));
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
    languages: ['cuda', 'croqtile', 'tilus'],
    fix: 'none',
  },
  docs: {
    whatItDoes: 'In loops that arrive on a barrier, reports data-dependent branches (not role branches on thread identity) where one side arrives and the other does not, and `continue` statements that skip the loop\'s arrive.',
    whyIsThisBad: 'Each phase needs the same number of arrivals. When an iteration takes the path without the arrive (an empty tile, a masked block), the phase misses an arrival and the partner waits forever (hang); or the arrive lands in the next phase and everything after runs one phase out of step.',
    bad: `#include <cuda/ptx>
__global__ void k(int n, const int* skip) {
  __shared__ uint64_t full;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int i = 0; i < n; ++i) {
      if (skip[i]) continue;
      (void)cuda::ptx::mbarrier_arrive(&full);
    }
  } else if (threadIdx.x == 32) {
    for (int i = 0; i < n; ++i) {
      while (!cuda::ptx::mbarrier_try_wait_parity(&full, i & 1)) {}
    }
  }
}`,
    good: `#include <cuda/ptx>
__global__ void k(int n, const int* skip) {
  __shared__ uint64_t full;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&full, 1);
  __syncthreads();
  int phase = 0;
  if (threadIdx.x == 0) {
    for (int i = 0; i < n; ++i) {
      if (skip[i]) continue;
      (void)cuda::ptx::mbarrier_arrive(&full);
    }
  } else if (threadIdx.x == 32) {
    for (int j = 0; j < n; ++j) {
      if (skip[j]) continue;
      while (!cuda::ptx::mbarrier_try_wait_parity(&full, phase)) {}
      phase ^= 1;
    }
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
            // A role/election test combined with a data test (`any && lane == 0`) still skips on data.
            // In CUDA only data-dependent skips count (schedule conditions are how prefetch pipelines
            // guard their last iterations); Croqtile roles have no such idiom, any non-role condition counts.
            const skips = (c: Expr): boolean => !k.isThreadDependent(c) && (ctx.module.language === 'croqtile' || dataDependent(c, k));
            if (s.kind !== 'if' || !conjuncts(s.cond).some(skips)) continue;
            if (partnerSkipsToo(s.cond, base, loop)) continue;
            const later = body.slice(i + 1);
            const inThen = arrivesIn(s.then, base);
            const inElse = arrivesIn(s.else, base);
            const skipper = [...s.then, ...s.else].find((t) => t.kind === 'continue');
            const waitedElsewhere = k.sites.some((w) => w.op.barrier?.base === base && (w.op.kind === 'wait-parity' || w.op.kind === 'wait-token') && !k.loops(w).includes(loop));
            // An iteration that arrives and then waits on the same barrier itself is balanced when skipped whole.
            if (skipper && arrivesIn(later, base) && !(inThen || inElse) && waitedElsewhere && !waitsIn(later, base)) {
              const arrive = firstArrive(later, base)!;
              ctx.report({
                range: skipper.range,
                message: `This continue skips the arrive on \`${barrierName(arrive)}\` (line ${line1(arrive.range)}) for the iterations that take it: that phase misses an arrival and its waiters hang, or every later phase runs out of step.`,
                related: [{ range: arrive.range, message: 'the arrive that is skipped' }],
              });
              continue;
            }
            if (inThen !== inElse && waitedElsewhere && !waitsIn(inThen ? s.then : s.else, base) && !jumps(s.then) && !jumps(s.else) && !arrivesIn(later, base) && !arrivesIn(body.slice(0, i), base)) {
              const arrive = firstArrive(inThen ? s.then : s.else, base)!;
              ctx.report({
                range: arrive.range,
                message: `\`${barrierName(arrive)}\` is arrived on only when \`${s.cond.text}\` is ${inThen ? 'true' : 'false'}: on the other path this iteration does not arrive, so the phase misses an arrival (hang) or later arrivals land one phase off.`,
              });
            }
          }
        }
      };
      /** The threads waiting on `base` in another loop skip the same iterations (balanced). */
      const partnerSkipsToo = (cond: Expr, base: string, loop: LoopStmt): boolean => {
        const shape = condShape(cond, new Set([...loopVarsOf(loop)]));
        return k.sites.some((w) => {
          if (w.op.barrier?.base !== base || !(w.op.kind === 'wait-parity' || w.op.kind === 'wait-token')) return false;
          const l2 = k.innermostLoop(w);
          if (!l2 || l2 === loop) return false;
          let same = false;
          const look = (list: Stmt[]): void => {
            for (const t of list) {
              if (t.kind === 'if') {
                if (condShape(t.cond, new Set([...loopVarsOf(l2)])) === shape) same = true;
                look(t.then);
                look(t.else);
              }
            }
          };
          look(l2.body);
          return same;
        });
      };
      forEachLoop(k.kernel.body, (loop) => visitLoop(loop));
    }
  },
};

function conjuncts(e: Expr): Expr[] {
  return e.kind === 'binary' && e.op === '&&' ? [...conjuncts(e.left), ...conjuncts(e.right)] : [e];
}

function loopVarsOf(loop: LoopStmt): Set<string> {
  const out = new Set<string>();
  if (loop.var) out.add(loop.var.replace(/#\d+$/, ''));
  for (const v of loopAssigned(loop)) out.add(v.replace(/#\d+$/, ''));
  return out;
}

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
