// PF407: a wait that runs on every path, released only by arrivals inside work that a block can skip
// (a persistent tile loop that starts at blockIdx, a scheduler loop, a branch on the block's identity).
import type { Range } from '../../api';
import type { Expr, Stmt } from '../../ir/types';
import { visitStmts, type KernelFacts, type Site } from '../../analysis/facts';
import { ARRIVE_KINDS } from '../op-kinds';
import { barrierName, exprText, line1 } from '../naming';
import type { RuleDef } from '../types';

/** Arrival forms that count toward a phase's pending count. */
const ARRIVALS = new Set([...ARRIVE_KINDS, 'cp-async-arrive', 'arrive-and-wait']);

const BLOCK_IDENTITY = /\b(blockIdx|clusterIdx|cluster_ctarank|cluster_id_in_cluster|block_rank_in_cluster)\b|(^|::)(block_rank|cluster_ctarank|block_id_in_cluster)$/;

/** Math helpers a loop bound may call without reading run-time data. */
const PURE_CALLS = /(^|::)(min|max|cdiv|ceil_div|div_up|round_up)$/;

/**
 * Whether `e` can differ between blocks of one launch: it reads the block's identity (directly or through
 * single-definition locals) or asks an opaque function (a tile scheduler) whether there is more work.
 */
function variesPerBlock(e: Expr, facts: KernelFacts, loopInits: Map<string, Expr>): boolean {
  return facts.dependsOn(
    e,
    (x) =>
      (BLOCK_IDENTITY.test(x.text) && (x.kind === 'var' || x.kind === 'member' || x.kind === 'call')) ||
      (x.kind === 'call' && !x.callee.startsWith('.') && !PURE_CALLS.test(x.callee) && !BLOCK_IDENTITY.test(x.callee)) ||
      (x.kind === 'call' && x.callee.startsWith('.') && !PURE_CALLS.test(x.callee)),
    loopInits,
  );
}

/** An enclosing loop or branch that a block may not enter at all: the "work" an arrival depends on. */
interface WorkGuard {
  stmt: Stmt;
  /** The condition as written (the loop's, or the branch's). */
  cond: Expr;
}

/** Whether a loop's or branch's condition lets a whole block skip it (its value depends on the block). */
function blockMaySkip(s: Stmt, facts: KernelFacts): boolean {
  if (s.kind === 'loop') {
    if (!s.cond || facts.value(s.cond) !== undefined) return false;
    const inits = new Map<string, Expr>();
    if (s.var && s.init) inits.set(s.var, s.init);
    return variesPerBlock(s.cond, facts, inits);
  }
  return s.kind === 'if' && !facts.isThreadDependent(s.cond) && variesPerBlock(s.cond, facts, new Map());
}

/** The guards of a site that a whole block may skip, outermost first; branches on thread identity are roles, not work. */
function workGuards(site: Site, facts: KernelFacts): WorkGuard[] {
  return site.ancestors.filter((a) => blockMaySkip(a.stmt, facts)).map((a) => ({ stmt: a.stmt, cond: (a.stmt as { cond: Expr }).cond }));
}

/**
 * Whether every block certainly arrives on `base` when it runs `list`: some thread takes each role branch;
 * a branch the block may skip needs an arrival on both sides; a loop the block may skip counts for nothing.
 * Anything else (data-dependent branches, loops with fixed bounds) is given the benefit of the doubt.
 */
function everyBlockArrives(list: Stmt[], base: string, facts: KernelFacts): boolean {
  return list.some((s) => {
    if (s.kind === 'op') return !!s.op.barrier && s.op.barrier.base === base && ARRIVALS.has(s.op.kind);
    if (s.kind === 'if') {
      const then = everyBlockArrives(s.then, base, facts);
      const other = everyBlockArrives(s.else, base, facts);
      return blockMaySkip(s, facts) ? then && other : then || other;
    }
    if (s.kind === 'loop') return !blockMaySkip(s, facts) && everyBlockArrives(s.body, base, facts);
    return false;
  });
}

/** A branch or loop around the wait whose condition is not about thread identity: the wait is itself conditional. */
function conditionallyReached(site: Site, facts: KernelFacts): boolean {
  return site.ancestors.some((a) => a.stmt.kind === 'loop' || (a.stmt.kind === 'if' && !facts.isThreadDependent(a.stmt.cond)));
}

/** A `return` written before `r`: a block with no work may leave early, and then nobody waits. */
function returnsBefore(body: Stmt[], r: Range): boolean {
  let found = false;
  visitStmts(body, (s) => {
    if (s.kind === 'return' && (s.range.start.line < r.start.line || (s.range.start.line === r.start.line && s.range.start.character < r.start.character))) found = true;
  });
  return found;
}

function guardWords(g: WorkGuard): string {
  if (g.stmt.kind !== 'loop') return `the branch \`if (${exprText(g.cond)})\``;
  const from = g.stmt.var && g.stmt.init ? ` over \`${g.stmt.var}\` from \`${exprText(g.stmt.init)}\`` : '';
  return `the loop${from} while \`${exprText(g.cond)}\``;
}

export const arrivalOnlyWithWork: RuleDef = {
  meta: {
    id: 'arrival-only-with-work',
    code: 'PF407',
    family: 'count',
    defaultSeverity: 'error',
    summary: 'A wait runs on every path, but its phase is completed only by arrivals inside work a block can skip.',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Reports a wait for phase 0 that is not inside any loop or data-dependent branch, on a barrier whose every arrival sits inside a persistent tile loop (its trip count depends on the block: `for (t = blockIdx.x; t < num_tiles; t += gridDim.x)`, a tile-scheduler loop) or a branch on the block\'s identity. Waits inside the same kind of guard, barriers with any unconditional arrival, and kernels that return early are left alone.',
    whyIsThisBad:
      'A block that gets no tile (more blocks than tiles, the tail of a persistent schedule) never enters the loop that holds the arrive, so the phase never completes and the threads waiting on it spin until the kernel is killed. It works in every test whose grid is no larger than the tile count, and hangs the first time it is not.',
    bad: `#include <cuda/ptx>
__global__ void k(int num_tiles) {
  __shared__ uint64_t ready;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&ready, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int t = blockIdx.x; t < num_tiles; t += gridDim.x)
      if (t == blockIdx.x) (void)cuda::ptx::mbarrier_arrive(&ready);
  } else if (threadIdx.x == 32) {
    while (!cuda::ptx::mbarrier_try_wait_parity(&ready, 0)) {}
  }
}`,
    good: `#include <cuda/ptx>
__global__ void k(int num_tiles) {
  __shared__ uint64_t ready;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&ready, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int t = blockIdx.x; t < num_tiles; t += gridDim.x)
      if (t == blockIdx.x) (void)cuda::ptx::mbarrier_arrive(&ready);
  } else if (threadIdx.x == 32) {
    if (blockIdx.x < num_tiles)
      while (!cuda::ptx::mbarrier_try_wait_parity(&ready, 0)) {}
  }
}`,
    references: ['issue 13: role disagreement on a control path (an order barrier waited before a tile loop whose arrive is inside it)', 'PTX ISA: mbarrier phase completion (pending arrival count reaches zero)'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      for (const w of k.sites) {
        const base = w.op.barrier?.base;
        if (!base || w.op.kind !== 'wait-parity' || k.value(w.op.parity) !== 0 || w.op.result === 'discarded') continue;
        if (conditionallyReached(w, k) || returnsBefore(k.kernel.body, w.op.range) || k.escapes(base)) continue;
        const arrivals = k.opsOn(base).filter((s) => ARRIVALS.has(s.op.kind));
        // A remote peer could arrive where we cannot see.
        if (!arrivals.length || arrivals.some((a) => a.op.remote)) continue;
                if (everyBlockArrives(k.kernel.body, base, k)) continue;
        const outer = arrivals.map((a) => workGuards(a, k)[0]).find((g) => g);
        if (!outer) continue;
        ctx.report({
          range: w.op.range,
          message: `This wait on \`${barrierName(w.op)}\` for phase 0 runs whether or not the block has work, but every arrival on it (line${arrivals.length > 1 ? 's' : ''} ${[...new Set(arrivals.map((a) => line1(a.op.range)))].join(', ')}) is inside ${guardWords(outer)} (line ${line1(outer.stmt.range)}), which a block can skip entirely when its condition depends on the block (no work for it): that block never arrives and its waiting threads hang.`,
          related: [
            ...arrivals.map((a) => ({ range: a.op.range, message: `the arrival on \`${barrierName(a.op)}\`, only reached with work` })),
            { range: outer.stmt.range, message: 'the work a block may not have' },
          ],
        });
      }
    }
  },
};
