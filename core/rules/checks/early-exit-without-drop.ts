// PF402: leaving an arrive/wait loop without arrive_and_drop.
import { freeVars, walkExpr } from '../../ir/expr';
import { loopAssigned, type KernelFacts, type LoopStmt, forEachLoop } from '../../analysis/facts';
import type { BarrierOp, Expr, Stmt } from '../../ir/types';
import type { RuleDef } from '../types';
import { ARRIVE_KINDS } from '../op-kinds';
import { barrierName, line1 } from '../naming';
import { insertLineBefore } from '../fix-edits';

/** A condition that can differ between threads of the block (so some leave and others stay). */
const WARP_UNIFORM = /^(__all_sync|__any_sync|__ballot_sync|__reduce_\w+_sync|__shfl_sync|__activemask)$/;

/**
 * A condition that can differ between threads of the block, so that some threads leave and others
 * stay: anything on thread identity, or an opaque per-thread query (a device function called with
 * no arguments, like the CUDA guide's `condition_check()`). Warp votes are uniform per warp, member
 * calls on scheduler-like objects and reads of shared/global data are treated as uniform.
 */
export function threadVarying(e: Expr, facts: KernelFacts, uniform: Set<string>): boolean {
  let vote = false;
  walkExpr(e, (x) => {
    if (x.kind === 'call' && WARP_UNIFORM.test(x.callee)) vote = true;
  });
  if (vote) return false;
  if (facts.isThreadDependent(e)) return true;
  let varying = false;
  walkExpr(e, (x) => {
    if (x.kind === 'call' && !x.callee.startsWith('.') && x.args.length === 0 && !/(^|::)(min|max|cdiv|ceil_div|__ldg|clock|clock64|globaltimer)$/.test(x.callee)) varying = true;
  });
  if (varying) return true;
  for (const v of freeVars(e)) {
    const d = facts.derived.get(v);
    if (d && !uniform.has(v) && threadVarying(d, facts, new Set([...uniform, v]))) return true;
  }
  return false;
}

export const earlyExitWithoutDrop: RuleDef = {
  meta: {
    id: 'early-exit-without-drop',
    code: 'PF402',
    family: 'count',
    defaultSeverity: 'error',
    summary: 'A thread leaves an arrive/wait loop early without arrive_and_drop.',
    languages: ['cuda'],
    fix: 'safe',
  },
  docs: {
    whatItDoes: 'Reports `return` and `break` statements that leave a loop arriving on a barrier, under a condition that can differ between threads, when that path does not call `arrive_and_drop` (or `mbarrier.arrive_drop`) first.',
    whyIsThisBad: 'The barrier still counts the departed thread in every later phase. The threads that stay arrive, miss one arrival, and hang at their next wait. `arrive_and_drop` arrives for the current phase and lowers the expected count for all later ones.',
    bad: `#include <cuda/barrier>
__device__ bool condition_check();
__global__ void k(int n) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  for (int i = 0; i < n; ++i) {
    if (condition_check()) {
      return;
    }
    auto token = bar.arrive();
    bar.wait(std::move(token));
  }
}`,
    good: `#include <cuda/barrier>
__device__ bool condition_check();
__global__ void k(int n) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  for (int i = 0; i < n; ++i) {
    if (condition_check()) {
      bar.arrive_and_drop();
      return;
    }
    auto token = bar.arrive();
    bar.wait(std::move(token));
  }
}`,
    fixSafety: 'Inserting `arrive_and_drop()` before the exit is what the CUDA guide prescribes; it is wrong only if the thread already arrived in this phase.',
    references: ['CUDA C++ Programming Guide, 4.9.4 Early Exit'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const visitLoop = (loop: LoopStmt): void => {
        const arrives: BarrierOp[] = [];
        const walk = (list: Stmt[]): void => {
          for (const s of list) {
            if (s.kind === 'op' && ARRIVE_KINDS.has(s.op.kind) && s.op.kind !== 'arrive-drop') arrives.push(s.op);
            else if (s.kind === 'if') {
              walk(s.then);
              walk(s.else);
            } else if (s.kind === 'loop') walk(s.body);
          }
        };
        walk(loop.body);
        if (!arrives.length) return;
        const uniform = loopAssigned(loop);
        const exits: { stmt: Stmt; path: Stmt[]; cond: Expr }[] = [];
        const find = (list: Stmt[], conds: Expr[], depthInLoop: number): void => {
          list.forEach((s, i) => {
            if ((s.kind === 'return' || (s.kind === 'break' && depthInLoop === 0)) && conds.length) exits.push({ stmt: s, path: list.slice(0, i), cond: conds[conds.length - 1] });
            if (s.kind === 'if') {
              find(s.then, [...conds, s.cond], depthInLoop);
              find(s.else, [...conds, s.cond], depthInLoop);
            } else if (s.kind === 'loop') find(s.body, conds, depthInLoop + 1);
          });
        };
        find(loop.body, [], 0);
        for (const ex of exits) {
          if (!threadVarying(ex.cond, k, uniform)) continue;
          if (ex.path.some((p) => p.kind === 'op' && p.op.kind === 'arrive-drop')) continue;
          const op = arrives[0];
          const fixes = [];
          const exitLines = ex.stmt.lines;
          if (op.api.startsWith('.') && op.barrier && exitLines) {
            fixes.push({ title: `Drop out of \`${barrierName(op)}\` before leaving`, preferred: true, edits: [insertLineBefore(exitLines, `${op.barrier.text}.arrive_and_drop();`)] });
          } else if (op.api.startsWith('__mbarrier') && op.barrier && exitLines) {
            fixes.push({ title: `Drop out of \`${barrierName(op)}\` before leaving`, preferred: true, edits: [insertLineBefore(exitLines, `(void)__mbarrier_arrive_and_drop(${op.barrier.text});`)] });
          }
          ctx.report({
            range: ex.stmt.range,
            message: `This ${ex.stmt.kind} leaves the loop at line ${line1(loop.range)} for some threads only, without arrive_and_drop on \`${barrierName(op)}\`: the barrier keeps expecting their arrivals, so the threads that stay hang at their next wait.`,
            related: [{ range: op.range, message: 'the arrival the departed threads no longer make' }],
            fixes,
          });
        }
      };
      forEachLoop(k.kernel.body, (loop) => visitLoop(loop));
    }
  },
};
