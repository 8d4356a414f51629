// PF113: a loop waits through a barrier address taken before the loop from a slot index the loop advances.
import { freeVars } from '../../ir/expr';
import type { Expr } from '../../ir/types';
import { declarationLoops, loopAssigned, type KernelFacts, type LoopStmt } from '../../analysis/facts';
import { barrierName, exprText, line1 } from '../naming';
import { WAIT_KINDS } from '../op-kinds';
import type { RuleDef } from '../types';

interface AddressDef {
  /** The address expression, where the local is declared. */
  value: Expr;
  /** The barrier array the address points into, and the slot index it was taken at. */
  array: string;
  index: Expr;
  /** Loops around the definition, outermost first. */
  loops: LoopStmt[];
}

/** `&bars[i]` (through casts the front end already dropped) or `bars + i`. */
function slotAddress(e: Expr): { array: string; index: Expr } | undefined {
  const inner = e.kind === 'unary' && e.op === '&' ? e.arg : e;
  if (inner.kind === 'index' && inner.object.kind === 'var') return { array: inner.object.name, index: inner.index };
  if (e.kind === 'binary' && e.op === '+' && e.left.kind === 'var') return { array: e.left.name, index: e.right };
  return undefined;
}

/** Locals assigned exactly once (at their declaration) with a slot address of a declared array as their value. */
function slotAddressDefs(facts: KernelFacts): Map<string, AddressDef> {
  const loopsOf = declarationLoops(facts.kernel.body);
  const defs = new Map<string, AddressDef>();
  for (const [name, value] of facts.derived) {
    const slot = slotAddress(value);
    if (slot && facts.kernel.decls.has(slot.array) && freeVars(slot.index).size) defs.set(name, { ...slot, value, loops: loopsOf.get(name) ?? [] });
  }
  return defs;
}

export const waitOnStaleSlotAddress: RuleDef = {
  meta: {
    id: 'wait-on-stale-slot-address',
    code: 'PF113',
    family: 'phase',
    defaultSeverity: 'error',
    summary: 'A loop waits through a barrier address taken before the loop, from a slot index the loop advances.',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Reports a wait inside a loop whose barrier is a local address (`uint32_t bar = __cvta_generic_to_shared(&full[stage])`, `auto* bar = &full[stage]`) computed once, outside the loop, from a slot index that the loop itself changes. The address is never recomputed, so every iteration waits on the slot the index had before the loop.',
    whyIsThisBad:
      'The ring moves on (the loop reads the buffer of the current stage and releases it) but the wait keeps polling the first stage\'s barrier with the current parity: it passes when that slot completes a phase, not when the current one has its data, so the loop reads tiles that have not landed (silent corruption), or it waits for a parity the first slot never reaches again (hang).',
    bad: `#include <cuda/ptx>
constexpr int STAGES = 4;
__global__ void k(const float* src, float* out, int n) {
  __shared__ uint64_t full[STAGES];
  __shared__ float tiles[STAGES][256];
  if (threadIdx.x < STAGES) cuda::ptx::mbarrier_init(&full[threadIdx.x], 1);
  __syncthreads();
  int stage = 0, phase = 0;
  uint64_t* bar = &full[stage];
  float acc = 0.f;
  for (int i = 0; i < n; ++i) {
    while (!cuda::ptx::mbarrier_try_wait_parity(bar, phase)) {}
    acc += tiles[stage][threadIdx.x];
    if (++stage == STAGES) { stage = 0; phase ^= 1; }
  }
  out[threadIdx.x] = acc;
}`,
    good: `#include <cuda/ptx>
constexpr int STAGES = 4;
__global__ void k(const float* src, float* out, int n) {
  __shared__ uint64_t full[STAGES];
  __shared__ float tiles[STAGES][256];
  if (threadIdx.x < STAGES) cuda::ptx::mbarrier_init(&full[threadIdx.x], 1);
  __syncthreads();
  int stage = 0, phase = 0;
  float acc = 0.f;
  for (int i = 0; i < n; ++i) {
    uint64_t* bar = &full[stage];
    while (!cuda::ptx::mbarrier_try_wait_parity(bar, phase)) {}
    acc += tiles[stage][threadIdx.x];
    if (++stage == STAGES) { stage = 0; phase ^= 1; }
  }
  out[threadIdx.x] = acc;
}`,
    references: ['issue 13: wrapper layers and ring positions (flashinfer tinygemm polled the initial stage\'s barriers in its compute loop)'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const defs = slotAddressDefs(k);
      if (!defs.size) continue;
      const reported = new Set<string>();
      for (const w of k.sites) {
        // The address variable itself (a `uint32_t` the front end keeps as its own base) or the alias it came through.
        const base = w.op.barrier?.through ?? w.op.barrier?.base;
        const def = base ? defs.get(base) : undefined;
        if (!def || !WAIT_KINDS.has(w.op.kind) || reported.has(base!)) continue;
        // The innermost loop around the wait that the address was taken outside of.
        const loop = [...k.loops(w)].reverse().find((l) => !def.loops.includes(l));
        if (!loop) continue;
        const assigned = loopAssigned(loop);
        const moved = [...freeVars(def.index)].filter((v) => assigned.has(v));
        if (!moved.length) continue;
        reported.add(base!);
        const names = moved.map((v) => `\`${v.replace(/#\d+$/, '')}\``).join(' and ');
        ctx.report({
          range: w.op.range,
          message: `This wait polls \`${barrierName(w.op)}\`, the address of \`${def.array.replace(/#\d+$/, '')}[${exprText(def.index)}]\` taken on line ${line1(def.value.range)}, before the loop on line ${line1(loop.range)}; the loop advances ${names} but never recomputes the address, so every iteration waits on the slot of the first one while it uses the current slot: it passes before the current slot's data lands, or waits for a phase that slot never completes (hang). Take the barrier's address inside the loop.`,
          related: [
            { range: def.value.range, message: 'the address, taken once' },
            { range: loop.range, message: `the loop that advances ${names}` },
          ],
        });
      }
    }
  },
};
