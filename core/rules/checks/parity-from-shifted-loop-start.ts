// PF114: a ring's wait parity computed from a loop variable that starts past 0 (`for (k = 4; …) wait(full[k % S],
// (k / S) & 1)`) on barriers that no earlier code used: the round the formula names is not the round the barrier is in.
import type { BarrierOp, Stmt } from '../../ir/types';
import { evaluate, freeVars } from '../../ir/expr';
import { isBlockingWait } from '../op-kinds';
import { barrierName, exprText, line1 } from '../naming';
import type { RuleDef } from '../types';

type LoopStmt = Extract<Stmt, { kind: 'loop' }>;

/** Whether the loop's step is `v++`, `++v` or `v += 1`: the formula then sees k0, k0 + 1, … */
function stepsByOne(loop: LoopStmt): boolean {
  const step = loop.step ?? [];
  return step.length === 1 && step[0].kind === 'assign' && step[0].target === loop.var && (step[0].op === '++' || (step[0].op === '+=' && step[0].value?.kind === 'num' && step[0].value.value === 1));
}

export const parityFromShiftedLoopStart: RuleDef = {
  meta: {
    id: 'parity-from-shifted-loop-start',
    code: 'PF114',
    family: 'phase',
    defaultSeverity: 'warning',
    summary: 'A wait parity is derived from a loop variable that starts past 0, so it names the wrong round of a fresh barrier.',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Finds blocking parity waits in a `for` loop whose variable starts at a constant k0 > 0 and steps by one, whose parity is computed from that variable (`(k / STAGES) & 1`, with or without `^ 1`), and whose barrier nothing before the loop arrives on or waits for (it is fresh when the loop starts). It evaluates the parity at the loop\'s first iterations and at the same iterations counted from 0; when they differ on the first use of the slot, the formula asks a fresh barrier for the other parity. A lower bound that is not a constant, a barrier used before the loop, or a parity that does not depend on the loop variable keeps it silent.',
    whyIsThisBad:
      "A fresh mbarrier is in phase 0, and a parity wait for 1 returns at once (the previous phase counts as complete). A formula written for a loop that starts at 0 gives, when the loop starts at a round of odd parity, the opposite parity on every wait: the consumer's first wait on `full` passes before the producer has arrived, so it reads the slot before the copy lands and releases it, and the producer's first wait on `empty` blocks until then. The ring then runs one phase out of step: no hang, silently wrong data (a race on every slot).",
    bad: `#include <cuda/ptx>
#define STAGES 4
__global__ void k(float* out, const float* in) {
  __shared__ uint64_t full[STAGES];
  __shared__ float buf[STAGES][32];
  if (threadIdx.x < STAGES) cuda::ptx::mbarrier_init(&full[threadIdx.x], 32);
  __syncthreads();
  for (int k = STAGES; k < 3 * STAGES; ++k) {
    if (threadIdx.x < 32) {
      buf[k % STAGES][threadIdx.x] = in[k * 32 + threadIdx.x];
      (void)cuda::ptx::mbarrier_arrive(&full[k % STAGES]);
    } else {
      while (!cuda::ptx::mbarrier_try_wait_parity(&full[k % STAGES], (k / STAGES) & 1)) {}
      out[k * 32 + threadIdx.x - 32] = buf[k % STAGES][threadIdx.x - 32];
    }
  }
}`,
    good: `#include <cuda/ptx>
#define STAGES 4
__global__ void k(float* out, const float* in) {
  __shared__ uint64_t full[STAGES];
  __shared__ float buf[STAGES][32];
  if (threadIdx.x < STAGES) cuda::ptx::mbarrier_init(&full[threadIdx.x], 32);
  __syncthreads();
  for (int k = STAGES; k < 3 * STAGES; ++k) {
    if (threadIdx.x < 32) {
      buf[k % STAGES][threadIdx.x] = in[k * 32 + threadIdx.x];
      (void)cuda::ptx::mbarrier_arrive(&full[k % STAGES]);
    } else {
      while (!cuda::ptx::mbarrier_try_wait_parity(&full[k % STAGES], ((k - STAGES) / STAGES) & 1)) {}
      out[k * 32 + threadIdx.x - 32] = buf[k % STAGES][threadIdx.x - 32];
    }
  }
}`,
    references: ['PTX ISA, mbarrier.try_wait.parity (a wait for the parity of the phase before the current one returns at once)', 'CUTLASS PipelineState (the phase is counted from the pipeline\'s start, not from a global index)'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const reported = new Set<BarrierOp>();
      const startOf = (loop: LoopStmt | undefined): number | undefined => (loop?.var && loop.init && stepsByOne(loop) ? evaluate(k.resolve(loop.init), (n) => k.constants.get(n)) : undefined);
      for (const s of k.sites) {
        if (s.op.kind !== 'wait-parity' || !isBlockingWait(s.op) || !s.op.parity || !s.op.barrier || reported.has(s.op)) continue;
        // One loop around the wait (a loop inside a tile loop restarts per tile: ring-position-reset-per-tile's case).
        const loops = k.loops(s);
        const loop = loops.length === 1 ? loops[0] : undefined;
        const k0 = startOf(loop);
        const parity = k.resolve(s.op.parity);
        if (!loop?.var || k0 === undefined || k0 <= 0 || !freeVars(parity).has(loop.var)) continue;
        // Fresh when the loops start: every other use of the barrier is in a single loop starting at the same k0
        // (the other roles run the same rounds); a prologue or a loop from 0 before it keeps the rule silent.
        const base = s.op.barrier.base;
        const others = k.sites.filter((u) => u.op.barrier?.base === base && u.op.kind !== 'init');
        if (!others.every((u) => k.loops(u).length === 1 && startOf(k.loops(u)[0]) === k0)) continue;
        // How many times the loop already used this slot before iteration v: the round the barrier is in.
        const index = s.op.barrier.index ? k.resolve(s.op.barrier.index) : undefined;
        const env = (v: number) => (n: string) => (n === loop.var ? v : k.constants.get(n));
        const slot = (v: number): number | undefined => (index ? evaluate(index, env(v)) : 0);
        // The formula's own convention: `^ 1`, `1 - x` or `!x` on top means it passes the first round (a producer's
        // free slots); otherwise its first wait is meant to block.
        const c = parity.kind === 'binary' && ((parity.op === '^' && [parity.left, parity.right].some((x) => x.kind === 'num' && x.value === 1)) || (parity.op === '-' && parity.left.kind === 'num' && parity.left.value === 1)) ? 1 : parity.kind === 'unary' && parity.op === '!' ? 1 : 0;
        const uses = new Map<number, number>();
        let wrong: { v: number; asked: number; round: number } | undefined;
        let known = true;
        for (let v = k0; v < k0 + 64 && !wrong; v++) {
          if (loop.cond) {
            const go = evaluate(k.resolve(loop.cond), env(v));
            if (go === 0) break;
          }
          const p = evaluate(parity, env(v));
          const sl = slot(v);
          if (p === undefined || sl === undefined) {
            known = false;
            break;
          }
          const round = uses.get(sl) ?? 0;
          uses.set(sl, round + 1);
          if ((p & 1) !== ((round & 1) ^ c)) wrong = { v, asked: p & 1, round };
        }
        if (!known || !wrong || wrong.round !== 0) continue;
        const shifted = wrong.asked;
        reported.add(s.op);
        ctx.report({
          range: s.op.range,
          message: `This loop starts at ${loop.var} = ${k0}, so \`${exprText(s.op.parity)}\` asks \`${barrierName(s.op)}\` for parity ${shifted} on its first wait, but nothing used the barrier before the loop (line ${line1(loop.range)}): a fresh barrier is in phase 0, so the formula names the other round. A wait for parity 1 on a fresh barrier returns at once, so one role reads a slot before it is filled while the other blocks on the round after; the ring runs one phase out of step (silently wrong data). Count the round from the loop's start (\`${loop.var} - ${k0}\`) or from a counter that starts at 0.`,
          related: [{ range: loop.range, message: `the loop starts at ${loop.var} = ${k0}` }],
        });
      }
    }
  },
};
