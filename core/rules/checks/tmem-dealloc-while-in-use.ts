// PF206: tensor memory freed (tcgen05.dealloc) by one warp while other threads may still issue tcgen05 operations on it.
import type { Stmt } from '../../ir/types';
import type { RuleDef } from '../types';
import { isBlockingWait } from '../op-kinds';
import { line1 } from '../naming';
import { opStatements, ProgramOrder, touchesTmem } from '../tmem-order';

type OpStmt = Extract<Stmt, { kind: 'op' }>;

/** Syncs after which every participating thread is past its earlier code (a named barrier is taken to cover its users). */
const COVERING_SYNCS = new Set(['block', 'cluster', 'cluster-wait', 'named']);

/** Whether `s` is a sync every thread passes, or an `if` each of whose (live) branches holds one at its top level. */
function isCoveringSync(s: Stmt, order: ProgramOrder): boolean {
  if (s.kind === 'sync') return COVERING_SYNCS.has(s.scope);
  if (s.kind === 'if') {
    const lists = order.liveLists(s);
    return lists.length > 0 && lists.every((branch) => branch.some((c) => isCoveringSync(c, order)));
  }
  return false;
}

/** The first tcgen05 operation inside `s` (itself or nested, dead branches left out), if any. */
function tmemUseIn(s: Stmt, order: ProgramOrder): OpStmt | undefined {
  if (s.kind === 'op') return touchesTmem(s.op) ? s : undefined;
  for (const list of order.liveLists(s)) for (const c of list) {
    const found = tmemUseIn(c, order);
    if (found) return found;
  }
  return undefined;
}

/** Whether a loop body holds, at its top level, a covering sync after its last statement with tensor-memory work. */
function endsCovered(body: Stmt[], order: ProgramOrder): boolean {
  let last = -1;
  body.forEach((c, i) => {
    if (tmemUseIn(c, order)) last = i;
  });
  return last >= 0 && body.slice(last + 1).some((c) => isCoveringSync(c, order));
}

export const tmemDeallocWhileInUse: RuleDef = {
  meta: {
    id: 'tmem-dealloc-while-in-use',
    code: 'PF206',
    family: 'bootstrap',
    defaultSeverity: 'warning',
    summary: 'tcgen05.dealloc runs in one warp with no CTA-wide sync after the tensor-memory work of the other threads.',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Reports a `tcgen05.dealloc` (or a wrapper that inlines to it: CuTe `TMEM::Allocator1Sm().free`, ThunderKittens `deprovision`) that only some threads reach and that follows tensor-memory work (tcgen05.ld/st/cp/mma or tcgen05.wait) in a loop or a branch with nothing in between that makes the other threads finish first: no `__syncthreads()`/`bar.sync 0`, no named barrier, no cluster sync, no mbarrier wait written directly before the dealloc. A loop whose body ends with such a sync after its tensor-memory work counts as covered.',
    whyIsThisBad:
      'The allocating warp frees the columns as soon as it gets there. Warps that are still in their last tile keep reading or writing the freed tensor memory, which another CTA on the same SM may already have allocated: a race with wrong results or a fault, depending on timing. With `cta_group::2` the peer CTA\'s MMA may also still write it, which needs a cluster sync.',
    bad: `__global__ void k(uint32_t* tmem_slot, float* out, int tiles) {
  if (threadIdx.x < 32) asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" :: "l"(tmem_slot));
  __syncthreads();
  uint32_t tmem = *tmem_slot;
  for (int t = 0; t < tiles; ++t) {
    uint32_t v;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(v) : "r"(tmem));
    asm volatile("tcgen05.wait::ld.sync.aligned;");
    out[t * blockDim.x + threadIdx.x] = __int_as_float(v);
  }
  if (threadIdx.x < 32) asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(tmem));
}`,
    good: `__global__ void k(uint32_t* tmem_slot, float* out, int tiles) {
  if (threadIdx.x < 32) asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" :: "l"(tmem_slot));
  __syncthreads();
  uint32_t tmem = *tmem_slot;
  for (int t = 0; t < tiles; ++t) {
    uint32_t v;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(v) : "r"(tmem));
    asm volatile("tcgen05.wait::ld.sync.aligned;");
    out[t * blockDim.x + threadIdx.x] = __int_as_float(v);
  }
  __syncthreads();
  if (threadIdx.x < 32) asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(tmem));
}`,
    references: ['PTX ISA, tcgen05.alloc / tcgen05.dealloc', 'DeepGEMM #292 (sync before TMEM dealloc)'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const ops = opStatements(k.kernel);
      const deallocs = ops.filter((s) => s.op.kind === 'tmem-dealloc');
      if (!deallocs.length || !ops.some((s) => touchesTmem(s.op))) continue;
      const order = new ProgramOrder(k.kernel, (e) => k.value(e));
      for (const d of deallocs) {
        // Only some threads free the memory; the others are what may still be using it.
        if (![...order.owners(d)].some((o) => o.kind === 'if')) continue;
        let use: OpStmt | undefined;
        for (const p of order.precedingUnits(d)) {
          if (isCoveringSync(p, order) || (p.kind === 'op' && (isBlockingWait(p.op) || p.op.kind === 'arrive-and-wait'))) break;
          // A loop whose body meets every thread at a sync after its last tensor-memory work ends covered: its last
          // iteration does so too. Any other loop or branch holding such work leaves it uncovered on some path.
          if (p.kind === 'loop' && endsCovered(p.body, order)) break;
          use = tmemUseIn(p, order);
          if (use) break;
        }
        if (!use) continue;
        ctx.report({
          range: d.op.range,
          message: `This tcgen05.dealloc frees tensor memory that other threads may still be using: the tcgen05 operation at line ${line1(use.op.range)} is run by more threads than this dealloc, and no __syncthreads()/named barrier/cluster sync between them makes those threads finish first. The freed columns can be handed to another CTA while they are still read or written.`,
          related: [{ range: use.op.range, message: 'tensor-memory work that may still be in flight in other warps' }],
        });
      }
    }
  },
};
