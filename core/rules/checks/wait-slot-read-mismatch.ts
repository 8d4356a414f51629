// PF106: waiting on one ring slot, then reading the buffer of another slot.
import { exprKey, freeVars } from '../../ir/expr';
import { loopAssigned, ringSize, visitStmts } from '../../analysis/facts';
import type { Expr, Stmt } from '../../ir/types';
import type { RuleDef } from '../types';
import { barrierName, line1 } from '../naming';
import { isBlockingWait } from '../op-kinds';

/** The ring part of a slot index: `2 + i % 2` -> `i % 2` (array offsets are not part of the ring). */
function ringPart(e: Expr | undefined, value: (e: Expr) => number | undefined): Expr | undefined {
  if (e?.kind === 'binary' && e.op === '+') {
    if (value(e.left) !== undefined) return e.right;
    if (value(e.right) !== undefined) return e.left;
  }
  return e;
}

export const waitSlotReadMismatch: RuleDef = {
  meta: {
    id: 'wait-slot-read-mismatch',
    code: 'PF106',
    family: 'phase',
    defaultSeverity: 'warning',
    summary: 'A consumer waits on one ring slot and then reads the buffer of another slot.',
    languages: ['cuda', 'croqtile', 'tilus'],
    fix: 'none',
  },
  docs: {
    whatItDoes: 'In a pipeline loop, after a wait on `full[s]` of a ring of S barriers, reports reads of a shared buffer with S slots through a different slot index, before the next wait on that ring.',
    whyIsThisBad: 'The wait only guarantees that slot `s` has been filled. Reading another slot reads a buffer the producer may still be writing: a data race that produces wrong results only under some timings.',
    bad: `#include <cuda/ptx>
#define S 2
__global__ void k(int n, float* out) {
  __shared__ uint64_t full[S];
  __shared__ float buf[S][128];
  if (threadIdx.x < S) cuda::ptx::mbarrier_init(&full[threadIdx.x], blockDim.x);
  __syncthreads();
  for (int i = 0; i < n; ++i) {
    (void)cuda::ptx::mbarrier_arrive(&full[i % S]);
    while (!cuda::ptx::mbarrier_try_wait_parity(&full[i % S], (i / S) & 1)) {}
    out[i] = buf[(i + 1) % S][threadIdx.x];
  }
}`,
    good: `#include <cuda/ptx>
#define S 2
__global__ void k(int n, float* out) {
  __shared__ uint64_t full[S];
  __shared__ float buf[S][128];
  if (threadIdx.x < S) cuda::ptx::mbarrier_init(&full[threadIdx.x], blockDim.x);
  __syncthreads();
  for (int i = 0; i < n; ++i) {
    (void)cuda::ptx::mbarrier_arrive(&full[i % S]);
    while (!cuda::ptx::mbarrier_try_wait_parity(&full[i % S], (i / S) & 1)) {}
    out[i] = buf[i % S][threadIdx.x];
  }
}`,
    references: ['Croqtile tutorial, the 1P1C event pipeline (wait and read the same stage)'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const value = (e: Expr): number | undefined => k.value(e);
      for (const s of k.sites) {
        if (!isBlockingWait(s.op) || !s.op.barrier?.index) continue;
        const loop = k.innermostLoop(s);
        if (!loop) continue;
        const slots = ringSize(s.op.barrier.index, loop, k);
        if (!slots || slots < 2) continue;
        const waited = ringPart(s.op.barrier.index, value)!;
        const assigned = loopAssigned(loop);
        // Compare slots after replacing single-definition locals (`const int s = k % S`) by their value.
        const resolve = (e: Expr): Expr => k.resolve(e, loop);
        const after = s.list.slice(s.index + 1);
        const reads: { read: Extract<Stmt, { kind: 'access' }>; moved: Set<string> }[] = [];
        const moved = new Set<string>();
        for (const st of after) {
          if (st.kind === 'op' && isBlockingWait(st.op) && st.op.barrier?.base === s.op.barrier.base) break;
          visitStmts([st], (x) => {
            if (x.kind === 'access' && !x.write) reads.push({ read: x, moved: new Set(moved) });
            if (x.kind === 'assign' && x.op !== 'call-arg') moved.add(x.target);
          });
        }
        const barrierBases = new Set(k.sites.map((x) => x.op.barrier?.base));
        for (const { read: r, moved: changed } of reads) {
          if (barrierBases.has(r.array)) continue;
          const len = k.kernel.decls.get(r.array)?.length ?? k.constants.get(k.kernel.decls.get(r.array)?.lengthExpr?.text ?? '');
          if (len !== slots) continue;
          const idx = resolve(r.index);
          // Same spelling but the slot variable advanced since the wait (`++stage` in between) is another slot.
          const advanced = [...freeVars(r.index)].some((v) => changed.has(v));
          if (exprKey(idx) === exprKey(resolve(waited)) && !advanced) continue;
          if (![...freeVars(r.index)].some((v) => assigned.has(v)) && ![...freeVars(idx)].some((v) => assigned.has(v))) continue;
          ctx.report({
            range: r.range,
            message: `This reads slot \`${r.index.text}\` of \`${r.array}\`, but the wait on line ${line1(s.op.range)} only covers slot \`${waited.text}\` of \`${barrierName(s.op)}\`: the producer may still be filling the slot read here (data race).`,
            related: [{ range: s.op.range, message: `the wait that guards slot ${waited.text}` }],
          });
          break;
        }
      }
    }
  },
};
