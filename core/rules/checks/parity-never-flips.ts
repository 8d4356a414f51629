// PF103: a parity wait inside a loop whose parity operand can never change.
import { exprKey, freeVars } from '../../ir/expr';
import { loopAssigned, ringSize, visitStmts } from '../../analysis/facts';
import type { RuleDef } from '../types';
import { barrierName, exprText, line1 } from '../naming';
import { insertLineAfter } from '../fix-edits';
import { isBlockingWait } from '../op-kinds';

export const parityNeverFlips: RuleDef = {
  meta: {
    id: 'parity-never-flips',
    code: 'PF103',
    family: 'phase',
    defaultSeverity: 'error',
    summary: 'A parity wait in a loop uses a parity that never changes between iterations.',
    languages: ['cuda', 'tilus'],
    fix: 'unsafe',
  },
  docs: {
    whatItDoes: 'Finds `try_wait.parity` waits (any API or wrapper) inside a loop that reuses the same barrier, where the parity operand is a constant or a variable the loop never updates.',
    whyIsThisBad:
      'A parity wait returns once the phase with that parity has completed, i.e. while the barrier\'s current phase has the other parity. After the first completion the barrier is in phase 1, so a wait for parity 0 returns immediately in the next iteration without waiting for anyone (data race); one phase later it blocks again, and a waiter that falls two phases behind hangs.',
    bad: `#include <cuda/ptx>
__global__ void k(int n) {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, blockDim.x);
  __syncthreads();
  int parity = 0;
  for (int i = 0; i < n; ++i) {
    (void)cuda::ptx::mbarrier_arrive(&bar);
    while (!cuda::ptx::mbarrier_try_wait_parity(&bar, parity)) {}
  }
}`,
    good: `#include <cuda/ptx>
__global__ void k(int n) {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, blockDim.x);
  __syncthreads();
  int parity = 0;
  for (int i = 0; i < n; ++i) {
    (void)cuda::ptx::mbarrier_arrive(&bar);
    while (!cuda::ptx::mbarrier_try_wait_parity(&bar, parity)) {}
    parity ^= 1;
  }
}`,
    fixSafety: 'Inserting `parity ^= 1;` after the wait is right for a single barrier waited once per iteration; for other schedules check the fix.',
    references: ['CUDA C++ Programming Guide, 4.9.3 Explicit Phase Tracking', 'PTX ISA, mbarrier.try_wait.parity'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      for (const s of k.sites) {
        if (s.op.kind !== 'wait-parity' || !isBlockingWait(s.op) || !s.op.parity || !s.op.barrier) continue;
        const loop = effectiveLoop(k, s);
        if (!loop) continue;
        const assigned = loopAssigned(loop);
        const parityVars = [...freeVars(s.op.parity)];
        if (parityVars.some((v) => assigned.has(v))) continue;
        if (parityVars.some((v) => !k.derived.has(v) && k.kernel.params.includes(v) === false && !isLocal(k, v) && k.constants.get(v) === undefined)) continue;
        // A slot index that moves without wrapping addresses a fresh barrier each iteration.
        const idx = s.op.barrier.index;
        if (idx && [...freeVars(idx)].some((v) => assigned.has(v)) && ringSize(idx, loop, k) === undefined) continue;
        // Re-initialised (or invalidated) barriers start again at phase 0 every iteration.
        let reinit = false;
        visitStmts(loop.body, (t) => {
          if (t.kind === 'op' && (t.op.kind === 'init' || t.op.kind === 'inval') && t.op.barrier?.base === s.op.barrier!.base) reinit = true;
        });
        // Two waits with different parities per iteration: the barrier runs two phases per iteration.
        const sameBarrier = k.sites.filter((o) => o !== s && o.op.kind === 'wait-parity' && o.op.barrier?.base === s.op.barrier!.base && k.loops(o).includes(loop));
        if (sameBarrier.some((o) => exprKey(o.op.parity) !== exprKey(s.op.parity))) continue;
        if (reinit || runsOnce(loop, k)) continue;
        const fixes = [];
        if (s.op.parity.kind === 'var' && !idx && isLocal(k, s.op.parity.name) && s.op.lines) {
          fixes.push({ title: `Flip \`${s.op.parity.text}\` after the wait`, preferred: true, edits: [insertLineAfter(s.op.lines, `${s.op.parity.text} ^= 1;`)] });
        }
        ctx.report({
          range: s.op.range,
          message: `The wait on \`${barrierName(s.op)}\` uses parity \`${exprText(s.op.parity)}\`, which never changes in the loop at line ${line1(loop.range)}: after the first phase completes, later iterations return without waiting (data race) or hang once the barrier is a phase ahead. Flip the parity each time the barrier completes a phase.`,
          fixes,
        });
      }
    }
  },
};

/**
 * The loop that really repeats the wait: a loop whose iterations only reach the wait under a
 * condition on its own variables (`if (qid == 0)`) does not repeat it, so look at the next one out.
 */
function effectiveLoop(k: import('../../analysis/facts').KernelFacts, site: import('../../analysis/facts').Site): import('../../analysis/facts').LoopStmt | undefined {
  const chain = site.ancestors;
  for (let i = chain.length - 1; i >= 0; i--) {
    const l = chain[i].stmt;
    if (l.kind !== 'loop') continue;
    const assigned = loopAssigned(l);
    const guarded = chain.slice(i + 1).some((a) => a.stmt.kind === 'if' && [...freeVars(a.stmt.cond)].some((v) => assigned.has(v)));
    if (!guarded) return l;
  }
  return undefined;
}

function isLocal(k: { kernel: { decls: Map<string, unknown> } }, v: string): boolean {
  return k.kernel.decls.has(v);
}

function runsOnce(loop: { cond?: import('../../ir/types').Expr; init?: import('../../ir/types').Expr; var?: string }, k: { value(e: import('../../ir/types').Expr | undefined): number | undefined }): boolean {
  if (!loop.cond || loop.cond.kind !== 'binary' || loop.cond.op !== '<' || !loop.var) return false;
  const start = k.value(loop.init);
  const end = k.value(loop.cond.right);
  return start !== undefined && end !== undefined && end - start <= 1;
}
